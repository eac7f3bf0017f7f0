"""The unit of work: one connection and one transaction, opened lazily, committed explicitly."""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextvars import ContextVar, Token
from functools import cached_property
from types import TracebackType
from typing import Any, Self, TypeVar

import asyncpg

from domain.errors import Busy
from store import allowed_origins, catalog
from store.antifraud import PgAntifraud
from store.bookings import ConnGetter, PgBookings
from store.calendar_feeds import PgCalendarFeeds
from store.catalog import PgCatalog
from store.customers import PgCustomers
from store.idempotency import PgIdempotencyKeys
from store.layout import PgLayout
from store.listings import PgListings
from store.manual_payments import PgManualPayments
from store.orphans import PgOrphanPayments
from store.outbox import PgEvents
from store.payments import PgPayments
from store.queue import PgQueue
from store.seatmaps import PgSeatMaps
from store.series import PgSeries
from store.setup import PgSetup
from store.staff_tokens import PgStaffTokens
from store.unit_settings import PgUnitSettings
from store.units import PgUnits, invalidate
from store.venue_log import PgVenueLog
from store.waitlists import PgWaitlists

log = logging.getLogger("slothold.uow")
R = TypeVar("R")
_BUSY = (asyncpg.DeadlockDetectedError, asyncpg.LockNotAvailableError, asyncpg.SerializationError)
_FULL = (asyncpg.TooManyConnectionsError, asyncpg.CannotConnectNowError)
"""PostgreSQL refused a new connection (at max_connections or the role's limit; starting up): nothing was done, so
the caller may retry in a moment — a Busy, never an internal error."""
_LOST = (asyncpg.PostgresConnectionError, asyncpg.AdminShutdownError, asyncpg.InterfaceError,
         asyncpg.InternalClientError, ConnectionError)
"""The connection went away mid-transaction (a restart, a failover, a cut): nothing was committed unless the commit
itself was under way, so the caller may retry — with an idempotency key when it creates something."""


_HOLDING: ContextVar[PgUnitOfWork | None] = ContextVar("slothold_uow_holding", default=None)
"""The unit of work whose transaction this task (or the task that started it) holds a connection for."""

STRICT_NESTING = False
"""True (the test suite): a unit of work that takes a connection while another of the same task holds one raises
NestedUnitOfWork. Otherwise it is logged: each such nesting waits for a second connection of a pool its own
transaction draws from, and with every connection so held none is given back (tests/api/test_pool_nesting.py)."""


class NestedUnitOfWork(RuntimeError):
    """A unit of work opened its transaction inside another's (see STRICT_NESTING)."""


def _repository(make: Callable[[ConnGetter], R]) -> cached_property[R]:
    """A repository on the unit of work's connection, made at its first use."""
    def get(self: PgUnitOfWork) -> R:
        return make(self._connection)
    return cached_property(get)


def _config_repository(make: Callable[[asyncpg.Pool], R]) -> cached_property[R]:
    """A repository of the cached configuration (its own pool), made at its first use."""
    def get(self: PgUnitOfWork) -> R:
        return make(self._config_pool)
    return cached_property(get)


class PgUnitOfWork:
    """UnitOfWork over an asyncpg pool; rolls back unless `commit` was called. Its repositories are made when a use
    case first reaches for one (a hold touches 5 of 22; py-spy put making them all at 4 % of an API worker on the hot
    slot, though no change in throughput was measurable)."""

    def __init__(self, pool: asyncpg.Pool, config_pool: asyncpg.Pool | None = None) -> None:
        """`config_pool`: where the cached configuration (units, resources) loads from — a small pool of its own,
        so that a transaction holding one of `pool`'s connections never waits for another of them (which, with every
        connection so held, would wait forever: behind PgBouncer's few server connections it did). None: `pool`
        (tests and one-off tools, which never run out)."""
        self._pool = pool
        self._config_pool = config_pool or pool
        self._conn: asyncpg.Connection | None = None
        self._tx: asyncpg.transaction.Transaction | None = None
        self._holding: Token[PgUnitOfWork | None] | None = None
        self._done = False

    units = _config_repository(PgUnits)
    bookings = _repository(PgBookings)
    customers = _repository(PgCustomers)
    idempotency = _repository(PgIdempotencyKeys)
    events = _repository(PgEvents)
    payments = _repository(PgPayments)
    queue = _repository(PgQueue)
    waitlists = _repository(PgWaitlists)
    antifraud = _repository(PgAntifraud)
    seatmaps = _repository(PgSeatMaps)
    venue_log = _repository(PgVenueLog)
    series = _repository(PgSeries)
    unit_settings = _repository(PgUnitSettings)
    layout = _repository(PgLayout)
    manual_payments = _repository(PgManualPayments)
    setup = _repository(PgSetup)
    staff_tokens = _repository(PgStaffTokens)
    orphans = _repository(PgOrphanPayments)
    allowed_origins = _repository(allowed_origins.PgAllowedOrigins)
    listings = _repository(PgListings)
    calendar_feeds = _repository(PgCalendarFeeds)

    @cached_property
    def catalog(self) -> PgCatalog:
        return PgCatalog(self._connection, self._config_pool)

    def _made(self, name: str) -> Any:
        """The repository `name` if this unit of work made it, else None."""
        return self.__dict__.get(name)

    async def _connection(self) -> asyncpg.Connection:
        if self._conn is None:
            outer = _HOLDING.get()
            if outer is not None and outer is not self and outer._conn is not None:
                if STRICT_NESTING:
                    raise NestedUnitOfWork("a unit of work opened a transaction inside another's (see STRICT_NESTING)")
                log.warning("a unit of work opened a transaction inside another's: it may wait for a connection "
                            "forever when the pool is exhausted", stack_info=True)
            self._conn = await self._pool.acquire()
            self._holding = _HOLDING.set(self)
            self._tx = self._conn.transaction()
            await self._tx.start()
        return self._conn

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            if self._tx is not None and not self._done:
                try:
                    await self._tx.rollback()
                except _LOST:
                    pass  # the connection is gone, and its transaction with it
        finally:
            if self._holding is not None:
                try:
                    _HOLDING.reset(self._holding)
                except ValueError:  # left in another context than it was entered in: forget it there
                    _HOLDING.set(None)
                self._holding = None
            if self._conn is not None:
                conn, self._conn = self._conn, None
                try:
                    await self._pool.release(conn)
                except _LOST:  # the pool has closed it; what was committed stays committed
                    log.warning("a database connection was lost on release")
        if isinstance(exc, _BUSY):
            raise Busy("the booking system is busy with that slot right now; try again in a moment") from exc
        if isinstance(exc, _LOST):
            raise Busy("the database connection was lost; try again (with the same idempotency key)") from exc
        if isinstance(exc, _FULL):
            raise Busy("the database has no connection free right now; try again in a moment") from exc

    def savepoint(self) -> asyncpg.transaction.Transaction:
        """A nested transaction (SAVEPOINT) on this unit of work's connection; use after the first statement."""
        assert self._conn is not None, "a savepoint needs the unit of work's transaction to have started"
        return self._conn.transaction()

    async def commit(self) -> None:
        """Make everything done in this unit of work permanent."""
        if self._tx is not None:
            await self._tx.commit()
        self._done = True
        layout, catalog_, payments, origins = (self._made(n) for n in ("layout", "catalog", "payments",
                                                                        "allowed_origins"))
        for unit_id in layout.touched if layout else ():  # a copy cached while the change was under way is stale now
            invalidate(unit_id)
        touched = (catalog_.touched if catalog_ else set()) | (payments.prices_touched if payments else set())
        if touched:
            catalog.forget(touched)
        if origins is not None and origins.touched:  # this process lets the new list in at once (others within seconds)
            allowed_origins.forget()
