"""Limits against abuse of the API itself: query depth, cost, aliases and size, page sizes, hold rates, body and
websocket message sizes. Each is checked at its boundary: just under passes, just over is refused with its code
and nothing is written."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import AsyncIterator, MutableMapping
from contextlib import asynccontextmanager
from typing import Any
from uuid import UUID, uuid4

import httpx
import pytest
import redis.asyncio as aioredis
from graphql import get_introspection_query
from graphql.language import Lexer, Source, TokenKind
from starlette.applications import Starlette

from api.graphql.limits import MAX_PAGE_SIZE, HoldRateLimiter, RateLimited
from slothold.app import create_app
from slothold.cli.embedded import free_port
from slothold.settings import Settings
from tests.api.conftest import Api
from tests.conftest import MutableClock
from tests.venues import arena, at, cpf

GRJ = "application/graphql-response+json"

HOLD = """mutation($input: HoldInput!) { hold(input: $input) {
  __typename ... on BookingPayload { booking { id } } ... on Error { code message } } }"""
COUNTER = """mutation($input: CounterBookingInput!) { counterBooking(input: $input) {
  __typename ... on BookingPayload { booking { id } } ... on Error { code message } } }"""
SWAP = """mutation($id: ID!, $input: SwapInput!) { swapHold(bookingId: $id, input: $input) {
  __typename ... on BookingPayload { booking { id startsAt } } ... on Error { code message } } }"""
INTROSPECTION = get_introspection_query(descriptions=True, specified_by_url=True, directive_is_repeatable=True,
                                        schema_description=True, input_value_deprecation=True)


def tokens(document: str) -> int:
    lexer, count = Lexer(Source(document)), 0
    while lexer.advance().kind != TokenKind.EOF:
        count += 1
    return count


def a_cpf() -> str:
    """A valid CPF no other test (or earlier run: Redis keeps counters for a minute) uses."""
    return cpf(100_000_000 + secrets.randbelow(800_000_000))


def formatted(digits: str) -> str:
    return f"{digits[:3]}.{digits[3:6]}.{digits[6:9]}-{digits[9:]}"


def hold_input(unit: UUID, resource: UUID, day: int, hour: int, who: str) -> dict[str, Any]:
    return {"unitId": str(unit), "resourceIds": [str(resource)], "startsAt": at(day, hour).isoformat(),
            "endsAt": at(day, hour + 1).isoformat(), "customer": {"cpf": who}}


class Client:
    def __init__(self, http: httpx.AsyncClient, app: Starlette) -> None:
        self.http = http
        self.app = app

    async def post(self, query: str, variables: dict[str, Any] | None = None,
                   headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
        r = await self.http.post("/graphql", json={"query": query, "variables": variables or {}},
                                 headers={"accept": GRJ, **(headers or {})})
        assert "Traceback" not in r.text
        return r.status_code, r.json()

    async def token(self, pool: Any, unit: UUID) -> dict[str, str]:
        """An integrator token of the unit's tenant that may book and book at the counter: a caller of its own."""
        tenant = await pool.fetchval("SELECT o.tenant_id FROM units u JOIN organizations o ON o.id = "
                                     "u.organization_id WHERE u.id = $1", unit)
        _, plain = await self.app.state.slothold["access"].issue_token(tenant, None, "client", None,
                                                                       ["book", "counter", "read"], "limits")
        return {"authorization": f"Bearer {plain}"}


@pytest.fixture
async def serve(api: Api, database_url: str, redis_url: str, clock: MutableClock) -> Any:
    """Start an app with these settings; its client sends the same credentials as the `api` fixture's."""
    credentials = {k: v for k, v in api.http.headers.items() if k.lower() == "authorization"}

    @asynccontextmanager
    async def start(**settings: Any) -> AsyncIterator[Client]:
        settings.setdefault("redis_url", redis_url)
        app = create_app(Settings(database_url=database_url, **settings), clock=clock)
        async with app.router.lifespan_context(app):
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://slothold.test",
                                         headers=credentials) as http:
                yield Client(http, app)

    return start


def refusal(status: int, body: dict[str, Any], code: str) -> dict[str, Any]:
    """The one error of a refused request; a request error (validation) has no data at all."""
    assert body.get("errors"), body
    error: dict[str, Any] = body["errors"][0]
    assert error["extensions"]["code"] == code, body
    assert "Internal error" not in error["message"]
    return error


async def bookings_of(pool: Any, unit: UUID) -> int:
    return int(await pool.fetchval("SELECT count(*) FROM bookings WHERE unit_id = $1", unit))


# --- query depth, cost, aliases, size ---------------------------------------------------------------------------

DEPTH_3 = "query($u: ID!) { unit(id: $u) { ... on Unit { resources { id } } } }"
DEPTH_4 = """query($u: ID!, $f: DateTime!, $t: DateTime!) {
  availabilityGrid(unitId: $u, from: $f, to: $t) { ... on Grid { rows { resource { id } } } } }"""


async def test_query_depth_at_its_limit_passes_and_one_level_more_is_refused(serve: Any, pool: Any) -> None:
    v = await arena(pool)
    async with serve(max_query_depth=3) as c:
        status, body = await c.post(DEPTH_3, {"u": str(v.unit_id)})
        assert status == 200 and body["data"]["unit"]["resources"], body
        status, body = await c.post(DEPTH_4, {"u": str(v.unit_id), "f": at(8, 8).isoformat(),
                                              "t": at(9, 8).isoformat()})
    error = refusal(status, body, "query_too_deep")
    assert status == 400 and "data" not in body  # a request error: nothing ran
    assert (error["extensions"]["depth"], error["extensions"]["maxDepth"]) == (4, 3)
    assert "too deep" in error["message"]


async def test_introspection_is_not_limited_by_depth_cost_or_aliases(serve: Any, api: Api) -> None:
    # GraphiQL's introspection query is 14 levels deep; graphql-core's MaxIntrospectionDepthRule bounds it.
    async with serve(max_query_depth=2, max_query_cost=5, max_query_aliases=0) as c:
        status, body = await c.post(INTROSPECTION)
    assert status == 200 and body["data"]["__schema"]["queryType"]["name"] == "Query", body
    assert "__schema" in await api.gql(INTROSPECTION)
    page = await api.http.get("/graphql", headers={"accept": "text/html"})
    assert page.status_code == 200  # GraphiQL itself


async def test_query_cost_counts_page_sizes_and_aliases(serve: Any, pool: Any) -> None:
    v = await arena(pool)
    u = str(v.unit_id)
    async with serve(max_query_cost=101) as c:
        # queue + 100 items × 1 field = 101
        status, body = await c.post("query($u: ID!) { queue(unitId: $u, first: 100) { id } }", {"u": u})
        assert status == 200 and body["data"] == {"queue": []}, body
        status, body = await c.post("query($u: ID!) { queue(unitId: $u, first: 101) { id } }", {"u": u})
        error = refusal(status, body, "query_too_costly")
        assert status == 400 and "data" not in body
        assert (error["extensions"]["cost"], error["extensions"]["maxCost"]) == (102, 101)
        # two aliased halves cost as much as the whole
        status, body = await c.post("query($u: ID!) { a: queue(unitId: $u, first: 50) { id } "
                                    "b: queue(unitId: $u, first: 50) { id } }", {"u": u})
        refusal(status, body, "query_too_costly")
        # a page size given by a variable counts as the largest page
        status, body = await c.post("query($u: ID!, $n: Int!) { queue(unitId: $u, first: $n) { id } }",
                                    {"u": u, "n": 1})
        assert refusal(status, body, "query_too_costly")["extensions"]["cost"] == 1 + MAX_PAGE_SIZE


async def test_aliases_at_their_limit_pass_and_one_more_is_refused(serve: Any) -> None:
    async with serve(max_query_aliases=2) as c:
        status, body = await c.post("{ a: __typename b: __typename }")
        assert status == 200 and body["data"] == {"a": "Query", "b": "Query"}
        status, body = await c.post("{ a: __typename b: __typename c: __typename }")
    assert refusal(status, body, "too_many_aliases")["extensions"]["aliases"] == 3
    assert status == 400 and "data" not in body


async def test_a_document_over_the_token_limit_is_refused(serve: Any) -> None:
    fits, too_long = "{ a: __typename }", "{ a: __typename b: __typename }"
    async with serve(max_query_tokens=tokens(fits)) as c:
        status, body = await c.post(fits)
        assert status == 200 and body["data"] == {"a": "Query"}, body
        status, body = await c.post(too_long)
    error = refusal(status, body, "query_too_large")
    assert status == 400 and "data" not in body
    assert error["extensions"]["maxTokens"] == tokens(fits) and "too large" in error["message"]


def test_the_defaults_and_their_variables() -> None:
    s = Settings.from_env()
    assert (s.max_query_depth, s.max_query_cost, s.max_query_aliases, s.max_query_tokens) == (10, 10_000, 30, 2_000)
    assert (s.hold_rate_per_token, s.hold_rate_per_customer, s.hold_rate_window_seconds) == (60, 10, 60)


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in (("SLOTHOLD_MAX_QUERY_DEPTH", "7"), ("SLOTHOLD_MAX_QUERY_COST", "500"),
                        ("SLOTHOLD_MAX_QUERY_ALIASES", "3"), ("SLOTHOLD_MAX_QUERY_TOKENS", "99"),
                        ("SLOTHOLD_HOLD_RATE_PER_TOKEN", "5"), ("SLOTHOLD_HOLD_RATE_PER_CUSTOMER", "0"),
                        ("SLOTHOLD_HOLD_RATE_WINDOW_SECONDS", "10")):
        monkeypatch.setenv(name, value)
    s = Settings.from_env()
    assert (s.max_query_depth, s.max_query_cost, s.max_query_aliases, s.max_query_tokens) == (7, 500, 3, 99)
    assert (s.hold_rate_per_token, s.hold_rate_per_customer, s.hold_rate_window_seconds) == (5, 0, 10)


# --- page sizes ---------------------------------------------------------------------------------------------------


async def test_list_fields_take_at_most_the_largest_page(api: Api, pool: Any) -> None:
    v = await arena(pool)
    u = str(v.unit_id)
    held = await api.gql(HOLD, {"input": hold_input(v.unit_id, v.resource_ids["Campo 1"], 8, 19, a_cpf())})
    b = held["hold"]["booking"]["id"]
    for query, variables in (
        ("query($u: ID!, $n: Int!) { queue(unitId: $u, first: $n) { id } }", {"u": u}),
        ("query($b: ID!, $n: Int!) { charges(bookingId: $b, first: $n) { id } }", {"b": b}),
        ("query($u: ID!, $n: Int!) { waitlists(unitId: $u, first: $n) { slots { id } walkIns { id } } }",
         {"u": u}),
    ):
        assert await api.gql(query, {**variables, "n": MAX_PAGE_SIZE})
        r = await api.http.post("/graphql", json={"query": query, "variables": {**variables, "n": MAX_PAGE_SIZE + 1}},
                                headers={"accept": GRJ})
        error = refusal(r.status_code, r.json(), "page_too_large")
        assert error["extensions"]["field"] == "first" and str(MAX_PAGE_SIZE) in error["message"]
        assert r.json()["data"] is None
        r = await api.http.post("/graphql", json={"query": query, "variables": {**variables, "n": 0}})
        assert refusal(r.status_code, r.json(), "invalid_page_size")["extensions"]["field"] == "first"


async def test_bookable_slots_are_paged_earliest_first(api: Api, pool: Any) -> None:
    v = await arena(pool)
    query = """query($u: ID!, $f: DateTime!, $t: DateTime!, $n: Int!) {
      bookableSlots(unitId: $u, from: $f, to: $t, first: $n) {
        __typename ... on BookableSlots { slots { resourceId startsAt } } ... on InvalidInput { code field } } }"""
    week = {"u": str(v.unit_id), "f": at(8, 8).isoformat(), "t": at(22, 8).isoformat()}
    everything = (await api.gql(query, {**week, "n": MAX_PAGE_SIZE}))["bookableSlots"]["slots"]
    assert len(everything) == MAX_PAGE_SIZE  # of 4 fields × 15 slots × 14 days = 840
    assert everything == sorted(everything, key=lambda s: s["startsAt"])
    two = (await api.gql(query, {**week, "n": 2}))["bookableSlots"]["slots"]
    assert two == everything[:2]
    too_many = (await api.gql(query, {**week, "n": MAX_PAGE_SIZE + 1}))["bookableSlots"]
    assert too_many == {"__typename": "InvalidInput", "code": "page_too_large", "field": "first"}
    # the default page is the largest: existing clients keep getting what they got
    default = await api.gql(query.replace(", $n: Int!", "").replace(", first: $n", ""), week)
    assert default["bookableSlots"]["slots"] == everything


# --- hold rates ---------------------------------------------------------------------------------------------------


async def test_holds_per_token_at_the_limit_pass_and_the_next_is_refused(serve: Any, pool: Any) -> None:
    v = await arena(pool)
    fields = [v.resource_ids[f"Campo {i}"] for i in range(1, 5)]
    async with serve(hold_rate_per_token=3, hold_rate_per_customer=0) as c:
        caller = await c.token(pool, v.unit_id)
        for n in range(3):
            status, body = await c.post(HOLD, {"input": hold_input(v.unit_id, fields[n], 8, 19, a_cpf())}, caller)
            assert body["data"]["hold"]["__typename"] == "BookingPayload", body
        before = await bookings_of(pool, v.unit_id)
        status, body = await c.post(HOLD, {"input": hold_input(v.unit_id, fields[3], 8, 19, a_cpf())}, caller)
        error = refusal(status, body, "rate_limited")
        assert status == 200 and body["data"] is None and error["path"] == ["hold"]
        assert 1 <= error["extensions"]["retryAfterSeconds"] <= 20  # one hold every 60/3 s
        assert error["message"] == "Too many holds: at most 3 per 60 s per token. Retry in " \
            f"{error['extensions']['retryAfterSeconds']} s."
        assert await bookings_of(pool, v.unit_id) == before  # nothing written
        # counterBooking spends the same allowance
        counter = {"unitId": str(v.unit_id), "resourceIds": [str(fields[3])], "startsAt": at(9, 19).isoformat(),
                   "endsAt": at(9, 20).isoformat()}
        status, body = await c.post(COUNTER, {"input": counter}, caller)
        refusal(status, body, "rate_limited")
        # another token has its own
        status, body = await c.post(HOLD, {"input": hold_input(v.unit_id, fields[3], 8, 19, a_cpf())},
                                    await c.token(pool, v.unit_id))
        assert body["data"]["hold"]["__typename"] == "BookingPayload", body


async def test_counter_bookings_count_per_token_only(serve: Any, pool: Any) -> None:
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    async with serve(hold_rate_per_token=2, hold_rate_per_customer=1) as c:
        caller = await c.token(pool, v.unit_id)
        who = a_cpf()
        for hour in (10, 11):  # the same customer twice: the counter is not limited per customer
            counter = {"unitId": str(v.unit_id), "resourceIds": [str(c1)], "startsAt": at(8, hour).isoformat(),
                       "endsAt": at(8, hour + 1).isoformat(), "customer": {"cpf": who}}
            _, body = await c.post(COUNTER, {"input": counter}, caller)
            assert body["data"]["counterBooking"]["__typename"] == "BookingPayload", body
        counter["startsAt"], counter["endsAt"] = at(8, 12).isoformat(), at(8, 13).isoformat()
        before = await bookings_of(pool, v.unit_id)
        status, body = await c.post(COUNTER, {"input": counter}, caller)
        refusal(status, body, "rate_limited")
        assert await bookings_of(pool, v.unit_id) == before


async def test_holds_per_customer_count_hold_and_swap_whatever_the_formatting(serve: Any, pool: Any) -> None:
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    who = a_cpf()
    async with serve(hold_rate_per_token=0, hold_rate_per_customer=2) as c:
        caller = await c.token(pool, v.unit_id)
        status, body = await c.post(HOLD, {"input": hold_input(v.unit_id, c1, 8, 19, formatted(who))}, caller)
        booking = body["data"]["hold"]["booking"]["id"]
        swap = {"startsAt": at(8, 20).isoformat(), "endsAt": at(8, 21).isoformat(), "customer": {"cpf": who}}
        status, body = await c.post(SWAP, {"id": booking, "input": swap}, caller)
        assert body["data"]["swapHold"]["__typename"] == "BookingPayload", body
        moved = body["data"]["swapHold"]["booking"]["id"]
        before = await bookings_of(pool, v.unit_id)
        swap = {"startsAt": at(8, 21).isoformat(), "endsAt": at(8, 22).isoformat()}  # the booking's own customer
        status, body = await c.post(SWAP, {"id": moved, "input": swap}, caller)
        error = refusal(status, body, "rate_limited")
        assert error["path"] == ["swapHold"] and error["extensions"]["per"] == "customer"
        assert await bookings_of(pool, v.unit_id) == before
        status, body = await c.post(HOLD, {"input": hold_input(v.unit_id, c1, 9, 19, who)}, caller)
        refusal(status, body, "rate_limited")
        # another customer, same caller: fine
        status, body = await c.post(HOLD, {"input": hold_input(v.unit_id, c1, 9, 19, a_cpf())}, caller)
        assert body["data"]["hold"]["__typename"] == "BookingPayload", body


async def test_the_limiter_slides_and_a_refused_hold_costs_nothing(redis_url: str) -> None:
    redis = aioredis.Redis.from_url(redis_url)
    try:
        limiter = HoldRateLimiter(redis, per_caller=2, per_customer=1, window_seconds=1)
        caller, alice, bob, carol = (uuid4().hex for _ in range(4))
        await limiter.check(caller, [alice])
        with pytest.raises(RateLimited) as refused:
            await limiter.check(caller, [alice])  # alice's one per second is spent...
        assert (refused.value.extensions or {})["per"] == "customer"
        await limiter.check(caller, [bob])  # ...and that refusal did not spend the caller's second one
        with pytest.raises(RateLimited) as refused:
            await limiter.check(caller, [carol])
        assert refused.value.extensions == {"code": "rate_limited", "retryAfterSeconds": 1, "limit": 2,
                                            "windowSeconds": 1, "per": "token"}
        await asyncio.sleep(0.55)  # one hold every 0.5 s comes back
        await limiter.check(caller, [carol])
        with pytest.raises(RateLimited):
            await limiter.check(caller, [uuid4().hex])
    finally:
        await redis.aclose()


async def test_holds_go_on_when_redis_is_unreachable_and_it_is_logged_once(
    serve: Any, pool: Any, caplog: pytest.LogCaptureFixture
) -> None:
    limiter = HoldRateLimiter(aioredis.Redis(host="127.0.0.1", port=free_port()), per_caller=1, per_customer=1,
                              retry_redis_seconds=0)
    with caplog.at_level(logging.WARNING, logger="api.graphql.limits"):
        for _ in range(3):
            await limiter.check("someone", ["someone-else"])
    assert len([r for r in caplog.records if "off while Redis is unreachable" in r.message]) == 1
    await limiter.redis.aclose()

    # the whole app without Redis: limits configured, holds still made
    v = await arena(pool)
    async with serve(redis_url=f"redis://127.0.0.1:{free_port()}/0", hold_rate_per_token=1,
                     hold_rate_per_customer=1) as c:
        caller = await c.token(pool, v.unit_id)
        for n in (1, 2):  # the second would be over the token's limit
            body = (await c.post(HOLD, {"input": hold_input(v.unit_id, v.resource_ids[f"Campo {n}"], 8, 19,
                                                            a_cpf())}, caller))[1]
            assert body["data"]["hold"]["__typename"] == "BookingPayload", body


# --- bodies and websocket messages --------------------------------------------------------------------------------


async def test_a_body_over_the_limit_is_413_with_a_code(serve: Any) -> None:
    async with serve(max_body_bytes=2_000) as c:
        fits = json.dumps({"query": "{ __typename }" + " " * 1_950})
        assert len(fits) <= 2_000
        ok = await c.http.post("/graphql", content=fits, headers={"content-type": "application/json"})
        assert ok.status_code == 200 and ok.json() == {"data": {"__typename": "Query"}}
        r = await c.http.post("/graphql", content=fits + " " * (2_001 - len(fits)),
                              headers={"content-type": "application/json"})
    assert r.status_code == 413
    assert r.json()["errors"][0]["extensions"] == {"code": "body_too_large"}


async def _websocket(app: Starlette, messages: list[str]) -> list[dict[str, Any]]:
    incoming: list[dict[str, Any]] = [{"type": "websocket.connect"},
                                      *({"type": "websocket.receive", "text": m} for m in messages)]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        if incoming:
            return incoming.pop(0)
        await asyncio.sleep(0.2)
        return {"type": "websocket.disconnect", "code": 1000}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(dict(message))

    scope = {"type": "websocket", "asgi": {"version": "3.0"}, "scheme": "ws", "path": "/graphql", "raw_path":
             b"/graphql", "root_path": "", "query_string": b"", "client": ("127.0.0.1", 5000),
             "server": ("slothold.test", 80), "subprotocols": ["graphql-transport-ws"],
             "headers": [(b"host", b"slothold.test"), (b"sec-websocket-protocol", b"graphql-transport-ws")]}
    await asyncio.wait_for(app(scope, receive, send), 10)
    return sent


async def test_a_websocket_message_over_the_limit_closes_the_socket_with_1009(serve: Any) -> None:
    async with serve(max_body_bytes=2_000) as c:
        init = json.dumps({"type": "connection_init", "payload": {"pad": "x" * 1_900}})
        assert len(init) <= 2_000
        sent = await _websocket(c.app, [init])
        assert any(json.loads(m.get("text") or "{}").get("type") == "connection_ack" for m in sent), sent
        # under 2,000 characters, over 2,000 bytes in UTF-8
        too_big = json.dumps({"type": "connection_init", "payload": {"pad": "é" * 1_000}}, ensure_ascii=False)
        assert len(too_big) < 2_000 < len(too_big.encode())
        sent = await _websocket(c.app, [too_big])
    assert sent[-1]["type"] == "websocket.close" and sent[-1]["code"] == 1009, sent
    assert not any("connection_ack" in (m.get("text") or "") for m in sent)
