"""A unit's event feed for one subscriber: replay from `since`, then live, in order, once each.

Live events come from the process's hub (slothold/hub.py, behind the protocols below); the database
is the record. A gap in sequence numbers, a reconnect to Redis or a slow reader all lead to the same
cure: read what is missing from the database.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextvars import ContextVar
from typing import Any, Protocol
from uuid import UUID

from domain import queries
from domain.events import Fact
from domain.services import Deps

RESYNC_SEQ = -1


class FeedEvent(Protocol):
    """An event of a unit: its sequence number, topic and payload (seq -1: resynchronise)."""

    @property
    def seq(self) -> int: ...

    @property
    def topic(self) -> str: ...

    @property
    def payload(self) -> dict[str, Any]: ...

    @property
    def fact(self) -> Fact | None:
        """The typed event (domain.events.parse_event); raises MalformedEvent on a malformed payload."""
        ...


class Inbox(Protocol):
    """One subscriber's queue of live events."""

    queue: asyncio.Queue[Any]


class EventHub(Protocol):
    """The process's fan-out of live events."""

    def register(self, unit_id: UUID) -> Any: ...

    def unregister(self, sub: Any) -> None: ...


class FeedWatch(Protocol):
    """Who runs a feed for many subscribers (api/realtime/fanout.py) learns from it where it stands: a shared
    stream must know which event each of its results comes from, to hand subscribers from one stream to another
    with nothing lost or doubled."""

    def started(self, last: int) -> None:
        """The feed delivers the events after `last`, none before."""

    def yielding(self, seq: int) -> None:
        """The event about to be handed to the resolver (a result the resolver yields now comes from it)."""

    def processed(self, seq: int) -> bool:
        """The resolver is done with this event (its result is out, or it had none). True: stop the feed here."""
        ...


FEED_WATCH: ContextVar[FeedWatch | None] = ContextVar("slothold_feed_watch", default=None)
"""Set by a shared stream's task (api/realtime/fanout.py) for the one feed its execution runs."""


async def unit_events(deps: Deps, hub: EventHub, unit_id: UUID, since: int | None) -> AsyncIterator[FeedEvent]:
    """Every event of the unit after `since` (None: from now on), in sequence order, each once — until the
    stream's FeedWatch, if it has one, says to stop."""
    watch = FEED_WATCH.get()
    inbox: Inbox = hub.register(unit_id)
    try:
        last = since if since is not None else await queries.last_seq(deps, unit_id)
        if watch is not None:
            watch.started(last)
            if watch.processed(last):
                return
        behind = since is not None
        while True:
            if behind:
                while True:
                    missed = await queries.events_since(deps, unit_id, last)
                    for event in missed:
                        if watch is not None:
                            watch.yielding(event.seq)
                        yield event
                        last = event.seq
                        if watch is not None and watch.processed(last):
                            return
                    if len(missed) < 1000:
                        break
                behind = False
            event = await inbox.queue.get()
            if event.seq == RESYNC_SEQ or event.seq > last + 1:
                behind = True
            elif event.seq == last + 1:
                if watch is not None:
                    watch.yielding(event.seq)
                yield event
                last = event.seq
                if watch is not None and watch.processed(last):
                    return
    finally:
        hub.unregister(inbox)
