"""The expiry sweep and the demo venue."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

from domain.bookings import BookingStatus
from domain.services import Deps, HoldCommand, expire_lapsed, hold
from slothold.cli.demo import DEMO_UNIT_ID, seed_demo
from slothold.cli.migrate import upgrade
from store.db import create_pool
from tests.venues import arena, at, customer


async def test_the_sweep_expires_lapsed_holds_once(deps: Deps, pool: Any, clock: Any) -> None:
    v = await arena(pool)
    made = [await hold(deps, HoldCommand(v.unit_id, at(8, h), at(8, h + 1), (v.resource_ids["Campo 1"],),
                                         customer=customer(h))) for h in (18, 19, 20)]
    clock.advance(minutes=10)
    await expire_lapsed(deps)
    await expire_lapsed(deps)
    async with pool.acquire() as conn:
        rows = await conn.fetch(
            "SELECT b.status, (SELECT count(*) FROM booking_events e WHERE e.booking_id = b.id "
            "AND e.new_status = 'expired') AS n, (SELECT bool_or(occupies) FROM allocations a "
            "WHERE a.booking_id = b.id) AS occ FROM bookings b WHERE b.id = ANY($1)", [m.booking.id for m in made])
    assert [(r["status"], r["n"], r["occ"]) for r in rows] == [("expired", 1, False)] * 3


async def test_the_audit_trail_refuses_updates_and_deletes(deps: Deps, pool: Any) -> None:
    import asyncpg
    import pytest

    v = await arena(pool)
    await hold(deps, HoldCommand(v.unit_id, at(8, 19), at(8, 20), (v.resource_ids["Campo 1"],),
                                 customer=customer(1)))
    async with pool.acquire() as conn:
        for sql in ("UPDATE booking_events SET actor = 'x' WHERE unit_id = $1",
                    "DELETE FROM booking_events WHERE unit_id = $1"):
            with pytest.raises(asyncpg.InsufficientPrivilegeError, match="append-only"):
                await conn.execute(sql, v.unit_id)


@pytest.fixture
async def demo_db(servers: tuple[str, str]) -> AsyncIterator[tuple[str, Any]]:
    """A database of its own: the demo unit has a fixed id, and another test of the session may have seeded it
    already (its week then aged: holds expired, check-ins completed), which would hide what a fresh seed makes."""
    name = f"slothold_demo_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(servers[0])
    await admin.execute(f'CREATE DATABASE "{name}"')
    url = urlunsplit(urlsplit(servers[0])._replace(path="/" + name))
    try:
        await asyncio.to_thread(upgrade, url)
        own = await create_pool(url, 1, 4)
        try:
            yield url, own
        finally:
            await own.close()
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


async def test_the_demo_venue_loads_once_with_a_week_of_bookings_in_every_state(demo_db: tuple[str, Any]) -> None:
    database_url, pool = demo_db
    first = await seed_demo(database_url)
    async with pool.acquire() as conn:
        counts = {r["status"]: r["n"] for r in await conn.fetch(
            "SELECT status, count(*) AS n FROM bookings WHERE unit_id = $1 GROUP BY status", DEMO_UNIT_ID)}
        rows = {name: await conn.fetchval(f"SELECT count(*) FROM {name} WHERE unit_id = $1", DEMO_UNIT_ID)
                for name in ("bookings", "booking_events", "services", "charges", "queue_items")}
    second = await seed_demo(database_url)
    assert str(DEMO_UNIT_ID) in first and "Arena Vila Madalena" in first and "already" in second
    assert set(counts) == {s.value for s in BookingStatus}, counts
    async with pool.acquire() as conn:
        assert await conn.fetchval("SELECT name FROM units WHERE id = $1", DEMO_UNIT_ID) == "Arena Vila Madalena"
        again = {name: await conn.fetchval(f"SELECT count(*) FROM {name} WHERE unit_id = $1", DEMO_UNIT_ID)
                 for name in rows}
        assert again == rows  # the second run made nothing
        assert await conn.fetchval("SELECT count(*) FROM service_price_bands WHERE unit_id = $1", DEMO_UNIT_ID) >= 2
        names = [r["name"] for r in await conn.fetch(
            "SELECT c.name FROM customers c JOIN bookings b ON b.customer_id = c.id WHERE b.unit_id = $1",
            DEMO_UNIT_ID)]
        assert "Rafael Oliveira" in names and len(set(names)) >= 10, names
        open_items = [r["type"] for r in await conn.fetch(
            "SELECT type FROM queue_items WHERE unit_id = $1 AND status = 'open'", DEMO_UNIT_ID)]
        assert open_items == ["customer_says_paid"], open_items  # the "paguei"; the cancellation's refund went out
        assert await conn.fetchval("SELECT count(*) FROM slot_waitlist WHERE unit_id = $1", DEMO_UNIT_ID) == 1
        assert await conn.fetchval("SELECT count(*) FROM walkin_queue WHERE unit_id = $1", DEMO_UNIT_ID) == 1
        assert await conn.fetchval("SELECT count(*) FROM resources WHERE unit_id = $1 AND on_grid",
                                    DEMO_UNIT_ID) == 5
        assert await conn.fetchval("SELECT count(*) FROM seats WHERE unit_id = $1", DEMO_UNIT_ID) == 60
        assert await conn.fetchval("SELECT count(*) FROM seat_events WHERE unit_id = $1 AND upper(during) > now()",
                                   DEMO_UNIT_ID) == 1
