"""Mutation resolvers: arguments → use case → result union."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from domain import services
from domain.access import Action
from domain.customers import CustomerIdentity
from domain.errors import ErrorCode
from domain.errors import InvalidInput as DomainInvalidInput
from domain.services import BookingResult, ChangeCommand, CounterCommand, HoldCommand
from resolvers.context import Context, Info, parse_id
from resolvers.permissions import authorize_booking, authorize_unit, customer_for
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
    SlotTaken,
)
from schema.types import Booking, BookingPayload
from slothold.limits import limit_holds

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


@strawberry.input(description="Who the booking is for: a CPF (with check digits) and/or an E.164 phone.")
class CustomerInput:
    cpf: str | None = None
    phone: str | None = None
    name: str | None = None
    email: str | None = None

    def to_domain(self) -> CustomerIdentity:
        return CustomerIdentity.parse(self.cpf, self.phone, self.name, self.email)

    def for_caller(self, context: Context) -> CustomerIdentity:
        """As `to_domain`; a signed-in customer may leave out CPF and phone (their session says who they are)."""
        return CustomerIdentity.parse(self.cpf, self.phone, self.name, self.email,
                                      required=not context.principal.is_customer)


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


def _payload(result: BookingResult) -> BookingPayload:
    return BookingPayload(booking=Booking.from_domain(result.booking), replayed=result.replayed)


def _hold_command(info: Info, i: HoldInput | CounterBookingInput, key: str | None, counter: bool
                  ) -> HoldCommand | CounterCommand:
    resource_ids = (tuple(parse_id(r, "resourceIds") for r in i.resource_ids)
                    if i.resource_ids is not None else None)
    channel = "counter" if counter else getattr(i, "channel", "api")
    if not counter and channel == "counter":
        raise DomainInvalidInput("channel", "the counter channel is for counterBooking",
                                 code=ErrorCode.INVALID_CHANNEL)
    command = CounterCommand if counter else HoldCommand
    return command(
        unit_id=parse_id(i.unit_id, "unitId"), starts_at=i.starts_at, ends_at=i.ends_at,
        resource_ids=resource_ids, quantity=i.quantity,
        customer=customer_for(info.context, i.customer.for_caller(info.context) if i.customer else None),
        service_id=parse_id(i.service_id, "serviceId") if i.service_id else None,
        hold_type=getattr(i, "hold_type", None), channel=channel,
        actor="staff" if counter else info.context.principal.actor, idempotency_key=info.context.idempotency_key(key),
        placed_by=info.context.principal.releaser,
    )


async def _authorized_hold(info: Info, i: HoldInput | CounterBookingInput, key: str | None, counter: bool
                           ) -> BookingResult:
    cmd = _hold_command(info, i, key, counter)
    await authorize_unit(info.context, cmd.unit_id, Action.COUNTER if counter else Action.BOOK)
    await limit_holds(info, None if counter else cmd.customer)
    if isinstance(cmd, CounterCommand):
        return await services.counter_booking(info.context.deps, cmd)
    return await services.hold(info.context.deps, cmd)


async def _change(info: Info, booking_id: strawberry.ID, action: Action, reason: str | None = None,
                  key: str | None = None) -> ChangeCommand:
    bid = parse_id(booking_id, "bookingId")
    await authorize_booking(info.context, bid, action)
    actor = "staff" if action in (Action.DROP, Action.COUNTER) else info.context.principal.actor
    return ChangeCommand(booking_id=bid, actor=actor, reason=reason,
                         idempotency_key=info.context.idempotency_key(key),
                         releaser=info.context.principal.releasers(action))


@strawberry.type
class Mutation:
    @strawberry.mutation(description="Hold a slot for a customer until its deadline (SPEC §6). Customers (a session "
                         "from verifyLoginCode) hold for themselves; staff and integrators with 'book' for anyone.")
    async def hold(self, info: Info, input: HoldInput, idempotency_key: str | None = None) -> HoldResult:
        return _payload(await _authorized_hold(info, input, idempotency_key, False))

    @strawberry.mutation(description="Book at the counter: confirmed at once, no payment (SPEC §11). Staff.")
    async def counter_booking(
        self, info: Info, input: CounterBookingInput, idempotency_key: str | None = None
    ) -> HoldResult:
        return _payload(await _authorized_hold(info, input, idempotency_key, True))

    @strawberry.mutation(description="Cancel a booking; its slot is free at once. Customers cancel their own.")
    async def cancel(self, info: Info, booking_id: strawberry.ID, reason: str | None = None,
                     idempotency_key: str | None = None) -> ChangeResult:
        cmd = await _change(info, booking_id, Action.BOOK, reason, idempotency_key)
        return _payload(await services.cancel(info.context.deps, cmd))

    @strawberry.mutation(description="Managers drop a hold (\"Derrubar hold\"), with a reason.")
    async def drop(self, info: Info, booking_id: strawberry.ID, reason: str) -> ChangeResult:
        return _payload(await services.drop(info.context.deps, await _change(info, booking_id, Action.DROP, reason)))

    @strawberry.mutation(description="Staff: the customer arrived.")
    async def check_in(self, info: Info, booking_id: strawberry.ID) -> ChangeResult:
        return _payload(await services.check_in(info.context.deps, await _change(info, booking_id, Action.COUNTER)))

    @strawberry.mutation(description="Staff: the customer was attended.")
    async def complete(self, info: Info, booking_id: strawberry.ID) -> ChangeResult:
        return _payload(await services.complete(info.context.deps, await _change(info, booking_id, Action.COUNTER)))
