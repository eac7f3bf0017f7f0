"""Payments recorded by hand (issue 18, seed 002: "el dueño marca manualmente el pago como verificado").

A manager or owner records money taken outside Pix — cash, a card at the counter, a transfer — with its method,
amount and a reason: the booking awaiting payment (or being verified) confirms, its open Pix charges are cancelled
(a Pix paid late all the same finds the booking confirmed and becomes the customer's credit, as any Pix after a
confirmation does: domain/settlement.py), and the record is kept apart from Pix payments (`manual_payments`, append
only), with who and when, in the booking's history and in `paymentsSummary`. A customer's receipt never confirms
anything (claimPaid); this is a person's explicit act, and a venue may turn it off (`manualPaymentsEnabled`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Protocol
from uuid import UUID

from domain.bookings import Booking, BookingStatus
from domain.errors import ErrorCode, InvalidInput, InvalidTransition
from domain.events import ChargeCancelRequested
from domain.payments import ChargeStatus
from domain.ports import UnitOfWork
from domain.services import Deps
from domain.staff_queue import QueueItemType

MAX_AMOUNT_CENTS = 100_000_000
REASON_MAX = 2_000
"""The same bound as every free text of the API (api/graphql/text_limits.FREE_TEXT)."""


class ManualMethod(StrEnum):
    """How the money was taken."""

    CASH = "cash"
    CARD = "card"
    TRANSFER = "transfer"
    OTHER = "other"


@dataclass(frozen=True)
class ManualPayment:
    """One payment recorded by hand."""

    id: UUID
    unit_id: UUID
    booking_id: UUID
    method: ManualMethod
    amount_cents: int
    reason: str
    actor: str
    session: str
    recorded_at: datetime


@dataclass(frozen=True)
class PaymentsSummary:
    """Money received in a range: Pix apart from what staff recorded by hand, by method."""

    pix_count: int
    pix_cents: int
    manual: tuple[tuple[ManualMethod, int, int], ...]
    """(method, count, total cents) for each method with at least one payment."""


class ManualPayments(Protocol):
    """manual_payments in the unit of work (store/manual_payments.py)."""

    async def add(self, p: ManualPayment) -> None: ...

    async def of_booking(self, booking_id: UUID) -> list[ManualPayment]: ...

    async def summary(self, unit_id: UUID, start: datetime, end: datetime) -> PaymentsSummary: ...


@dataclass(frozen=True)
class RecordManualPayment:
    """Staff record a payment taken outside Pix for a booking awaiting payment or being verified."""

    booking_id: UUID
    method: ManualMethod
    amount_cents: int
    reason: str
    actor: str
    session: str


def _checked(cmd: RecordManualPayment) -> str:
    if not 0 < cmd.amount_cents <= MAX_AMOUNT_CENTS:
        raise InvalidInput("input.amountCents", f"the amount must be 1 to {MAX_AMOUNT_CENTS} cents",
                           code=ErrorCode.INVALID_AMOUNT)
    reason = " ".join(cmd.reason.split())
    if not reason:
        raise InvalidInput("input.reason", "say why the payment is recorded by hand", code=ErrorCode.REASON_REQUIRED)
    if len(reason) > REASON_MAX:
        raise InvalidInput("input.reason", f"at most {REASON_MAX} characters", code=ErrorCode.TOO_LONG)
    return reason


async def record_manual_payment(deps: Deps, cmd: RecordManualPayment) -> tuple[Booking, ManualPayment]:
    """Confirm the booking on a payment taken by hand, in one transaction: the record, the confirmation (audited
    with the method and reason), its open Pix charges cancelled, a "paguei" queue item resolved."""
    reason = _checked(cmd)
    now = deps.clock.now()
    async with deps.uow() as uow:
        seen = await uow.bookings.find(cmd.booking_id)
        await uow.bookings.lock_resources(seen.unit_id, [a.resource_id for a in seen.allocations])
        booking = await uow.bookings.get(cmd.booking_id)
        unit = await uow.units.get(booking.unit_id)
        if not unit.params.manual_payments_enabled:
            raise InvalidInput("bookingId", "this venue does not take payments recorded by hand",
                               code=ErrorCode.MANUAL_PAYMENTS_OFF)
        if booking.is_lapsed(now):
            raise InvalidTransition("expired", BookingStatus.CONFIRMED.value, "record a payment for")
        if booking.status not in (BookingStatus.PENDING_PAYMENT, BookingStatus.VERIFYING):
            raise InvalidTransition(booking.status.value, BookingStatus.CONFIRMED.value, "record a payment for")
        payment = ManualPayment(deps.new_id(), unit.id, booking.id, cmd.method, cmd.amount_cents, reason,
                                cmd.actor, cmd.session, now)
        booking.settle(now, cmd.amount_cents, cmd.actor, f"manual payment ({cmd.method.value}): {reason}")
        await uow.bookings.save(booking)
        await uow.manual_payments.add(payment)
        await _void_open_charges(uow, booking, now)
        await uow.queue.resolve_for_booking(booking.id, QueueItemType.CUSTOMER_SAYS_PAID, cmd.actor, now,
                                            f"pagamento registrado à mão ({cmd.method.value})")
        await uow.commit()
    return booking, payment


async def _void_open_charges(uow: UnitOfWork, booking: Booking, now: datetime) -> None:
    """The booking is paid: its open Pix charges are cancelled here and at the provider (a job)."""
    for charge in await uow.payments.charges_of(booking.id):
        if charge.status in (ChargeStatus.CREATING, ChargeStatus.PENDING):
            locked = await uow.payments.charge(charge.id)
            locked.status = ChargeStatus.CANCELLED
            await uow.payments.save_charge(locked, now)
            await uow.events.notify(booking.unit_id, ChargeCancelRequested(locked.id))


async def manual_payments_of(deps: Deps, booking_id: UUID) -> list[ManualPayment]:
    """A booking's payments recorded by hand, oldest first."""
    async with deps.uow() as uow:
        return await uow.manual_payments.of_booking(booking_id)


async def payments_summary(deps: Deps, unit_id: UUID, start: datetime, end: datetime) -> PaymentsSummary:
    """Pix received (confirming or late-confirming a booking) and payments recorded by hand, by method, in
    [start, end)."""
    async with deps.uow() as uow:
        return await uow.manual_payments.summary(unit_id, start, end)
