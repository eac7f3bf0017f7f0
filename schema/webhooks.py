"""Types of outgoing webhooks: endpoints (never their secrets) and the delivery log."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import strawberry

from schema.errors import InvalidInput, NotFound
from schema.ids import Kind, ref
from schema.nodes import Node


@strawberry.type(description="Where the unit's events are POSTed (README \"Outgoing webhooks\"). Its secret is shown "
                 "only by registerWebhook and rotateWebhookSecret.")
class WebhookEndpoint(Node):
    id: strawberry.ID
    unit_id: strawberry.ID
    url: str
    event_types: list[str] = strawberry.field(description="e.g. booking.held, booking.confirmed, payment.paid")
    enabled: bool
    description: str | None
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_row(cls, r: dict[str, Any]) -> WebhookEndpoint:
        return cls(id=ref(Kind.WEBHOOK_ENDPOINT, r["id"]), unit_id=ref(Kind.UNIT, r["unit_id"]), url=r["url"],
                   event_types=list(r["event_types"]), enabled=r["enabled"], description=r["description"],
                   created_at=r["created_at"], updated_at=r["updated_at"])


@strawberry.type(description="An endpoint with its signing secret: shown this once, keep it (it signs every "
                 "delivery's X-Slothold-Signature).")
class WebhookSecret:
    endpoint: WebhookEndpoint
    secret: str


@strawberry.type(description="One event sent (or to be sent) to one endpoint: the delivery log.")
class WebhookDelivery(Node):
    id: strawberry.ID = strawberry.field(description="Its global id. X-Slothold-Delivery carries the delivery's "
                                         "database UUID, the same on every attempt and replay (deliveryId takes "
                                         "either).")
    endpoint_id: strawberry.ID
    event_id: strawberry.ID = strawberry.field(description="The body's `id`: the same for every endpoint.")
    event_type: str
    seq: int = strawberry.field(description="The unit's event sequence number.")
    status: str = strawberry.field(description="pending, sending, retrying, delivered, failed or cancelled "
                                   "(its endpoint was disabled)")
    attempts: int
    response_code: int | None = strawberry.field(description="The last attempt's HTTP status (none: no response).")
    latency_ms: int | None
    last_error: str | None
    last_attempt_at: datetime | None
    next_attempt_at: datetime | None
    delivered_at: datetime | None
    created_at: datetime

    @classmethod
    def from_row(cls, r: dict[str, Any]) -> WebhookDelivery:
        waiting = r["status"] in ("pending", "retrying", "sending")
        return cls(id=ref(Kind.WEBHOOK_DELIVERY, r["id"]), endpoint_id=ref(Kind.WEBHOOK_ENDPOINT, r["endpoint_id"]),
                   event_id=strawberry.ID(str(r["event_id"])), event_type=r["event_type"], seq=r["seq"],
                   status=r["status"], attempts=r["attempts"], response_code=r["response_code"],
                   latency_ms=r["latency_ms"], last_error=r["last_error"], last_attempt_at=r["last_attempt_at"],
                   next_attempt_at=r["next_attempt_at"] if waiting else None, delivered_at=r["delivered_at"],
                   created_at=r["created_at"])


WebhookSecretResult = Annotated[WebhookSecret | InvalidInput | NotFound, strawberry.union("WebhookSecretResult")]
WebhookResult = Annotated[WebhookEndpoint | InvalidInput | NotFound, strawberry.union("WebhookResult")]
ReplayResult = Annotated[WebhookDelivery | InvalidInput | NotFound, strawberry.union("WebhookReplayResult")]
