"""Inputs and result unions of the booking operations: hold, counter booking, changes of state, reschedule."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

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
    PaymentUnavailable,
    SlotTaken,
)
from schema.types import Booking, BookingPayload


@strawberry.input(description="Hold [startsAt, endsAt) on the given resources, or on any free one if omitted.")
class HoldInput:
    unit_id: strawberry.ID
    starts_at: datetime
    ends_at: datetime
    customer: CustomerInput
    resource_ids: list[strawberry.ID] | None = None
    quantity: int = 1
    service_id: strawberry.ID | None = None
    hold_type: str | None = None
    channel: str = "api"


@strawberry.input(description="A booking made by staff at the counter: born confirmed, no payment.")
class CounterBookingInput:
    unit_id: strawberry.ID
    resource_ids: list[strawberry.ID]
    starts_at: datetime
    ends_at: datetime
    customer: CustomerInput | None = None
    quantity: int = 1
    service_id: strawberry.ID | None = None


@strawberry.input(description="The slot to move a booking to: [startsAt, endsAt) on resourceIds (omitted: the "
                  "booking's own resources), with quantity (omitted: the booking's own).")
class RescheduleInput:
    starts_at: datetime
    ends_at: datetime
    resource_ids: list[strawberry.ID] | None = None
    quantity: int | None = None


BookingResult = Annotated[Booking | NotFound | InvalidInput, strawberry.union("BookingResult")]
HoldResult = Annotated[
    BookingPayload | SlotTaken | InvalidInput | NotFound | IdempotencyKeyReused | IdempotencyInProgress | Busy
    | HoldLimitReached | CooldownActive | HoldCeilingReached | CustomerBlacklisted,
    strawberry.union("HoldResult"),
]
ChangeResult = Annotated[
    BookingPayload | InvalidTransition | InvalidInput | NotFound | IdempotencyKeyReused | IdempotencyInProgress
    | Busy,
    strawberry.union("BookingChangeResult"),
]
RescheduleResult = Annotated[
    BookingPayload | SlotTaken | InvalidTransition | InvalidInput | NotFound | IdempotencyKeyReused
    | IdempotencyInProgress | Busy | PaymentUnavailable | HoldLimitReached | CooldownActive | HoldCeilingReached
    | CustomerBlacklisted,
    strawberry.union("RescheduleResult"),
]
