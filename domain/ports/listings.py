"""The keyset pages of the lists that grow, read in a unit of work (store/listings.py; domain/pages.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol
from uuid import UUID

from domain.bookings import Booking, HistoryEntry
from domain.pages import Page, PageRequest
from domain.payments import Charge
from domain.series import Series
from domain.staff_queue import QueueItem

if TYPE_CHECKING:
    from domain.listings import BookingSearch, CustomerSearch


class Listings(Protocol):
    """One page of each list, in the order its Ordering names (domain/listings.py)."""

    async def bookings(self, search: BookingSearch, page: PageRequest) -> Page[Booking]:
        """The bookings the search matches, by start time then id."""
        ...

    async def queue(self, unit_id: UUID, statuses: list[str], page: PageRequest) -> Page[QueueItem]: ...

    async def series(self, unit_id: UUID, statuses: list[str] | None, page: PageRequest) -> Page[Series]:
        """A unit's series (in those stored statuses; None: any), newest first."""
        ...

    async def charges(self, booking_id: UUID, page: PageRequest) -> Page[Charge]: ...

    async def slot_waitlist(self, unit_id: UUID, page: PageRequest) -> Page[dict[str, Any]]:
        """The live entries of the unit's slot waitlists, each with its place in its line."""
        ...

    async def walk_ins(self, unit_id: UUID, page: PageRequest) -> Page[dict[str, Any]]: ...

    async def customers(self, search: CustomerSearch, page: PageRequest) -> Page[dict[str, Any]]: ...

    async def booking_history(self, booking_id: UUID, page: PageRequest) -> Page[HistoryEntry]: ...

    async def unit_history(self, unit_id: UUID, page: PageRequest) -> Page[HistoryEntry]: ...
