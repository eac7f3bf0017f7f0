"""Checkout: the customer accepts a hold (a Pix charge when something is due), moves it, says "paguei"; staff
confirm, link or deny payments; the sandbox pays; a booking's charges."""

from __future__ import annotations

from typing import Annotated

import strawberry

from domain import checkout, listings, orphans, queries, settlement
from domain.access import Action
from domain.errors import ErrorCode, InvalidInput
from domain.hold_types import INTERNAL
from domain.services import HoldCommand
from resolvers.context import Info, parse_id
from resolvers.permissions import authorize_booking, authorize_unit, booking_customer, customer_for, limit_holds
from schema.args import BookingIdArg, IdempotencyKeyArg, OptionalReasonArg, UnitIdArg
from schema.bookings import Booking, BookingPayload
from schema.checkout import CheckoutResult, PaymentResult, SwapInput, SwapResult
from schema.connections import After, Before, Connection, First, Last, connection, page_request
from schema.ids import Kind, ref
from schema.pages import page_description, page_size
from schema.payments import Charge, OrphanPayment, PaymentOutcome
from schema.vocabulary import Channel

ContactArg = Annotated[str | None, strawberry.argument(
    description="The number or address the acceptance is given from (e.g. the WhatsApp number); recorded with it.")]
AcceptChannelArg = Annotated[Channel, strawberry.argument(description="Where the acceptance is given (default API).")]
SwapInputArg = Annotated[SwapInput, strawberry.argument(description="The slot to move the hold to.")]
PaymentIdArg = Annotated[strawberry.ID, strawberry.argument(
    description="The orphan payment (an OrphanPayment id, from orphanPayments).")]
TxidArg = Annotated[str, strawberry.argument(description="The charge's txid (Charge.txid).")]


def _payload(info: Info, r: checkout.CheckoutResult) -> BookingPayload:
    return BookingPayload(booking=Booking.from_domain(r.booking), replayed=r.replayed,
                          charge=Charge.from_domain(r.charge, info.context.qr) if r.charge else None)


@strawberry.type
class CheckoutMutation:
    @strawberry.mutation(description="The customer accepts the summary (amount, deposit, policy): confirmed at once "
                         "when nothing is due, else pendingPayment with a Pix charge (SPEC §7).")
    async def confirm(self, info: Info, booking_id: BookingIdArg, idempotency_key: IdempotencyKeyArg = None,
                      contact: ContactArg = None, channel: AcceptChannelArg = Channel.API) -> CheckoutResult:
        bid = parse_id(booking_id, "bookingId", Kind.BOOKING)
        await authorize_booking(info.context, bid, Action.BOOK)
        cmd = checkout.ConfirmCommand(bid, channel=channel, contact=contact,
                                      idempotency_key=info.context.idempotency_key(idempotency_key))
        return _payload(info, await checkout.confirm(info.context.deps, cmd))

    @strawberry.mutation(description="Move an open hold (held or awaiting payment) to another slot in one step: "
                         "the old charge is cancelled and the old slot freed (RN-HLD-07). Not while verifying.")
    async def swap_hold(self, info: Info, booking_id: BookingIdArg, input: SwapInputArg,
                        idempotency_key: IdempotencyKeyArg = None) -> SwapResult:
        deps, principal = info.context.deps, info.context.principal
        old = await authorize_booking(info.context, parse_id(booking_id, "bookingId", Kind.BOOKING), Action.BOOK)
        if input.customer is None and old.customer_id is None:
            raise InvalidInput("customer", "the hold has no customer; give one", code=ErrorCode.CUSTOMER_REQUIRED)
        identity = (customer_for(info.context, input.customer.for_caller(principal)) if input.customer
                    else booking_customer(info.context, old, await queries.customer_identity(deps, old)))
        await limit_holds(info, identity)
        hold = HoldCommand(
            unit_id=old.unit_id, starts_at=input.starts_at, ends_at=input.ends_at,
            resource_ids=tuple(parse_id(r, "resourceIds", Kind.RESOURCE) for r in input.resource_ids)
            if input.resource_ids is not None else None,
            quantity=input.quantity, customer=identity, service_id=old.service_id,
            hold_type=None if old.hold_type in INTERNAL else old.hold_type, channel=old.channel,
            idempotency_key=info.context.idempotency_key(idempotency_key),
            placed_by=principal.releaser)
        swap = checkout.SwapCommand(old.id, hold, releaser=principal.releasers(Action.BOOK))
        return _payload(info, await checkout.swap(deps, swap))

    @strawberry.mutation(description="\"Paguei\": the customer says they paid; the slot is frozen while staff check "
                         "(RN-HLD-06). A receipt never confirms anything.")
    async def claim_paid(self, info: Info, booking_id: BookingIdArg) -> CheckoutResult:
        bid = parse_id(booking_id, "bookingId", Kind.BOOKING)
        await authorize_booking(info.context, bid, Action.BOOK)
        b = await checkout.claim_paid(info.context.deps, bid)
        return BookingPayload(booking=Booking.from_domain(b), replayed=False)

    @strawberry.mutation(description="Staff: confirm a claimed payment — only if the provider finds the Pix.")
    async def confirm_payment(self, info: Info, booking_id: BookingIdArg) -> PaymentResult:
        bid = parse_id(booking_id, "bookingId", Kind.BOOKING)
        await authorize_booking(info.context, bid, Action.COUNTER)
        outcome = await settlement.staff_confirm_payment(info.context.deps, bid, "staff")
        return PaymentOutcome(outcome=outcome, booking_id=ref(Kind.BOOKING, bid))

    @strawberry.mutation(description="Staff: apply an orphan Pix (one that matched no charge) to this booking.")
    async def link_payment(self, info: Info, booking_id: BookingIdArg, payment_id: PaymentIdArg) -> PaymentResult:
        bid = parse_id(booking_id, "bookingId", Kind.BOOKING)
        await authorize_booking(info.context, bid, Action.COUNTER)
        pid = parse_id(payment_id, "paymentId", Kind.ORPHAN_PAYMENT)
        outcome = await settlement.link_payment(info.context.deps, bid, pid, "staff")
        return PaymentOutcome(outcome=outcome, booking_id=ref(Kind.BOOKING, bid))

    @strawberry.mutation(description="Staff: deny a payment claim; the hold expires and the slot is free.")
    async def deny_payment_claim(self, info: Info, booking_id: BookingIdArg, reason: OptionalReasonArg = None
                                 ) -> CheckoutResult:
        bid = parse_id(booking_id, "bookingId", Kind.BOOKING)
        await authorize_booking(info.context, bid, Action.COUNTER)
        b = await settlement.deny_claim(info.context.deps, bid, "staff", reason)
        return BookingPayload(booking=Booking.from_domain(b), replayed=False)

    @strawberry.mutation(description="Sandbox provider only: pay a charge as the customer would (demo and tests).")
    async def sandbox_pay(self, info: Info, txid: TxidArg) -> PaymentResult:
        pay = info.context.sandbox_pay
        if pay is None:
            raise InvalidInput("txid", "the sandbox provider is not the configured provider",
                               code=ErrorCode.NOT_SANDBOX)
        outcomes = await pay(txid)
        return PaymentOutcome(outcome=settlement.Outcome(outcomes[0] if outcomes else "duplicate"), booking_id=None)


@strawberry.type
class CheckoutQuery:
    @strawberry.field(description="The charges of a booking, newest first.",
                      deprecation_reason="Use chargesConnection: it pages on with cursors.")
    async def charges(self, info: Info, booking_id: BookingIdArg,
                      first: Annotated[int, strawberry.argument(description=page_description(50))] = 50
                      ) -> list[Charge]:
        bid = parse_id(booking_id, "bookingId", Kind.BOOKING)
        await authorize_booking(info.context, bid, Action.READ)
        found = await queries.charges_of(info.context.deps, bid, page_size(first))
        return [Charge.from_domain(c, info.context.qr) for c in found]

    @strawberry.field(description="The charges of a booking a page at a time, newest first (then by id). Staff of "
                      "its unit, integrators with read, its customer.")
    async def charges_connection(self, info: Info, booking_id: Annotated[strawberry.ID, strawberry.argument(
                                     description="The booking whose charges.")], first: First = None,
                                 after: After = None, last: Last = None, before: Before = None
                                 ) -> Connection[Charge]:
        bid = parse_id(booking_id, "bookingId", Kind.BOOKING)
        await authorize_booking(info.context, bid, Action.READ, hide=True)
        request = page_request(listings.CHARGES, first, after, last, before)
        page = await listings.read(info.context.deps, lambda rows: rows.charges(bid, request))
        return connection(page.map(lambda c: Charge.from_domain(c, info.context.qr)), listings.CHARGES)

    @strawberry.field(description="Staff (counter): the unit's Pix that matched no charge, newest first, to apply "
                      "one to a booking with linkPayment (RN-HLD-06 \"Vincular pagamento\").")
    async def orphan_payments(self, info: Info, unit_id: UnitIdArg,
                              first: Annotated[int, strawberry.argument(description=page_description(50))] = 50
                              ) -> list[OrphanPayment]:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.COUNTER)
        found = await orphans.orphan_payments(info.context.deps, uid, page_size(first))
        return [OrphanPayment.from_domain(o) for o in found]
