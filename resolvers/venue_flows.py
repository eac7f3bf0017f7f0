"""Flows that differ by venue (issue 18): record a payment by hand, the payments summary, turn a waitlist on or
off, one-step checkout."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from domain import manual_payments, one_step_checkout, waitlist_switch
from domain.access import Action
from domain.audit_reports import check_range
from domain.errors import ErrorCode, InvalidInput
from domain.services import HoldCommand
from resolvers.context import Info, parse_id
from resolvers.permissions import authorize_booking, authorize_unit, customer_for, limit_holds, signed_in
from schema.args import BookingIdArg, IdempotencyKeyArg, UnitIdArg
from schema.bookings import Booking, BookingPayload
from schema.ids import Kind, ref
from schema.payments import Charge
from schema.venue_flows import (
    CheckoutInput,
    ManualPayment,
    ManualPaymentInput,
    ManualPaymentPayload,
    OneStepCheckoutResult,
    PaymentsSummary,
    PaymentsSummaryResult,
    RecordManualPaymentResult,
    WaitlistSetting,
    WaitlistSettingResult,
)

ManualPaymentArg = Annotated[ManualPaymentInput, strawberry.argument(description="How much was taken, how, and why.")]
EnabledArg = Annotated[bool, strawberry.argument(
    description="true: the waitlist takes entries and makes offers; false: it is off.")]
WaitlistResourceArg = Annotated[strawberry.ID | None, strawberry.argument(
    description="The resource whose waitlist to switch (or give seatEventId).")]
WaitlistEventArg = Annotated[strawberry.ID | None, strawberry.argument(
    description="The seat event whose waitlist to switch (or give resourceId).")]
CheckoutArg = Annotated[CheckoutInput, strawberry.argument(description="The hold, the customer and their acceptance.")]


From = Annotated[datetime, strawberry.argument(name="from", description="Start of the range (with a UTC offset).")]
To = Annotated[datetime, strawberry.argument(description="End of the range, excluded; at most 366 days after from.")]


@strawberry.type
class VenueFlowsMutation:
    @strawberry.mutation(description="Managers and owners: record a payment taken outside Pix (cash, card at the "
                         "counter, transfer) with its amount and a reason; the booking awaiting payment (or being "
                         "verified) confirms and its open Pix charge is cancelled. Refused with manual_payments_off "
                         "where the venue turned it off (manualPaymentsEnabled).")
    async def record_manual_payment(self, info: Info, booking_id: BookingIdArg, input: ManualPaymentArg
                                    ) -> RecordManualPaymentResult:
        bid = parse_id(booking_id, "bookingId", Kind.BOOKING)
        await authorize_booking(info.context, bid, Action.RECORD_PAYMENT)
        principal = info.context.principal
        cmd = manual_payments.RecordManualPayment(bid, input.method, input.amount_cents, input.reason,
                                                  actor=principal.actor, session=principal.key)
        booking, payment = await manual_payments.record_manual_payment(info.context.deps, cmd)
        return ManualPaymentPayload(booking=Booking.from_domain(booking), payment=ManualPayment.from_domain(payment))

    @strawberry.mutation(description="Owner: turn the waitlist of one resource or one seat event on or off (give "
                         "exactly one of resourceId, seatEventId). Off: joining is refused (waitlist_disabled) and "
                         "no offer is made from its line.")
    async def set_waitlist_enabled(self, info: Info, enabled: EnabledArg, resource_id: WaitlistResourceArg = None,
                                   seat_event_id: WaitlistEventArg = None) -> WaitlistSettingResult:
        if (resource_id is None) == (seat_event_id is None):
            raise InvalidInput("resourceId", "give exactly one of resourceId and seatEventId",
                               code=ErrorCode.REQUIRED)
        target = "resource" if resource_id is not None else "seat_event"
        kind = Kind.RESOURCE if target == "resource" else Kind.SEAT_EVENT
        tid = parse_id(resource_id or seat_event_id or "", waitlist_switch.TARGETS[target], kind)
        deps = info.context.deps
        signed_in(info.context, Action.CONFIGURE)
        unit_id = await waitlist_switch.unit_of(deps, target, tid)
        await authorize_unit(info.context, unit_id, Action.CONFIGURE)
        value = await waitlist_switch.set_waitlist_enabled(deps, waitlist_switch.WaitlistSwitch(
            unit_id, target, tid, enabled, info.context.principal.key))
        return WaitlistSetting(resource_id=ref(kind, tid) if target == "resource" else None,
                               seat_event_id=ref(kind, tid) if target != "resource" else None, waitlist_enabled=value)

    @strawberry.mutation(description="One-step checkout for app clients: hold, accept the summary and open the Pix "
                         "charge in one call, all or nothing (if the charge cannot be opened no hold is left), "
                         "idempotent (the same key replays the same answer). Answers the booking, pendingPayment "
                         "with its charge (QR, copy-paste), or confirmed when nothing is due.")
    async def checkout(self, info: Info, input: CheckoutArg, idempotency_key: IdempotencyKeyArg = None
                       ) -> OneStepCheckoutResult:
        principal = info.context.principal
        hold = HoldCommand(
            unit_id=parse_id(input.unit_id, "unitId", Kind.UNIT), starts_at=input.starts_at, ends_at=input.ends_at,
            resource_ids=tuple(parse_id(r, "resourceIds", Kind.RESOURCE) for r in input.resource_ids)
            if input.resource_ids is not None else None, quantity=input.quantity,
            customer=customer_for(info.context, input.customer.for_caller(principal)),
            service_id=parse_id(input.service_id, "serviceId", Kind.SERVICE) if input.service_id else None,
            hold_type=input.hold_type, channel=input.channel, actor=principal.actor, placed_by=principal.releaser)
        if input.channel == "counter":
            raise InvalidInput("input.channel", "the counter channel is for counterBooking",
                               code=ErrorCode.INVALID_CHANNEL)
        await authorize_unit(info.context, hold.unit_id, Action.BOOK)
        await limit_holds(info, hold.customer)
        r = await one_step_checkout.checkout(info.context.deps, one_step_checkout.OneStepCheckout(
            hold, input.accept_terms, input.contact, info.context.idempotency_key(idempotency_key)))
        return BookingPayload(booking=Booking.from_domain(r.booking), replayed=r.replayed,
                              charge=Charge.from_domain(r.charge, info.context.qr) if r.charge else None)


@strawberry.type
class VenueFlowsQuery:
    @strawberry.field(description="Staff: money received in [from, to) — Pix payments that paid bookings, and apart "
                      "from them the payments recorded by hand, by method.")
    async def payments_summary(self, info: Info, unit_id: UnitIdArg, from_: From, to: To
                               ) -> PaymentsSummaryResult:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.READ)
        start, end = check_range(from_, to)
        summary = await manual_payments.payments_summary(info.context.deps, uid, start, end)
        return PaymentsSummary.from_domain(uid, from_, to, summary)
