"""The audit trail's hash chain: committed booking events are chained by the relay's leader (migration 0032a)."""

from __future__ import annotations

import asyncpg

CHAIN_BATCH = 1000


async def chain_pending(conn: asyncpg.Connection, batch: int = CHAIN_BATCH) -> int:
    """Chain up to `batch` committed events that have no hash yet, in id order; how many. Run it in a transaction:
    the unit heads it advances stay locked until that commits."""
    n: int = await conn.fetchval("SELECT booking_events_chain_pending($1::int)", batch)
    return n


async def chain_all_pending(conn: asyncpg.Connection) -> int:
    """Chain every pending event, a batch a transaction (what the tests run where no relay does)."""
    total = 0
    while True:
        async with conn.transaction():
            n = await chain_pending(conn)
        total += n
        if n < CHAIN_BATCH:
            return total
