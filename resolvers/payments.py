"""Payment and staff-queue resolvers: checkout, "paguei", staff decisions, the queue."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from domain import catalog, checkout, queries, settlement
from domain.access import Action
from domain.errors import ErrorCode, InvalidInput
from domain.hold_types import INTERNAL
from domain.services import HoldCommand
from resolvers.context import Info, parse_id
from resolvers.mutations import CustomerInput
from resolvers.permissions import authorize_booking, authorize_row, authorize_unit, booking_customer, customer_for
from schema.errors import (
    Busy,
    CooldownActive,
    CustomerBlacklisted,
    HoldCeilingReached,
    HoldLimitReached,
    IdempotencyInProgress,
    IdempotencyKeyReused,
    InvalidTransition,
    NotFound,
    PaymentNotFound,
    PaymentUnavailable,
    SlotTaken,
)
from schema.errors import InvalidInput as InvalidInputType
from schema.payments import Charge, PaymentOutcome, QueueItem
from schema.types import Booking, BookingPayload
from slothold.limits import limit_holds, page_description, page_size

CheckoutResult = Annotated[
    BookingPayload | InvalidTransition | InvalidInputType | NotFound | IdempotencyKeyReused | IdempotencyInProgress
    | Busy | PaymentUnavailable,
    strawberry.union("CheckoutResult"),
]
SwapResult = Annotated[
    BookingPayload | SlotTaken | InvalidTransition | InvalidInputType | NotFound | IdempotencyKeyReused
    | IdempotencyInProgress | Busy | PaymentUnavailable | HoldLimitReached | CooldownActive | HoldCeilingReached
    | CustomerBlacklisted,
    strawberry.union("SwapResult"),
]
PaymentResult = Annotated[
    PaymentOutcome | PaymentNotFound | InvalidTransition | InvalidInputType | NotFound | Busy,
    strawberry.union("PaymentResult"),
]
QueueItemResult = Annotated[QueueItem | InvalidTransition | InvalidInputType | NotFound,
                            strawberry.union("QueueItemResult")]


def _payload(info: Info, r: checkout.CheckoutResult) -> BookingPayload:
    return BookingPayload(booking=Booking.from_domain(r.booking), replayed=r.replayed,
                          charge=Charge.from_domain(r.charge, info.context.qr) if r.charge else None)


@strawberry.input(description="The slot to move an open hold to.")
class SwapInput:
    starts_at: datetime
    ends_at: datetime
    resource_ids: list[strawberry.ID] | None = None
    quantity: int = 1
    customer: CustomerInput | None = None


@strawberry.type
class PaymentMutation:
    @strawberry.mutation(description="The customer accepts the summary (amount, deposit, policy): confirmed at once "
                         "when nothing is due, else pendingPayment with a Pix charge (SPEC §7).")
    async def confirm(self, info: Info, booking_id: strawberry.ID, idempotency_key: str | None = None,
                      contact: str | None = None, channel: str = "api") -> CheckoutResult:
        bid = parse_id(booking_id, "bookingId")
        await authorize_booking(info.context, bid, Action.BOOK)
        cmd = checkout.ConfirmCommand(bid, channel=channel, contact=contact,
                                      idempotency_key=info.context.idempotency_key(idempotency_key))
        return _payload(info, await checkout.confirm(info.context.deps, cmd))

    @strawberry.mutation(description="Move an open hold (held or awaiting payment) to another slot in one step: "
                         "the old charge is cancelled and the old slot freed (RN-HLD-07). Not while verifying.")
    async def swap_hold(self, info: Info, booking_id: strawberry.ID, input: SwapInput,
                        idempotency_key: str | None = None) -> SwapResult:
        deps = info.context.deps
        old = await authorize_booking(info.context, parse_id(booking_id, "bookingId"), Action.BOOK)
        if input.customer is None and old.customer_id is None:
            raise InvalidInput("customer", "the hold has no customer; give one", code=ErrorCode.CUSTOMER_REQUIRED)
        identity = (customer_for(info.context, input.customer.for_caller(info.context)) if input.customer
                    else booking_customer(info.context, old, await queries.customer_identity(deps, old)))
        await limit_holds(info, identity)
        hold = HoldCommand(
            unit_id=old.unit_id, starts_at=input.starts_at, ends_at=input.ends_at,
            resource_ids=tuple(parse_id(r, "resourceIds") for r in input.resource_ids)
            if input.resource_ids is not None else None,
            quantity=input.quantity, customer=identity, service_id=old.service_id,
            hold_type=None if old.hold_type in INTERNAL else old.hold_type, channel=old.channel,
            idempotency_key=info.context.idempotency_key(idempotency_key),
            placed_by=info.context.principal.releaser)
        swap = checkout.SwapCommand(old.id, hold, releaser=info.context.principal.releasers(Action.BOOK))
        return _payload(info, await checkout.swap(deps, swap))

    @strawberry.mutation(description="\"Paguei\": the customer says they paid; the slot is frozen while staff check "
                         "(RN-HLD-06). A receipt never confirms anything.")
    async def claim_paid(self, info: Info, booking_id: strawberry.ID) -> CheckoutResult:
        bid = parse_id(booking_id, "bookingId")
        await authorize_booking(info.context, bid, Action.BOOK)
        b = await checkout.claim_paid(info.context.deps, bid)
        return BookingPayload(booking=Booking.from_domain(b), replayed=False)

    @strawberry.mutation(description="Staff: confirm a claimed payment — only if the provider finds the Pix.")
    async def confirm_payment(self, info: Info, booking_id: strawberry.ID) -> PaymentResult:
        bid = parse_id(booking_id, "bookingId")
        await authorize_booking(info.context, bid, Action.COUNTER)
        outcome = await settlement.staff_confirm_payment(info.context.deps, bid, "staff")
        return PaymentOutcome(outcome=outcome.value, booking_id=strawberry.ID(str(bid)))

    @strawberry.mutation(description="Staff: apply an orphan Pix (one that matched no charge) to this booking.")
    async def link_payment(self, info: Info, booking_id: strawberry.ID, payment_id: strawberry.ID) -> PaymentResult:
        bid = parse_id(booking_id, "bookingId")
        await authorize_booking(info.context, bid, Action.COUNTER)
        outcome = await settlement.link_payment(info.context.deps, bid, parse_id(payment_id, "paymentId"), "staff")
        return PaymentOutcome(outcome=outcome.value, booking_id=strawberry.ID(str(bid)))

    @strawberry.mutation(description="Staff: deny a payment claim; the hold expires and the slot is free.")
    async def deny_payment_claim(self, info: Info, booking_id: strawberry.ID, reason: str | None = None
                                 ) -> CheckoutResult:
        bid = parse_id(booking_id, "bookingId")
        await authorize_booking(info.context, bid, Action.COUNTER)
        b = await settlement.deny_claim(info.context.deps, bid, "staff", reason)
        return BookingPayload(booking=Booking.from_domain(b), replayed=False)

    @strawberry.mutation(description="Sandbox provider only: pay a charge as the customer would (demo and tests).")
    async def sandbox_pay(self, info: Info, txid: str) -> PaymentResult:
        pay = info.context.sandbox_pay
        if pay is None:
            raise InvalidInput("txid", "the sandbox provider is not the configured provider",
                               code=ErrorCode.NOT_SANDBOX)
        outcomes = await pay(txid)
        return PaymentOutcome(outcome=outcomes[0] if outcomes else "duplicate", booking_id=None)

    @strawberry.mutation(description="Staff: \"Registrar ciência\" on a queue item (alerts).")
    async def acknowledge_queue_item(self, info: Info, item_id: strawberry.ID) -> QueueItemResult:
        iid = parse_id(item_id, "itemId")
        await authorize_row(info.context, "queue_items", iid, Action.COUNTER, "itemId")
        item = await queries.acknowledge_queue_item(info.context.deps, iid, "staff")
        return QueueItem.from_domain(item)

    @strawberry.mutation(description="Staff: close a queue item with an optional note.")
    async def resolve_queue_item(self, info: Info, item_id: strawberry.ID, note: str | None = None
                                 ) -> QueueItemResult:
        iid = parse_id(item_id, "itemId")
        await authorize_row(info.context, "queue_items", iid, Action.COUNTER, "itemId")
        item = await queries.resolve_queue_item(info.context.deps, iid, "staff", note)
        return QueueItem.from_domain(item)


@strawberry.type(description="A published version of a service's price.")
class PriceVersion:
    service_id: strawberry.ID
    version: int
    price_cents: int
    payment_rule: str
    deposit_percent: int | None
    deposit_cents: int | None


@strawberry.type(description="A published version of a unit's cancellation policy.")
class PolicyVersion:
    version: int
    summary: str


@strawberry.input(description="Cancelling at least minHours before the start refunds percent of what was paid.")
class TierInput:
    min_hours: float
    percent: int


PriceResult = Annotated[PriceVersion | InvalidInputType | NotFound, strawberry.union("PriceResult")]
PolicyResult = Annotated[PolicyVersion | InvalidInputType | NotFound, strawberry.union("PolicyResult")]


@strawberry.type
class CatalogMutation:
    @strawberry.mutation(description="Owner: publish a service's new price and payment rule (full, "
                         "deposit_percent, deposit_cents) as its next version. Accepted bookings keep theirs.")
    async def publish_service_price(
        self, info: Info, unit_id: strawberry.ID, service_id: strawberry.ID, price_cents: int, payment_rule: str,
        deposit_percent: int | None = None, deposit_cents: int | None = None,
    ) -> PriceResult:
        uid = parse_id(unit_id, "unitId")
        await authorize_unit(info.context, uid, Action.CONFIGURE)
        p = await catalog.publish_price(info.context.deps, uid,
                                        parse_id(service_id, "serviceId"), price_cents, payment_rule,
                                        deposit_percent, deposit_cents)
        return PriceVersion(service_id=strawberry.ID(str(p.service_id)), version=p.version,
                            price_cents=p.price_cents, payment_rule=p.rule.value,
                            deposit_percent=p.deposit_percent, deposit_cents=p.deposit_cents)

    @strawberry.mutation(description="Owner: publish the unit's cancellation policy as its next version.")
    async def publish_cancellation_policy(self, info: Info, unit_id: strawberry.ID, tiers: list[TierInput]
                                          ) -> PolicyResult:
        uid = parse_id(unit_id, "unitId")
        await authorize_unit(info.context, uid, Action.CONFIGURE)
        p = await catalog.publish_policy(info.context.deps, uid,
                                         [(t.min_hours, t.percent) for t in tiers])
        return PolicyVersion(version=p.version, summary=p.summary_pt())


@strawberry.type
class PaymentQuery:
    @strawberry.field(description="The unit's staff queue, most urgent first (default: open and acknowledged).")
    async def queue(self, info: Info, unit_id: strawberry.ID, statuses: list[str] | None = None,
                    first: Annotated[int, strawberry.argument(description=page_description(200))] = 200
                    ) -> list[QueueItem]:
        uid = parse_id(unit_id, "unitId")
        await authorize_unit(info.context, uid, Action.READ)
        items = await queries.queue_items(info.context.deps, uid, statuses or ["open", "acknowledged"],
                                          page_size(first))
        return [QueueItem.from_domain(i) for i in items]

    @strawberry.field(description="The charges of a booking, newest first.")
    async def charges(self, info: Info, booking_id: strawberry.ID,
                      first: Annotated[int, strawberry.argument(description=page_description(50))] = 50
                      ) -> list[Charge]:
        bid = parse_id(booking_id, "bookingId")
        await authorize_booking(info.context, bid, Action.READ)
        found = await queries.charges_of(info.context.deps, bid, page_size(first))
        return [Charge.from_domain(c, info.context.qr) for c in found]
