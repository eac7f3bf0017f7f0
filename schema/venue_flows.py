"""Flows that differ by venue (issue 18): payments recorded by hand, the payments summary, waitlists on or off,
one-step checkout."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated
from uuid import UUID

import strawberry

from domain import manual_payments as dm
from schema import docs
from schema.bookings import Booking, BookingPayload
from schema.customers import CustomerInput
from schema.enums import described_enum
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
from schema.ids import Kind, ref
from schema.nodes import Node
from schema.vocabulary import Channel

ManualPaymentMethod = dm.ManualMethod  # the domain's enum, registered by strawberry.enum (which returns it unchanged)
described_enum(ManualPaymentMethod, name="ManualPaymentMethod", description="How a payment outside Pix was taken.",
               values={"CASH": "Cash at the venue.", "CARD": "A card at the counter.",
                       "TRANSFER": "A bank transfer (not our Pix charge).",
                       "OTHER": "Anything else (say so in reason)."})


@strawberry.input(description="A payment taken outside Pix: its method, amount and why it is recorded by hand.")
class ManualPaymentInput:
    method: ManualPaymentMethod = strawberry.field(description="How it was taken.")
    amount_cents: int = strawberry.field(description="What was taken, in cents (more than 0).")
    reason: str = strawberry.field(description="Why it is recorded by hand (required, kept with the record).")


@strawberry.type(description="A payment recorded by hand (kept apart from Pix payments), with who and when.")
class ManualPayment(Node):
    id: strawberry.ID = strawberry.field(description=docs.ID)
    booking_id: strawberry.ID = strawberry.field(description=docs.BOOKING_ID)
    method: ManualPaymentMethod = strawberry.field(description="How it was taken.")
    amount_cents: int = strawberry.field(description="What was taken, in cents.")
    reason: str = strawberry.field(description="Why it was recorded by hand.")
    actor: str = strawberry.field(description=docs.ACTOR)
    session: str = strawberry.field(description="The credential it was recorded with (staff:<token id>, ...).")
    recorded_at: datetime = strawberry.field(description="When it was recorded.")

    @classmethod
    def from_domain(cls, p: dm.ManualPayment) -> ManualPayment:
        return cls(id=ref(Kind.MANUAL_PAYMENT, p.id), booking_id=ref(Kind.BOOKING, p.booking_id), method=p.method,
                   amount_cents=p.amount_cents, reason=p.reason, actor=p.actor, session=p.session,
                   recorded_at=p.recorded_at)


@strawberry.type(description="The booking confirmed by a payment recorded by hand, and the record.")
class ManualPaymentPayload:
    booking: Booking = strawberry.field(description="The booking, now confirmed.")
    payment: ManualPayment = strawberry.field(description="The record of the payment.")


@strawberry.type(description="Payments recorded by hand with one method in a range.")
class ManualPaymentTotal:
    method: ManualPaymentMethod = strawberry.field(description="The method.")
    count: int = strawberry.field(description="How many payments.")
    total_cents: int = strawberry.field(description="Their sum, in cents.")


@strawberry.type(description="Money received in [from, to): Pix payments that paid bookings, and apart from them "
                 "the payments staff recorded by hand, by method.")
class PaymentsSummary:
    unit_id: strawberry.ID = strawberry.field(description=docs.UNIT_ID)
    from_: datetime = strawberry.field(name="from", description=docs.FROM)
    to: datetime = strawberry.field(description=docs.TO)
    pix_count: int = strawberry.field(description="Pix payments received that paid bookings.")
    pix_cents: int = strawberry.field(description="Their sum, in cents.")
    manual: list[ManualPaymentTotal] = strawberry.field(description="Payments recorded by hand, per method.")
    manual_cents: int = strawberry.field(description="Their sum, in cents.")

    @classmethod
    def from_domain(cls, unit_id: UUID, start: datetime, end: datetime, s: dm.PaymentsSummary) -> PaymentsSummary:
        return cls(unit_id=ref(Kind.UNIT, unit_id), from_=start, to=end, pix_count=s.pix_count, pix_cents=s.pix_cents,
                   manual=[ManualPaymentTotal(method=m, count=n, total_cents=c) for m, n, c in s.manual],
                   manual_cents=sum(c for _, _, c in s.manual))


@strawberry.type(description="Whether a resource's or a seat event's waitlist takes entries and makes offers.")
class WaitlistSetting:
    resource_id: strawberry.ID | None = strawberry.field(description="The resource whose waitlist it is; null for a "
                                                         "seat event's.")
    seat_event_id: strawberry.ID | None = strawberry.field(description="The seat event whose waitlist it is; null for "
                                                           "a resource's.")
    waitlist_enabled: bool = strawberry.field(description="Whether it takes entries and makes offers.")


@strawberry.input(description="One-step checkout: the hold's fields, the customer's acceptance of the summary and "
                  "cancellation policy (acceptTerms must be true), and the contact the acceptance is recorded with.")
class CheckoutInput:
    unit_id: strawberry.ID = strawberry.field(description="The unit (venue).")
    starts_at: datetime = strawberry.field(description="Start (inclusive), with a UTC offset, on the unit's grid.")
    ends_at: datetime = strawberry.field(description="End (exclusive), on the unit's grid.")
    customer: CustomerInput = strawberry.field(description=docs.CUSTOMER)
    accept_terms: bool = strawberry.field(description="Must be true: the customer accepts the summary and the "
                                          "cancellation policy (RN-ATD-09).")
    resource_ids: list[strawberry.ID] | None = strawberry.field(default=None, description=docs.RESOURCE_IDS)
    quantity: int = strawberry.field(default=1, description=docs.QUANTITY)
    service_id: strawberry.ID | None = strawberry.field(default=None, description=docs.SERVICE)
    hold_type: str | None = strawberry.field(default=None, description="The hold type (default CART).")
    channel: Channel = strawberry.field(default=Channel.API, description=docs.CHANNEL)
    contact: str | None = strawberry.field(default=None, description="The number or address the acceptance is "
                                           "recorded with (e.g. the customer's phone).")


RecordManualPaymentResult = Annotated[
    ManualPaymentPayload | InvalidInput | InvalidTransition | NotFound | Busy,
    strawberry.union(
        "RecordManualPaymentResult", description=(
        "What recordManualPayment answers: ManualPaymentPayload, or the refusal (an Error) that stopped it.")),
]
PaymentsSummaryResult = Annotated[PaymentsSummary | InvalidInput | NotFound,
                                  strawberry.union(
                                      "PaymentsSummaryResult", description=(
                                      "What paymentsSummary answers: PaymentsSummary, or the refusal (an Error) that "
                                      "stopped it."))]
WaitlistSettingResult = Annotated[WaitlistSetting | InvalidInput | NotFound,
                                  strawberry.union(
                                      "WaitlistSettingResult", description=(
                                      "What setWaitlistEnabled answers: WaitlistSetting, or the refusal (an Error) "
                                      "that stopped it."))]
OneStepCheckoutResult = Annotated[
    BookingPayload | SlotTaken | InvalidInput | InvalidTransition | NotFound | IdempotencyKeyReused
    | IdempotencyInProgress | Busy | PaymentUnavailable | HoldLimitReached | CooldownActive | HoldCeilingReached
    | CustomerBlacklisted,
    strawberry.union(
        "OneStepCheckoutResult", description=(
        "What checkout answers: BookingPayload, or the refusal (an Error) that stopped it.")),
]
