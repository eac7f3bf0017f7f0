"""One Redis subscription per API process (broadcaster), fanned out in memory to its subscribers.

Events carry a per-unit sequence number. The hub delivers what Redis brings; whenever it may have
missed something (Redis went away and came back, a subscriber fell behind) it tells subscribers to
resynchronise from the database, which holds every event. So nothing is lost, whatever Redis does.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from uuid import UUID

from broadcaster import Broadcast

from domain.events import Fact, parse_event
from resolvers.feed import RESYNC_SEQ
from store.outbox import EVENTS_CHANNEL

log = logging.getLogger("slothold.hub")
QUEUE_SIZE = 10_000


@dataclass(frozen=True)
class LiveEvent:
    """An event as it arrives from Redis."""

    unit_id: UUID
    seq: int
    topic: str
    payload: dict[str, Any]

    @cached_property
    def fact(self) -> Fact | None:
        """The typed event, read once for every subscriber of this process (domain.events.parse_event)."""
        return parse_event(self.topic, self.payload)


RESYNC = LiveEvent(UUID(int=0), RESYNC_SEQ, "resync", {})
"""Marker: events may have been missed; read them from the database."""


@dataclass(eq=False)
class Subscription:
    """One subscriber's inbox for one unit."""

    unit_id: UUID
    queue: asyncio.Queue[LiveEvent] = field(default_factory=lambda: asyncio.Queue(QUEUE_SIZE))

    def offer(self, event: LiveEvent) -> None:
        try:
            self.queue.put_nowait(event)
        except asyncio.QueueFull:
            # A slow subscriber: drop what it has not read and make it catch up from the database.
            while not self.queue.empty():
                self.queue.get_nowait()
            self.queue.put_nowait(RESYNC)


class Hub:
    """The process-wide fan-out of Redis events to subscriptions."""

    def __init__(self, redis_url: str, connect: Callable[[], Broadcast] | None = None) -> None:
        """`connect` makes a new Broadcast each time the hub (re)connects (the composition root's, which may ask Redis
        Sentinel for the primary); by default, one on `redis_url`."""
        self._url = redis_url
        self._connect = connect or (lambda: Broadcast(redis_url))
        self._subs: dict[UUID, set[Subscription]] = {}
        self._task: asyncio.Task[None] | None = None
        self.connected = asyncio.Event()

    def register(self, unit_id: UUID) -> Subscription:
        """Start receiving the unit's live events."""
        sub = Subscription(unit_id)
        self._subs.setdefault(unit_id, set()).add(sub)
        return sub

    def unregister(self, sub: Subscription) -> None:
        """Stop receiving events."""
        subs = self._subs.get(sub.unit_id)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del self._subs[sub.unit_id]

    @property
    def subscriber_count(self) -> int:
        """How many subscriptions this process serves."""
        return sum(len(s) for s in self._subs.values())

    async def start(self) -> None:
        """Connect in the background (the API serves even while Redis is down)."""
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        """Disconnect."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    def _dispatch(self, raw: str) -> None:
        data = json.loads(raw)
        unit_id = UUID(data["unit_id"])
        subs = self._subs.get(unit_id)
        if not subs:
            return
        event = LiveEvent(unit_id, int(data["seq"]), data["topic"], data["payload"])
        for sub in list(subs):
            sub.offer(event)

    def _resync_all(self) -> None:
        for subs in self._subs.values():
            for sub in subs:
                sub.offer(RESYNC)

    async def _run(self) -> None:
        while True:
            try:
                await self._listen()
            except asyncio.CancelledError:
                raise
            except Exception as e:
                if self.connected.is_set():
                    log.warning("lost Redis (%s: %s); reconnecting", type(e).__name__, e)
                self.connected.clear()
                await asyncio.sleep(0.5)

    async def _listen(self) -> None:
        broadcast = self._connect()
        try:
            await broadcast.connect()
        except BaseException:
            # broadcaster 0.3.1 starts its Redis listener task before connecting and leaves it pending when the
            # connection fails (logged as "Task was destroyed but it is pending" on every retry): end it here.
            listener = getattr(broadcast._backend, "_listener", None)
            if listener is not None:
                listener.cancel()
            with contextlib.suppress(Exception):
                await broadcast._backend.disconnect()
            raise
        try:
            async with broadcast.subscribe(EVENTS_CHANNEL) as sub:
                self.connected.set()
                self._resync_all()  # whatever happened while we were away is in the database
                log.info("listening for events on Redis")
                getter: asyncio.Future[Any] | None = None
                try:
                    while True:
                        getter = getter or asyncio.ensure_future(sub.get())
                        done, _ = await asyncio.wait({getter}, timeout=1.0)
                        if getter in done:
                            self._dispatch(getter.result().message)
                            getter = None
                        else:
                            await self._check(broadcast)
                finally:
                    if getter is not None:
                        getter.cancel()
        finally:
            with contextlib.suppress(Exception):
                await broadcast.disconnect()

    @staticmethod
    async def _check(broadcast: Broadcast) -> None:
        # broadcaster 0.3.1 (pinned) never reports a dead connection: its listener task just ends.
        backend: Any = broadcast._backend
        listener = getattr(backend, "_listener", None)
        if listener is not None and listener.done():
            raise ConnectionError("the Redis listener stopped")
        await asyncio.wait_for(backend._conn.ping(), 2.0)
