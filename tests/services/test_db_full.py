"""A PostgreSQL that refuses new connections (at max_connections, or the role's limit) is a Busy the caller may retry,
never an internal error: found by the flash-sale benchmark on a shared server ("too many clients already"), where
lockSeats, lockBestSeats and confirm answered internal_error. Real PostgreSQL: a role whose CONNECTION LIMIT is 0
is refused exactly as a full server is (SQLSTATE 53300)."""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

from domain.errors import Busy
from domain.services import Deps, HoldCommand, hold
from store.db import create_pool
from store.uow import PgUnitOfWork
from tests.venues import arena, at, customer


async def test_a_refused_connection_is_busy_and_nothing_is_written(
        database_url: str, pool: Any, clock: Any) -> None:
    v = await arena(pool)
    role = f"slothold_full_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(database_url)
    await admin.execute(f'CREATE ROLE "{role}" LOGIN CONNECTION LIMIT 0')
    try:
        parts = urlsplit(database_url)
        host = parts.hostname or "127.0.0.1"
        netloc = f"{role}@{host}" + (f":{parts.port}" if parts.port else "")
        full = await create_pool(urlunsplit(parts._replace(netloc=netloc)), min_size=0, max_size=2)
        try:
            deps = Deps(uow=lambda: PgUnitOfWork(full), clock=clock)
            with pytest.raises(Busy, match="no connection free"):
                await hold(deps, HoldCommand(v.unit_id, at(8, 19), at(8, 20), (v.resource_ids["Campo 1"],),
                                             customer=customer(1)))
        finally:
            await full.close()
        assert await pool.fetchval("SELECT count(*) FROM bookings WHERE unit_id = $1", v.unit_id) == 0
    finally:
        await admin.execute(f'DROP ROLE "{role}"')
        await admin.close()
