"""Subscription documents over the websocket (graphql-transport-ws), fuzzed like the operations, and malformed
protocol messages: no internal error, no leak, every error with a code, and nothing written."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from typing import Any

import pytest
import websockets
from hypothesis import given
from hypothesis import strategies as st

from slothold.app import create_app
from slothold.settings import Settings
from tests.fuzz.checks import judge
from tests.fuzz.conftest import PROFILE, Fuzzer
from tests.fuzz.generator import Request, requests
from tests.fuzz.world import CALLERS
from tests.live import serving


@pytest.fixture(scope="module")
async def live(fuzzer: Fuzzer, database_url: str, redis_url: str) -> AsyncIterator[int]:
    """A real server (uvicorn) on the fuzz venue's database: websockets need one."""
    app = create_app(Settings(database_url=database_url, redis_url=redis_url, db_pool_max=5, log_level="WARNING"))
    async with serving(app) as port:
        yield port


async def _messages(ws: Any, wait: float) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    try:
        while True:
            out.append(json.loads(await asyncio.wait_for(ws.recv(), wait)))
    except (TimeoutError, websockets.ConnectionClosed):
        return out


async def _run(fuzzer: Fuzzer, port: int, request: Request) -> list[dict[str, Any]]:
    before = await fuzzer.footprint()
    async with websockets.connect(f"ws://127.0.0.1:{port}/graphql", subprotocols=["graphql-transport-ws"]) as ws:
        token = fuzzer.world.tokens.get(request.caller)
        await ws.send(json.dumps({"type": "connection_init",
                                  "payload": {"authorization": f"Bearer {token}"} if token else {}}))
        assert json.loads(await asyncio.wait_for(ws.recv(), 5))["type"] == "connection_ack"
        await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": request.body}))
        messages = await _messages(ws, 0.2)
    if os.environ.get("SLOTHOLD_FUZZ_DEBUG"):
        print("DEBUG ws", request.field.name, request.caller, [json.dumps(m)[:200] for m in messages])
    for m in messages:
        payload = m.get("payload")
        if m.get("type") == "next" and isinstance(payload, dict):
            out = judge(200, json.dumps(payload), request.sent_strings(), request.field.name, fuzzer.error_types)
        elif m.get("type") == "error":
            out = judge(200, json.dumps({"errors": payload}), request.sent_strings(), None, fuzzer.error_types)
        else:
            continue
        assert not out.problems, (request.body, request.caller, out.problems, m)
    assert await fuzzer.footprint() == before, ("a subscription wrote", request.body)
    return messages


@PROFILE
@given(data=st.data())
async def test_subscriptions_survive_fuzzed_arguments(fuzzer: Fuzzer, live: int, data: st.DataObject) -> None:
    field = data.draw(st.sampled_from(fuzzer.schema.root_fields("subscription")), label="subscription")
    request = data.draw(requests(fuzzer.schema, fuzzer.values, field, CALLERS, fuzzer.world), label="request")
    await _run(fuzzer, live, request)


PROTOCOL_MESSAGES: list[Any] = [
    "not json", "[" * 50_000 + "]" * 50_000, '{"type": "subscribe", "id": "1", "payload": {"query": '
    + "[" * 50_000 + "]" * 50_000 + "}}", "null", "42", '"subscribe"', "[]", json.dumps({"type": "nope"}),
    json.dumps({"type": "subscribe"}), json.dumps({"type": "subscribe", "id": 1, "payload": {}}),
    json.dumps({"type": "subscribe", "id": "1", "payload": {"query": 1}}),
    json.dumps({"type": "subscribe", "id": "1", "payload": {"query": "subscription { queueChanged(unitId: "
                                                                     '"\\u0000") { seq } }'}}),
    json.dumps({"type": "subscribe", "id": "1", "payload": {"query": "{ me { kind } }"}}),
    json.dumps({"type": "subscribe", "id": "1", "payload": {"query": "mutation { signOut }"}}),
    json.dumps({"type": "subscribe", "id": "1", "payload": {"query": "subscription { nope }"}}),
    json.dumps({"type": "subscribe", "id": "1", "payload": {"query": "subscription($u: ID!) { queueChanged(unitId: "
                                                                     "$u) { seq } }", "variables": {"u": "\x00"}}}),
    json.dumps({"type": "subscribe", "id": "x" * 10_000, "payload": {"query": "subscription { nope }"}}),
    json.dumps({"type": "complete", "id": "never"}), json.dumps({"type": "ping", "payload": [1]}),
    json.dumps({"type": "connection_init"}), "{}", json.dumps({"type": 5}), json.dumps({"type": ["subscribe"]}),
    json.dumps({"type": "subscribe", "id": "1", "payload": 5}),
    json.dumps({"type": "subscribe", "id": "1", "payload": "x"}),
    json.dumps({"type": "subscribe", "id": "1", "payload": None}),
    json.dumps({"type": "subscribe", "id": ["1"], "payload": {"query": "subscription { nope }"}}),
    json.dumps({"type": "subscribe", "id": None, "payload": {"query": "subscription { nope }"}}),
    json.dumps({"type": "subscribe", "id": "1", "payload": {"query": "subscription($u: ID!) { queueChanged(unitId: "
                                                                     "$u) { seq } }", "variables": 5}}),
    json.dumps({"type": "subscribe", "id": "1", "payload": {"query": "subscription($u: ID!) { queueChanged(unitId: "
                                                                     "$u) { seq } }", "variables": ["x"]}}),
    json.dumps({"type": "subscribe", "id": "1", "payload": {"query": "subscription { nope }", "operationName": 5}}),
    json.dumps({"type": "subscribe", "id": "1", "payload": {"query": "subscription { nope }", "extensions": 5}}),
    json.dumps({"type": "complete", "id": ["x"]}), json.dumps({"type": "complete"}),
    json.dumps({"type": "pong", "payload": "x"}),
]


@pytest.mark.parametrize("message", PROTOCOL_MESSAGES, ids=[str(i) for i in range(len(PROTOCOL_MESSAGES))])
async def test_malformed_protocol_messages(fuzzer: Fuzzer, live: int, message: str) -> None:
    before = await fuzzer.footprint()
    async with websockets.connect(f"ws://127.0.0.1:{live}/graphql", subprotocols=["graphql-transport-ws"]) as ws:
        await ws.send(json.dumps({"type": "connection_init", "payload": fuzzer.world.headers("system")}))
        assert json.loads(await asyncio.wait_for(ws.recv(), 5))["type"] == "connection_ack"
        await ws.send(message)
        messages = await _messages(ws, 0.3)
        code = ws.close_code
    for m in messages:
        if m.get("type") in ("next", "error"):
            body = m["payload"] if m["type"] == "next" else {"errors": m["payload"]}
            out = judge(200, json.dumps(body), [message], None, fuzzer.error_types)
            assert not out.problems, (message[:200], out.problems, m)
    # Open, closed normally, too big (1009) or a protocol refusal (4xxx); 1006/1011 mean the server failed.
    assert code in (None, 1000, 1009) or 4000 <= code < 5000, (message[:200], code)
    assert await fuzzer.footprint() == before
