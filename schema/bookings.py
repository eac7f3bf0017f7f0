"""Bookings as the API shows them, and the inputs and result unions of the booking operations: hold, counter booking,
changes of state, reschedule."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from domain import bookings as db
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
from schema.ids import Kind, db_id, opt_ref, ref
from schema.nodes import Node
from schema.pages import page_size
from schema.payments import Acceptance, Charge, Refund

BookingStatus = db.BookingStatus  # the domain's enum, registered by strawberry.enum (which returns it unchanged)
strawberry.enum(BookingStatus, description="Where a booking is in its lifecycle (SPEC §3).")


@strawberry.type(description="One resource occupied by a booking over a range.")
class Allocation:
    resource_id: strawberry.ID
    starts_at: datetime
    ends_at: datetime
    quantity: int

    @classmethod
    def from_domain(cls, a: db.Allocation) -> Allocation:
        return cls(resource_id=ref(Kind.RESOURCE, a.resource_id), starts_at=a.starts_at, ends_at=a.ends_at,
                   quantity=a.quantity)


@strawberry.type(description="One row of a booking's audit trail (SPEC §15): a status change, who made it and how.")
class BookingHistoryEntry:
    at: datetime
    old_status: BookingStatus | None = strawberry.field(description="Null for the row that created the booking.")
    new_status: BookingStatus
    hold_type: str | None
    actor: str = strawberry.field(description="Who: customer, staff:<role>, system, an integrator...")
    channel: str
    reason: str | None
    allocations: list[Allocation] = strawberry.field(
        description="The resources and ranges the booking held when the row was written.")
    session: str | None = strawberry.field(default=None, description="The credential it came through: staff:<token "
                                           "id>, client:<token id>, customer:<session id>, system:<token id>; null "
                                           "for the platform's own jobs (expiry, sweeps).")

    @classmethod
    def from_domain(cls, e: db.HistoryEntry) -> BookingHistoryEntry:
        return cls(
            at=e.at, old_status=BookingStatus(e.old_status.value) if e.old_status else None,
            new_status=BookingStatus(e.new_status.value), hold_type=e.hold_type, actor=e.actor,
            channel=e.channel, reason=e.reason, session=e.session,
            allocations=[Allocation.from_domain(a) for a in e.allocations])


@strawberry.type(description="One customer's claim on one or more resources over a time range.")
class Booking(Node):
    id: strawberry.ID
    unit_id: strawberry.ID
    status: BookingStatus
    hold_type: str | None
    channel: str
    starts_at: datetime
    ends_at: datetime
    hold_expires_at: datetime | None = strawberry.field(description="Deadline of a hold; null once settled.")
    created_at: datetime
    customer_id: strawberry.ID | None
    allocations: list[Allocation]
    due_now_cents: int = strawberry.field(description="What is paid by Pix now (the rest at the venue).")
    paid_cents: int
    acceptance: Acceptance | None = strawberry.field(description="What the customer accepted, as accepted.")
    swapped_from: strawberry.ID | None
    swapped_to: strawberry.ID | None
    rescheduled_from: strawberry.ID | None = strawberry.field(
        description="The booking this one replaced (reschedule, SPEC §11).")
    rescheduled_to: strawberry.ID | None = strawberry.field(
        description="The booking that replaced this one (reschedule); this one is then cancelled.")

    @strawberry.field(description="Money back after a paid booking was cancelled (one per payment), oldest first.")
    async def refunds(self, info: strawberry.Info) -> list[Refund]:
        from domain.refunds import refunds_of

        return [Refund.from_domain(r) for r in await refunds_of(info.context.deps, db_id(self.id))]

    @strawberry.field(description="What refunds have sent back so far (succeeded ones); paidCents stays what was paid.")
    async def refunded_cents(self, info: strawberry.Info) -> int:
        from domain.refunds import RefundStatus, refunds_of

        found = await refunds_of(info.context.deps, db_id(self.id))
        return sum(r.amount_cents for r in found if r.status is RefundStatus.SUCCEEDED)

    @strawberry.field(description="While the booking is held: the summary accepting it now would record — price "
                      "and policy versions, payment rule, total, due now by Pix, at the venue, the policy's words "
                      "(RN-ATD-09: what the customer reads before accepting). Null otherwise.")
    async def quote(self, info: strawberry.Info) -> Acceptance | None:
        from domain.checkout import quote

        terms = await quote(info.context.deps, db_id(self.id))
        return Acceptance.from_json(terms.as_json()) if terms is not None else None

    @strawberry.field(description="The booking's audit trail, oldest first: its first `first` rows (1 to 500). "
                      "Rows are append-only and hash-chained per unit (`slothold audit verify`).")
    async def history(self, info: strawberry.Info, first: int = 100) -> list[BookingHistoryEntry]:
        from domain.services import HISTORY_MAX, booking_history

        found = await booking_history(info.context.deps, db_id(self.id), page_size(first, HISTORY_MAX))
        return [BookingHistoryEntry.from_domain(e) for e in found]

    @classmethod
    def from_domain(cls, b: db.Booking) -> Booking:
        return cls(
            id=ref(Kind.BOOKING, b.id), unit_id=ref(Kind.UNIT, b.unit_id), status=BookingStatus(b.status.value),
            hold_type=b.hold_type, channel=b.channel, starts_at=b.starts_at, ends_at=b.ends_at,
            hold_expires_at=b.hold_expires_at, created_at=b.created_at,
            customer_id=opt_ref(Kind.CUSTOMER, b.customer_id),
            allocations=[Allocation.from_domain(a) for a in b.allocations],
            due_now_cents=b.due_now_cents, paid_cents=b.paid_cents,
            acceptance=Acceptance.from_json(b.acceptance) if b.acceptance else None,
            swapped_from=opt_ref(Kind.BOOKING, b.swapped_from),
            swapped_to=opt_ref(Kind.BOOKING, b.swapped_to),
            rescheduled_from=opt_ref(Kind.BOOKING, b.rescheduled_from),
            rescheduled_to=opt_ref(Kind.BOOKING, b.rescheduled_to),
        )


@strawberry.type(description="A booking as a mutation returns it.")
class BookingPayload:
    booking: Booking
    replayed: bool = strawberry.field(
        description="True when an earlier request with the same idempotency key produced this result."
    )
    charge: Charge | None = strawberry.field(default=None, description="The Pix charge to pay, when one is due.")


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
