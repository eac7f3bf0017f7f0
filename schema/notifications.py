"""Types of in-app notifications (SPEC §13, §16)."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

import strawberry

from domain import events
from schema.ids import Kind, opt_ref, ref
from schema.nodes import Node


@strawberry.type(description="An in-app notification, to a customer or to a unit's staff.")
class Notification(Node):
    id: strawberry.ID
    unit_id: strawberry.ID
    audience: str = strawberry.field(description="customer | staff")
    kind: str = strawberry.field(description="created, hold_reminder, payment_confirmed, confirmed, "
                                             "cancelled_by_customer, dropped, cancelled, expired, completed, "
                                             "owner_alert, …")
    booking_id: strawberry.ID | None
    title: str
    body: str
    created_at: datetime
    read_at: datetime | None

    @classmethod
    def from_row(cls, r: dict[str, Any]) -> Notification:
        return cls(id=ref(Kind.NOTIFICATION, r["id"]), unit_id=ref(Kind.UNIT, r["unit_id"]), audience=r["audience"],
                   kind=r["kind"], booking_id=opt_ref(Kind.BOOKING, r.get("booking_id")),
                   title=r["title"], body=r["body"], created_at=r["created_at"], read_at=r.get("read_at"))

    @classmethod
    def from_event(cls, unit_id: UUID, n: events.NotificationAdded) -> Notification:
        """A notification as it was just added (unread)."""
        return cls(id=ref(Kind.NOTIFICATION, n.notification_id), unit_id=ref(Kind.UNIT, unit_id), audience=n.audience,
                   kind=n.kind, booking_id=opt_ref(Kind.BOOKING, n.booking_id), title=n.title,
                   body=n.body, created_at=n.created_at, read_at=None)


@strawberry.type(description="A notification that just arrived, with the unit's event sequence number.")
class NotificationAdded:
    seq: int
    notification: Notification
