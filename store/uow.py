"""The unit of work: one connection and one transaction, opened lazily, committed explicitly."""

from __future__ import annotations

import logging
from types import TracebackType
from typing import Self

import asyncpg

from domain.errors import Busy
from store.antifraud import PgAntifraud
from store.bookings import PgBookings
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
from store.setup import PgSetup
from store.staff_tokens import PgStaffTokens
from store.unit_settings import PgUnitSettings
from store.units import PgUnits, invalidate
from store.venue_log import PgVenueLog
from store.waitlists import PgWaitlists

log = logging.getLogger("slothold.uow")
_BUSY = (asyncpg.DeadlockDetectedError, asyncpg.LockNotAvailableError, asyncpg.SerializationError)
_LOST = (asyncpg.PostgresConnectionError, asyncpg.AdminShutdownError, asyncpg.InterfaceError,
         asyncpg.InternalClientError, ConnectionError)
"""The connection went away mid-transaction (a restart, a failover, a cut): nothing was committed unless the commit
itself was under way, so the caller may retry — with an idempotency key when it creates something."""


class PgUnitOfWork:
    """UnitOfWork over an asyncpg pool; rolls back unless `commit` was called."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool
        self._conn: asyncpg.Connection | None = None
        self._tx: asyncpg.transaction.Transaction | None = None
        self._done = False
        self.units = PgUnits(pool)
        self.bookings = PgBookings(self._connection)
        self.customers = PgCustomers(self._connection)
        self.idempotency = PgIdempotencyKeys(self._connection)
        self.events = PgEvents(self._connection)
        self.payments = PgPayments(self._connection)
        self.queue = PgQueue(self._connection)
        self.waitlists = PgWaitlists(self._connection)
        self.antifraud = PgAntifraud(self._connection)
        self.seatmaps = PgSeatMaps(self._connection)
        self.venue_log = PgVenueLog(self._connection)
        self.unit_settings = PgUnitSettings(self._connection)
        self.layout = PgLayout(self._connection)
        self.manual_payments = PgManualPayments(self._connection)
        self.setup = PgSetup(self._connection)
        self.staff_tokens = PgStaffTokens(self._connection)
        self.orphans = PgOrphanPayments(self._connection)
        self.catalog = PgCatalog(self._connection)
        self.listings = PgListings(self._connection)

    async def _connection(self) -> asyncpg.Connection:
        if self._conn is None:
            self._conn = await self._pool.acquire()
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

    def savepoint(self) -> asyncpg.transaction.Transaction:
        """A nested transaction (SAVEPOINT) on this unit of work's connection; use after the first statement."""
        assert self._conn is not None, "a savepoint needs the unit of work's transaction to have started"
        return self._conn.transaction()

    async def commit(self) -> None:
        """Make everything done in this unit of work permanent."""
        if self._tx is not None:
            await self._tx.commit()
        self._done = True
        for unit_id in self.layout.touched:  # a copy cached while the change was under way is stale now
            invalidate(unit_id)
