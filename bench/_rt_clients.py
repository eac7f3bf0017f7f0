"""The realtime bench's side of the sockets: N websocket subscribers on one API process, and the API process's
peak RSS while they run."""

from __future__ import annotations

import asyncio
from typing import Any

import psutil

from bench._rt_config import SLOTS
from bench._rt_ws import Received, WsSubscriber, parse, subscribe


class Subscribers:
    """N raw websocket subscribers on one API process, each with one slotChanged subscription."""

    def __init__(self, port: int, variables: dict[str, Any]) -> None:
        self.port, self.variables = port, variables
        self.subs: list[WsSubscriber] = []
        self.received: list[list[Received]] = []

    async def connect(self, n: int, batch: int) -> None:
        while len(self.subs) < n:
            k = min(batch, n - len(self.subs))
            self.subs += await asyncio.gather(*(subscribe("127.0.0.1", self.port, "/graphql", SLOTS, self.variables)
                                                for _ in range(k)))
        self.received = [[] for _ in self.subs]

    def frames(self) -> int:
        return sum(len(s.frames) for s in self.subs)

    def collect(self) -> None:
        """Parse what arrived since the last call (after a phase: no parsing while measuring)."""
        for sub, out in zip(self.subs, self.received, strict=True):
            out += parse(sub.take())

    async def close(self) -> None:
        await asyncio.gather(*(s.close() for s in self.subs), return_exceptions=True)
        self.subs = []


class RssSampler:
    """The API process's peak RSS while running."""

    def __init__(self, pid: int) -> None:
        self.proc = psutil.Process(pid)
        self.max = 0.0
        self._task: asyncio.Task[None] | None = None

    def now(self) -> float:
        try:
            v = float(self.proc.memory_info().rss) / 2**20
        except psutil.Error:
            return float("nan")
        self.max = max(self.max, v)
        return v

    async def _run(self) -> None:
        while True:
            self.now()
            await asyncio.sleep(0.25)

    def __enter__(self) -> RssSampler:
        self._task = asyncio.create_task(self._run())
        return self

    def __exit__(self, *exc: object) -> None:
        if self._task is not None:
            self._task.cancel()
