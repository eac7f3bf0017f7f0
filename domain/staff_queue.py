"""The staff queue ("Tratativas", SPEC §12): items that need a person."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any
from uuid import UUID


class QueueItemType(StrEnum):
    """What the item is about; each has a fixed title and priority."""

    CUSTOMER_SAYS_PAID = "customer_says_paid"
    LATE_PIX_SLOT_TAKEN = "late_pix_slot_taken"
    PIX_FAILING = "pix_failing"
    HOLD_CEILING = "hold_ceiling"
    NO_SHOW_SUGGESTION = "no_show_suggestion"
    REFUND_FAILED = "refund_failed"


TITLES = {
    QueueItemType.CUSTOMER_SAYS_PAID: "Cliente diz que pagou",
    QueueItemType.LATE_PIX_SLOT_TAKEN: "PIX tardio com horário ocupado",
    QueueItemType.PIX_FAILING: "Banco falhando ao gerar o PIX",
    QueueItemType.HOLD_CEILING: "Teto de holds atingido",
    QueueItemType.NO_SHOW_SUGGESTION: "Possível falta",
    QueueItemType.REFUND_FAILED: "Devolução do PIX falhou",
}



class QueuePriority(StrEnum):
    """How urgent an item is (SPEC §12); the queue lists the most urgent first."""

    CRITICAL = "critical"
    HIGH = "high"
    NORMAL = "normal"


PRIORITIES = {
    QueueItemType.CUSTOMER_SAYS_PAID: QueuePriority.CRITICAL,
    QueueItemType.LATE_PIX_SLOT_TAKEN: QueuePriority.HIGH,
    QueueItemType.PIX_FAILING: QueuePriority.CRITICAL,
    QueueItemType.HOLD_CEILING: QueuePriority.CRITICAL,
    QueueItemType.NO_SHOW_SUGGESTION: QueuePriority.NORMAL,
    QueueItemType.REFUND_FAILED: QueuePriority.HIGH,
}

ALERTS = frozenset({QueueItemType.PIX_FAILING, QueueItemType.HOLD_CEILING})
"""Operational alerts: closed with "Registrar ciência" (acknowledge)."""


class QueueStatus(StrEnum):
    """open → acknowledged → resolved (or open → resolved)."""

    OPEN = "open"
    ACKNOWLEDGED = "acknowledged"
    RESOLVED = "resolved"


class QueueChange(StrEnum):
    """What happened to an item, as live dashboards hear it (queueChanged)."""

    OPENED = "opened"
    ACKNOWLEDGED = "acknowledged"
    RESOLVED = "resolved"


@dataclass
class QueueItem:
    """One thing for staff to look at."""

    id: UUID
    unit_id: UUID
    type: QueueItemType
    created_at: datetime
    booking_id: UUID | None = None
    payload: dict[str, Any] = field(default_factory=dict)
    status: QueueStatus = QueueStatus.OPEN
    acknowledged_by: str | None = None
    acknowledged_at: datetime | None = None
    resolved_by: str | None = None
    resolved_at: datetime | None = None

    @property
    def title(self) -> str:
        """The item's title as staff see it."""
        return TITLES[self.type]

    @property
    def priority(self) -> QueuePriority:
        """critical, high or normal."""
        return PRIORITIES[self.type]
