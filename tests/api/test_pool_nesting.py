"""A transaction never waits for a second connection of its own pool (store/uow.py's configuration pool).

A hold reads its service on its transaction's connection, then the resources it names from the per-process cache;
a cache miss loaded them through the same pool. With every connection of the pool held by such a transaction —
2 here, PgBouncer's 6 server connections in the topology run where it was found — each waited for a connection none
would give back: no hold got through until the pooler gave up a minute later. The cache now loads from a small pool
of its own."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from slothold.app import create_app
from slothold.settings import Settings
from store.units import invalidate
from store.venues import ResourceSpec, VenueSpec, create_venue, every_day
from tests.api.conftest import system_token
from tests.api.test_payments_api import HOLD
from tests.conftest import MutableClock
from tests.venues import at, cpf


@pytest.fixture
async def tight(database_url: str, redis_url: str, clock: MutableClock) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(Settings(database_url=database_url, redis_url=redis_url, db_pool_min=2, db_pool_max=2,
                              hold_rate_per_token=0, hold_rate_per_customer=0), clock=clock)
    async with app.router.lifespan_context(app):
        token = await system_token(app.state.slothold["access"])
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://slothold.test",
                                     headers={"authorization": f"Bearer {token}"}) as c:
            yield c


async def test_holds_on_a_cold_cache_with_every_connection_busy_all_get_through(
        tight: httpx.AsyncClient, pool: Any) -> None:
    v = await create_venue(pool, VenueSpec(
        unit_name=f"Arena pool nesting {cpf(5)}", hours=every_day(8, 23),
        resources=[ResourceSpec(name=f"Campo {i}") for i in (1, 2)], params={"hold_ceiling_percent": 100},
        services=[{"name": "Campo 1h", "duration_minutes": 60, "price_cents": 20000}]))
    fields = [v.resource_ids["Campo 1"], v.resource_ids["Campo 2"]]

    async def hold(day: int, i: int) -> str:
        # every fourth "any field" (tanto faz) at an hour of its own; the others on a named field
        named, hour = ({"resourceIds": [str(fields[i % 2])]}, 8 + i // 2) if i % 4 else ({}, 20 + i // 4)
        r = await tight.post("/graphql", json={"query": HOLD, "variables": {"input": {
            **named, "unitId": str(v.unit_id), "startsAt": at(day, hour).isoformat(),
            "endsAt": at(day, hour + 1).isoformat(), "customer": {"cpf": cpf(810_000 + day * 10 + i)},
            "serviceId": str(v.service_ids["Campo 1h"])}}})
        return str(r.json()["data"]["hold"]["__typename"])

    for round_ in range(3):
        invalidate()  # every process cache cold: each hold's resources load while its transaction holds a connection
        answers = await asyncio.wait_for(asyncio.gather(*(hold(12 + round_, i) for i in range(8))), 30)
        assert Counter(answers) == {"BookingPayload": 8}, answers
