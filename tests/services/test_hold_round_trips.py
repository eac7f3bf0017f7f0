"""What a hold sends to PostgreSQL (issue 22): with warm caches, a self-service hold on an exclusive resource is
BEGIN, RN-HLD-05's lock and pressure, the customer, their standing, one statement that locks the resource, checks
for lapsed holds and inserts, and COMMIT — and no reset query on release. On a unit that just refused a hold, a
loser of a slot visibly taken is BEGIN, one read and ROLLBACK."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from uuid import UUID

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


async def _contended(deps: Deps, unit_id: UUID, resource_id: UUID) -> None:
    """A hold on 8:19–8:20 and a second one refused: the unit is contended (its holds look first) for 2 s."""
    await hold(deps, HoldCommand(unit_id, at(8, 19), at(8, 20), (resource_id,), customer=customer(1)))
    with pytest.raises(SlotTaken):
        await hold(deps, HoldCommand(unit_id, at(8, 19), at(8, 20), (resource_id,), customer=customer(2)))


async def _winner_holding_the_lock(deps: Deps, pool: asyncpg.Pool, cmd: HoldCommand, give_up: bool
                                   ) -> tuple[asyncio.Task[object], asyncio.Event]:
    """A hold that takes its resource's lock, then waits for `release` before it inserts (or gives up)."""
    from store.bookings import lock_key

    release = asyncio.Event()

    async def before_insert(uow: object, booking: object) -> None:  # called under the resource's lock
        await release.wait()
        if give_up:
            raise RuntimeError("the winner gave up")

    task: asyncio.Task[object] = asyncio.create_task(hold(deps, cmd, before_insert=before_insert))
    key = lock_key(cmd.resource_ids[0])
    for _ in range(200):  # until its lock is held
        if await pool.fetchval("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND "
                               "((classid::bigint << 32) | objid::bigint) = $1", key):
            break
        await asyncio.sleep(0.01)
    else:
        raise AssertionError("the winner never took its lock")
    return task, release


@pytest.mark.parametrize("give_up", [False, True])
async def test_a_loser_waits_for_a_winner_in_flight_without_the_customers_checks(
        database_url: str, pool: asyncpg.Pool, clock, monkeypatch: pytest.MonkeyPatch, give_up: bool) -> None:
    """On a contended unit, a loser that finds the slot free but its lock held (the winner is placing its booking)
    looks again after pauses, holding no lock: once the winner commits it is SlotTaken having run none of RN-HLD-05's
    statements (nor the customer's upsert); when the winner gives up, it goes on and gets the slot."""
    from domain.services import holds as holds_module

    monkeypatch.setattr(holds_module, "LOOK_PAUSES", (0.05,) * 40)  # looks for up to 2 s: the test's winner waits
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    async with _traced(database_url, clock) as (deps, seen):
        await _contended(deps, v.unit_id, c1)
        other = Deps(uow=lambda: PgUnitOfWork(pool), clock=clock)
        winner, release = await _winner_holding_the_lock(
            other, pool, HoldCommand(v.unit_id, at(8, 21), at(8, 22), (c1,), customer=customer(3)), give_up)
        seen.clear()
        loser = asyncio.create_task(hold(deps, HoldCommand(v.unit_id, at(8, 21), at(8, 22), (c1,),
                                                           customer=customer(4))))
        try:
            await asyncio.sleep(0.3)
            assert not loser.done()  # looking again, not queued on the lock, not refused
            release.set()
            if give_up:
                with pytest.raises(RuntimeError):
                    await winner
                assert (await loser).booking.customer_id is not None  # the slot was free after all
            else:
                await winner
                with pytest.raises(SlotTaken):
                    await loser
                sent = [q for q in seen if not q.startswith(_TYPES)]
                assert not [q for q in sent if q.startswith(("WITH p AS", "WITH old", "WITH lk"))], sent  # looks
        finally:  # a failed check must not leave a transaction open (the pools' close would wait for it)
            release.set()
            await asyncio.gather(winner, loser, return_exceptions=True)


async def test_a_look_waits_while_another_hold_claims_the_slot_and_goes_on_when_the_claim_ends(
        database_url: str, pool: asyncpg.Pool, clock, monkeypatch: pytest.MonkeyPatch) -> None:
    """The claim a contended hold takes at its look (before the customer's checks, long before the resource's lock)
    makes the others' looks wait: here another transaction holds the claim; the hold waits, holding no lock, and
    gets the slot once the claim ends without a booking."""
    from domain.services import holds as holds_module
    from store.bookings import CLAIM_SPACE, lock_key

    monkeypatch.setattr(holds_module, "LOOK_PAUSES", (0.05,) * 40)
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    async with _traced(database_url, clock) as (deps, _):
        await _contended(deps, v.unit_id, c1)
        async with pool.acquire() as claimer, claimer.transaction():
            await claimer.execute("SELECT pg_advisory_xact_lock($1, $2::bigint::bit(32)::int)", CLAIM_SPACE,
                                  lock_key(c1))
            waiting = asyncio.create_task(hold(deps, HoldCommand(v.unit_id, at(8, 21), at(8, 22), (c1,),
                                                                 customer=customer(3))))
            await asyncio.sleep(0.3)
            assert not waiting.done()
        made = await asyncio.wait_for(waiting, 5)
    assert made.booking.customer_id is not None
