"""What the storm waits for before it checks: the outbox drained, every subscriber caught up with its unit's events."""

from __future__ import annotations

import asyncio
import time
from uuid import UUID

import asyncpg

from bench._storm_subscriber import Subscriber


async def slot_seqs(pool: asyncpg.Pool, unit_id: UUID) -> list[int]:
    """The unit's numbered grid events (what slotChanged streams), in order."""
    return [r["seq"] for r in await pool.fetch(
        "SELECT seq FROM outbox WHERE unit_id = $1 AND topic IN ('slot_changed', 'block_changed') "
        "AND seq IS NOT NULL ORDER BY seq", unit_id)]


async def caught_up(pool: asyncpg.Pool, subscribers: list[Subscriber], timeout: float) -> set[UUID]:
    """Wait until every subscriber has seen its unit's latest event; the units whose subscribers all did."""
    deadline = time.monotonic() + timeout
    while True:
        done = set()
        for unit in {s.unit for s in subscribers}:
            every = await slot_seqs(pool, unit)
            last = every[-1] if every else 0
            if all((s.seqs[-1] if s.seqs else 0) >= last for s in subscribers if s.unit == unit):
                done.add(unit)
        if len(done) == len({s.unit for s in subscribers}) or time.monotonic() > deadline:
            return done
        await asyncio.sleep(0.5)


async def outbox_drained(pool: asyncpg.Pool, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not await pool.fetchval("SELECT count(*) FROM outbox WHERE seq IS NULL OR published_at IS NULL"):
            return True
        await asyncio.sleep(0.5)
    return False
