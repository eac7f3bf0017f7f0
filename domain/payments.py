"""What is paid when: payment rules, price versions, the acceptance record, charges (SPEC §7)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, TypedDict
from uuid import UUID

from domain.errors import ErrorCode, InvalidInput


class PaymentRule(StrEnum):
    """How much of the price is due now (the rest is paid at the venue)."""

    FULL = "full"
    DEPOSIT_PERCENT = "deposit_percent"
    DEPOSIT_CENTS = "deposit_cents"


@dataclass(frozen=True)
class Price:
    """One version of a service's price and payment rule."""

    service_id: UUID
    version: int
    price_cents: int
    rule: PaymentRule = PaymentRule.FULL
    deposit_percent: int | None = None
    deposit_cents: int | None = None

    def due(self, quantity: int = 1) -> tuple[int, int]:
        """(amount due now, amount due at the venue) for `quantity` places, in cents."""
        total = self.price_cents * quantity
        if self.rule is PaymentRule.FULL:
            now = total
        elif self.rule is PaymentRule.DEPOSIT_PERCENT:
            if not self.deposit_percent or not 0 < self.deposit_percent <= 100:
                raise InvalidInput("depositPercent", "a deposit percentage must be 1–100", code=ErrorCode.INVALID_PRICE)
            now = total * self.deposit_percent // 100
        else:
            if self.deposit_cents is None or self.deposit_cents < 0:
                raise InvalidInput("depositCents", "a deposit in cents must be given", code=ErrorCode.INVALID_PRICE)
            now = min(self.deposit_cents * quantity, total)
        return now, total - now


def money(cents: int) -> str:
    """R$ 1.234,56"""
    reais = f"{cents // 100:,}".replace(",", ".")
    return f"R$ {reais},{cents % 100:02d}"


@dataclass(frozen=True)
class Acceptance:
    """What the customer accepted, kept with the booking: later price or policy changes never touch it."""

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

    def as_json(self) -> dict[str, Any]:
        """The stored form."""
        return {
            "at": self.at.isoformat(), "channel": self.channel, "contact": self.contact,
            "price_version": self.price_version, "policy_version": self.policy_version,
            "payment_rule": self.payment_rule, "total_cents": self.total_cents,
            "due_now_cents": self.due_now_cents, "at_venue_cents": self.at_venue_cents,
            "policy_summary": self.policy_summary,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Acceptance:
        """Back from the stored form."""
        return cls(**{**d, "at": datetime.fromisoformat(d["at"])})


class ChargeStatus(StrEnum):
    """A Pix charge's life: created at the provider, then paid, cancelled or expired (or failed to create)."""

    CREATING = "creating"
    PENDING = "pending"
    PAID = "paid"
    CANCELLED = "cancelled"
    EXPIRED = "expired"
    FAILED = "failed"


@dataclass
class Charge:
    """A request for a fixed amount by Pix, tied to one booking."""

    id: UUID
    unit_id: UUID
    booking_id: UUID
    provider: str
    txid: str
    amount_cents: int
    expires_at: datetime
    status: ChargeStatus = ChargeStatus.CREATING
    brcode: str | None = None
    provider_ref: str | None = None
    created_at: datetime | None = None


def charge_expiry(hold_deadline: datetime, margin: timedelta) -> datetime:
    """A charge expires `charge_margin` before the hold, so every in-time payment finds the slot held."""
    return hold_deadline - margin


def summary_pt(resource_name: str, starts_local: datetime, hours: float, total_cents: int, due_now_cents: int,
               policy_summary: str) -> str:
    """The summary shown before acceptance (RN-ATD-09's wording)."""
    weekday = ["segunda", "terça", "quarta", "quinta", "sexta", "sábado", "domingo"][starts_local.weekday()]
    duration = f"{int(hours)} hora" + ("s" if hours >= 2 else "") if hours == int(hours) else f"{hours} horas"
    clock = f"{starts_local.hour}h{starts_local.minute or ''}"
    head = f"{resource_name}, {weekday} às {clock}, {duration}, {money(total_cents)}."
    if due_now_cents >= total_cents:
        pay = f"Pagamento integral de {money(total_cents)} agora."
    else:
        pct = round(due_now_cents * 100 / total_cents) if total_cents else 0
        pay = (f"Pagamento do sinal de {pct}% ({money(due_now_cents)}) agora e "
               f"{money(total_cents - due_now_cents)} na arena.")
    return f"{head} {pay} {policy_summary}"


@dataclass(frozen=True)
class ProviderCharge:
    """What a provider answers when a charge is created."""

    provider_ref: str
    """The provider's id for the charge (the txid for the Pix API, the payment id for MercadoPago)."""
    brcode: str
    """The "copia e cola" payload (EMV with CRC16)."""


@dataclass(frozen=True)
class ReceivedPix:
    """A Pix that reached the receiver's account."""

    provider_payment_id: str
    """Unique per payment (the endToEndId for the Pix API); duplicates of it are the same payment."""
    txid: str | None
    amount_cents: int
    paid_at: datetime
    payer_name: str | None = None
    payer_document: str | None = None
    """Who paid, when the bank says (the `pagador` of the Pix: a CPF or CNPJ, digits only)."""


class PaymentRow(TypedDict):
    """A received payment as stored (the `payments` table): what refunds and late confirmations read."""

    id: UUID
    unit_id: UUID
    charge_id: UUID | None
    booking_id: UUID | None
    provider: str
    provider_payment_id: str
    txid: str | None
    amount_cents: int
    paid_at: datetime
    outcome: str
    """confirmed, late_confirmed, refund_due, credited, orphan or refunded."""
    created_at: datetime


@dataclass(frozen=True)
class ChargeLookup:
    """A charge as the provider sees it now."""

    status: str
    """"pending", "paid", "cancelled" or "expired"."""
    payments: tuple[ReceivedPix, ...] = ()


class ProviderUnavailable(Exception):
    """The provider failed or did not answer (network, 5xx, timeout, malformed answer)."""


class WebhookRejected(Exception):
    """A webhook call that is not authentic or not understood; it changes nothing."""
