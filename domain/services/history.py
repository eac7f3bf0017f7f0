"""A booking's audit trail (SPEC §15)."""

from __future__ import annotations

from uuid import UUID

from domain.bookings import HistoryEntry
from domain.errors import InvalidInput
from domain.services.deps import Deps

HISTORY_MAX = 500


async def booking_history(deps: Deps, booking_id: UUID, first: int = 100) -> list[HistoryEntry]:
    """A booking's audit trail, oldest first: its first `first` (1..500) booking_events rows (SPEC §15)."""
    if not 1 <= first <= HISTORY_MAX:
        raise InvalidInput("first", f"first must be between 1 and {HISTORY_MAX}")
    async with deps.uow() as uow:
        return list(await uow.bookings.history(booking_id, first))
