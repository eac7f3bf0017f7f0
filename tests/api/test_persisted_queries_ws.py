"""Persisted queries over websockets (graphql-transport-ws `subscribe` payload extensions), on a real uvicorn server:
APQ's miss, registration and hit; the allow-list mode refuses any document not in its manifest there too."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import websockets

from api.graphql.manifest import build_manifest
from slothold.app import create_app
from slothold.settings import Settings
from store.access import PgAccess
from tests.api.apq_support import UNIT, pq, unique, unit
from tests.live import serving

__all__ = ["unit"]  # fixture

QUEUE = "subscription Queue($u: ID!) { queueChanged(unitId: $u) { seq } }"
Socket = Callable[..., AbstractAsyncContextManager[Any]]


@pytest.fixture
def socket(database_url: str, redis_url: str, pool: Any) -> Socket:
    """A graphql-transport-ws connection, acknowledged, to a live server with the given settings."""

    @asynccontextmanager
    async def connect(**settings: Any) -> AsyncIterator[Any]:
        app = create_app(Settings(database_url=database_url, redis_url=redis_url,
                                  **{"db_pool_max": 4, "log_level": "WARNING", **settings}))
        async with serving(app) as port:
            _, token = await PgAccess(pool).issue_token(None, None, "system", None, [], "apq ws")
            ws = await websockets.connect(f"ws://127.0.0.1:{port}/graphql", subprotocols=["graphql-transport-ws"])
            try:
                await ws.send(json.dumps({"type": "connection_init", "payload": {"authorization": f"Bearer {token}"}}))
                assert json.loads(await asyncio.wait_for(ws.recv(), 5))["type"] == "connection_ack"
                yield ws
            finally:
                await ws.close()

    return connect


async def _send(ws: Any, op: str, variables: dict[str, Any], query: str | None = None,
                extensions: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """The first message about `op`, or None when there is none within 0.3 s (a subscription waiting)."""
    payload: dict[str, Any] = {"variables": variables}
    if query is not None:
        payload["query"] = query
    if extensions is not None:
        payload["extensions"] = extensions
    await ws.send(json.dumps({"id": op, "type": "subscribe", "payload": payload}))
    try:
        msg: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 0.3 if "sub" in op else 5))
    except TimeoutError:
        return None
    assert msg["id"] == op, msg
    return msg


def _code(msg: dict[str, Any] | None) -> str:
    assert msg is not None and msg["type"] == "error", msg
    (error,) = msg["payload"]
    return str(error["extensions"]["code"])


async def test_apq_over_a_websocket(socket: Socket, unit: str) -> None:
    query, sub = unique(UNIT), unique(QUEUE)
    answer = {"id": "q3", "type": "next", "payload": {"data": {"unit": {"__typename": "Unit"}}}}
    async with socket() as ws:
        miss = await _send(ws, "q1", {"u": unit}, extensions=pq(query))
        assert _code(miss) == "PERSISTED_QUERY_NOT_FOUND" and miss and miss["payload"][0]["message"] == \
            "PersistedQueryNotFound"
        assert (await _send(ws, "q2", {"u": unit}, query, pq(query)) or {})["type"] == "next"
        assert json.loads(await asyncio.wait_for(ws.recv(), 5)) == {"id": "q2", "type": "complete"}
        assert await _send(ws, "q3", {"u": unit}, extensions=pq(query)) == answer
        assert json.loads(await asyncio.wait_for(ws.recv(), 5)) == {"id": "q3", "type": "complete"}
        assert _code(await _send(ws, "q4", {"u": unit}, query, pq(sub))) == "PERSISTED_QUERY_HASH_MISMATCH"
        assert _code(await _send(ws, "q5", {"u": unit}, query, pq(query, 2))) == \
            "PERSISTED_QUERY_VERSION_NOT_SUPPORTED"
        # a subscription: registered with its document, then followed by its hash alone
        assert await _send(ws, "sub1", {"u": unit}, sub, pq(sub)) is None
        assert await _send(ws, "sub2", {"u": unit}, extensions=pq(sub)) is None
        # the socket is still usable after all this
        assert (await _send(ws, "q6", {"u": unit}, UNIT) or {})["type"] == "next"


async def test_the_allowlist_applies_to_websockets(socket: Socket, unit: str, tmp_path: Path) -> None:
    manifest = build_manifest([("ops.graphql", UNIT + "\n" + QUEUE)])
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(manifest))
    listed = {op["name"]: op["body"] for op in manifest["operations"]}
    other = unique(UNIT)
    async with socket(persisted_queries="allowlist", persisted_query_manifest=str(path)) as ws:
        for op, query, extensions in (("q1", UNIT, None), ("q2", other, pq(other)),
                                      ("sub1", QUEUE, None)):
            code = _code(await _send(ws, op, {"u": unit}, query, extensions))
            assert code == "QUERY_NOT_IN_SAFELIST", op
        assert _code(await _send(ws, "q3", {"u": unit}, extensions=pq(unique(UNIT)))) == \
            "PERSISTED_QUERY_NOT_IN_LIST"
        assert await _send(ws, "q4", {"u": unit}, extensions=pq(listed["Unit"])) == \
            {"id": "q4", "type": "next", "payload": {"data": {"unit": {"__typename": "Unit"}}}}
        assert json.loads(await asyncio.wait_for(ws.recv(), 5)) == {"id": "q4", "type": "complete"}
        assert await _send(ws, "sub2", {"u": unit}, extensions=pq(listed["Queue"])) is None  # running
        assert await _send(ws, "sub3", {"u": unit}, listed["Queue"]) is None
