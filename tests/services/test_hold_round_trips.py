"""What a hold sends to PostgreSQL (issue 22): with warm caches, a self-service hold on an exclusive resource is
BEGIN, RN-HLD-05's lock and pressure, the customer, their standing, one statement that locks the resource, checks
for lapsed holds and inserts, and COMMIT — and no reset query on release. On a unit that just refused a hold, a
loser of a slot visibly taken is BEGIN, one read and ROLLBACK."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg
import pytest

from domain.errors import SlotTaken
from domain.services import Deps, HoldCommand, hold
from store.db import create_pool
from store.uow import PgUnitOfWork
from tests.venues import arena, at, customer

_TYPES = ("WITH RECURSIVE typeinfo_tree", "SELECT current_setting('jit')")  # asyncpg's own, once per connection


@asynccontextmanager
async def _traced(database_url: str, clock) -> AsyncIterator[tuple[Deps, list[str]]]:
    """Deps on a pool of two connections whose every query is logged (normalised) in the list."""
    seen: list[str] = []
    traced = await create_pool(database_url, 2, 2)
    try:
        for conn in [await traced.acquire() for _ in range(2)]:
            conn.add_query_logger(lambda r: seen.append(" ".join(r.query.split())))
            await traced.release(conn)
        yield Deps(uow=lambda: PgUnitOfWork(traced), clock=clock), seen
        await asyncio.sleep(0.05)  # query loggers run soon after each query
    finally:
        await traced.close()


async def test_a_hold_is_six_statements_with_warm_caches(database_url: str, pool: asyncpg.Pool, clock) -> None:
    v = await arena(pool)
    async with _traced(database_url, clock) as (deps, seen):
        await deps.uow().units.resources(v.unit_id)  # as authorizing a request on the unit reads them
        for i, field in enumerate(("Campo 1", "Campo 2")):  # the first warms the other caches
            seen.clear()
            await hold(deps, HoldCommand(v.unit_id, at(8, 19), at(8, 20), (v.resource_ids[field],),
                                         customer=customer(40 + i)))
    sent = [q for q in seen if not q.startswith(_TYPES)]
    assert [q[:8] for q in sent] == ["BEGIN;", "WITH p A", "WITH old", "WITH ask", "WITH lk ", "COMMIT;"]
    assert not any("pg_advisory_unlock_all" in q for q in seen)


async def test_on_a_unit_that_just_refused_a_hold_a_loser_costs_one_read(database_url: str, pool: asyncpg.Pool,
                                                                       clock) -> None:
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    async with _traced(database_url, clock) as (deps, seen):
        await hold(deps, HoldCommand(v.unit_id, at(8, 19), at(8, 20), (c1,), customer=customer(1)))
        with pytest.raises(SlotTaken):  # the first loser goes the whole way: the gated insert's answer
            await hold(deps, HoldCommand(v.unit_id, at(8, 19), at(8, 20), (c1,), customer=customer(2)))
        await asyncio.sleep(0.05)
        customers = await pool.fetchval("SELECT count(*) FROM customers")
        seen.clear()
        with pytest.raises(SlotTaken) as e:
            await hold(deps, HoldCommand(v.unit_id, at(8, 19), at(8, 20), (c1,), customer=customer(3)))
        assert e.value.alternatives
    sent = [q for q in seen if not q.startswith(_TYPES)]
    assert [q[:6] for q in sent[: sent.index("ROLLBACK;") + 1]] == ["BEGIN;", "SELECT", "ROLLBA"]
    assert await pool.fetchval("SELECT count(*) FROM customers") == customers  # customer 3 was not even made


async def test_on_a_unit_that_just_refused_a_hold_a_retry_of_a_hold_made_gets_its_booking(
        database_url: str, pool: asyncpg.Pool, clock) -> None:
    """The loser's look for a slot visibly taken comes after the idempotency key's replay: the slot a retried hold
    took is "visibly taken" by that very hold, and the retry must get its booking, not SlotTaken."""
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    async with _traced(database_url, clock) as (deps, _):
        made = await hold(deps, HoldCommand(v.unit_id, at(8, 19), at(8, 20), (c1,), customer=customer(1),
                                            idempotency_key="retry-me-1"))
        with pytest.raises(SlotTaken):  # the unit is contended now
            await hold(deps, HoldCommand(v.unit_id, at(8, 19), at(8, 20), (c1,), customer=customer(2)))
        again = await hold(deps, HoldCommand(v.unit_id, at(8, 19), at(8, 20), (c1,), customer=customer(1),
                                             idempotency_key="retry-me-1"))
    assert again.replayed and again.booking.id == made.booking.id
