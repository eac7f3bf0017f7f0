"""A client process of bench/realtime_scale.py: thousands of raw websocket subscribers (bench/_rt_ws.py) driven by
commands over a pipe from the bench process.

One process of this kind costs far less than the API it loads (an asyncio.Protocol per socket, frames kept
unparsed until asked for); several of them spread 10,000 sockets over the cores without one Python process being
the limit. Arrival stamps are time.monotonic() (CLOCK_MONOTONIC: the same clock in every process of the machine).
"""

from __future__ import annotations

import asyncio
import gc
import time
from multiprocessing.connection import Connection
from typing import Any

import uvloop

from bench import _rt_ws
from bench._rt_ws import WsSubscriber, parse, subscribe

Spec = tuple[int, dict[str, Any]]
"""(API port, variables) of one subscriber."""


class Client:
    def __init__(self) -> None:
        self.sets: dict[str, list[WsSubscriber]] = {}
        self.failures: dict[str, int] = {}

    async def connect(self, name: str, query: str, specs: list[Spec], batch: int) -> tuple[int, int, float]:
        """Open and subscribe `specs` (`batch` at a time; 0: all at once). (connected, failed, seconds)."""
        t = time.monotonic()
        out = self.sets.setdefault(name, [])
        failed = 0
        step = batch or len(specs) or 1
        for i in range(0, len(specs), step):
            got = await asyncio.gather(*(subscribe("127.0.0.1", port, "/graphql", query, variables, timeout=120)
                                         for port, variables in specs[i:i + step]), return_exceptions=True)
            for g in got:
                if isinstance(g, WsSubscriber):
                    out.append(g)
                else:
                    failed += 1
                    out.append(WsSubscriber(asyncio.get_running_loop()))  # a placeholder: keeps indices aligned
        self.failures[name] = self.failures.get(name, 0) + failed
        return len(specs) - failed, failed, time.monotonic() - t

    def status(self, name: str) -> tuple[int, int, list[int]]:
        """(frames received, subscribers with none yet, frames of each subscriber)."""
        subs = self.sets.get(name, [])
        counts = [len(s.frames) for s in subs]
        return sum(counts), sum(1 for c in counts if not c), counts

    def collect(self, name: str) -> list[list[tuple[float, int | None, str | None, str]]]:
        """Per subscriber: (arrival, seq, bookingId, kind) of each message since the last collect."""
        return [[(m.t, m.seq, m.booking_id, m.kind if m.kind == "next" else f"{m.kind} {m.raw[:200]!r}")
                 for m in parse(s.take())] for s in self.sets.get(name, [])]

    async def close(self, name: str) -> None:
        subs = self.sets.pop(name, [])
        await asyncio.gather(*(s.close() for s in subs), return_exceptions=True)


async def _serve(conn: Connection, token: str | None) -> None:
    _rt_ws.TOKEN = token
    client = Client()
    loop = asyncio.get_running_loop()
    while True:
        cmd, *args = await loop.run_in_executor(None, conn.recv)
        if cmd == "quit":
            for name in list(client.sets):
                await client.close(name)
            conn.send(None)
            return
        try:
            if cmd == "connect":
                result: Any = await client.connect(*args)
            elif cmd == "status":
                result = client.status(*args)
            elif cmd == "collect":
                result = client.collect(*args)
            elif cmd == "close":
                await client.close(*args)
                result = None
            else:
                result = ValueError(f"unknown command {cmd}")
        except Exception as e:  # reported to the bench, which stops
            result = e
        conn.send(result)


def main(conn: Connection, token: str | None) -> None:
    """The process's entry point (multiprocessing, spawn)."""
    gc.disable()  # as in bench/realtime.py: the collector's pauses would show up as delivery latency
    uvloop.run(_serve(conn, token))
