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
from schema.ids import Kind, ref
from schema.nodes import Node


@strawberry.enum(description="A Pix charge's life.")
class ChargeStatus(Enum):
    CREATING = "creating"
    PENDING = "pending"
    PAID = "paid"
    CANCELLED = "cancelled"
    EXPIRED = "expired"
    FAILED = "failed"


RefundStatus = dr.RefundStatus  # the domain's enum, registered by strawberry.enum (which returns it unchanged)
strawberry.enum(RefundStatus, description=(
    "not_due: the policy gives nothing back (0 %); requested: the provider is being asked; succeeded: the money was "
    "sent back; failed: the provider refused or kept failing, a person handles it (queue item)."))


@strawberry.type(description="Money back for one payment of a cancelled booking, by the cancellation policy version "
                 "the customer accepted and the hours left before the start (SPEC §7 \"Refunds\").")
class Refund(Node):
    id: strawberry.ID
    payment_id: strawberry.ID
    paid_cents: int = strawberry.field(description="What that payment brought in.")
    amount_cents: int = strawberry.field(description="What goes back (paid × percent, rounded down to the cent).")
    percent: int
    policy_version: int = strawberry.field(description="The cancellation policy version applied (the accepted one).")
    hours_before_start: float = strawberry.field(description="Hours between the cancellation and the start.")
    status: RefundStatus
    provider: str
    provider_ref: str | None = strawberry.field(description="The provider's id of the refund, once it succeeded.")
    attempts: int
    error: str | None
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_domain(cls, r: dr.Refund) -> Refund:
        return cls(id=ref(Kind.REFUND, r.id), payment_id=strawberry.ID(str(r.payment_id)), paid_cents=r.paid_cents,
                   amount_cents=r.amount_cents, percent=r.percent, policy_version=r.policy_version,
                   hours_before_start=r.hours_before_start, status=RefundStatus(r.status.value),
                   provider=r.provider, provider_ref=r.provider_ref, attempts=r.attempts, error=r.error,
                   created_at=r.created_at, updated_at=r.updated_at)


@strawberry.type(description="A Pix charge of a fixed amount: pay it with the copia-e-cola code or the QR image.")
class Charge(Node):
    id: strawberry.ID
    txid: str
    provider: str
    amount_cents: int
    status: ChargeStatus
    copia_e_cola: str | None = strawberry.field(description="The BR Code payload (EMV with CRC16).")
    expires_at: datetime
    qr_code_png: str | None = strawberry.field(description="The QR image as a data: URI (PNG).")

    @classmethod
    def from_domain(cls, c: dp.Charge, qr: Callable[[str], str] | None = None) -> Charge:
        return cls(id=ref(Kind.CHARGE, c.id), txid=c.txid, provider=c.provider, amount_cents=c.amount_cents,
                   status=ChargeStatus(c.status.value), copia_e_cola=c.brcode, expires_at=c.expires_at,
                   qr_code_png=qr(c.brcode) if qr and c.brcode else None)


@strawberry.type(description="What the customer accepted before paying (RN-ATD-09).")
class Acceptance:
    at: datetime
    channel: str
    contact: str | None
    price_version: int | None
    policy_version: int
    payment_rule: str
    total_cents: int
    due_now_cents: int
    at_venue_cents: int
    policy_summary: str

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Acceptance:
        a = dp.Acceptance.from_json(d)
        return cls(at=a.at, channel=a.channel, contact=a.contact, price_version=a.price_version,
                   policy_version=a.policy_version, payment_rule=a.payment_rule, total_cents=a.total_cents,
                   due_now_cents=a.due_now_cents, at_venue_cents=a.at_venue_cents, policy_summary=a.policy_summary)


@strawberry.type(description="What a received payment did.")
class PaymentOutcome:
    outcome: str = strawberry.field(description="confirmed, late_confirmed, refund_due, credited, orphan or duplicate.")
    booking_id: strawberry.ID | None


@strawberry.type(description="A Pix of the unit that matched no charge (paid by hand to the key, without our txid), "
                 "waiting for staff to apply it with linkPayment (RN-HLD-06 \"Vincular pagamento\").")
class OrphanPayment(Node):
    id: strawberry.ID = strawberry.field(description="The paymentId that linkPayment takes.")
    amount_cents: int
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
