"""Flows that differ by venue (issue 18): payments recorded by hand, the payments summary, waitlists on or off,
one-step checkout."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated
from uuid import UUID

import strawberry

from domain import manual_payments as dm
from schema.bookings import Booking, BookingPayload
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
from schema.ids import Kind, ref
from schema.nodes import Node

ManualPaymentMethod = dm.ManualMethod  # the domain's enum, registered by strawberry.enum (which returns it unchanged)
strawberry.enum(ManualPaymentMethod, name="ManualPaymentMethod", description="How a payment outside Pix was taken.")


@strawberry.input(description="A payment taken outside Pix: its method, amount and why it is recorded by hand.")
class ManualPaymentInput:
    method: ManualPaymentMethod
    amount_cents: int
    reason: str


@strawberry.type(description="A payment recorded by hand (kept apart from Pix payments), with who and when.")
class ManualPayment(Node):
    id: strawberry.ID
    booking_id: strawberry.ID
    method: ManualPaymentMethod
    amount_cents: int
    reason: str
    actor: str
    session: str = strawberry.field(description="The credential it was recorded with (staff:<token id>, ...).")
    recorded_at: datetime

    @classmethod
    def from_domain(cls, p: dm.ManualPayment) -> ManualPayment:
        return cls(id=ref(Kind.MANUAL_PAYMENT, p.id), booking_id=ref(Kind.BOOKING, p.booking_id), method=p.method,
                   amount_cents=p.amount_cents, reason=p.reason, actor=p.actor, session=p.session,
                   recorded_at=p.recorded_at)


@strawberry.type(description="The booking confirmed by a payment recorded by hand, and the record.")
class ManualPaymentPayload:
    booking: Booking
    payment: ManualPayment


@strawberry.type(description="Payments recorded by hand with one method in a range.")
class ManualPaymentTotal:
    method: ManualPaymentMethod
    count: int
    total_cents: int


@strawberry.type(description="Money received in [from, to): Pix payments that paid bookings, and apart from them "
                 "the payments staff recorded by hand, by method.")
class PaymentsSummary:
    unit_id: strawberry.ID
    from_: datetime = strawberry.field(name="from")
    to: datetime
    pix_count: int
    pix_cents: int
    manual: list[ManualPaymentTotal]
    manual_cents: int

    @classmethod
    def from_domain(cls, unit_id: UUID, start: datetime, end: datetime, s: dm.PaymentsSummary) -> PaymentsSummary:
        return cls(unit_id=ref(Kind.UNIT, unit_id), from_=start, to=end, pix_count=s.pix_count, pix_cents=s.pix_cents,
                   manual=[ManualPaymentTotal(method=m, count=n, total_cents=c) for m, n, c in s.manual],
                   manual_cents=sum(c for _, _, c in s.manual))


@strawberry.type(description="Whether a resource's or a seat event's waitlist takes entries and makes offers.")
class WaitlistSetting:
    resource_id: strawberry.ID | None
    seat_event_id: strawberry.ID | None
    waitlist_enabled: bool


@strawberry.input(description="One-step checkout: the hold's fields, the customer's acceptance of the summary and "
                  "cancellation policy (acceptTerms must be true), and the contact the acceptance is recorded with.")
class CheckoutInput:
    unit_id: strawberry.ID
    starts_at: datetime
    ends_at: datetime
    customer: CustomerInput
    accept_terms: bool
    resource_ids: list[strawberry.ID] | None = None
    quantity: int = 1
    service_id: strawberry.ID | None = None
    hold_type: str | None = None
    channel: str = "api"
    contact: str | None = None


RecordManualPaymentResult = Annotated[
    ManualPaymentPayload | InvalidInput | InvalidTransition | NotFound | Busy,
    strawberry.union("RecordManualPaymentResult"),
]
PaymentsSummaryResult = Annotated[PaymentsSummary | InvalidInput | NotFound,
                                  strawberry.union("PaymentsSummaryResult")]
WaitlistSettingResult = Annotated[WaitlistSetting | InvalidInput | NotFound,
                                  strawberry.union("WaitlistSettingResult")]
OneStepCheckoutResult = Annotated[
    BookingPayload | SlotTaken | InvalidInput | InvalidTransition | NotFound | IdempotencyKeyReused
    | IdempotencyInProgress | Busy | PaymentUnavailable | HoldLimitReached | CooldownActive | HoldCeilingReached
    | CustomerBlacklisted,
    strawberry.union("OneStepCheckoutResult"),
]
