"""Past-tense facts recorded by aggregates, written to the audit trail and the outbox."""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

AUDIT_SESSION: ContextVar[str | None] = ContextVar("audit_session", default=None)
"""The credential the current request came through (`staff:<token id>`, `customer:<session id>`, ...), recorded
with every audit row it writes (SPEC §15); unset (None) in jobs."""


@dataclass(frozen=True)
class BookingEvent:
    """A booking changed state (old_status None: it was created)."""

    booking_id: UUID
    unit_id: UUID
    old_status: str | None
    new_status: str
    hold_type: str | None
    actor: str
    channel: str
    at: datetime
    reason: str | None
    previous_deadline: datetime | None = None
    """The hold's deadline before this change (its deadline job is obsolete when it moved or ended)."""
    previous_remind_at: datetime | None = None

    @property
    def name(self) -> str:
        """Event name for subscribers and integrators, e.g. booking.held."""
        return f"booking.{self.new_status}"
