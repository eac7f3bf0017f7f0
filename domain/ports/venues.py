"""The repositories of a venue's configuration and of what occupies it: units and their resources, bookings and
their allocations (store/units.py, store/bookings.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol
from uuid import UUID

from domain.availability import Occupancy, OccupancyColumns
from domain.bookings import Allocation, Booking, HistoryEntry
from domain.units import OpeningWindow, Resource, Unit


class UnitRepository(Protocol):
    """Units and their resources (read-mostly configuration)."""

    async def get(self, unit_id: UUID) -> Unit: ...

    async def resources(self, unit_id: UUID) -> list[Resource]: ...

    async def resources_by_id(self, unit_id: UUID, ids: list[UUID]) -> dict[UUID, Resource]: ...

    async def capacity_by_hours(self, unit_id: UUID) -> dict[tuple[OpeningWindow, ...], int]: ...

    async def seat_resources(self, unit_id: UUID, ids: list[UUID]) -> dict[UUID, Resource]: ...


class BookingRepository(Protocol):
    """Bookings and the allocations that occupy resources."""

    async def get(self, booking_id: UUID) -> Booking: ...

    async def find(self, booking_id: UUID) -> Booking: ...

    async def lock_resources(self, unit_id: UUID, resource_ids: list[UUID]) -> None: ...

    async def lapsed_overlapping(
        self, unit_id: UUID, allocations: list[Allocation], now: datetime
    ) -> list[Booking]: ...

    async def lapsed(self, now: datetime, limit: int) -> list[Booking]: ...

    async def past_checked_in(self, now: datetime, limit: int) -> list[Booking]: ...

    async def claim_reminder(self, booking_id: UUID, now: datetime) -> Booking | None: ...

    async def history(self, booking_id: UUID, limit: int) -> list[HistoryEntry]: ...

    async def add(self, booking: Booking, slot_starts: dict[UUID, list[datetime]]) -> None: ...

    async def lock_and_add(self, booking: Booking, slot_starts: dict[UUID, list[datetime]], now: datetime
                           ) -> list[Booking]:
        """Lock the booking's resources and add it, unless lapsed holds occupy its ranges: then nothing is added and
        they are returned, locked for change (the resources stay locked). SlotTaken when a live booking or block
        visibly occupies an exclusive range (answered without waiting for the lock)."""
        ...

    async def save(self, booking: Booking) -> None: ...

    async def reoccupy(self, booking: Booking) -> None: ...

    async def link_reschedule(self, old: Booking, new: Booking, move_payments: bool, at: datetime) -> int: ...

    async def occupancy(
        self, unit_id: UUID, resource_ids: list[UUID] | None, start: datetime, end: datetime
    ) -> list[Occupancy]: ...

    async def taken_or_busy(self, unit_id: UUID, resource_ids: list[UUID], start: datetime, end: datetime,
                            now: datetime, claim: bool) -> tuple[bool, bool]:
        """(taken, busy) of exclusive resources over [start, end): whether a live booking or block visibly occupies
        one, else whether another transaction is placing a booking on one — it holds the resource's lock or, with
        `claim`, its claim, which this call takes where it is free (held until the transaction ends, never waited
        for: a claim only says "someone is going for it" to the others' looks). Waits for nothing."""
        ...

    async def grid_occupancy(
        self, unit_id: UUID, resource_ids: list[UUID] | None, start: datetime, end: datetime
    ) -> dict[UUID, OccupancyColumns]:
        """The same as occupancy(), as columns per resource (a month's grid reads thousands)."""
        ...
