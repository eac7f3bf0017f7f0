"""The staff queue's rows; every change also leaves a `queue_changed` outbox row for live dashboards."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any
from uuid import UUID, uuid4

from domain.errors import InvalidTransition, NotFound
from domain.events import QueueItemChanged
from domain.staff_queue import QueueItem, QueueItemType, QueueStatus
from store.bookings import ConnGetter

QUEUE_COLUMNS = ("id, unit_id, type, booking_id, payload, status, created_at, acknowledged_by, acknowledged_at, "
                 "resolved_by, resolved_at")


def queue_item_from_row(r: Any) -> QueueItem:
    return QueueItem(id=r["id"], unit_id=r["unit_id"], type=QueueItemType(r["type"]), created_at=r["created_at"],
                     booking_id=r["booking_id"], payload=r["payload"], status=QueueStatus(r["status"]),
                     acknowledged_by=r["acknowledged_by"], acknowledged_at=r["acknowledged_at"],
                     resolved_by=r["resolved_by"], resolved_at=r["resolved_at"])


class PgQueue:
    """Queue items on the unit of work's connection."""

    def __init__(self, conn: ConnGetter) -> None:
        self._conn = conn

    async def _changed(self, item: QueueItem, kind: str) -> None:
        conn = await self._conn()
        event = QueueItemChanged(kind, item.id, item.type.value, item.priority, item.title, item.booking_id)
        await conn.execute("INSERT INTO outbox (unit_id, topic, payload) VALUES ($1, $2, $3)", item.unit_id,
                           event.TOPIC, event.to_json())

    async def open(self, unit_id: UUID, type_: QueueItemType, at: datetime, booking_id: UUID | None = None,
                   payload: dict[str, Any] | None = None) -> QueueItem:
        """Open an item (an open item of the same type for the same booking is reused)."""
        conn = await self._conn()
        if booking_id is not None:
            existing = await conn.fetchrow(
                f"SELECT {QUEUE_COLUMNS} FROM queue_items WHERE unit_id = $1 AND booking_id = $2 AND type = $3 "
                "AND status <> 'resolved' FOR UPDATE", unit_id, booking_id, type_.value)
            if existing:
                return queue_item_from_row(existing)
        item = QueueItem(uuid4(), unit_id, type_, at, booking_id, payload or {})
        await conn.execute(
            "INSERT INTO queue_items (id, unit_id, type, priority, booking_id, payload, status, created_at) "
            "VALUES ($1, $2, $3, $4, $5, $6, 'open', $7)", item.id, unit_id, type_.value, item.priority, booking_id,
            item.payload, at)
        await self._changed(item, "opened")
        return item

    async def open_daily(self, unit_id: UUID, type_: QueueItemType, day: date, at: datetime,
                         payload: dict[str, Any]) -> QueueItem | None:
        """Open an alert at most once per unit, type and `day` (None: that day's was already opened).

        The unique index queue_items_daily_alert decides, so two processes raising it at once open one.
        """
        conn = await self._conn()
        item = QueueItem(uuid4(), unit_id, type_, at, None, {**payload, "alert_day": day.isoformat()})
        opened = await conn.fetchval(
            "INSERT INTO queue_items (id, unit_id, type, priority, payload, status, created_at) "
            "VALUES ($1, $2, $3, $4, $5, 'open', $6) "
            "ON CONFLICT (unit_id, type, (payload->>'alert_day')) WHERE payload ? 'alert_day' DO NOTHING "
            "RETURNING true", item.id, unit_id, type_.value, item.priority, item.payload, at)
        if not opened:
            return None
        await self._changed(item, "opened")
        return item

    async def unit_of(self, item_id: UUID) -> UUID | None:
        """The unit of a queue item (None: there is no such item)."""
        conn = await self._conn()
        unit_id: UUID | None = await conn.fetchval("SELECT unit_id FROM queue_items WHERE id = $1", item_id)
        return unit_id

    async def get(self, item_id: UUID) -> QueueItem:
        """One item, locked."""
        conn = await self._conn()
        r = await conn.fetchrow(f"SELECT {QUEUE_COLUMNS} FROM queue_items WHERE id = $1 FOR UPDATE", item_id)
        if r is None:
            raise NotFound("queue item", item_id, field="itemId")
        return queue_item_from_row(r)

    async def acknowledge(self, item_id: UUID, actor: str, at: datetime) -> QueueItem:
        """"Registrar ciência"."""
        item = await self.get(item_id)
        if item.status is not QueueStatus.OPEN:
            raise InvalidTransition(item.status.value, QueueStatus.ACKNOWLEDGED.value, "acknowledge an item that is")
        conn = await self._conn()
        await conn.execute("UPDATE queue_items SET status = 'acknowledged', acknowledged_by = $2, acknowledged_at = $3 "
                           "WHERE id = $1", item_id, actor, at)
        item.status, item.acknowledged_by, item.acknowledged_at = QueueStatus.ACKNOWLEDGED, actor, at
        await self._changed(item, "acknowledged")
        return item

    async def resolve(self, item_id: UUID, actor: str, at: datetime, note: str | None = None) -> QueueItem:
        """Close an item."""
        item = await self.get(item_id)
        if item.status is QueueStatus.RESOLVED:
            raise InvalidTransition(item.status.value, QueueStatus.RESOLVED.value, "resolve an item that is")
        conn = await self._conn()
        await conn.execute("UPDATE queue_items SET status = 'resolved', resolved_by = $2, resolved_at = $3, "
                           "payload = payload || $4::jsonb WHERE id = $1", item_id, actor, at,
                           {"resolution": note} if note else {})
        item.status, item.resolved_by, item.resolved_at = QueueStatus.RESOLVED, actor, at
        await self._changed(item, "resolved")
        return item

    async def resolve_for_booking(self, booking_id: UUID, type_: QueueItemType, actor: str, at: datetime,
                                  note: str) -> None:
        """Close the booking's open items of a type (the situation resolved itself)."""
        conn = await self._conn()
        ids = await conn.fetch("SELECT id FROM queue_items WHERE booking_id = $1 AND type = $2 "
                               "AND status <> 'resolved'",
                               booking_id, type_.value)
        for r in ids:
            await self.resolve(r["id"], actor, at, note)

    async def list(self, unit_id: UUID, statuses: list[str], limit: int = 200) -> list[QueueItem]:
        """The unit's items in these statuses, most urgent and oldest first."""
        conn = await self._conn()
        rows = await conn.fetch(
            f"SELECT {QUEUE_COLUMNS} FROM queue_items WHERE unit_id = $1 AND status = ANY($2::text[]) "
            "ORDER BY CASE priority WHEN 'critical' THEN 0 WHEN 'high' THEN 1 ELSE 2 END, created_at LIMIT $3",
            unit_id, statuses, limit)
        return [queue_item_from_row(r) for r in rows]
