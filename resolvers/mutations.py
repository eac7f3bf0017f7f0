"""Mutation resolvers: arguments → use case → result union."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Annotated, Any

import strawberry

from domain import services
from domain.customers import CustomerIdentity
from domain.errors import DomainError
from domain.services import BookingResult, ChangeCommand, HoldCommand
from resolvers.context import Info, parse_id
from schema.errors import (
    Busy,
    IdempotencyInProgress,
    IdempotencyKeyReused,
    InvalidInput,
    InvalidTransition,
    NotFound,
    SlotTaken,
    error_from_domain,
)
from schema.types import Booking, BookingPayload

HoldResult = Annotated[
    BookingPayload | SlotTaken | InvalidInput | NotFound | IdempotencyKeyReused | IdempotencyInProgress | Busy,
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


async def _result(call: Callable[[], Awaitable[BookingResult]]) -> Any:
    """Run a use case; a refusal becomes its schema error type."""
    try:
        result = await call()
    except DomainError as e:
        return error_from_domain(e)
    return BookingPayload(booking=Booking.from_domain(result.booking), replayed=result.replayed)


def _hold_command(info: Info, i: HoldInput | CounterBookingInput, key: str | None, counter: bool) -> HoldCommand:
    resource_ids = (tuple(parse_id(r, "resourceIds") for r in i.resource_ids)
                    if i.resource_ids is not None else None)
    return HoldCommand(
        unit_id=parse_id(i.unit_id, "unitId"), starts_at=i.starts_at, ends_at=i.ends_at,
        resource_ids=resource_ids, quantity=i.quantity,
        customer=i.customer.to_domain() if i.customer else None,
        service_id=parse_id(i.service_id, "serviceId") if i.service_id else None,
        hold_type=getattr(i, "hold_type", None), channel="counter" if counter else getattr(i, "channel", "api"),
        actor="staff" if counter else "customer", idempotency_key=info.context.idempotency_key(key),
        counter=counter,
    )


def _change(info: Info, booking_id: strawberry.ID, actor: str, reason: str | None = None,
            key: str | None = None) -> ChangeCommand:
    return ChangeCommand(booking_id=parse_id(booking_id, "bookingId"), actor=actor, reason=reason,
                         idempotency_key=info.context.idempotency_key(key))


@strawberry.type
class Mutation:
    @strawberry.mutation(description="Hold a slot for a customer until its deadline (SPEC §6).")
    async def hold(self, info: Info, input: HoldInput, idempotency_key: str | None = None) -> HoldResult:
        deps = info.context.deps
        return await _result(lambda: services.hold(deps, _hold_command(info, input, idempotency_key, False)))

    @strawberry.mutation(description="Book at the counter: confirmed at once, no payment (SPEC §11).")
    async def counter_booking(
        self, info: Info, input: CounterBookingInput, idempotency_key: str | None = None
    ) -> HoldResult:
        deps = info.context.deps
        return await _result(lambda: services.hold(deps, _hold_command(info, input, idempotency_key, True)))

    @strawberry.mutation(description="Cancel a booking; its slot is free at once.")
    async def cancel(self, info: Info, booking_id: strawberry.ID, reason: str | None = None,
                     idempotency_key: str | None = None) -> ChangeResult:
        deps = info.context.deps
        return await _result(lambda: services.cancel(deps, _change(info, booking_id, "customer", reason,
                                                                   idempotency_key)))

    @strawberry.mutation(description="Staff drop a hold (\"Derrubar hold\"), with a reason.")
    async def drop(self, info: Info, booking_id: strawberry.ID, reason: str) -> ChangeResult:
        deps = info.context.deps
        return await _result(lambda: services.drop(deps, _change(info, booking_id, "staff", reason)))

    @strawberry.mutation(description="The customer arrived.")
    async def check_in(self, info: Info, booking_id: strawberry.ID) -> ChangeResult:
        deps = info.context.deps
        return await _result(lambda: services.check_in(deps, _change(info, booking_id, "staff")))

    @strawberry.mutation(description="The customer was attended.")
    async def complete(self, info: Info, booking_id: strawberry.ID) -> ChangeResult:
        deps = info.context.deps
        return await _result(lambda: services.complete(deps, _change(info, booking_id, "staff")))
