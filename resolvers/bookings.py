"""Bookings: read one; hold, book at the counter, cancel, drop, check in, complete, reschedule, mark a no-show."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated
from uuid import UUID

import strawberry

from domain import attendance, lifecycle, queries, services
from domain.access import Action
from domain.customers import CustomerIdentity
from domain.errors import ErrorCode, NotFound
from domain.errors import InvalidInput as DomainInvalidInput
from domain.services import ChangeCommand, CounterCommand, HoldCommand
from resolvers.context import Info, parse_id
from resolvers.permissions import authorize_booking, authorize_unit, booking_customer, customer_for, limit_holds
from schema.args import BookingIdArg, IdArg, IdempotencyKeyArg, OptionalReasonArg, ReasonArg
from schema.bookings import (
    Booking,
    BookingPayload,
    BookingResult,
    ChangeResult,
    CounterBookingInput,
    HoldInput,
    HoldResult,
    RescheduleInput,
    RescheduleResult,
)
from schema.ids import Kind
from schema.payments import Charge
from schema.series import CounterSeriesInput

HoldInputArg = Annotated[HoldInput, strawberry.argument(description="What to hold, for whom.")]
CounterInputArg = Annotated[CounterBookingInput, strawberry.argument(description="What to book, for whom.")]
RescheduleInputArg = Annotated[RescheduleInput, strawberry.argument(description="The slot to move the booking to.")]


def _payload(result: services.BookingResult) -> BookingPayload:
    return BookingPayload(booking=Booking.from_domain(result.booking), replayed=result.replayed)


def _hold_command(info: Info, i: HoldInput | CounterBookingInput, key: str | None, counter: bool
                  ) -> HoldCommand | CounterCommand:
    principal = info.context.principal
    resource_ids = (tuple(parse_id(r, "resourceIds", Kind.RESOURCE) for r in i.resource_ids)
                    if i.resource_ids is not None else None)
    channel = "counter" if counter else getattr(i, "channel", "api")
    if not counter and channel == "counter":
        raise DomainInvalidInput("channel", "the counter channel is for counterBooking",
                                 code=ErrorCode.INVALID_CHANNEL)
    command = CounterCommand if counter else HoldCommand
    return command(
        unit_id=parse_id(i.unit_id, "unitId", Kind.UNIT), starts_at=i.starts_at, ends_at=i.ends_at,
        resource_ids=resource_ids, quantity=i.quantity,
        customer=customer_for(info.context, i.customer.for_caller(principal) if i.customer else None),
        service_id=parse_id(i.service_id, "serviceId", Kind.SERVICE) if i.service_id else None,
        hold_type=getattr(i, "hold_type", None), channel=channel,
        actor="staff" if counter else principal.actor, idempotency_key=info.context.idempotency_key(key),
        placed_by=principal.releaser,
    )


async def _authorized_hold(info: Info, i: HoldInput | CounterBookingInput, key: str | None, counter: bool
                           ) -> services.BookingResult:
    cmd = _hold_command(info, i, key, counter)
    unit = await authorize_unit(info.context, cmd.unit_id, Action.COUNTER if counter else Action.BOOK)
    await limit_holds(info, None if counter else cmd.customer)
    if isinstance(cmd, CounterCommand):
        if isinstance(i, CounterBookingInput) and i.customer_id is not None:
            cmd = replace(cmd, customer=await _named_customer(info, i, i.customer_id, unit.tenant_id))
        return await services.counter_booking(info.context.deps, cmd)
    return await services.hold(info.context.deps, cmd)


async def _named_customer(info: Info, i: CounterBookingInput | CounterSeriesInput, customer_id: strawberry.ID,
                          tenant_id: UUID) -> CustomerIdentity:
    """The identity of the record counterBooking's (or counterSeries') customerId names (staff picked it from
    customers(unitId, search)): its own CPF and phone, so that the booking lands on that very record. Another
    tenant's record is not found; customer and customerId together are refused."""
    if i.customer is not None:
        raise DomainInvalidInput("customerId", "give customer or customerId, not both",
                                 code=ErrorCode.INVALID_INPUT)
    cid = parse_id(customer_id, "customerId", Kind.CUSTOMER)
    row = await info.context.stores.nodes.customer(cid)
    if row is None or row["tenant_id"] != tenant_id or not (row["cpf"] or row["phone"]):
        raise NotFound("customer", cid, field="customerId")
    return CustomerIdentity(cpf=row["cpf"], phone=row["phone"], name=row["name"])


async def _change(info: Info, booking_id: strawberry.ID, action: Action, reason: str | None = None,
                  key: str | None = None) -> ChangeCommand:
    bid = parse_id(booking_id, "bookingId", Kind.BOOKING)
    await authorize_booking(info.context, bid, action)
    actor = "staff" if action in (Action.DROP, Action.COUNTER) else info.context.principal.actor
    return ChangeCommand(booking_id=bid, actor=actor, reason=reason,
                         idempotency_key=info.context.idempotency_key(key),
                         releaser=info.context.principal.releasers(action))


@strawberry.type
class BookingQuery:
    @strawberry.field(description="One booking as it is now.")
    async def booking(self, info: Info, id: IdArg) -> BookingResult:
        return Booking.from_domain(await authorize_booking(info.context, parse_id(id, "id", Kind.BOOKING), Action.READ))


@strawberry.type
class BookingMutation:
    @strawberry.mutation(description="Hold a slot for a customer until its deadline (SPEC §6). Customers (a session "
                         "from verifyLoginCode) hold for themselves; staff and integrators with 'book' for anyone.")
    async def hold(self, info: Info, input: HoldInputArg, idempotency_key: IdempotencyKeyArg = None) -> HoldResult:
        return _payload(await _authorized_hold(info, input, idempotency_key, False))

    @strawberry.mutation(description="Book at the counter: confirmed at once, no payment (SPEC §11). Staff.")
    async def counter_booking(
        self, info: Info, input: CounterInputArg, idempotency_key: IdempotencyKeyArg = None
    ) -> HoldResult:
        return _payload(await _authorized_hold(info, input, idempotency_key, True))

    @strawberry.mutation(description="Cancel a booking; its slot is free at once. Customers cancel their own.")
    async def cancel(self, info: Info, booking_id: BookingIdArg, reason: OptionalReasonArg = None,
                     idempotency_key: IdempotencyKeyArg = None) -> ChangeResult:
        cmd = await _change(info, booking_id, Action.BOOK, reason, idempotency_key)
        return _payload(await services.cancel(info.context.deps, cmd))

    @strawberry.mutation(description="Managers drop a hold (\"Derrubar hold\"), with a reason.")
    async def drop(self, info: Info, booking_id: BookingIdArg, reason: ReasonArg) -> ChangeResult:
        return _payload(await services.drop(info.context.deps, await _change(info, booking_id, Action.DROP, reason)))

    @strawberry.mutation(description="Staff: the customer arrived.")
    async def check_in(self, info: Info, booking_id: BookingIdArg) -> ChangeResult:
        return _payload(await services.check_in(info.context.deps, await _change(info, booking_id, Action.COUNTER)))

    @strawberry.mutation(description="Staff: the customer was attended.")
    async def complete(self, info: Info, booking_id: BookingIdArg) -> ChangeResult:
        return _payload(await services.complete(info.context.deps, await _change(info, booking_id, Action.COUNTER)))


@strawberry.type
class RescheduleMutation:
    @strawberry.mutation(description="Move a booking (confirmed, pending payment or held; not yet started) to another "
                         "slot in one step: a new booking on the new slot in the same class of state — confirmed with "
                         "its acceptance and payments, or a hold (as swapHold) — and the old one cancelled (reason "
                         "rescheduled), linked both ways; or nothing, with SlotTaken (SPEC §11). Customers reschedule "
                         "their own bookings; staff anyone, without the minimum advance.")
    async def reschedule(self, info: Info, booking_id: BookingIdArg, input: RescheduleInputArg,
                         idempotency_key: IdempotencyKeyArg = None) -> RescheduleResult:
        deps = info.context.deps
        old = await authorize_booking(info.context, parse_id(booking_id, "bookingId", Kind.BOOKING), Action.BOOK)
        identity = booking_customer(info.context, old, await queries.customer_identity(deps, old))
        staff = info.context.principal.is_staff
        await limit_holds(info, None if staff else identity)
        cmd = lifecycle.RescheduleCommand(
            booking_id=old.id, starts_at=input.starts_at, ends_at=input.ends_at,
            resource_ids=tuple(parse_id(r, "resourceIds", Kind.RESOURCE) for r in input.resource_ids)
            if input.resource_ids is not None else None,
            quantity=input.quantity, actor=info.context.principal.actor, staff=staff, customer=identity,
            idempotency_key=info.context.idempotency_key(idempotency_key))
        r = await lifecycle.reschedule(deps, cmd)
        return BookingPayload(booking=Booking.from_domain(r.booking), replayed=r.replayed,
                              charge=Charge.from_domain(r.charge, info.context.qr) if r.charge else None)


@strawberry.type
class NoShowMutation:
    @strawberry.mutation(description="Staff: the customer of a confirmed booking did not come (after its start). The "
                         "booking becomes NO_SHOW, its resources are freed and its \"Possível falta\" queue item is "
                         "resolved.")
    async def mark_no_show(self, info: Info, booking_id: BookingIdArg) -> ChangeResult:
        bid = parse_id(booking_id, "bookingId", Kind.BOOKING)
        await authorize_booking(info.context, bid, Action.COUNTER)
        result = await attendance.mark_no_show(info.context.deps, bid, "staff")
        return BookingPayload(booking=Booking.from_domain(result.booking), replayed=False)
