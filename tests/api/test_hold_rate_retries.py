"""A retry that replays a stored result does not count against the hold rate limits (issue 16): concurrent
duplicates of one hold (same idempotency key, same request) all get its one answer, not `rate_limited`; another
request under the key, or the same request under another key, counts as usual."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from uuid import uuid4

import httpx
import pytest
import redis.asyncio as aioredis

from api.graphql.limits import HoldRateLimiter, RateLimited
from slothold.app import create_app
from slothold.cli.embedded import free_port
from slothold.settings import Settings
from tests.conftest import MutableClock
from tests.venues import arena, at, cpf

HOLD = """mutation($input: HoldInput!, $key: String) { hold(input: $input, idempotencyKey: $key) {
  __typename ... on BookingPayload { replayed booking { id } } ... on Error { code } } }"""


@asynccontextmanager
async def served(database_url: str, redis_url: str, clock: MutableClock, **settings: Any
                 ) -> AsyncIterator[tuple[httpx.AsyncClient, Any]]:
    app = create_app(Settings(database_url=database_url, redis_url=redis_url, **settings), clock=clock)
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://slothold.test",
                                     timeout=60) as http:
            yield http, app


async def integrator(app: Any, pool: Any, unit: Any) -> dict[str, str]:
    """A token of its own (a caller with a fresh allowance) that may book."""
    tenant = await pool.fetchval("SELECT o.tenant_id FROM units u JOIN organizations o ON o.id = u.organization_id "
                                 "WHERE u.id = $1", unit)
    _, plain = await app.state.slothold["access"].issue_token(tenant, None, "client", None, ["book", "read"],
                                                              "retries")
    return {"authorization": f"Bearer {plain}"}


def hold_input(unit: Any, resource: Any, hour: int, who: str) -> dict[str, Any]:
    return {"unitId": str(unit), "resourceIds": [str(resource)], "startsAt": at(8, hour).isoformat(),
            "endsAt": at(8, hour + 1).isoformat(), "customer": {"cpf": who}}


async def post(http: httpx.AsyncClient, variables: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
    r = await http.post("/graphql", json={"query": HOLD, "variables": variables}, headers=headers)
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def outcome(body: dict[str, Any]) -> str:
    if body.get("errors"):
        return str(body["errors"][0]["extensions"]["code"])
    return str(body["data"]["hold"]["__typename"])


@pytest.mark.parametrize("by_header", [False, True], ids=["argument", "header"])
async def test_twenty_concurrent_duplicates_of_one_hold_all_get_its_answer_within_the_limits(
    database_url: str, redis_url: str, clock: MutableClock, pool: Any, by_header: bool
) -> None:
    v = await arena(pool)
    c1, c2 = v.resource_ids["Campo 1"], v.resource_ids["Campo 2"]
    who = cpf(400_000_000 + int(uuid4().int % 100_000_000))  # a customer with a fresh allowance
    async with served(database_url, redis_url, clock, hold_rate_per_token=1, hold_rate_per_customer=1) as (http, app):
        caller = await integrator(app, pool, v.unit_id)
        key = f"dup-{uuid4().hex}"
        request = {"input": hold_input(v.unit_id, c1, 19, who)}
        headers = {**caller, "idempotency-key": key} if by_header else caller
        variables = request if by_header else {**request, "key": key}
        bodies = await asyncio.gather(*(post(http, variables, headers) for _ in range(20)))
        assert [outcome(b) for b in bodies] == ["BookingPayload"] * 20, [b for b in bodies if b.get("errors")][:1]
        assert len({b["data"]["hold"]["booking"]["id"] for b in bodies}) == 1
        assert [b["data"]["hold"]["replayed"] for b in bodies].count(False) == 1
        assert await pool.fetchval("SELECT count(*) FROM bookings WHERE unit_id = $1", v.unit_id) == 1
        # a retry later is still free...
        assert outcome(await post(http, variables, headers)) == "BookingPayload"
        # ...but another request under the key counts (and is over the limit of 1), as does the same under another
        other = {"input": hold_input(v.unit_id, c2, 19, who)}
        assert outcome(await post(http, other if by_header else {**other, "key": key}, headers)) == "rate_limited"
        fresh = {**caller, "idempotency-key": f"dup-{uuid4().hex}"}
        assert outcome(await post(http, request, fresh)) == "rate_limited"
        assert await pool.fetchval("SELECT count(*) FROM bookings WHERE unit_id = $1", v.unit_id) == 1


async def test_a_retry_is_free_only_for_the_same_caller_key_and_request(redis_url: str) -> None:
    redis = aioredis.Redis.from_url(redis_url)
    try:
        limiter = HoldRateLimiter(redis, per_caller=1, per_customer=1, window_seconds=60)
        caller, other_caller, customer = (uuid4().hex for _ in range(3))
        await limiter.check(caller, [customer], retry=("k", "request-1"))
        for _ in range(5):
            await limiter.check(caller, [customer], retry=("k", "request-1"))  # retries: nothing counted
        for refused in [(caller, ("k", "request-2")), (caller, ("k2", "request-1")), (caller, None)]:
            with pytest.raises(RateLimited):
                await limiter.check(refused[0], [customer], retry=refused[1])
        with pytest.raises(RateLimited):  # another caller under the same key: the customer's one hold is spent
            await limiter.check(other_caller, [customer], retry=("k", "request-1"))
        # a request the limiter refused is not marked: its retry is counted (and refused) again
        with pytest.raises(RateLimited):
            await limiter.check(caller, [uuid4().hex], retry=("k3", "request-3"))
        with pytest.raises(RateLimited):
            await limiter.check(caller, [uuid4().hex], retry=("k3", "request-3"))
    finally:
        await redis.aclose()


async def test_retries_go_on_when_redis_is_unreachable(redis_url: str) -> None:
    limiter = HoldRateLimiter(aioredis.Redis(host="127.0.0.1", port=free_port()), per_caller=1, per_customer=1,
                              retry_redis_seconds=0)
    try:
        for n in range(3):
            await limiter.check("someone", ["someone-else"], retry=("k", f"request-{n}"))
    finally:
        await limiter.redis.aclose()
