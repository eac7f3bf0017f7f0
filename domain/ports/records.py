"""What a unit of work keeps besides a feature's rows: the stored results of requests that carried an idempotency
key, and the unit's numbered events with the outbox rows they come from."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol
from uuid import UUID

from domain.events import Fact
from domain.outbox import OutboxEvent


class IdempotencyKeys(Protocol):
    """Stored results of requests that carried an idempotency key."""

    async def claim(
        self, unit_id: UUID, key: str, operation: str, fingerprint: str, expires_at: datetime
    ) -> dict[str, Any] | None: ...

    async def complete(self, unit_id: UUID, key: str, response: dict[str, Any]) -> None: ...


class Events(Protocol):
    """A unit's numbered events, and new outbox rows."""

    async def since(self, unit_id: UUID, seq: int, limit: int = 1000) -> list[OutboxEvent]: ...

    async def last_seq(self, unit_id: UUID) -> int: ...

    async def notify(self, unit_id: UUID, event: Fact) -> None:
        """Write the event's outbox row in the unit of work's transaction."""
        ...
