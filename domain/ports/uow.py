"""The unit of work: one database transaction and the repositories a use case reaches through it
(store/uow.py)."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from types import TracebackType
from typing import TYPE_CHECKING, Protocol, Self

from domain.ports.calendar_feeds import CalendarFeedRepository
from domain.ports.catalog import CatalogRepository
from domain.ports.customers import AntifraudRepository, CustomerRepository
from domain.ports.listings import Listings
from domain.ports.origins import AllowedOriginsRepository
from domain.ports.payments import PaymentsRepository
from domain.ports.queue import QueueRepository
from domain.ports.records import Events, IdempotencyKeys
from domain.ports.venues import BookingRepository, UnitRepository
from domain.ports.waitlists import WaitlistRepository

if TYPE_CHECKING:  # domain.seatmaps uses the ports itself
    from domain.layout.ports import LayoutRepository
    from domain.manual_payments import ManualPayments
    from domain.orphans import OrphanPayments
    from domain.seatmaps import SeatMapRepository
    from domain.series import SeriesRepository
    from domain.setup import VenueSetup
    from domain.staff_tokens import StaffTokens
    from domain.unit_settings import UnitSettings
    from domain.venue_log import VenueLog


class UnitOfWork(Protocol):
    """One database transaction; nothing is kept unless `commit` is called."""

    # Read-only (properties): a use case reads its repositories from the unit of work and never replaces one, and
    # an implementation may then offer a subtype of each (a mutable attribute would have to be exactly this type).
    @property
    def units(self) -> UnitRepository: ...
    @property
    def bookings(self) -> BookingRepository: ...
    @property
    def customers(self) -> CustomerRepository: ...
    @property
    def idempotency(self) -> IdempotencyKeys: ...
    @property
    def events(self) -> Events: ...
    @property
    def payments(self) -> PaymentsRepository: ...
    @property
    def queue(self) -> QueueRepository: ...
    @property
    def antifraud(self) -> AntifraudRepository: ...
    @property
    def waitlists(self) -> WaitlistRepository:
        """Slot and capacity waitlists and walk-in queues (store/waitlists.py)."""
        ...
    @property
    def seatmaps(self) -> SeatMapRepository:
        """Seat maps, events and seat blocks (domain.seatmaps.SeatMapRepository)."""
        ...
    @property
    def venue_log(self) -> VenueLog:
        """Set-up changes with who made them, and their live event (domain/venue_log.py)."""
        ...
    @property
    def unit_settings(self) -> UnitSettings:
        """A unit's parameter columns, read and written (domain/unit_settings.py)."""
        ...
    @property
    def manual_payments(self) -> ManualPayments:
        """Payments recorded by hand, apart from Pix (domain/manual_payments.py)."""
        ...
    @property
    def setup(self) -> VenueSetup:
        """Tenants, organizations and units, created by the platform (domain/setup.py)."""
        ...
    @property
    def staff_tokens(self) -> StaffTokens:
        """Staff and integrator tokens, issued and revoked by owners (domain/staff_tokens.py)."""
        ...
    @property
    def orphans(self) -> OrphanPayments:
        """Pix that matched no charge: their payer and unit (domain/orphans.py)."""
        ...
    @property
    def catalog(self) -> CatalogRepository:
        """Services, their resources and their price versions with bands (store/catalog.py)."""
        ...

    @property
    def listings(self) -> Listings:
        """Keyset pages of the lists that grow: the bookings search, queue, charges, waitlists, audit trails."""
        ...

    @property
    def layout(self) -> LayoutRepository:
        """Resources, groups, hours, closed days, grid blocks (domain/layout/ports.py)."""
        ...
    @property
    def series(self) -> SeriesRepository:
        """Recurring bookings: series, their periods, their occurrences (store/series.py)."""
        ...
    @property
    def allowed_origins(self) -> AllowedOriginsRepository:
        """The web origins a unit lets call the API from a browser (domain/origins.py)."""
        ...
    @property
    def calendar_feeds(self) -> CalendarFeedRepository:
        """Calendar feeds: made, listed, revoked, and the bookings each shows (domain/calendar_feeds.py)."""
        ...

    def savepoint(self) -> AbstractAsyncContextManager[object]:
        """A nested transaction (a SAVEPOINT): leaving it by an exception undoes only what was done in it."""
        ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...

    async def commit(self) -> None: ...
