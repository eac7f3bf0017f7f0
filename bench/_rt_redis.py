"""Redis side of bench/realtime.py: an observer of the app's event channel, and the raw pub/sub baseline.

Both run in the bench process and stamp time.monotonic(), the clock of the websocket subscribers.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as aioredis

from store.outbox import EVENTS_CHANNEL


class ChannelObserver:
    """A plain Redis subscriber on the app's events channel: when each event of one unit left the relay.

    It sees what every API process's hub sees, at the same moment (it is one more subscriber of the
    channel), so commit → here is the database + relay part of the latency, and here → websocket the API's.
    """

    def __init__(self, redis_url: str, unit_id: str | None) -> None:
        """`unit_id` None: every unit's events."""
        self.url, self.unit_id = redis_url, unit_id
        self.seen: dict[str, tuple[float, int]] = {}  # booking_id → (monotonic arrival, seq)
        self.duplicates = 0
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run())
        await asyncio.wait_for(self._ready.wait(), 10)

    async def _run(self) -> None:
        conn = aioredis.Redis.from_url(self.url)
        pubsub = conn.pubsub()
        try:
            await pubsub.subscribe(EVENTS_CHANNEL)
            self._ready.set()
            async for msg in pubsub.listen():
                if msg["type"] != "message":
                    continue
                t = time.monotonic()
                data = json.loads(msg["data"])
                if self.unit_id is not None and data.get("unit_id") != self.unit_id:
                    continue
                booking = str((data.get("payload") or {}).get("booking_id"))
                if booking in self.seen:
                    self.duplicates += 1
                else:
                    self.seen[booking] = (t, int(data["seq"]))
        finally:
            with contextlib.suppress(Exception):
                await pubsub.aclose()
            await conn.aclose()

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task


# ---------------------------------------------------------------------------------------- raw baseline


@dataclass
class RawResult:
    subscribers: int
    latencies: list[float] = field(default_factory=list)  # publish called → consumer task got it
    sent: int = 0
    burst: int = 0
    burst_seconds: float = 0.0  # first publish of the burst → last consumer got its last message
    lost: int = 0
    out_of_order: int = 0

    @property
    def deliveries_per_s(self) -> float:
        return self.burst * self.subscribers / self.burst_seconds if self.burst_seconds else 0.0


async def raw_pubsub(redis_url: str, channel: str, subscribers: int, rate: float, seconds: float, burst: int,
                     message: dict[str, Any]) -> RawResult:
    """1 publisher; 1 subscriber connection whose reader parses each message once and puts it into
    `subscribers` in-memory queues, each drained by its own task (the app's hub, without GraphQL and
    websockets). First `rate`/s for `seconds` (latency), then `burst` messages as fast as possible."""
    out = RawResult(subscribers)
    pub = aioredis.Redis.from_url(redis_url)
    sub = aioredis.Redis.from_url(redis_url)
    pubsub = sub.pubsub()
    queues: list[asyncio.Queue[tuple[int, float]]] = [asyncio.Queue() for _ in range(subscribers)]
    sent_at: dict[int, float] = {}
    got: list[list[tuple[int, float]]] = [[] for _ in range(subscribers)]
    expected = 0
    done = asyncio.Event()
    remaining = [0]

    async def reader() -> None:
        async for msg in pubsub.listen():
            if msg["type"] != "message":
                continue
            data = json.loads(msg["data"])
            item = (int(data["seq"]), 0.0)
            for q in queues:
                q.put_nowait(item)

    async def consumer(i: int) -> None:
        mine = got[i]
        while True:
            seq, _ = await queues[i].get()
            mine.append((seq, time.monotonic()))
            remaining[0] -= 1
            if remaining[0] <= 0:
                done.set()

    tasks: list[asyncio.Task[None]] = []
    try:
        await pubsub.subscribe(channel)
        tasks = [asyncio.create_task(reader()), *(asyncio.create_task(consumer(i)) for i in range(subscribers))]
        await asyncio.sleep(0.2)
        seq = 0

        async def publish() -> None:
            nonlocal seq
            seq += 1
            body = json.dumps({**message, "seq": seq})
            sent_at[seq] = time.monotonic()
            await pub.publish(channel, body)

        # latency: a fixed rate
        n = max(1, int(rate * seconds))
        remaining[0] = expected = n * subscribers
        done.clear()
        t0 = time.monotonic()
        for i in range(n):
            delay = t0 + i / rate - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            await publish()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(done.wait(), 30)
        for mine in got:
            out.latencies += [t - sent_at[s] for s, t in mine]
        out.sent = n
        lat_count = sum(len(m) for m in got)
        out.lost += expected - lat_count
        out.out_of_order += sum(any(b[0] <= a[0] for a, b in itertools.pairwise(m)) for m in got)
        for m in got:
            m.clear()

        # throughput: a burst
        remaining[0] = burst * subscribers
        done.clear()
        first = seq + 1
        t0 = time.monotonic()
        for _ in range(burst):
            await publish()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(done.wait(), 60)
        last = max((m[-1][1] for m in got if m), default=t0)
        out.burst, out.burst_seconds = burst, last - t0
        out.lost += burst * subscribers - sum(len(m) for m in got)
        out.out_of_order += sum([s for s, _ in m] != list(range(first, first + len(m))) for m in got)
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        with contextlib.suppress(Exception):
            await pubsub.aclose()
        await sub.aclose()
        await pub.aclose()
    return out
