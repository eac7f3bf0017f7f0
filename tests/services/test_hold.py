"""The hold use case on real PostgreSQL."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from domain import checkout
from domain.bookings import BookingStatus
from domain.errors import IdempotencyKeyReused, InvalidInput, InvalidTransition, SlotTaken
from domain.services import ChangeCommand, Deps, HoldCommand, cancel, hold
from tests.venues import arena, at, customer


async def test_a_hold_is_made_and_confirmed(deps: Deps, pool) -> None:
    v = await arena(pool)
    r = await hold(deps, HoldCommand(v.unit_id, at(8, 19), at(8, 20), (v.resource_ids["Campo 1"],),
                                     customer=customer(1)))
    assert r.booking.status is BookingStatus.HELD
    assert r.booking.hold_expires_at == deps.clock.now() + timedelta(minutes=10)  # no payment due: 10 min
    c = await checkout.confirm(deps, checkout.ConfirmCommand(r.booking.id))
    assert c.booking.status is BookingStatus.CONFIRMED


async def test_the_same_slot_cannot_be_held_twice_and_alternatives_are_offered(deps: Deps, pool) -> None:
    v = await arena(pool)
    c2 = v.resource_ids["Campo 2"]
    await hold(deps, HoldCommand(v.unit_id, at(8, 20), at(8, 21), (c2,), customer=customer(1)))
    with pytest.raises(SlotTaken) as e:
        await hold(deps, HoldCommand(v.unit_id, at(8, 20), at(8, 21), (c2,), customer=customer(2)))
    alts = e.value.alternatives
    assert len(alts) == 3
    # RN-ATD-07's example, in time order: 19h on Campo 2, 20h on Campo 1, 21h on Campo 2.
    assert [(a.starts_at, a.resource_id) for a in alts] == [
        (at(8, 19), c2), (at(8, 20), v.resource_ids["Campo 1"]), (at(8, 21), c2)]


async def test_fifty_concurrent_holds_on_one_slot_make_exactly_one_booking(deps: Deps, pool) -> None:
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    results = await asyncio.gather(
        *(hold(deps, HoldCommand(v.unit_id, at(9, 19), at(9, 20), (c1,), customer=customer(i)))
          for i in range(50)),
        return_exceptions=True,
    )
    wins = [r for r in results if not isinstance(r, BaseException)]
    assert len(wins) == 1
    assert all(isinstance(r, SlotTaken) for r in results if r not in wins)


async def test_pooled_capacity_is_never_exceeded(deps: Deps, pool) -> None:
    v = await arena(pool, pooled={"Aula": 12})
    aula = v.resource_ids["Aula"]
    results = await asyncio.gather(
        *(hold(deps, HoldCommand(v.unit_id, at(9, 10), at(9, 11), (aula,), customer=customer(i)))
          for i in range(40)),
        return_exceptions=True,
    )
    assert sum(not isinstance(r, BaseException) for r in results) == 12


async def test_a_lapsed_hold_is_free_at_once_and_expired_by_the_new_hold(deps: Deps, pool, clock) -> None:
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    first = await hold(deps, HoldCommand(v.unit_id, at(8, 19), at(8, 20), (c1,), customer=customer(1)))
    clock.advance(minutes=11)
    second = await hold(deps, HoldCommand(v.unit_id, at(8, 19), at(8, 20), (c1,), customer=customer(2)))
    assert second.booking.status is BookingStatus.HELD
    async with pool.acquire() as conn:
        status = await conn.fetchval("SELECT status FROM bookings WHERE id = $1", first.booking.id)
    assert status == "expired"
    with pytest.raises(InvalidTransition):
        await checkout.confirm(deps, checkout.ConfirmCommand(first.booking.id))


async def test_idempotent_retries_make_one_booking(deps: Deps, pool) -> None:
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    cmd = HoldCommand(v.unit_id, at(10, 19), at(10, 20), (c1,), customer=customer(7), idempotency_key="k-1")
    results = await asyncio.gather(*(hold(deps, cmd) for _ in range(20)))
    assert len({r.booking.id for r in results}) == 1
    assert sum(not r.replayed for r in results) == 1
    other = HoldCommand(v.unit_id, at(10, 20), at(10, 21), (c1,), customer=customer(7), idempotency_key="k-1")
    with pytest.raises(IdempotencyKeyReused):
        await hold(deps, other)


async def test_cancel_frees_the_slot(deps: Deps, pool) -> None:
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    r = await hold(deps, HoldCommand(v.unit_id, at(8, 19), at(8, 20), (c1,), customer=customer(1)))
    await cancel(deps, ChangeCommand(r.booking.id))
    again = await hold(deps, HoldCommand(v.unit_id, at(8, 19), at(8, 20), (c1,), customer=customer(2)))
    assert again.booking.status is BookingStatus.HELD


async def test_off_grid_ranges_are_refused(deps: Deps, pool) -> None:
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    with pytest.raises(InvalidInput) as e:
        await hold(deps, HoldCommand(v.unit_id, at(8, 19, 30), at(8, 20, 30), (c1,), customer=customer(1)))
    assert e.value.field == "startsAt"
