"""Bookings as the API shows them, and the inputs and result unions of the booking operations: hold, counter booking,
changes of state, reschedule."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated
from uuid import UUID

import strawberry

from domain import bookings as db
from domain.customers import CustomerIdentity
from domain.units import Unit
from schema import docs
from schema.connections import After, Before, Connection, First, Last, connection, page_request
from schema.customers import CustomerInput, mask_cpf
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
from schema.vocabulary import BookingStatus, Channel

if TYPE_CHECKING:
    from schema.series import Series


@strawberry.type(description="One resource occupied by a booking over a range.")
class Allocation:
    resource_id: strawberry.ID = strawberry.field(description=docs.RESOURCE_ID)
    starts_at: datetime = strawberry.field(description=docs.STARTS_AT)
    ends_at: datetime = strawberry.field(description=docs.ENDS_AT)
    quantity: int = strawberry.field(description=docs.QUANTITY)

    @classmethod
    def from_domain(cls, a: db.Allocation) -> Allocation:
        return cls(resource_id=ref(Kind.RESOURCE, a.resource_id), starts_at=a.starts_at, ends_at=a.ends_at,
                   quantity=a.quantity)


@strawberry.type(description="One row of a booking's audit trail (SPEC §15): a status change, who made it and how.")
class BookingHistoryEntry:
    at: datetime = strawberry.field(description="When it happened.")
    old_status: BookingStatus | None = strawberry.field(description="Null for the row that created the booking.")
    new_status: BookingStatus = strawberry.field(description="The status it moved to (or was born in).")
    hold_type: str | None = strawberry.field(description=docs.HOLD_TYPE)
    actor: str = strawberry.field(description="Who: customer, staff:<role>, system, an integrator...")
    channel: Channel = strawberry.field(description="The booking's channel (where it came from).")
    reason: str | None = strawberry.field(description="Why, in the words given (a drop's reason, \"rescheduled\", "
                                          "\"late payment, slot still free\"...); null when none.")
    allocations: list[Allocation] = strawberry.field(
        description="The resources and ranges the booking held when the row was written.")
    session: str | None = strawberry.field(default=None, description="The credential it came through: staff:<token "
                                           "id>, client:<token id>, customer:<session id>, system:<token id>; null "
                                           "for the platform's own jobs (expiry, sweeps).")
    booking_id: strawberry.ID | None = strawberry.field(default=None, description="The booking the row is of.")

    @classmethod
    def from_domain(cls, e: db.HistoryEntry) -> BookingHistoryEntry:
        return cls(
            at=e.at, old_status=BookingStatus(e.old_status.value) if e.old_status else None,
            new_status=BookingStatus(e.new_status.value), hold_type=e.hold_type, actor=e.actor,
            channel=Channel(e.channel), reason=e.reason, session=e.session,
            booking_id=opt_ref(Kind.BOOKING, e.booking_id),
            allocations=[Allocation.from_domain(a) for a in e.allocations])


@strawberry.type(description="A customer as staff see them on a booking or a waitlist entry: name, phone, "
                 "masked CPF.")
class BookingCustomer:
    name: str | None = strawberry.field(description="The name last given; null when unknown.")
    phone: str | None = strawberry.field(description="The phone (E.164); null when unknown.")
    cpf_masked: str | None = strawberry.field(description="The CPF with its first three and last two digits "
                                              "hidden (***.456.789-**); null when unknown.")

    @classmethod
    def of(cls, identity: CustomerIdentity) -> BookingCustomer:
        return cls(name=identity.name, phone=identity.phone, cpf_masked=mask_cpf(identity.cpf))


async def unit_and_identity(info: strawberry.Info, unit_id: UUID, customer_id: UUID
                            ) -> tuple[Unit, CustomerIdentity | None]:
    """The unit and the customer's identity of a row (a booking, a waitlist entry): the rows of a list resolved
    together are read in one query (a DataLoader of the request, uncached: a subscription's context lives long)."""
    from strawberry.dataloader import DataLoader

    from domain import queries

    loaders = info.context.loaders
    loader = loaders.get("unit_and_identity")
    if loader is None:
        deps = info.context.deps

        async def load(keys: list[tuple[UUID, UUID]]) -> list[tuple[Unit, CustomerIdentity | None]]:
            return await queries.units_and_identities(deps, list(keys))

        loader = loaders["unit_and_identity"] = DataLoader(load_fn=load, cache=False)
    found: tuple[Unit, CustomerIdentity | None] = await loader.load((unit_id, customer_id))
    return found


@strawberry.type(description="One customer's claim on one or more resources over a time range.")
class Booking(Node):
    id: strawberry.ID = strawberry.field(description=docs.ID)
    unit_id: strawberry.ID = strawberry.field(description=docs.UNIT_ID)
    status: BookingStatus = strawberry.field(description="Where it is in its lifecycle now.")
    hold_type: str | None = strawberry.field(description=docs.HOLD_TYPE)
    channel: Channel = strawberry.field(description="Where it came from.")
    starts_at: datetime = strawberry.field(description="Start of the booked range (inclusive).")
    ends_at: datetime = strawberry.field(description="End of the booked range (exclusive).")
    hold_expires_at: datetime | None = strawberry.field(description="Deadline of a hold; null once settled.")
    created_at: datetime = strawberry.field(description=docs.CREATED_AT)
    customer_id: strawberry.ID | None = strawberry.field(description="The customer record it is for; null for a "
                                                         "counter booking without a customer.")
    allocations: list[Allocation] = strawberry.field(description="The resources it occupies, with ranges and "
                                                     "quantities.")
    due_now_cents: int = strawberry.field(description="What is paid by Pix now (the rest at the venue).")
    paid_cents: int = strawberry.field(description="What was paid so far, in cents.")
    acceptance: Acceptance | None = strawberry.field(description="What the customer accepted, as accepted.")
    swapped_from: strawberry.ID | None = strawberry.field(description="The hold this one replaced by swapHold "
                                                          "(RN-HLD-07); null otherwise.")
    swapped_to: strawberry.ID | None = strawberry.field(description="The hold that replaced this one by swapHold; "
                                                        "this one is then cancelled (reason swapped).")
    rescheduled_from: strawberry.ID | None = strawberry.field(
        description="The booking this one replaced (reschedule, SPEC §11).")
    rescheduled_to: strawberry.ID | None = strawberry.field(
        description="The booking that replaced this one (reschedule); this one is then cancelled.")
    series_id: strawberry.ID | None = strawberry.field(
        default=None, description="The series (recurring booking) it is an occurrence of; null for a single booking.")
    series_index: int | None = strawberry.field(
        default=None, description="Its place in that series (0: the first); a moved occurrence keeps it.")

    @strawberry.field(description="The series it is an occurrence of, as it is now (whoever may see the booking "
                      "sees its series); null for a single booking.")
    async def series(self, info: strawberry.Info) -> Annotated[
            Series, strawberry.lazy("schema.series")] | None:
        from domain.services.series import series_bookings
        from schema.series import Series

        if self.series_id is None:
            return None
        found, bookings = await series_bookings(info.context.deps, db_id(self.series_id))
        return Series.from_domain(found, bookings, info.context.deps.clock.now())

    @strawberry.field(description="Who the booking is for, as the front desk needs it: name, phone and the CPF "
                      "masked. Staff who may read the unit and the customer themselves; null for anyone else "
                      "(and for a counter booking without a customer).")
    async def customer(self, info: strawberry.Info) -> BookingCustomer | None:
        from domain.access import Action, Forbidden, authorize

        context = info.context
        principal = context.principal
        if self.customer_id is None:
            return None
        customer_id = db_id(self.customer_id)
        unit, identity = await unit_and_identity(info, db_id(self.unit_id), customer_id)
        own = None
        if principal.is_customer and principal.tenant_id == unit.tenant_id:
            own = await context.access.is_same_person(principal, customer_id)
        try:
            authorize(principal, Action.READ, unit.tenant_id, unit.id, own_booking=own)
        except Forbidden:
            return None
        if principal.is_customer and own is not True:
            return None
        return BookingCustomer.of(identity) if identity is not None else None

    @strawberry.field(description="Money back after a paid booking was cancelled (one per payment), oldest first.")
    async def refunds(self, info: strawberry.Info) -> list[Refund]:
        from domain.refunds import refunds_of

        return [Refund.from_domain(r) for r in await refunds_of(info.context.deps, db_id(self.id))]

    @strawberry.field(description="What refunds have sent back so far (succeeded ones); paidCents stays what was paid.")
    async def refunded_cents(self, info: strawberry.Info) -> int:
        from domain.refunds import RefundStatus, refunds_of

        found = await refunds_of(info.context.deps, db_id(self.id))
        return sum(r.amount_cents for r in found if r.status is RefundStatus.SUCCEEDED)

    @strawberry.field(description="What cancelling it now would refund, in cents: what was paid times the refund "
                      "tier of the accepted cancellation policy for the hours left before the start (what cancel "
                      "would send back at this moment); 0 when nothing was paid or it cannot be cancelled.")
    async def refund_if_cancelled_now_cents(self, info: strawberry.Info) -> int:
        from domain.refunds import refund_if_cancelled_now

        return await refund_if_cancelled_now(info.context.deps, db_id(self.id))

    @strawberry.field(description="While the booking is held: the summary accepting it now would record — price "
                      "and policy versions, payment rule, total, due now by Pix, at the venue, the policy's words "
                      "(RN-ATD-09: what the customer reads before accepting). Null otherwise.")
    async def quote(self, info: strawberry.Info) -> Acceptance | None:
        from domain.checkout import quote

        terms = await quote(info.context.deps, db_id(self.id))
        return Acceptance.from_json(terms.as_json()) if terms is not None else None

    @strawberry.field(description="The booking's audit trail, oldest first: its first `first` rows (1 to 500). "
                      "Rows are append-only and hash-chained per unit (`slothold audit verify`).",
                      deprecation_reason="Use historyConnection: it pages on with cursors.")
    async def history(self, info: strawberry.Info, first: Annotated[int, strawberry.argument(
            description="How many rows to return at most (default 100, at most 500).")] = 100
                      ) -> list[BookingHistoryEntry]:
        from domain.services import HISTORY_MAX, booking_history

        found = await booking_history(info.context.deps, db_id(self.id), page_size(first, HISTORY_MAX))
        return [BookingHistoryEntry.from_domain(e) for e in found]

    @strawberry.field(description="The booking's audit trail, oldest first (by the audit row's sequence), a page "
                      "at a time. Rows are append-only and hash-chained per unit (`slothold audit verify`).")
    async def history_connection(self, info: strawberry.Info, first: First = None, after: After = None,
                                 last: Last = None, before: Before = None) -> Connection[BookingHistoryEntry]:
        from domain import listings

        request = page_request(listings.BOOKING_HISTORY, first, after, last, before)
        page = await listings.read(info.context.deps, lambda rows: rows.booking_history(db_id(self.id), request))
        return connection(page.map(BookingHistoryEntry.from_domain), listings.BOOKING_HISTORY)

    @classmethod
    def from_domain(cls, b: db.Booking) -> Booking:
        return cls(
            id=ref(Kind.BOOKING, b.id), unit_id=ref(Kind.UNIT, b.unit_id), status=BookingStatus(b.status.value),
            hold_type=b.hold_type, channel=Channel(b.channel), starts_at=b.starts_at, ends_at=b.ends_at,
            hold_expires_at=b.hold_expires_at, created_at=b.created_at,
            customer_id=opt_ref(Kind.CUSTOMER, b.customer_id),
            allocations=[Allocation.from_domain(a) for a in b.allocations],
            due_now_cents=b.due_now_cents, paid_cents=b.paid_cents,
            acceptance=Acceptance.from_json(b.acceptance) if b.acceptance else None,
            swapped_from=opt_ref(Kind.BOOKING, b.swapped_from),
            swapped_to=opt_ref(Kind.BOOKING, b.swapped_to),
            rescheduled_from=opt_ref(Kind.BOOKING, b.rescheduled_from),
            rescheduled_to=opt_ref(Kind.BOOKING, b.rescheduled_to),
            series_id=opt_ref(Kind.SERIES, b.series_id), series_index=b.series_index,
        )


@strawberry.type(description="A booking as a mutation returns it.")
class BookingPayload:
    booking: Booking = strawberry.field(description="The booking as it is after the mutation.")
    replayed: bool = strawberry.field(
        description="True when an earlier request with the same idempotency key produced this result."
    )
    charge: Charge | None = strawberry.field(default=None, description="The Pix charge to pay, when one is due.")


@strawberry.input(description="Hold [startsAt, endsAt) on the given resources, or on any free one if omitted.")
class HoldInput:
    unit_id: strawberry.ID = strawberry.field(description="The unit (venue).")
    starts_at: datetime = strawberry.field(description="Start (inclusive), with a UTC offset, on the unit's grid.")
    ends_at: datetime = strawberry.field(description="End (exclusive), on the unit's grid: one or more consecutive "
                                         "slots.")
    customer: CustomerInput = strawberry.field(description=docs.CUSTOMER)
    resource_ids: list[strawberry.ID] | None = strawberry.field(default=None, description=docs.RESOURCE_IDS)
    quantity: int = strawberry.field(default=1, description=docs.QUANTITY)
    service_id: strawberry.ID | None = strawberry.field(default=None, description=docs.SERVICE)
    hold_type: str | None = strawberry.field(default=None, description="The hold type (default CART); see holdTypes "
                                             "for the unit's.")
    channel: Channel = strawberry.field(default=Channel.API, description=docs.CHANNEL)


@strawberry.input(description="A booking made by staff at the counter: born confirmed, no payment.")
class CounterBookingInput:
    unit_id: strawberry.ID = strawberry.field(description="The unit (venue).")
    resource_ids: list[strawberry.ID] = strawberry.field(description="The resources to book, by id.")
    starts_at: datetime = strawberry.field(description="Start (inclusive), on the unit's grid.")
    ends_at: datetime = strawberry.field(description="End (exclusive), on the unit's grid; not in the past.")
    customer: CustomerInput | None = strawberry.field(default=None, description="Who it is for; omitted (and no "
                                                      "customerId): a walk-up without a record.")
    quantity: int = strawberry.field(default=1, description=docs.QUANTITY)
    service_id: strawberry.ID | None = strawberry.field(default=None, description=docs.SERVICE)
    customer_id: strawberry.ID | None = strawberry.field(
        default=None, description="Instead of customer: a customer record of the unit's tenant, as customers(unitId, "
        "search) found it (CustomerMatch.id) — the one way to book for a customer known by CPF alone, whose CPF staff "
        "see masked. Not with customer; another tenant's record is NotFound.")


@strawberry.input(description="The slot to move a booking to: [startsAt, endsAt) on resourceIds (omitted: the "
                  "booking's own resources), with quantity (omitted: the booking's own).")
class RescheduleInput:
    starts_at: datetime = strawberry.field(description="New start (inclusive), on the unit's grid.")
    ends_at: datetime = strawberry.field(description="New end (exclusive), on the unit's grid.")
    resource_ids: list[strawberry.ID] | None = strawberry.field(default=None, description="The new resources; "
                                                                "omitted: the booking's own.")
    quantity: int | None = strawberry.field(default=None, description="The new quantity; omitted: the booking's own.")


BookingResult = Annotated[Booking | NotFound | InvalidInput, strawberry.union(
    "BookingResult", description=(
    "What booking answers: Booking, or the refusal (an Error) that stopped it."))]
HoldResult = Annotated[
    BookingPayload | SlotTaken | InvalidInput | NotFound | IdempotencyKeyReused | IdempotencyInProgress | Busy
    | HoldLimitReached | CooldownActive | HoldCeilingReached | CustomerBlacklisted,
    strawberry.union(
        "HoldResult", description=(
        "What hold and counterBooking answer: BookingPayload, or the refusal (an Error) that stopped it.")),
]
ChangeResult = Annotated[
    BookingPayload | InvalidTransition | InvalidInput | NotFound | IdempotencyKeyReused | IdempotencyInProgress
    | Busy,
    strawberry.union(
        "BookingChangeResult", description=(
        "What cancel, drop, checkIn, complete and markNoShow answer: BookingPayload, or the refusal (an Error) that "
        "stopped it.")),
]
RescheduleResult = Annotated[
    BookingPayload | SlotTaken | InvalidTransition | InvalidInput | NotFound | IdempotencyKeyReused
    | IdempotencyInProgress | Busy | PaymentUnavailable | HoldLimitReached | CooldownActive | HoldCeilingReached
    | CustomerBlacklisted,
    strawberry.union(
        "RescheduleResult", description=(
        "What reschedule answers: BookingPayload, or the refusal (an Error) that stopped it.")),
]
