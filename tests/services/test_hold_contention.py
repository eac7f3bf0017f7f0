"""Contention on one slot (issue 22): a loser of a slot visibly taken is answered without waiting for the
resource's lock; a free slot whose lock another transaction holds is never refused for that (the statements of a
loser: tests/services/test_hold_round_trips.py; many at once: test_hold.py, tests/api/test_hold_api.py)."""

from __future__ import annotations

import asyncio
import importlib
import time

import asyncpg
import pytest

from domain.errors import SlotTaken
from domain.services import Deps, HoldCommand, hold
from store.bookings import lock_key
from tests.venues import arena, at, customer


async def _holding_lock(pool: asyncpg.Pool, key: int, locked: asyncio.Event, release: asyncio.Event,
                        then: str = "ROLLBACK") -> None:
    """A transaction that holds a resource's lock (as a slot's winner does until its COMMIT) until `release`."""
    async with pool.acquire() as conn:
        await conn.execute("BEGIN")
        await conn.execute("SELECT pg_advisory_xact_lock($1::bigint)", key)
        locked.set()
        await release.wait()
        await conn.execute(then)


async def test_a_loser_of_a_taken_slot_does_not_wait_for_the_resources_lock(deps: Deps, pool) -> None:
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    await hold(deps, HoldCommand(v.unit_id, at(8, 19), at(8, 20), (c1,), customer=customer(1)))
    locked, release = asyncio.Event(), asyncio.Event()
    holder = asyncio.create_task(_holding_lock(pool, lock_key(c1), locked, release))
    await locked.wait()
    try:
        t = time.perf_counter()
        with pytest.raises(SlotTaken) as e:
            await hold(deps, HoldCommand(v.unit_id, at(8, 19), at(8, 20), (c1,), customer=customer(2)))
        assert time.perf_counter() - t < 2.0  # the lock is held for as long as this test likes (5 s: Busy)
        assert e.value.alternatives  # answered with what is free instead
    finally:
        release.set()
        await holder


@pytest.mark.parametrize("then", ["ROLLBACK", "COMMIT"])
async def test_a_free_slot_whose_lock_is_held_long_is_held_once_the_lock_is_free(deps: Deps, pool, then) -> None:
    """Longer than the tries of the lock (store/bookings.py LOCK_TRIES): the hold then waits for it, and is made
    whether the holder rolled back or committed something else (never refused for the lock being busy)."""
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    locked, release = asyncio.Event(), asyncio.Event()
    holder = asyncio.create_task(_holding_lock(pool, lock_key(c1), locked, release, then))
    await locked.wait()
    attempt = asyncio.create_task(hold(deps, HoldCommand(v.unit_id, at(8, 19), at(8, 20), (c1,),
                                                         customer=customer(1))))
    await asyncio.sleep(0.4)
    assert not attempt.done()
    release.set()
    await holder
    made = await attempt
    assert made.booking.allocations[0].resource_id == c1


async def test_the_losers_of_one_slot_refused_at_once_compute_their_alternatives_once(
        deps: Deps, pool, monkeypatch) -> None:
    """Refused together (a hot slot's round), the losers of one process share one computation of the nearest free
    options instead of each missing the memo at once; all of them get the same options."""
    alt = importlib.import_module("domain.services.alternatives")  # the package exports the function by that name
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    await hold(deps, HoldCommand(v.unit_id, at(8, 19), at(8, 20), (c1,), customer=customer(1)))
    computed = 0
    real = alt.nearest_alternatives

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        nonlocal computed
        computed += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(alt, "nearest_alternatives", counting)
    losers = await asyncio.gather(*(hold(deps, HoldCommand(v.unit_id, at(8, 19), at(8, 20), (c1,),
                                                           customer=customer(2 + i))) for i in range(12)),
                                  return_exceptions=True)
    assert all(isinstance(e, SlotTaken) for e in losers), losers
    options = {tuple((o.resource_id, o.starts_at) for o in e.alternatives) for e in losers}  # type: ignore[union-attr]
    assert len(options) == 1 and next(iter(options))
    assert computed == 1
