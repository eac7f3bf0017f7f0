"""Grid blocks against concurrent holds (issue 18): a block and holds on the same slot never both win — the use
cases serialise on the resource's lock, and the exclusion constraint and the pooled counters refuse what slips by."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from domain.errors import Busy, DomainError, SlotTaken
from domain.layout import blocks
from domain.layout.errors import BookingsInTheWay
from domain.layout.ports import AlreadyBlocked, GridBlock
from domain.services import Deps, HoldCommand, hold
from store.layout import PgLayout
from store.uow import PgUnitOfWork
from tests.venues import arena, at, customer


async def _late(delay: float, work: Any) -> Any:
    await asyncio.sleep(delay)
    return await work


async def _race(deps: Deps, unit: Any, resource: Any, hour: int, day: int, quantity: int | None,
                n: int) -> tuple[list[Any], Any]:
    """n holds of the slot [hour, hour + 1) and a block over it, all at once; the block starts a little later the
    later in the day the slot is, so that some rounds go to the block and some to a hold."""
    start = at(day, hour)
    extra = {"quantity": quantity} if quantity else {}
    holds = [hold(deps, HoldCommand(unit, start, start + timedelta(hours=1), (resource,),
                                    customer=customer(1000 * day + 10 * hour + i), **extra)) for i in range(n)]
    block = _late((hour - 9) / 100, blocks.block_resource(deps, resource, start - timedelta(minutes=30),
                                                          start + timedelta(hours=2), "race", "tests"))
    *held, blocked = await asyncio.gather(*holds, block, return_exceptions=True)
    for r in [*held, blocked]:
        assert not isinstance(r, BaseException) or isinstance(r, DomainError), r
    return held, blocked


async def _occupants(pool: Any, resource: Any, day: int, hour: int) -> list[Any]:
    return list(await pool.fetch(
        "SELECT booking_id, block_id, quantity FROM allocations WHERE resource_id = $1 AND occupies "
        "AND during && tstzrange($2, $3)", resource, at(day, hour), at(day, hour + 1)))


async def test_a_block_and_holds_on_one_exclusive_slot_never_both_win(deps: Deps, pool: Any) -> None:
    v = await arena(pool, fields=1)
    c1 = v.resource_ids["Campo 1"]
    outcomes = set()
    for day, hour in ((10, 9), (10, 12), (10, 15), (10, 18), (11, 9), (11, 12), (11, 15), (11, 18)):
        held, blocked = await _race(deps, v.unit_id, c1, hour, day, None, 8)
        won = [h for h in held if not isinstance(h, BaseException)]
        assert all(isinstance(h, SlotTaken | Busy) for h in held if isinstance(h, BaseException)), held
        if isinstance(blocked, GridBlock):
            assert won == [], "a hold won under a block"
            outcomes.add("block")
        elif isinstance(blocked, Busy):  # the lock wait timed out: nothing of the block was written
            assert len(won) <= 1
        else:
            assert isinstance(blocked, BookingsInTheWay) and len(won) == 1, (blocked, held)
            assert blocked.booking_ids == [won[0].booking.id]
            outcomes.add("hold")
        occupants = await _occupants(pool, c1, day, hour)
        assert len(occupants) == (1 if won or isinstance(blocked, GridBlock) else 0), occupants
    assert outcomes  # whichever won, it won alone


async def test_a_block_and_holds_on_one_pooled_slot_never_share_it(deps: Deps, pool: Any) -> None:
    v = await arena(pool, fields=0, pooled={"Aula": 10})
    aula = v.resource_ids["Aula"]
    for day, hour in ((10, 9), (10, 12), (10, 15), (11, 9), (11, 12)):
        held, blocked = await _race(deps, v.unit_id, aula, hour, day, 3, 6)
        won = [h for h in held if not isinstance(h, BaseException)]
        occupants = await _occupants(pool, aula, day, hour)
        if isinstance(blocked, GridBlock):
            assert won == [] and [o["block_id"] for o in occupants] == [blocked.id]
        else:
            assert isinstance(blocked, BookingsInTheWay | Busy) and len(won) <= 3, (blocked, held)
            assert all(o["block_id"] is None for o in occupants)
        used = await pool.fetchval("SELECT max(used) FROM pool_usage WHERE resource_id = $1 AND slot_start = $2",
                                   aula, at(day, hour))
        assert used <= 10


async def test_the_constraints_refuse_a_block_that_slips_past_the_checks(deps: Deps, pool: Any, clock: Any) -> None:
    """The store's last word, without the use case's lock and look-up: an exclusive slot someone holds, and a pooled
    one with places taken, refuse a block (AlreadyBlocked, nothing written)."""
    v = await arena(pool, fields=1, pooled={"Aula": 10})
    c1, aula = v.resource_ids["Campo 1"], v.resource_ids["Aula"]
    await hold(deps, HoldCommand(v.unit_id, at(10, 19), at(10, 20), (c1,), customer=customer(1)))
    await hold(deps, HoldCommand(v.unit_id, at(10, 19), at(10, 20), (aula,), customer=customer(2), quantity=1))
    for resource, pooled in ((c1, None), (aula, (10, [at(10, 19)]))):
        uow = PgUnitOfWork(pool)
        async with uow:
            layout: PgLayout = uow.layout
            block = GridBlock(deps.new_id(), v.unit_id, resource, at(10, 19), at(10, 20), "", "tests", clock.now())
            try:
                await layout.add_block(block, pooled)
            except AlreadyBlocked:
                pass
            else:
                raise AssertionError("the constraint let a block in over a hold")
            await uow.commit()
    assert await pool.fetchval("SELECT count(*) FROM blocks WHERE unit_id = $1", v.unit_id) == 0
