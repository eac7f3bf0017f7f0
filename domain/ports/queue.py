"""The repository of the staff queue (store/queue.py)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, Protocol
from uuid import UUID

from domain.staff_queue import QueueItem, QueueItemType


class QueueRepository(Protocol):
    """The staff queue (see store/queue.py)."""

    async def open(self, unit_id: UUID, type_: QueueItemType, at: datetime, booking_id: UUID | None = None,
                   payload: dict[str, Any] | None = None) -> QueueItem: ...

    async def acknowledge(self, item_id: UUID, actor: str, at: datetime) -> QueueItem: ...

    async def resolve(self, item_id: UUID, actor: str, at: datetime, note: str | None = None) -> QueueItem: ...

    async def resolve_for_booking(self, booking_id: UUID, type_: QueueItemType, actor: str, at: datetime,
                                 note: str) -> None: ...

    async def list(self, unit_id: UUID, statuses: list[str], limit: int = 200) -> list[QueueItem]: ...

    async def get(self, item_id: UUID) -> QueueItem:
        """One item (NotFound when there is none)."""
        ...

    async def unit_of(self, item_id: UUID) -> UUID | None:
        """The unit of a queue item (None: there is no such item)."""
        ...

    async def open_daily(self, unit_id: UUID, type_: QueueItemType, day: date, at: datetime,
                         payload: dict[str, Any]) -> QueueItem | None: ...
