"""Inputs and result unions of checkout: accepting a hold, moving it, claiming and deciding its payment."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from schema import docs
from schema.bookings import BookingPayload
from schema.customers import CustomerInput
from schema.errors import (
    Busy,
    CooldownActive,
    CustomerBlacklisted,
    HoldCeilingReached,
    HoldLimitReached,
    IdempotencyInProgress,
    IdempotencyKeyReused,
    InvalidInput,
    InvalidTransition,
    NotFound,
    PaymentNotFound,
    PaymentUnavailable,
    SlotTaken,
)
from schema.payments import PaymentOutcome


@strawberry.input(description="The slot to move an open hold to.")
class SwapInput:
    starts_at: datetime = strawberry.field(description="The new slot's start (inclusive), on the unit's grid.")
    ends_at: datetime = strawberry.field(description="The new slot's end (exclusive), on the unit's grid.")
    resource_ids: list[strawberry.ID] | None = strawberry.field(default=None, description=docs.RESOURCE_IDS)
    quantity: int = strawberry.field(default=1, description=docs.QUANTITY)
    customer: CustomerInput | None = strawberry.field(default=None, description="Who the new hold is for; omitted: "
                                                      "the old hold's customer.")


CheckoutResult = Annotated[
    BookingPayload | InvalidTransition | InvalidInput | NotFound | IdempotencyKeyReused | IdempotencyInProgress
    | Busy | PaymentUnavailable,
    strawberry.union(
        "CheckoutResult", description=(
        "What confirm, claimPaid and denyPaymentClaim answer: BookingPayload, or the refusal (an Error) that stopped "
        "it.")),
]
SwapResult = Annotated[
    BookingPayload | SlotTaken | InvalidTransition | InvalidInput | NotFound | IdempotencyKeyReused
    | IdempotencyInProgress | Busy | PaymentUnavailable | HoldLimitReached | CooldownActive | HoldCeilingReached
    | CustomerBlacklisted,
    strawberry.union(
        "SwapResult", description=(
        "What swapHold answers: BookingPayload, or the refusal (an Error) that stopped it.")),
]
PaymentResult = Annotated[
    PaymentOutcome | PaymentNotFound | InvalidTransition | InvalidInput | NotFound | Busy,
    strawberry.union(
        "PaymentResult", description=(
        "What confirmPayment, linkPayment and sandboxPay answer: PaymentOutcome, or the refusal (an Error) that "
        "stopped it.")),
]
