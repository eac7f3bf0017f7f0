"""Types of outgoing webhooks: endpoints (never their secrets) and the delivery log."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import strawberry

from domain.webhooks_out import DeliveryStatus, WebhookEventType
from schema import docs
from schema.enums import described_enum
from schema.errors import InvalidInput, NotFound
from schema.ids import Kind, ref
from schema.nodes import Node

described_enum(WebhookEventType, description="The events an endpoint may subscribe to; a delivery's body carries the "
               "wire name (its `type` and the X-Slothold-Event header: booking.held, payment.paid...).", values={
    "BOOKING_HELD": "booking.held: a booking was held.",
    "BOOKING_PENDING_PAYMENT": "booking.pending_payment: a booking was accepted and waits for its Pix.",
    "BOOKING_VERIFYING": "booking.verifying: the customer says they paid; staff check.",
    "BOOKING_CONFIRMED": "booking.confirmed: a booking was confirmed.",
    "BOOKING_CHECKED_IN": "booking.checked_in: the customer arrived.",
    "BOOKING_COMPLETED": "booking.completed: a booking was completed.",
    "BOOKING_CANCELLED": "booking.cancelled: a booking was cancelled.",
    "BOOKING_NO_SHOW": "booking.no_show: the customer did not come.",
    "BOOKING_EXPIRED": "booking.expired: a hold or its payment expired.",
    "PAYMENT_PAID": "payment.paid: a Pix reached the account.",
    "WAITLIST_OFFERED": "waitlist.offered: a waitlist offer was made.",
})
described_enum(DeliveryStatus, name="WebhookDeliveryStatus", description="Where a delivery is.", values={
    "PENDING": "Waiting for its first attempt.",
    "SENDING": "An attempt is under way.",
    "RETRYING": "An attempt failed; the next one is at nextAttemptAt.",
    "DELIVERED": "The endpoint answered 2xx.",
    "FAILED": "Every attempt of the round failed (replayWebhookDelivery starts a new round).",
    "CANCELLED": "Its endpoint was disabled before it was delivered.",
})
WebhookDeliveryStatus = DeliveryStatus


@strawberry.type(description="Where the unit's events are POSTed (README \"Outgoing webhooks\"). Its secret is shown "
                 "only by registerWebhook and rotateWebhookSecret.")
class WebhookEndpoint(Node):
    id: strawberry.ID = strawberry.field(description=docs.ID)
    unit_id: strawberry.ID = strawberry.field(description=docs.UNIT_ID)
    url: str = strawberry.field(description="Where events are POSTed (https; http only to localhost).")
    event_types: list[WebhookEventType] = strawberry.field(description="The events it receives.")
    enabled: bool = strawberry.field(description="Whether it receives events (disableWebhook turns it off).")
    description: str | None = strawberry.field(description="A note of the owner's; null when none.")
    created_at: datetime = strawberry.field(description=docs.CREATED_AT)
    updated_at: datetime = strawberry.field(description=docs.UPDATED_AT)

    @classmethod
    def from_row(cls, r: dict[str, Any]) -> WebhookEndpoint:
        return cls(id=ref(Kind.WEBHOOK_ENDPOINT, r["id"]), unit_id=ref(Kind.UNIT, r["unit_id"]), url=r["url"],
                   event_types=[WebhookEventType(t) for t in r["event_types"]], enabled=r["enabled"],
                   description=r["description"],
                   created_at=r["created_at"], updated_at=r["updated_at"])


@strawberry.type(description="An endpoint with its signing secret: shown this once, keep it (it signs every "
                 "delivery's X-Slothold-Signature).")
class WebhookSecret:
    endpoint: WebhookEndpoint = strawberry.field(description="The endpoint.")
    secret: str = strawberry.field(description="The signing secret (whsec_...), shown only this once.")


@strawberry.type(description="One event sent (or to be sent) to one endpoint: the delivery log.")
class WebhookDelivery(Node):
    id: strawberry.ID = strawberry.field(description="Its global id. X-Slothold-Delivery carries the delivery's "
                                         "database UUID, the same on every attempt and replay (deliveryId takes "
                                         "either).")
    endpoint_id: strawberry.ID = strawberry.field(description="The endpoint it goes to.")
    event_id: strawberry.ID = strawberry.field(description="The body's `id`: the same for every endpoint.")
    event_type: WebhookEventType = strawberry.field(description="The event it carries.")
    seq: int = strawberry.field(description="The unit's event sequence number.")
    status: DeliveryStatus = strawberry.field(description="Where the delivery is.")
    attempts: int = strawberry.field(description="Attempts made so far (this round and earlier ones).")
    response_code: int | None = strawberry.field(description="The last attempt's HTTP status (none: no response).")
    latency_ms: int | None = strawberry.field(description="How long the last attempt took, in milliseconds; null "
                                              "before any.")
    last_error: str | None = strawberry.field(description="What went wrong in the last attempt; null when it worked.")
    last_attempt_at: datetime | None = strawberry.field(description="When the last attempt was made; null before "
                                                        "any.")
    next_attempt_at: datetime | None = strawberry.field(description="When the next attempt is due, while it is "
                                                        "waiting; null once finished.")
    delivered_at: datetime | None = strawberry.field(description="When the endpoint answered 2xx; null until then.")
    created_at: datetime = strawberry.field(description="When the event was queued for this endpoint.")

    @classmethod
    def from_row(cls, r: dict[str, Any]) -> WebhookDelivery:
        waiting = r["status"] in ("pending", "retrying", "sending")
        return cls(id=ref(Kind.WEBHOOK_DELIVERY, r["id"]), endpoint_id=ref(Kind.WEBHOOK_ENDPOINT, r["endpoint_id"]),
                   event_id=strawberry.ID(str(r["event_id"])), event_type=WebhookEventType(r["event_type"]),
                   seq=r["seq"], status=DeliveryStatus(r["status"]), attempts=r["attempts"],
                   response_code=r["response_code"],
                   latency_ms=r["latency_ms"], last_error=r["last_error"], last_attempt_at=r["last_attempt_at"],
                   next_attempt_at=r["next_attempt_at"] if waiting else None, delivered_at=r["delivered_at"],
                   created_at=r["created_at"])


WebhookSecretResult = Annotated[WebhookSecret | InvalidInput | NotFound, strawberry.union(
    "WebhookSecretResult", description=(
    "What registerWebhook and rotateWebhookSecret answer: WebhookSecret, or the refusal (an Error) that stopped it."))]
WebhookResult = Annotated[WebhookEndpoint | InvalidInput | NotFound, strawberry.union(
    "WebhookResult", description=(
    "What updateWebhook and disableWebhook answer: WebhookEndpoint, or the refusal (an Error) that stopped it."))]
ReplayResult = Annotated[WebhookDelivery | InvalidInput | NotFound, strawberry.union(
    "WebhookReplayResult", description=(
    "What replayWebhookDelivery answers: WebhookDelivery, or the refusal (an Error) that stopped it."))]
