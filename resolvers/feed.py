"""A unit's event feed for one subscriber: replay from `since`, then live, in order, once each.

Live events come from the process's hub (slothold/hub.py, behind the protocols below); the database
is the record. A gap in sequence numbers, a reconnect to Redis or a slow reader all lead to the same
cure: read what is missing from the database.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
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


async def unit_events(deps: Deps, hub: EventHub, unit_id: UUID, since: int | None) -> AsyncIterator[FeedEvent]:
    """Every event of the unit after `since` (None: from now on), in sequence order, each once."""
    inbox: Inbox = hub.register(unit_id)
    try:
        last = since if since is not None else await queries.last_seq(deps, unit_id)
        behind = since is not None
        while True:
            if behind:
                while True:
                    missed = await queries.events_since(deps, unit_id, last)
                    for event in missed:
                        yield event
                        last = event.seq
                    if len(missed) < 1000:
                        break
                behind = False
            event = await inbox.queue.get()
            if event.seq == RESYNC_SEQ or event.seq > last + 1:
                behind = True
            elif event.seq == last + 1:
                yield event
                last = event.seq
    finally:
        hub.unregister(inbox)
