"""Inputs and result unions of checkout: accepting a hold, moving it, claiming and deciding its payment."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

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
    starts_at: datetime
    ends_at: datetime
    resource_ids: list[strawberry.ID] | None = None
    quantity: int = 1
    customer: CustomerInput | None = None


CheckoutResult = Annotated[
    BookingPayload | InvalidTransition | InvalidInput | NotFound | IdempotencyKeyReused | IdempotencyInProgress
    | Busy | PaymentUnavailable,
    strawberry.union("CheckoutResult"),
]
SwapResult = Annotated[
    BookingPayload | SlotTaken | InvalidTransition | InvalidInput | NotFound | IdempotencyKeyReused
    | IdempotencyInProgress | Busy | PaymentUnavailable | HoldLimitReached | CooldownActive | HoldCeilingReached
    | CustomerBlacklisted,
    strawberry.union("SwapResult"),
]
PaymentResult = Annotated[
    PaymentOutcome | PaymentNotFound | InvalidTransition | InvalidInput | NotFound | Busy,
    strawberry.union("PaymentResult"),
]
