"""The transactional outbox: numbering events per unit, publishing state, replay and pruning."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

import asyncpg

from domain.events import Fact
from domain.outbox import OutboxEvent as OutboxEvent  # re-exported: the store reads and writes them
from store.bookings import ConnGetter

RELAY_LOCK_KEY = 0x51070D0000000001  # one relay leader at a time, across all workers
EVENTS_CHANNEL = "slothold:events"  # the Redis channel every API process listens to

_SEQUENCE = """
WITH picked AS (
    SELECT id, unit_id FROM outbox WHERE seq IS NULL ORDER BY id LIMIT $1::int FOR UPDATE
), batch AS (
    SELECT id, unit_id, row_number() OVER (PARTITION BY unit_id ORDER BY id) AS rn FROM picked
), counts AS (
    SELECT unit_id, count(*) AS n FROM batch GROUP BY unit_id
), bumped AS (
    INSERT INTO unit_sequences AS us (unit_id, last_seq) SELECT unit_id, n FROM counts
    ON CONFLICT (unit_id) DO UPDATE SET last_seq = us.last_seq + EXCLUDED.last_seq
    RETURNING unit_id, last_seq
)
UPDATE outbox o SET seq = bumped.last_seq - counts.n + batch.rn
FROM batch JOIN counts USING (unit_id) JOIN bumped USING (unit_id)
WHERE o.id = batch.id
"""

_UNPUBLISHED = """
SELECT id, unit_id, seq, topic, payload FROM outbox
WHERE published_at IS NULL AND seq IS NOT NULL
ORDER BY id LIMIT $1::int
"""

_SINCE = """
SELECT id, unit_id, seq, topic, payload FROM outbox
WHERE unit_id = $1::uuid AND seq > $2::bigint AND seq IS NOT NULL
ORDER BY seq LIMIT $3::int
"""


def _event(r: Any) -> OutboxEvent:
    return OutboxEvent(r["id"], r["unit_id"], r["seq"], r["topic"], r["payload"])


async def sequence_pending(conn: asyncpg.Connection, batch: int = 1000) -> int:
    """Give the next per-unit sequence numbers to committed, unnumbered rows (leader relay only)."""
    status: str = await conn.execute(_SEQUENCE, batch)
    return int(status.split()[-1])


async def unpublished(conn: asyncpg.Connection, batch: int = 1000) -> list[OutboxEvent]:
    """Numbered rows not yet published, oldest first."""
    return [_event(r) for r in await conn.fetch(_UNPUBLISHED, batch)]


async def mark_published(conn: asyncpg.Connection, ids: list[int], at: datetime) -> None:
    """Record that these rows reached Redis."""
    await conn.execute("UPDATE outbox SET published_at = $2 WHERE id = ANY($1::bigint[])", ids, at)


async def prune(conn: asyncpg.Connection, published_before: datetime, now: datetime) -> tuple[int, int]:
    """Delete published outbox rows older than the retention and expired idempotency keys."""
    a = await conn.execute(
        "DELETE FROM outbox WHERE published_at IS NOT NULL AND created_at < $1", published_before)
    b = await conn.execute("DELETE FROM idempotency_keys WHERE expires_at < $1", now)
    return int(a.split()[-1]), int(b.split()[-1])


class PgRetention:
    """domain.ports.Retention on the pool: `prune` on one of its connections."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def prune(self, published_before: datetime, now: datetime) -> tuple[int, int]:
        async with self._pool.acquire() as conn:
            return await prune(conn, published_before, now)


class PgEvents:
    """Reading a unit's numbered events (for subscribers that reconnect with `since`)."""

    def __init__(self, conn: ConnGetter) -> None:
        self._conn = conn

    async def since(self, unit_id: UUID, seq: int, limit: int = 1000) -> list[OutboxEvent]:
        """Events of the unit with a sequence above `seq`, in order."""
        conn = await self._conn()
        return [_event(r) for r in await conn.fetch(_SINCE, unit_id, seq, limit)]

    async def last_seq(self, unit_id: UUID) -> int:
        """The unit's latest assigned sequence number (0 when none)."""
        conn = await self._conn()
        value = await conn.fetchval("SELECT last_seq FROM unit_sequences WHERE unit_id = $1", unit_id)
        return int(value or 0)

    async def notify(self, unit_id: UUID, event: Fact) -> None:
        """Add the event's outbox row in the current transaction."""
        conn = await self._conn()
        await conn.execute("INSERT INTO outbox (unit_id, topic, payload) VALUES ($1, $2, $3)",
                           unit_id, event.TOPIC, event.to_json())
