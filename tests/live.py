"""A real API on a port with its relay, for tests that need subscriptions (websockets) and live changes.

    async with live_api(database_url, redis_url) as live:
        data = await live.gql(token, "mutation ...", {...})
        async with live.subscribe(token, "subscription ...", {...}) as feed:
            ... change something ...
            payload = await feed.next()          # the next `data` of the subscription
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import uvicorn
import websockets

from domain.ports import Clock
from jobs.relay import Relay
from providers.clock import SystemClock
from slothold.app import create_app
from slothold.cli.embedded import free_port
from slothold.settings import Settings
from store.access import PgAccess
from store.relay import PgOutboxSource


class Feed:
    """One subscription on its own websocket."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws

    async def next(self, timeout: float = 10.0) -> dict[str, Any]:
        """The next result's `data`; fails on an error or a completion."""
        while True:
            msg = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
            if msg["type"] == "next":
                assert "errors" not in msg["payload"], msg["payload"]
                return msg["payload"]["data"]  # type: ignore[no-any-return]
            if msg["type"] == "ping":
                await self.ws.send(json.dumps({"type": "pong"}))
                continue
            raise AssertionError(f"the subscription sent {msg}")

    async def nothing(self, within: float = 0.5) -> None:
        """Fails if a result arrives within `within` seconds."""
        try:
            msg = await asyncio.wait_for(self.ws.recv(), within)
        except TimeoutError:
            return
        raise AssertionError(f"nothing was expected, the subscription sent {msg}")


@dataclass
class Live:
    port: int
    access: PgAccess
    app: Any
    relaying: bool = True

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def post(self, token: str | None, query: str, variables: dict[str, Any] | None = None,
                   headers: dict[str, str] | None = None) -> dict[str, Any]:
        """The whole GraphQL response (data and errors)."""
        auth = {"authorization": f"Bearer {token}"} if token else {}
        async with httpx.AsyncClient(base_url=self.url) as http:
            r = await http.post("/graphql", headers={**auth, **(headers or {})},
                                json={"query": query, "variables": variables or {}})
        return r.json()  # type: ignore[no-any-return]

    async def gql(self, token: str | None, query: str, variables: dict[str, Any] | None = None,
                  headers: dict[str, str] | None = None) -> dict[str, Any]:
        """`data` of a response that has no errors."""
        body = await self.post(token, query, variables, headers)
        assert "errors" not in body, body["errors"]
        return body["data"]  # type: ignore[no-any-return]

    async def settled(self, timeout: float = 15.0) -> None:
        """Wait until the relay has published every committed outbox row (at once without a relay)."""
        if not self.relaying:
            return
        pool = self.app.state.slothold["pool"]
        for _ in range(int(timeout / 0.05)):
            if not await pool.fetchval("SELECT EXISTS (SELECT 1 FROM outbox WHERE published_at IS NULL)"):
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"outbox rows still unpublished after {timeout} s")

    @asynccontextmanager
    async def subscribe(self, token: str | None, query: str, variables: dict[str, Any] | None = None
                        ) -> AsyncIterator[Feed]:
        """A subscription, open once the server acknowledged it (give it a moment to reach the hub). Everything
        committed before it is published first, so it starts after the events of what the test did so far."""
        await self.settled()
        async with websockets.connect(f"ws://127.0.0.1:{self.port}/graphql",
                                      subprotocols=[websockets.Subprotocol("graphql-transport-ws")]) as ws:
            await ws.send(json.dumps({"type": "connection_init",
                                      "payload": {"authorization": f"Bearer {token}"} if token else {}}))
            ack = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert ack["type"] == "connection_ack", ack
            await ws.send(json.dumps({"id": "1", "type": "subscribe",
                                      "payload": {"query": query, "variables": variables or {}}}))
            await asyncio.sleep(0.3)  # the subscription reaches the hub before the test changes anything
            yield Feed(ws)


@asynccontextmanager
async def serving(app: Any) -> AsyncIterator[int]:
    """`app` served by uvicorn in this process on a free port (yielded), stopped on leaving."""
    port = free_port()
    # As `slothold serve` runs it (slothold/cli/serve.py): connections still open 5 s after the stop are cancelled.
    # Without it the suite once waited past its 15 s for the server of a websocket test to stop (CI load, 2026-12-03).
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on",
                                        timeout_graceful_shutdown=5))
    task = asyncio.create_task(srv.serve())
    try:
        for _ in range(300):
            if srv.started:
                break
            await asyncio.sleep(0.05)
        yield port
    finally:
        srv.should_exit = True
        await asyncio.wait_for(task, 15)


@asynccontextmanager
async def live_api(database_url: str, redis_url: str, clock: Clock | None = None, relay: bool = True,
                   **settings: Any) -> AsyncIterator[Live]:
    """The API on a free port (Settings fields may be given) and, unless `relay=False`, a relay from the outbox to
    Redis; both stopped on leaving."""
    app = create_app(Settings(database_url=database_url, redis_url=redis_url, **{"db_pool_max": 10,
                                                                                "log_level": "WARNING", **settings}),
                     clock=clock)
    stop = asyncio.Event()
    relayer = Relay(PgOutboxSource(database_url), redis_url, clock or SystemClock())
    relaying = asyncio.create_task(relayer.run(stop)) if relay else None
    try:
        async with serving(app) as port:
            if relay:
                await _leading(relayer)
            yield Live(port, app.state.slothold["access"], app, relay)
    finally:
        stop.set()
        if relaying is not None:
            await asyncio.wait_for(relaying, 15)


async def _leading(relayer: Relay) -> None:
    """Wait until this relay leads (holds the relay lock): events are then published as soon as they commit. Another
    relay still leading (a worker of an earlier test being stopped) would otherwise hold them for a second or more."""
    for _ in range(300):
        if relayer.is_leader:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the test's relay did not become the leader within 15 s: another relay holds the lock")
