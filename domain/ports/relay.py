"""Outside a unit of work: the relay's own connection to the outbox and where it publishes (store/relay.py), and
the error an adapter raises in place of its driver's."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import Protocol
from uuid import UUID

from domain.outbox import OutboxEvent


class StoreError(Exception):
    """The database failed or refused a statement: what an adapter raises in place of its driver's errors where
    its caller goes on without what failed (the relay: an event's webhooks, or its next pass)."""


class OutboxFeed(Protocol):
    """The relay's own connection to the outbox (store/relay.py). Raises StoreError when the database fails or
    refuses a statement, ConnectionError (an OSError) when the connection is gone."""

    async def lead(self) -> bool:
        """Try to become the one relay that leads (True: this feed leads until it closes)."""
        ...

    async def listen(self, wake: Callable[[], object]) -> None:
        """Call `wake` whenever outbox rows are committed."""
        ...

    async def sequence_pending(self) -> int:
        """Number committed, unnumbered rows per unit (in a transaction of its own); how many."""
        ...

    async def chain_pending(self) -> int:
        """Chain committed audit events that have no hash yet (a batch, in a transaction of its own); how many."""
        ...

    async def unpublished(self) -> list[OutboxEvent]:
        """Numbered rows not yet published, oldest first (a batch)."""
        ...

    async def mark_published(self, ids: list[int], at: datetime) -> None: ...

    async def schedule_webhooks(self, events: list[OutboxEvent], now: datetime) -> list[tuple[UUID, int]]:
        """A pending delivery per subscribed endpoint and event, in one transaction (an event relayed twice is
        scheduled once): the new deliveries as (id, attempts done)."""
        ...

    async def plan_notifications(self, event: OutboxEvent, now: datetime) -> list[UUID]:
        """The notification deliveries the event asks for, planned once; the new ones' ids. Raises MalformedEvent
        (a ValueError) on a row whose notice cannot be planned."""
        ...


class OutboxSource(Protocol):
    """Where the relay finds the outbox and where it publishes its rows (store/relay.py)."""

    @property
    def channel(self) -> str:
        """The Redis channel the rows are published on (every API process listens there)."""
        ...

    def open(self) -> AbstractAsyncContextManager[OutboxFeed]:
        """A feed on a connection of its own, closed on leaving (raises as OutboxFeed's methods do)."""
        ...
