"""Types of the staff queue (Tratativas): alerts and decisions waiting for a person."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry
from strawberry.scalars import JSON

from domain import staff_queue as dq
from schema import docs
from schema.enums import described_enum
from schema.errors import InvalidInput, InvalidTransition, NotFound
from schema.ids import Kind, opt_ref, ref
from schema.nodes import Node

QueueItemType = dq.QueueItemType
described_enum(QueueItemType, description="What a staff queue item is about (SPEC §12); each has "
                               "a fixed title and priority.", values={
    "CUSTOMER_SAYS_PAID": "\"Cliente diz que pagou\": the customer says they paid (RN-HLD-06); confirm, link an "
    "orphan Pix or deny. Critical.",
    "LATE_PIX_SLOT_TAKEN": "\"PIX tardio com horário ocupado\": a Pix arrived after the slot was taken: refund due. "
    "High.",
    "PIX_FAILING": "\"Banco falhando ao gerar o PIX\": the bank failed to create charges several times in a row (an "
    "alert, acknowledged). Critical.",
    "HOLD_CEILING": "\"Teto de holds atingido\": open holds reached the unit's ceiling for the day (an alert, "
    "acknowledged). Critical.",
    "NO_SHOW_SUGGESTION": "\"Possível falta\": a confirmed booking started without a check-in; mark the no-show or "
    "resolve. Normal.",
    "REFUND_FAILED": "\"Devolução do PIX falhou\": a refund failed for good: send the money back by hand. High.",
})
QueuePriority = dq.QueuePriority
described_enum(QueuePriority, description="How urgent a queue item is; the queue lists the most "
                               "urgent first.", values={
    "CRITICAL": "Look now: money or sales are at stake.",
    "HIGH": "Look soon.",
    "NORMAL": "When there is time.",
})
QueueStatus = dq.QueueStatus
described_enum(QueueStatus, name="QueueItemStatus", description="Where a queue item is: open → "
                             "acknowledged → resolved (or open → resolved).", values={
    "OPEN": "Waiting for a person.",
    "ACKNOWLEDGED": "Seen (\"Registrar ciência\"), not closed yet.",
    "RESOLVED": "Closed, with who and when.",
})
QueueChangeKind = dq.QueueChange
described_enum(QueueChangeKind, name="QueueChangeKind", description="What happened to a queue item, "
                                 "live.", values={
    "OPENED": "An item was opened (or an open one reused).",
    "ACKNOWLEDGED": "An item was acknowledged.",
    "RESOLVED": "An item was resolved.",
})


@strawberry.type(description="An item of the staff queue (Tratativas).")
class QueueItem(Node):
    id: strawberry.ID = strawberry.field(description=docs.ID)
    unit_id: strawberry.ID = strawberry.field(description=docs.UNIT_ID)
    type: QueueItemType = strawberry.field(description="What it is about.")
    title: str = strawberry.field(description="Its title as staff see it (pt-BR), fixed by its type.")
    priority: QueuePriority = strawberry.field(description="How urgent it is, fixed by its type.")
    status: QueueStatus = strawberry.field(description="Where it is.")
    booking_id: strawberry.ID | None = strawberry.field(description=docs.OPTIONAL_BOOKING_ID)
    payload: JSON = strawberry.field(description="Details of its type (e.g. a payment's amount and txid), as an "
                                     "object.")
    created_at: datetime = strawberry.field(description=docs.CREATED_AT)
    acknowledged_by: str | None = strawberry.field(description="Who acknowledged it (an audit actor); null until "
                                                   "then.")
    acknowledged_at: datetime | None = strawberry.field(description="When it was acknowledged; null until then.")
    resolved_by: str | None = strawberry.field(description="Who resolved it (an audit actor); null until then.")
    resolved_at: datetime | None = strawberry.field(description="When it was resolved; null until then.")

    @classmethod
    def from_domain(cls, q: dq.QueueItem) -> QueueItem:
        return cls(id=ref(Kind.QUEUE_ITEM, q.id), unit_id=ref(Kind.UNIT, q.unit_id), type=q.type,
                   title=q.title, priority=q.priority, status=q.status,
                   booking_id=opt_ref(Kind.BOOKING, q.booking_id), payload=JSON(q.payload),
                   created_at=q.created_at, acknowledged_by=q.acknowledged_by, acknowledged_at=q.acknowledged_at,
                   resolved_by=q.resolved_by, resolved_at=q.resolved_at)


QueueItemResult = Annotated[QueueItem | InvalidTransition | InvalidInput | NotFound,
                            strawberry.union(
                                "QueueItemResult", description=(
                                "What acknowledgeQueueItem and resolveQueueItem answer: QueueItem, or the refusal (an "
                                "Error) that stopped it."))]
