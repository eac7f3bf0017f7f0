"""Edge inputs of the GraphQL endpoint (issue 16): websocket `subscribe` messages whose documents do not parse, are
too deep or too large get an `error` message with the codes HTTP gives (never a traceback, never a bare `complete`);
the operation past the per-socket cap gets `too_many_subscriptions`; a document of several operations without
`operationName` is refused with `operation_name_required`, over HTTP and over websockets."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
import websockets

from slothold.app import create_app
from slothold.settings import Settings
from store.access import PgAccess
from tests.live import serving
from tests.venues import arena

MAX_DEPTH = 2
"""The server below allows 2 levels, so that a subscription (whose types nest 3 deep at most) can be too deep."""


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def server_logs() -> Iterator[_Records]:
    """Every record the in-process server logs while the test runs."""
    handler = _Records()
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield handler
    finally:
        root.removeHandler(handler)


@pytest.fixture
async def live(database_url: str, redis_url: str, pool: Any) -> AsyncIterator[tuple[int, str, str]]:
    """(port, system token, unit id) of a real uvicorn server in this process."""
    app = create_app(Settings(database_url=database_url, redis_url=redis_url, db_pool_max=5, log_level="WARNING",
                              max_query_depth=MAX_DEPTH))
    async with serving(app) as port:
        _, token = await PgAccess(pool).issue_token(None, None, "system", None, [], "ws edges")
        v = await arena(pool)
        yield port, token, str(v.unit_id)


async def _connect(port: int, token: str) -> Any:
    ws = await websockets.connect(f"ws://127.0.0.1:{port}/graphql", subprotocols=["graphql-transport-ws"])
    await ws.send(json.dumps({"type": "connection_init", "payload": {"authorization": f"Bearer {token}"}}))
    assert json.loads(await asyncio.wait_for(ws.recv(), 5))["type"] == "connection_ack"
    return ws


async def _answer(ws: Any, sub_id: str, query: str, variables: dict[str, Any] | None = None,
                  operation_name: str | None = None) -> dict[str, Any]:
    payload: dict[str, Any] = {"query": query, "variables": variables or {}}
    if operation_name is not None:
        payload["operationName"] = operation_name
    await ws.send(json.dumps({"id": sub_id, "type": "subscribe", "payload": payload}))
    msg: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 5))
    return msg


def _queue(unit: str) -> tuple[str, dict[str, Any]]:
    return "subscription($u: ID!) { queueChanged(unitId: $u) { seq } }", {"u": unit}


TOO_LARGE = "subscription($u: ID!) { queueChanged(unitId: $u) { seq" + " seq" * 2_500 + " } }"
TOO_DEEP = ("subscription($u: ID!, $f: DateTime!, $t: DateTime!) { slotChanged(unitId: $u, from: $f, to: $t) { "
            "slots { resourceId } } }")  # 3 levels


@pytest.mark.parametrize(("name", "query", "code"), [
    ("syntax", "subscription($u: ID!) { queueChanged(unitId: ", "invalid_syntax"),
    ("syntax at the end", "subscription($u: ID!) { queueChanged(unitId: $u) { seq }", "invalid_syntax"),
    ("too many tokens", TOO_LARGE, "query_too_large"),
    ("too deep", TOO_DEEP, "query_too_deep"),
    ("several operations", "subscription A($u: ID!) { queueChanged(unitId: $u) { seq } } "
                           "subscription B($u: ID!) { waitlistChanged(unitId: $u) { seq } }",
     "operation_name_required"),
    ("several operations with a query first", "query A { me { kind } } "
                                              "subscription B($u: ID!) { queueChanged(unitId: $u) { seq } }",
     "operation_name_required"),
])
async def test_a_refused_subscribe_gets_an_error_message_with_the_http_code(
    live: tuple[int, str, str], server_logs: _Records, name: str, query: str, code: str
) -> None:
    port, token, unit = live
    variables: dict[str, Any] = {"u": unit, "f": "2026-12-07T00:00:00Z", "t": "2026-12-08T00:00:00Z"}
    ws = await _connect(port, token)
    try:
        for attempt in ("op-1", "op-1-again"):  # the second one finds the parse and validation caches warm
            msg = await _answer(ws, attempt, query, variables)
            assert msg["type"] == "error" and msg["id"] == attempt, (name, msg)
            (error,) = msg["payload"]
            assert error["extensions"]["code"] == code, (name, msg)
            assert error["message"]
        # The socket stays usable: the next operation runs.
        q, v = _queue(unit)
        await ws.send(json.dumps({"id": "op-2", "type": "subscribe", "payload": {"query": q, "variables": v}}))
        with pytest.raises(TimeoutError):  # accepted: waiting for events
            await asyncio.wait_for(ws.recv(), 0.3)
    finally:
        await ws.close()
    failures = [r for r in server_logs.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not failures, [(r.name, r.getMessage()[:300]) for r in failures]


async def test_the_same_documents_over_http_give_the_same_codes(live: tuple[int, str, str]) -> None:
    port, token, unit = live
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}",
                                 headers={"authorization": f"Bearer {token}",
                                          "accept": "application/graphql-response+json"}) as http:
        for query, code in [  # the websocket test's three refusals, as queries
            ("{ me { kind }", "invalid_syntax"),
            ("{ me { kind" + " kind" * 2_500 + " } }", "query_too_large"),
            ("query($u: ID!) { unit(id: $u) { ... on Unit { resources { id } } } }", "query_too_deep"),
        ]:
            r = await http.post("/graphql", json={"query": query, "variables": {"u": unit}})
            assert r.status_code == 400 and r.json()["errors"][0]["extensions"]["code"] == code, r.text


async def test_the_101st_operation_on_one_socket_gets_too_many_subscriptions(live: tuple[int, str, str]) -> None:
    port, token, unit = live
    q, v = _queue(unit)
    ws = await _connect(port, token)
    try:
        for i in range(100):
            await ws.send(json.dumps({"id": f"s{i}", "type": "subscribe", "payload": {"query": q, "variables": v}}))
        with pytest.raises(TimeoutError):  # all 100 accepted
            await asyncio.wait_for(ws.recv(), 0.5)
        msg = await _answer(ws, "s100", q, v)
        assert msg["type"] == "error" and msg["id"] == "s100", msg
        assert msg["payload"][0]["extensions"] == {"code": "too_many_subscriptions", "maxSubscriptions": 100}
        # Completing one makes room for another.
        await ws.send(json.dumps({"id": "s0", "type": "complete"}))
        await asyncio.sleep(0.2)
        await ws.send(json.dumps({"id": "s101", "type": "subscribe", "payload": {"query": q, "variables": v}}))
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(ws.recv(), 0.5)
    finally:
        await ws.close()


MULTI = "query A { me { kind } } query B { me { name } }"


@pytest.mark.parametrize(("accept", "status"), [("application/graphql-response+json", 400),
                                                ("application/json", 200)])
async def test_several_operations_without_operation_name_are_a_request_error(
    live: tuple[int, str, str], accept: str, status: int
) -> None:
    port, token, _ = live
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}",
                                 headers={"authorization": f"Bearer {token}", "accept": accept}) as http:
        r = await http.post("/graphql", json={"query": MULTI})
        assert r.status_code == status, r.text
        body = r.json()
        assert "data" not in body, body
        assert body["errors"][0]["extensions"]["code"] == "operation_name_required", body
        r = await http.get("/graphql", params={"query": MULTI})
        assert r.status_code == status and r.json()["errors"][0]["extensions"]["code"] == "operation_name_required"
        # A mutation among them runs neither: nothing is written before the refusal.
        r = await http.post("/graphql", json={"query": "mutation A { signOut } query B { me { kind } }"})
        assert r.json()["errors"][0]["extensions"]["code"] == "operation_name_required", r.text
        # With a name, or with one operation, they run.
        r = await http.post("/graphql", json={"query": MULTI, "operationName": "B"})
        assert r.status_code == 200 and r.json() == {"data": {"me": {"name": "ws edges"}}}, r.text
        r = await http.post("/graphql", json={"query": "query A { me { kind } } fragment F on Me { name }"})
        assert r.status_code in (200, 400) and "operation_name_required" not in r.text, r.text
        r = await http.post("/graphql", json={"query": "query subscription { me { kind } }"})
        assert r.status_code == 200 and r.json() == {"data": {"me": {"kind": "SYSTEM"}}}, r.text
