"""Past-tense facts recorded by aggregates, written to the audit trail and the outbox."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from uuid import UUID


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
