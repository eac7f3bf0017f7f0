"""Types of in-app notifications (SPEC §13, §16)."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

import strawberry

from domain import events
from domain.notifications import Audience, NotificationKind
from schema import docs
from schema.enums import described_enum
from schema.ids import Kind, opt_ref, ref
from schema.nodes import Node

described_enum(Audience, name="NotificationAudience", description="Whom an in-app notification is for.", values={
    "CUSTOMER": "A customer: their own feed (a customer session reads it).",
    "STAFF": "The unit's staff: the unit's feed (staff with READ read it).",
})


@strawberry.type(description="An in-app notification, to a customer or to a unit's staff.")
class Notification(Node):
    id: strawberry.ID = strawberry.field(description=docs.ID)
    unit_id: strawberry.ID = strawberry.field(description=docs.UNIT_ID)
    audience: Audience = strawberry.field(description="Whom it is for.")
    kind: NotificationKind = strawberry.field(description="What it is about.")
    booking_id: strawberry.ID | None = strawberry.field(description=docs.OPTIONAL_BOOKING_ID)
    title: str = strawberry.field(description="Its title, in the unit's notification language.")
    body: str = strawberry.field(description="Its text, in the unit's notification language.")
    created_at: datetime = strawberry.field(description=docs.CREATED_AT)
    read_at: datetime | None = strawberry.field(description="When it was marked read; null while unread.")

    @classmethod
    def from_row(cls, r: dict[str, Any]) -> Notification:
        return cls(id=ref(Kind.NOTIFICATION, r["id"]), unit_id=ref(Kind.UNIT, r["unit_id"]),
                   audience=Audience(r["audience"]), kind=NotificationKind(r["kind"]),
                   booking_id=opt_ref(Kind.BOOKING, r.get("booking_id")),
                   title=r["title"], body=r["body"], created_at=r["created_at"], read_at=r.get("read_at"))

    @classmethod
    def from_event(cls, unit_id: UUID, n: events.NotificationAdded) -> Notification:
        """A notification as it was just added (unread)."""
        return cls(id=ref(Kind.NOTIFICATION, n.notification_id), unit_id=ref(Kind.UNIT, unit_id),
                   audience=Audience(n.audience), kind=NotificationKind(n.kind),
                   booking_id=opt_ref(Kind.BOOKING, n.booking_id), title=n.title,
                   body=n.body, created_at=n.created_at, read_at=None)


@strawberry.type(description="A notification that just arrived, with the unit's event sequence number.")
class NotificationAdded:
    seq: int = strawberry.field(description=docs.SEQ)
    notification: Notification = strawberry.field(description="The notification, unread.")
