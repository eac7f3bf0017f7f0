"""The relay's connection to the outbox (domain.ports.OutboxSource / OutboxFeed): a connection of its own that
leads by a session advisory lock, hears commits by LISTEN, numbers, reads and marks rows, and plans what they ask
for (webhook deliveries, notification deliveries). The driver's errors leave it as the port says: StoreError for a
failed or refused statement, ConnectionError for a connection that is gone."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from datetime import datetime
from uuid import UUID

import asyncpg

from domain.events import MalformedEvent
from domain.outbox import OutboxEvent
from domain.ports import StoreError
from store.audit_chain import chain_pending
from store.notifications import plan_deliveries
from store.outbox import EVENTS_CHANNEL, RELAY_LOCK_KEY, mark_published, sequence_pending, unpublished
from store.webhooks_out import schedule

LISTEN_CHANNEL = "slothold_outbox"
"""What the outbox trigger NOTIFYs on each commit (migrations)."""


class ValueRefused(StoreError, ValueError):
    """A value the driver could not send (asyncpg's client-side DataError): a StoreError, and the ValueError it was
    (so the relay skips the row that carried it as it skips any malformed row)."""


@contextmanager
def _as_port_errors() -> Iterator[None]:
    try:
        yield
    except asyncpg.InterfaceError as e:
        if isinstance(e, ValueError):
            raise ValueRefused(f"{type(e).__name__}: {e}") from e
        raise ConnectionError(f"{type(e).__name__}: {e}") from e  # the connection is closed or broken
    except asyncpg.PostgresError as e:
        raise StoreError(f"{type(e).__name__}: {e}") from e


class PgOutboxFeed:
    """OutboxFeed on one asyncpg connection (its jsonb read and written as JSON)."""

    def __init__(self, conn: asyncpg.Connection) -> None:
        self.conn = conn

    async def lead(self) -> bool:
        with _as_port_errors():
            return bool(await self.conn.fetchval("SELECT pg_try_advisory_lock($1)", RELAY_LOCK_KEY))

    async def listen(self, wake: Callable[[], object]) -> None:
        with _as_port_errors():
            await self.conn.add_listener(LISTEN_CHANNEL, lambda *_: wake())

    async def sequence_pending(self) -> int:
        with _as_port_errors():
            async with self.conn.transaction():
                return await sequence_pending(self.conn)

    async def chain_pending(self) -> int:
        with _as_port_errors():
            async with self.conn.transaction():
                return await chain_pending(self.conn)

    async def unpublished(self) -> list[OutboxEvent]:
        with _as_port_errors():
            return await unpublished(self.conn)

    async def mark_published(self, ids: list[int], at: datetime) -> None:
        with _as_port_errors():
            await mark_published(self.conn, ids, at)

    async def schedule_webhooks(self, events: list[OutboxEvent], now: datetime) -> list[tuple[UUID, int]]:
        with _as_port_errors():
            async with self.conn.transaction():
                return await schedule(self.conn, events, now)

    async def plan_notifications(self, event: OutboxEvent, now: datetime) -> list[UUID]:
        with _as_port_errors():
            try:
                return await plan_deliveries(self.conn, event.id, event.unit_id, event.fact, now)
            except (asyncpg.DataError, asyncpg.IntegrityConstraintViolationError) as e:  # what the row holds
                raise MalformedEvent(f"{type(e).__name__}: {e}") from e


class PgOutboxSource:
    """OutboxSource of a database: each feed on a new connection of its own (named slothold-relay)."""

    channel = EVENTS_CHANNEL

    def __init__(self, database_url: str) -> None:
        self.database_url = database_url

    @asynccontextmanager
    async def open(self) -> AsyncIterator[PgOutboxFeed]:
        with _as_port_errors():
            conn = await asyncpg.connect(self.database_url, server_settings={"application_name": "slothold-relay"})
        try:
            with _as_port_errors():
                await conn.set_type_codec("jsonb", encoder=json.dumps, decoder=json.loads, schema="pg_catalog")
            yield PgOutboxFeed(conn)
        finally:
            with _as_port_errors():
                await conn.close()
