"""domain/single_flight.py: asks of one key while it runs share one computation; a failure is its own ask's."""

from __future__ import annotations

import asyncio
import time

import pytest

from domain.single_flight import SingleFlight


async def test_asks_of_one_key_at_once_share_one_computation_and_later_ones_compute_again() -> None:
    flight: SingleFlight[int] = SingleFlight()
    made = 0

    async def make() -> int:
        nonlocal made
        made += 1
        await asyncio.sleep(0.05)
        return made

    results = await asyncio.gather(*(flight.run("k", make) for _ in range(10)))
    assert {r for r, _ in results} == {1} and made == 1
    assert (await flight.run("k", make))[0] == 2  # nothing running any more: computed afresh


async def test_an_ask_that_wants_a_newer_computation_than_the_running_one_makes_its_own() -> None:
    flight: SingleFlight[str] = SingleFlight()
    release = asyncio.Event()

    async def slow() -> str:
        await release.wait()
        return "old"

    first = asyncio.create_task(flight.run("k", slow))
    await asyncio.sleep(0.01)
    since = time.monotonic()

    async def fresh() -> str:
        return "new"

    assert (await flight.run("k", fresh, since))[0] == "new"
    release.set()
    assert (await first)[0] == "old"


async def test_a_failed_computation_fails_its_own_ask_and_the_waiters_compute_again() -> None:
    flight: SingleFlight[int] = SingleFlight()
    started = asyncio.Event()

    async def failing() -> int:
        started.set()
        await asyncio.sleep(0.02)
        raise RuntimeError("the database went away")

    async def working() -> int:
        return 7

    first = asyncio.create_task(flight.run("k", failing))
    await started.wait()
    assert (await flight.run("k", working))[0] == 7
    with pytest.raises(RuntimeError, match="went away"):
        await first
