"""The API's stop never hangs on a database connection left in use (slothold/app.py `close_pool`)."""

from __future__ import annotations

import time

from slothold.app import close_pool
from store.db import create_pool


async def test_a_pool_with_a_connection_never_given_back_closes_within_its_bound(database_url: str) -> None:
    pool = await create_pool(database_url, 1, 2)
    held = await pool.acquire()  # a request cancelled at the stop that never released it
    started = time.monotonic()
    await close_pool(pool, 0.5)  # asyncpg's own close() would wait for it forever
    assert time.monotonic() - started < 3
    assert pool.is_closing()
    assert held._con is None or held._con.is_closed()  # cut, not left open on the server


async def test_a_pool_whose_connections_came_back_closes_at_once(database_url: str) -> None:
    pool = await create_pool(database_url, 1, 2)
    async with pool.acquire() as conn:
        await conn.fetchval("SELECT 1")
    started = time.monotonic()
    await close_pool(pool, 5)
    assert time.monotonic() - started < 1 and pool.is_closing()
