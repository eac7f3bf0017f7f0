"""Lifecycle resolvers after the hold: reschedule (SPEC §11)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from domain import lifecycle, queries
from domain.access import Action
from resolvers.context import Info, parse_id
from resolvers.permissions import authorize_booking, booking_customer
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
from schema.payments import Charge
from schema.types import Booking, BookingPayload
from slothold.limits import limit_holds

RescheduleResult = Annotated[
    BookingPayload | SlotTaken | InvalidTransition | InvalidInput | NotFound | IdempotencyKeyReused
    | IdempotencyInProgress | Busy | PaymentUnavailable | HoldLimitReached | CooldownActive | HoldCeilingReached
    | CustomerBlacklisted,
    strawberry.union("RescheduleResult"),
]


@strawberry.input(description="The slot to move a booking to: [startsAt, endsAt) on resourceIds (omitted: the "
                  "booking's own resources), with quantity (omitted: the booking's own).")
class RescheduleInput:
    starts_at: datetime
    ends_at: datetime
    resource_ids: list[strawberry.ID] | None = None
    quantity: int | None = None


@strawberry.type
class LifecycleMutation:
    @strawberry.mutation(description="Move a booking (confirmed, pending payment or held; not yet started) to another "
                         "slot in one step: a new booking on the new slot in the same class of state — confirmed with "
                         "its acceptance and payments, or a hold (as swapHold) — and the old one cancelled (reason "
                         "rescheduled), linked both ways; or nothing, with SlotTaken (SPEC §11). Customers reschedule "
                         "their own bookings; staff anyone, without the minimum advance.")
    async def reschedule(self, info: Info, booking_id: strawberry.ID, input: RescheduleInput,
                         idempotency_key: str | None = None) -> RescheduleResult:
        deps = info.context.deps
        old = await authorize_booking(info.context, parse_id(booking_id, "bookingId"), Action.BOOK)
        identity = booking_customer(info.context, old, await queries.customer_identity(deps, old))
        staff = info.context.principal.is_staff
        await limit_holds(info, None if staff else identity)
        cmd = lifecycle.RescheduleCommand(
            booking_id=old.id, starts_at=input.starts_at, ends_at=input.ends_at,
            resource_ids=tuple(parse_id(r, "resourceIds") for r in input.resource_ids)
            if input.resource_ids is not None else None,
            quantity=input.quantity, actor=info.context.principal.actor, staff=staff, customer=identity,
            idempotency_key=info.context.idempotency_key(idempotency_key))
        r = await lifecycle.reschedule(deps, cmd)
        return BookingPayload(booking=Booking.from_domain(r.booking), replayed=r.replayed,
                              charge=Charge.from_domain(r.charge, info.context.qr) if r.charge else None)
