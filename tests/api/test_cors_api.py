"""CORS for booking widgets (issue 19) on the real API: owners register their sites' origins, the API lets exactly
those in (and the platform's), at once in the process that changed them; websockets from other sites are refused."""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import AsyncIterator
from typing import Any
from uuid import uuid4

import httpx
import pytest
import websockets

from domain import origins
from domain.services import Deps
from schema.ids import global_id
from slothold.app import create_app
from slothold.settings import Settings
from store.allowed_origins import OriginUnion
from store.uow import PgUnitOfWork
from tests.conftest import MutableClock
from tests.live import Live, live_api
from tests.venues import arena, at

SET = ("mutation($u: ID!, $o: [String!]!) { setAllowedOrigins(unitId: $u, origins: $o) { __typename "
       "... on AllowedOrigins { origins { origin createdAt createdBy } } ... on Error { code message } "
       "... on InvalidInput { field } } }")
LIST = "query($u: ID!) { allowedOrigins(unitId: $u) { origin createdBy } }"
CHANGES = "query($u: ID!) { venueChanges(unitId: $u) { entity entityId action before after session } }"
SLOTS = ("query($u: ID!, $f: DateTime!, $t: DateTime!) { bookableSlots(unitId: $u, from: $f, to: $t) "
         "{ __typename } }")


def site() -> str:
    """An origin no other test registers (the test database is shared by the session)."""
    return f"https://widget-{secrets.token_hex(4)}.example"


def preflight(origin: str) -> dict[str, str]:
    return {"origin": origin, "access-control-request-method": "POST",
            "access-control-request-headers": "authorization, content-type, idempotency-key"}


@pytest.fixture
async def live(database_url: str, redis_url: str) -> AsyncIterator[Live]:
    async with live_api(database_url, redis_url, relay=False, cors_origins="https://portal.example") as server:
        yield server


async def _owner_and_others(live: Live, pool: Any) -> tuple[Any, dict[str, str]]:
    v, other = await arena(pool), await arena(pool)
    tokens = {}
    for role in ("owner", "manager", "operator"):
        token_id, tokens[role] = await live.access.issue_token(v.tenant_id, v.unit_id, "staff", role, [], role)
        tokens[role + "_id"] = str(token_id)
    tokens["stranger"] = (await live.access.issue_token(other.tenant_id, None, "staff", "owner", [], "other"))[1]
    return v, tokens


async def test_an_owner_registers_origins_and_the_api_lets_them_in_at_once(live: Live, pool: Any) -> None:
    v, t = await _owner_and_others(live, pool)
    u, w = str(v.unit_id), site()
    async with httpx.AsyncClient(base_url=live.url) as http:
        assert (await http.options("/graphql", headers=preflight(w))).status_code == 403  # (and now cached)
        done = (await live.gql(t["owner"], SET, {"u": u, "o": [w.upper() + ":443", "http://localhost:5173"]}))
        listed = done["setAllowedOrigins"]["origins"]
        assert [o["origin"] for o in listed] == ["http://localhost:5173", w]  # normalised, alphabetically
        assert {o["createdBy"] for o in listed} == {f"staff:{t['owner_id']}"}
        # This process forgot its cached list on commit: the very next preflight is let in.
        r = await http.options("/graphql", headers=preflight(w))
        assert r.status_code == 204 and r.headers["access-control-allow-origin"] == w
        assert "idempotency-key" in r.headers["access-control-allow-headers"]
        assert "access-control-allow-credentials" not in r.headers
        r = await http.post("/graphql", headers={"origin": w}, json={"query": SLOTS, "variables": {
            "u": u, "f": at(8, 8).isoformat(), "t": at(8, 12).isoformat()}})
        assert r.json()["data"]["bookableSlots"]["__typename"] == "BookableSlots"
        assert r.headers["access-control-allow-origin"] == w and "vary" in r.headers
        assert "x-request-id" in r.headers["access-control-expose-headers"] and r.headers["x-request-id"]
        # Another site still gets no CORS headers, before or after: it runs, the browser hides the answer.
        r = await http.post("/graphql", headers={"origin": site()}, json={"query": "{ me { kind } }"})
        assert r.status_code == 200 and "access-control-allow-origin" not in r.headers
        # Managers and owners read the list; operators and other tenants may not.
        assert (await live.gql(t["manager"], LIST, {"u": u}))["allowedOrigins"] == [
            {"origin": "http://localhost:5173", "createdBy": f"staff:{t['owner_id']}"},
            {"origin": w, "createdBy": f"staff:{t['owner_id']}"}]
        for caller in ("operator", "stranger"):
            body = await live.post(t[caller], LIST, {"u": u})
            assert body["errors"][0]["extensions"]["code"] == "forbidden" and not body.get("data"), body
        # Only owners change it; a refused change changes nothing.
        body = await live.post(t["manager"], SET, {"u": u, "o": []})
        assert body["errors"][0]["extensions"]["code"] == "forbidden", body
        # Taking it off the list shuts it out at once here too.
        await live.gql(t["owner"], SET, {"u": u, "o": ["http://localhost:5173"]})
        assert (await http.options("/graphql", headers=preflight(w))).status_code == 403
    logged = (await live.gql(t["manager"], CHANGES, {"u": u}))["venueChanges"]
    assert [(c["entity"], c["entityId"], c["action"]) for c in logged] == [("ALLOWED_ORIGINS", global_id("Unit", u),
                                                                                "UPDATED")] * 2
    assert logged[1]["before"] == {"origins": []} and logged[1]["after"] == {"origins": ["http://localhost:5173", w]}
    assert logged[0]["before"] == {"origins": ["http://localhost:5173", w]}
    assert logged[0]["after"] == {"origins": ["http://localhost:5173"]}
    assert logged[0]["session"] == f"staff:{t['owner_id']}"


async def test_a_bad_origin_is_refused_by_name_and_changes_nothing(live: Live, pool: Any) -> None:
    v, t = await _owner_and_others(live, pool)
    u, w = str(v.unit_id), site()
    await live.gql(t["owner"], SET, {"u": u, "o": [w]})
    for given, code in ((["http://shop.example.com"], "https_required"), ([w, "https://*.example.com"],
                                                                           "invalid_origin"),
                        ([w + "/booking"], "invalid_origin"), (["null"], "invalid_origin"),
                        ([f"https://s{i}.example" for i in range(21)], "too_many_origins")):
        refused = (await live.gql(t["owner"], SET, {"u": u, "o": given}))["setAllowedOrigins"]
        assert refused["__typename"] == "InvalidInput" and refused["code"] == code, refused
        assert refused["field"] == "origins"
        if code != "too_many_origins":
            assert given[-1] in refused["message"]  # it names the origin
    assert [o["origin"] for o in (await live.gql(t["owner"], LIST, {"u": u}))["allowedOrigins"]] == [w]
    # Giving the same list again logs nothing.
    await live.gql(t["owner"], SET, {"u": u, "o": [w]})
    assert len((await live.gql(t["owner"], CHANGES, {"u": u}))["venueChanges"]) == 1
    system = await _system(live)
    missing = (await live.gql(system, SET, {"u": str(uuid4()), "o": [w]}))["setAllowedOrigins"]
    assert missing["__typename"] == "NotFound"


async def _system(live: Live) -> str:
    return (await live.access.issue_token(None, None, "system", None, [], "cors tests"))[1]


async def test_the_platform_list_is_allowed_and_other_paths_are_untouched(live: Live) -> None:
    async with httpx.AsyncClient(base_url=live.url) as http:
        r = await http.options("/graphql", headers=preflight("https://portal.example"))
        assert r.status_code == 204 and r.headers["access-control-allow-origin"] == "https://portal.example"
        r = await http.options("/v1/holds", headers=preflight("https://portal.example"))  # the REST door's prefix
        assert r.status_code == 204 and r.headers["vary"] == "Origin"
        # The GraphQL view itself still refuses OPTIONS that is no preflight, as before.
        assert (await http.options("/graphql")).status_code == 405
        # Webhooks, health, metrics: no preflight answered, no CORS header added.
        for method, path in (("OPTIONS", "/webhooks/pix"), ("GET", "/healthz"), ("GET", "/metrics")):
            r = await http.request(method, path, headers=preflight("https://portal.example"))
            assert not [h for h in r.headers if h.startswith("access-control-")], (path, r.headers)
            assert "origin" not in r.headers.get("vary", "").lower(), path
        assert (await http.options("/webhooks/pix", headers=preflight("https://portal.example"))).status_code == 405


async def test_a_malformed_platform_list_stops_the_start(database_url: str, redis_url: str) -> None:
    with pytest.raises(ValueError, match=r"SLOTHOLD_CORS_ORIGINS: 'https://portal\.example/app'"):
        create_app(Settings(database_url=database_url, redis_url=redis_url,
                            cors_origins="https://portal.example/app"))


async def _ws_ack(url: str, origin: str | None) -> str:
    async with websockets.connect(url, origin=websockets.Origin(origin) if origin else None,
                                  subprotocols=[websockets.Subprotocol("graphql-transport-ws")]) as ws:
        await ws.send(json.dumps({"type": "connection_init", "payload": {}}))
        return str(json.loads(await ws.recv())["type"])


async def test_a_websocket_from_an_unknown_site_is_refused_before_it_is_accepted(live: Live, pool: Any) -> None:
    v, t = await _owner_and_others(live, pool)
    w = site()
    await live.gql(t["owner"], SET, {"u": str(v.unit_id), "o": [w]})
    url = f"ws://127.0.0.1:{live.port}/graphql"
    for origin in (None, live.url, w, "https://portal.example"):  # no browser, the API's own pages, allowed sites
        assert await _ws_ack(url, origin) == "connection_ack", origin
    for origin in (site(), "null", f"http://localhost:{live.port}"):
        with pytest.raises(websockets.InvalidStatus) as refused:
            await _ws_ack(url, origin)
        assert refused.value.response.status_code == 403, origin


class CountingPool:
    """A pool stand-in that answers the union's query and counts it."""

    def __init__(self, pool: Any) -> None:
        self.pool, self.reads = pool, 0

    async def fetch(self, query: str, *args: Any) -> Any:
        self.reads += 1
        return await self.pool.fetch(query, *args)


async def test_the_union_is_cached_forgotten_on_commit_here_and_expires_elsewhere(
        pool: Any, clock: MutableClock) -> None:
    v = await arena(pool)
    deps = Deps(uow=lambda: PgUnitOfWork(pool), clock=clock)
    here, elsewhere = CountingPool(pool), CountingPool(pool)
    mine = OriginUnion(here, frozenset({"https://portal.example"}), seconds=60)  # type: ignore[arg-type]
    theirs = OriginUnion(elsewhere, seconds=0.5)  # type: ignore[arg-type]
    first = site()
    await origins.set_allowed_origins(deps, v.unit_id, [first], "cli")
    assert first in await mine.allowed() and "https://portal.example" in await mine.allowed()
    assert first in await theirs.allowed()
    await asyncio.gather(*(mine.allowed() for _ in range(50)))  # concurrent and repeated reads: no new query
    assert here.reads == 1
    # Another process changes the list (straight in the table: nothing in this process is told).
    second = site()
    await pool.execute("INSERT INTO unit_allowed_origins (unit_id, origin, created_at, created_by) "
                       "VALUES ($1, $2, now(), 'cli')", v.unit_id, second)
    assert second not in await theirs.allowed()  # still its copy...
    await asyncio.sleep(0.6)
    assert second in await theirs.allowed()  # ...until it expires
    assert second not in await mine.allowed() and here.reads == 1
    # A change committed through this process's unit of work is seen at once, however long the copy would live.
    third = site()
    await origins.set_allowed_origins(deps, v.unit_id, [first, second, third], "cli")
    assert {first, second, third} <= await mine.allowed() and here.reads == 2
    await origins.set_allowed_origins(deps, v.unit_id, [], "cli")
    assert not {first, second, third} & await mine.allowed() and here.reads == 3


async def test_a_database_outage_keeps_the_last_list(pool: Any) -> None:
    class Failing:
        def __init__(self) -> None:
            self.fail = False

        async def fetch(self, query: str, *args: Any) -> Any:
            if self.fail:
                raise OSError("connection refused")
            return await pool.fetch(query, *args)

    failing = Failing()
    union = OriginUnion(failing, frozenset({"https://portal.example"}), seconds=0)  # type: ignore[arg-type]
    before = await union.allowed()
    failing.fail = True
    assert await union.allowed() == before
    assert await OriginUnion(failing, frozenset({"https://portal.example"})).allowed() == {  # type: ignore[arg-type]
        "https://portal.example"}
