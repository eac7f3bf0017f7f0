"""One dashboard of the storm: slotChanged of one unit, reconnecting with `since` after any disconnection."""

from __future__ import annotations

import asyncio
import json
import random
from datetime import UTC, datetime, timedelta
from uuid import UUID

import websockets

from bench._storm_config import SLOTS


class Subscriber:
    """One dashboard: slotChanged of one unit, reconnecting with `since` after any disconnection."""

    def __init__(self, unit: UUID, ports: list[int], token: str, rng: random.Random) -> None:
        self.unit, self.ports, self.token, self.rng = unit, ports, token, rng
        self.seqs: list[int] = []
        self.reconnects = 0
        self.errors: list[str] = []
        """Error answers received (each followed by a resubscription with since)."""

    async def run(self, stop: asyncio.Event) -> None:
        now = datetime.now(UTC)
        window = {"u": str(self.unit), "from": (now - timedelta(days=1)).isoformat(),
                  "to": (now + timedelta(days=4)).isoformat()}
        while not stop.is_set():
            port = self.rng.choice(self.ports)
            try:
                async with websockets.connect(f"ws://127.0.0.1:{port}/graphql", subprotocols=["graphql-transport-ws"],
                                              open_timeout=5, max_size=None) as ws:
                    await ws.send(json.dumps({"type": "connection_init",
                                              "payload": {"authorization": f"Bearer {self.token}"}}))
                    await ws.recv()
                    since = self.seqs[-1] if self.seqs else None
                    await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": {
                        "query": SLOTS, "variables": {**window, "since": since if since is not None else 0}}}))
                    while not stop.is_set():
                        try:
                            raw = await asyncio.wait_for(ws.recv(), 0.5)
                        except TimeoutError:
                            continue
                        msg = json.loads(raw)
                        data = (msg.get("payload") or {}).get("data") if msg.get("type") == "next" else None
                        if data and data.get("slotChanged"):
                            self.seqs.append(data["slotChanged"]["seq"])
                        elif msg.get("type") in ("next", "error", "complete"):
                            # An error (e.g. the database went away mid-replay): resubscribe with since, as a
                            # dashboard does.
                            self.errors.append(json.dumps(msg)[:300])
                            break
            except (OSError, websockets.WebSocketException, TimeoutError):
                pass
            except Exception as e:  # a harness bug must not silently end a subscriber: count it, carry on
                self.errors.append(f"{type(e).__name__}: {e}")
            if not stop.is_set():
                self.reconnects += 1
                await asyncio.sleep(0.5)
