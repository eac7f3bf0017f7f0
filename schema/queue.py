"""Types of the staff queue (Tratativas): alerts and decisions waiting for a person."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry
from strawberry.scalars import JSON

from domain import staff_queue as dq
from schema.errors import InvalidInput, InvalidTransition, NotFound
from schema.ids import Kind, opt_ref, ref
from schema.nodes import Node


@strawberry.type(description="An item of the staff queue (Tratativas).")
class QueueItem(Node):
    id: strawberry.ID
    unit_id: strawberry.ID
    type: str
    title: str
    priority: str
    status: str
    booking_id: strawberry.ID | None
    payload: JSON
    created_at: datetime
    acknowledged_by: str | None
    acknowledged_at: datetime | None
    resolved_by: str | None
    resolved_at: datetime | None

    @classmethod
    def from_domain(cls, q: dq.QueueItem) -> QueueItem:
        return cls(id=ref(Kind.QUEUE_ITEM, q.id), unit_id=ref(Kind.UNIT, q.unit_id), type=q.type.value,
                   title=q.title, priority=q.priority, status=q.status.value,
                   booking_id=opt_ref(Kind.BOOKING, q.booking_id), payload=JSON(q.payload),
                   created_at=q.created_at, acknowledged_by=q.acknowledged_by, acknowledged_at=q.acknowledged_at,
                   resolved_by=q.resolved_by, resolved_at=q.resolved_at)


QueueItemResult = Annotated[QueueItem | InvalidTransition | InvalidInput | NotFound,
                            strawberry.union("QueueItemResult")]
