"""Types of payments: Pix charges, what the customer accepted, refunds, what a received payment did."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from enum import Enum
from typing import Any

import strawberry

from domain import orphans as do
from domain import payments as dp
from domain import refunds as dr
from domain import settlement as ds
from schema import docs
from schema.enums import described_enum
from schema.ids import Kind, ref
from schema.nodes import Node
from schema.vocabulary import Channel, PaymentRule


class ChargeStatus(Enum):
    CREATING = "creating"
    PENDING = "pending"
    PAID = "paid"
    CANCELLED = "cancelled"
    EXPIRED = "expired"
    FAILED = "failed"


described_enum(ChargeStatus, description="A Pix charge's life.", values={
    "CREATING": "Being created at the bank (a moment).",
    "PENDING": "Open: waiting to be paid until expiresAt.",
    "PAID": "Paid: the booking is (or was) confirmed by it.",
    "CANCELLED": "Cancelled (the hold ended, was dropped or swapped): do not pay it.",
    "EXPIRED": "Its deadline passed unpaid.",
    "FAILED": "The bank could not create it; the hold was cancelled.",
})


RefundStatus = dr.RefundStatus  # the domain's enum, registered by strawberry.enum (which returns it unchanged)
described_enum(RefundStatus, description="Where a refund is.", values={
    "NOT_DUE": "The policy gives nothing back (0 %).",
    "REQUESTED": "The provider is being asked to send the money back.",
    "SUCCEEDED": "The money was sent back.",
    "FAILED": "The provider refused or kept failing: a person handles it (a queue item REFUND_FAILED).",
})
Outcome = ds.Outcome
described_enum(Outcome, name="PaymentOutcomeKind", description="What a received payment did (SPEC §7).", values={
    "CONFIRMED": "It paid its charge: the booking is confirmed.",
    "LATE_CONFIRMED": "It arrived after the hold ended, and the slot was still free: the booking is confirmed.",
    "REFUND_DUE": "It arrived late and the slot was taken: flagged for refund, a queue item is open.",
    "CREDITED": "Both charges of a swap were paid: the second became the customer's credit.",
    "ORPHAN": "It matched no charge: staff may apply it with linkPayment.",
    "DUPLICATE": "The same payment was already received: nothing changed.",
})


@strawberry.type(description="Money back for one payment of a cancelled booking, by the cancellation policy version "
                 "the customer accepted and the hours left before the start (SPEC §7 \"Refunds\").")
class Refund(Node):
    id: strawberry.ID = strawberry.field(description=docs.ID)
    payment_id: strawberry.ID = strawberry.field(description="The payment it gives money back for.")
    paid_cents: int = strawberry.field(description="What that payment brought in.")
    amount_cents: int = strawberry.field(description="What goes back (paid × percent, rounded down to the cent).")
    percent: int = strawberry.field(description="The share of the payment that goes back, 0 to 100, by the policy's "
                                   "tier for hoursBeforeStart.")
    policy_version: int = strawberry.field(description="The cancellation policy version applied (the accepted one).")
    hours_before_start: float = strawberry.field(description="Hours between the cancellation and the start.")
    status: RefundStatus = strawberry.field(description="Where the refund is.")
    provider: str = strawberry.field(description="The payment provider that sends it back: the adapter's name "
                                     "(sandbox, pix_api or mercadopago), an open list that grows with the adapters.")
    provider_ref: str | None = strawberry.field(description="The provider's id of the refund, once it succeeded.")
    attempts: int = strawberry.field(description="How many times the provider was asked so far.")
    error: str | None = strawberry.field(description="The provider's last error; null when none.")
    created_at: datetime = strawberry.field(description=docs.CREATED_AT)
    updated_at: datetime = strawberry.field(description=docs.UPDATED_AT)

    @classmethod
    def from_domain(cls, r: dr.Refund) -> Refund:
        return cls(id=ref(Kind.REFUND, r.id), payment_id=strawberry.ID(str(r.payment_id)), paid_cents=r.paid_cents,
                   amount_cents=r.amount_cents, percent=r.percent, policy_version=r.policy_version,
                   hours_before_start=r.hours_before_start, status=RefundStatus(r.status.value),
                   provider=r.provider, provider_ref=r.provider_ref, attempts=r.attempts, error=r.error,
                   created_at=r.created_at, updated_at=r.updated_at)


@strawberry.type(description="A Pix charge of a fixed amount: pay it with the copia-e-cola code or the QR image.")
class Charge(Node):
    id: strawberry.ID = strawberry.field(description=docs.ID)
    txid: str = strawberry.field(description="The Pix transaction id the bank knows it by (sandboxPay takes it).")
    provider: str = strawberry.field(description="The payment provider that opened it: the adapter's name (sandbox, "
                                     "pix_api or mercadopago), an open list that grows with the adapters.")
    amount_cents: int = strawberry.field(description="The fixed amount to pay, in cents.")
    status: ChargeStatus = strawberry.field(description="Where the charge is.")
    copia_e_cola: str | None = strawberry.field(description="The BR Code payload (EMV with CRC16).")
    expires_at: datetime = strawberry.field(description="When it stops being payable: charge_margin (2 min by default) "
                                            "before the hold's deadline.")
    qr_code_png: str | None = strawberry.field(description="The QR image as a data: URI (PNG).")

    @classmethod
    def from_domain(cls, c: dp.Charge, qr: Callable[[str], str] | None = None) -> Charge:
        return cls(id=ref(Kind.CHARGE, c.id), txid=c.txid, provider=c.provider, amount_cents=c.amount_cents,
                   status=ChargeStatus(c.status.value), copia_e_cola=c.brcode, expires_at=c.expires_at,
                   qr_code_png=qr(c.brcode) if qr and c.brcode else None)


@strawberry.type(description="What the customer accepted before paying (RN-ATD-09).")
class Acceptance:
    at: datetime = strawberry.field(description="When the customer accepted.")
    channel: Channel = strawberry.field(description="Where the acceptance was given (a quote: the booking's own "
                                        "channel).")
    contact: str | None = strawberry.field(description="The number or address it was given from (e.g. the WhatsApp "
                                           "number); null when none was given.")
    price_version: int | None = strawberry.field(description="The service's price version accepted; null without a "
                                                 "service.")
    policy_version: int = strawberry.field(description="The cancellation policy version accepted (its refund tiers "
                                           "apply).")
    payment_rule: PaymentRule = strawberry.field(description=docs.PAYMENT_RULE)
    total_cents: int = strawberry.field(description="The whole price, in cents.")
    due_now_cents: int = strawberry.field(description="What is due now by Pix, in cents.")
    at_venue_cents: int = strawberry.field(description="What is left to pay at the venue, in cents.")
    policy_summary: str = strawberry.field(description="The cancellation policy in the words the customer read.")

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Acceptance:
        a = dp.Acceptance.from_json(d)
        return cls(at=a.at, channel=Channel(a.channel), contact=a.contact, price_version=a.price_version,
                   policy_version=a.policy_version, payment_rule=PaymentRule(a.payment_rule), total_cents=a.total_cents,
                   due_now_cents=a.due_now_cents, at_venue_cents=a.at_venue_cents, policy_summary=a.policy_summary)


@strawberry.type(description="What a received payment did.")
class PaymentOutcome:
    outcome: Outcome = strawberry.field(description="What the payment did.")
    booking_id: strawberry.ID | None = strawberry.field(description="The booking it paid or was applied to; null for "
                                                        "an orphan.")


@strawberry.type(description="A Pix of the unit that matched no charge (paid by hand to the key, without our txid), "
                 "waiting for staff to apply it with linkPayment (RN-HLD-06 \"Vincular pagamento\").")
class OrphanPayment(Node):
    id: strawberry.ID = strawberry.field(description="The paymentId that linkPayment takes.")
    amount_cents: int = strawberry.field(description="What was paid, in cents.")
    payer_name: str | None = strawberry.field(description="The payer's name, when the bank sends it.")
    payer_document: str | None = strawberry.field(description="The payer's CPF or CNPJ (digits), when the bank "
                                                  "sends it.")
    txid: str | None = strawberry.field(description="The txid the Pix carried, if any (none of our charges').")
    end_to_end_id: str = strawberry.field(description="The Pix's endToEndId (E2E id), unique per payment.")
    received_at: datetime = strawberry.field(description="When the Pix was paid, as the bank says.")

    @classmethod
    def from_domain(cls, o: do.OrphanPayment) -> OrphanPayment:
        return cls(id=ref(Kind.ORPHAN_PAYMENT, o.id), amount_cents=o.amount_cents, payer_name=o.payer_name,
                   payer_document=o.payer_document, txid=o.txid, end_to_end_id=o.end_to_end_id,
                   received_at=o.received_at)
