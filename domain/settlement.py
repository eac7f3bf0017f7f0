"""Money arriving: in-time and late payments, swaps paid twice, staff decisions on "paguei" (SPEC §7)."""

from __future__ import annotations

import logging
from datetime import datetime
from enum import StrEnum
from uuid import UUID

from domain import orphans
from domain.bookings import LOCKED, Booking, BookingStatus
from domain.errors import ErrorCode, InvalidInput, InvalidTransition, NotFound, PaymentNotFound, SlotTaken
from domain.events import PaymentReceived
from domain.payments import Charge, ChargeStatus, ProviderUnavailable, ReceivedPix
from domain.ports import UnitOfWork
from domain.services import Deps, expire_booking, released
from domain.staff_queue import QueueItemType

log = logging.getLogger("slothold.settlement")


class Outcome(StrEnum):
    """What a received payment did."""

    CONFIRMED = "confirmed"
    LATE_CONFIRMED = "late_confirmed"
    REFUND_DUE = "refund_due"
    CREDITED = "credited"
    ORPHAN = "orphan"
    DUPLICATE = "duplicate"


async def receive_payment(deps: Deps, provider: str, pix: ReceivedPix) -> Outcome:
    """Apply a Pix that reached the account: exactly once per payment, whatever the order of events."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        # Lock order everywhere: resources, then booking, then charge — as a hold takes its resources
        # before the lapsed bookings on them, and an expiry saves a booking before its charges.
        found = await uow.payments.charge_by_txid(pix.txid) if pix.txid else None
        booking = charge = None
        period = await uow.series.period_of_charge(found.id) if found is not None else None
        if period is not None and found is not None:  # a series period's Pix (domain/series_pay.py)
            from domain.series_pay import apply_period_payment, locked_period

            period, bookings = await locked_period(uow, period.id)
            charge = await uow.payments.charge(found.id)
            if not await uow.payments.claim_pix(provider, pix.provider_payment_id):
                return Outcome.DUPLICATE
            payment_id = await uow.payments.record_payment(provider, pix, charge.unit_id, charge.id,
                                                           charge.booking_id, Outcome.ORPHAN.value)
            done = Outcome(await apply_period_payment(uow, now, period, bookings, charge, payment_id, pix))
            await uow.payments.set_outcome(payment_id, done.value)
            await uow.commit()
            return done
        if found is not None:
            seen = await uow.bookings.find(found.booking_id)
            await uow.bookings.lock_resources(seen.unit_id, [a.resource_id for a in seen.allocations])
            booking = await uow.bookings.get(found.booking_id)
            charge = await uow.payments.charge(found.id)
        if not await uow.payments.claim_pix(provider, pix.provider_payment_id):
            return Outcome.DUPLICATE
        if charge is None or booking is None:
            unit_id = await orphans.attribute(uow, provider, pix)
            log.warning("a Pix with unknown txid %r arrived; kept as an orphan payment (unit %s)", pix.txid, unit_id)
            await uow.commit()
            return Outcome.ORPHAN
        payment_id = await uow.payments.record_payment(provider, pix, charge.unit_id, charge.id, charge.booking_id,
                                                       Outcome.ORPHAN.value)
        outcome = await _apply(uow, now, booking, charge, payment_id, pix)
        await uow.commit()
    return outcome


async def _apply(uow: UnitOfWork, now: datetime, booking: Booking, charge: Charge, payment_id: UUID,
                 pix: ReceivedPix) -> Outcome:
    """The rules of SPEC §7 for one payment of one charge (the booking and charge rows are locked)."""
    charge.status = ChargeStatus.PAID
    await uow.payments.save_charge(charge, now)
    if pix.amount_cents < charge.amount_cents:
        outcome = await _refund_due(uow, now, booking, payment_id, pix, "amount below the charge")
    elif await _swap_partner_paid(uow, booking):
        # RN-HLD-07: both charges of a swap paid — the second becomes the customer's credit.
        await uow.payments.add_credit(booking.unit_id, booking.customer_id, payment_id, pix.amount_cents)
        outcome = Outcome.CREDITED
    elif booking.status in LOCKED and booking.hold_expires_at is not None and pix.paid_at <= booking.hold_expires_at:
        booking.settle(now, pix.amount_cents)
        await uow.bookings.save(booking)
        outcome = Outcome.CONFIRMED
    elif booking.status in (BookingStatus.CONFIRMED, BookingStatus.CHECKED_IN, BookingStatus.COMPLETED):
        await uow.payments.add_credit(booking.unit_id, booking.customer_id, payment_id, pix.amount_cents)
        outcome = Outcome.CREDITED
    else:
        outcome = await _late(uow, now, booking, payment_id, pix)
    await uow.payments.set_outcome(payment_id, outcome.value)
    if outcome in (Outcome.CONFIRMED, Outcome.LATE_CONFIRMED):
        await uow.queue.resolve_for_booking(booking.id, QueueItemType.CUSTOMER_SAYS_PAID, "system", now,
                                            "o PIX apareceu no banco")
        await uow.events.notify(booking.unit_id, PaymentReceived(
            booking_id=booking.id, charge_id=charge.id, payment_id=payment_id, amount_cents=pix.amount_cents,
            late=outcome is Outcome.LATE_CONFIRMED, at=now))
    return outcome


async def _swap_partner_paid(uow: UnitOfWork, booking: Booking) -> bool:
    for partner_id in (booking.swapped_from, booking.swapped_to):
        if partner_id is None:
            continue
        partner = await uow.bookings.find(partner_id)
        if partner.paid_cents > 0:
            return True
    return False


async def _late(uow: UnitOfWork, now: datetime, booking: Booking, payment_id: UUID, pix: ReceivedPix) -> Outcome:
    """Paid after the hold ended: confirm if the slot is still free, else flag for refund (SPEC §7)."""
    if booking.status in LOCKED:  # past its deadline, not yet expired by a job: expire it first
        await expire_booking(uow, booking, now)
    try:
        async with uow.savepoint():
            await uow.bookings.reoccupy(booking)
    except SlotTaken:
        return await _refund_due(uow, now, booking, payment_id, pix, "late payment, slot taken")
    booking.revive_by_late_payment(now, pix.amount_cents)
    await uow.bookings.save(booking)
    if booking.swapped_to is not None:
        newer = await uow.bookings.get(booking.swapped_to)
        if newer.status in LOCKED:  # RN-HLD-07: the original confirms, the newer hold goes with its charge
            newer.cancel(now, "system", "original hold paid late")
            await uow.bookings.save(newer)
    return Outcome.LATE_CONFIRMED


async def _refund_due(uow: UnitOfWork, now: datetime, booking: Booking, payment_id: UUID, pix: ReceivedPix,
                      why: str) -> Outcome:
    await uow.queue.open(booking.unit_id, QueueItemType.LATE_PIX_SLOT_TAKEN, now, booking.id, {
        "payment_id": str(payment_id), "amount_cents": pix.amount_cents, "reason": why})
    return Outcome.REFUND_DUE


async def staff_confirm_payment(deps: Deps, booking_id: UUID, actor: str) -> Outcome:
    """"Confirmar pagamento": only if the provider finds the Pix (a receipt never confirms anything)."""
    if deps.provider is None:
        raise PaymentNotFound("Pagamentos não estão configurados nesta instalação.")
    async with deps.uow() as uow:
        charges = await uow.payments.charges_of(booking_id)
        booking = await uow.bookings.find(booking_id)
    if not charges:
        raise PaymentNotFound("Esta reserva não tem cobrança PIX.")
    found: list[ReceivedPix] = []
    for c in charges:
        try:
            lookup = await deps.provider.lookup_charge(c.txid, c.provider_ref or c.txid)
        except ProviderUnavailable:
            raise PaymentNotFound("O banco não respondeu; tente de novo em instantes.") from None
        found.extend(lookup.payments)
    if not found:
        raise PaymentNotFound()
    outcomes = [await receive_payment(deps, deps.provider.name, pix) for pix in found]
    applied = [o for o in outcomes if o is not Outcome.DUPLICATE]
    log.info("staff %s confirmed payment of booking %s (%s): %s", actor, booking.id, booking.status, outcomes)
    return applied[0] if applied else outcomes[0]


async def link_payment(deps: Deps, booking_id: UUID, payment_id: UUID, actor: str) -> Outcome:
    """"Vincular pagamento": apply an orphan Pix (one that matched no charge) to this booking."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        seen = await uow.bookings.find(booking_id)
        payment = await orphans.payment_for(uow, payment_id, seen.unit_id)
        if payment["unit_id"] != seen.unit_id:  # another unit's money: as if it did not exist
            raise NotFound("payment", payment_id, field="paymentId")
        if payment["outcome"] != "orphan":
            raise InvalidInput("paymentId", "only an orphan payment can be linked", code=ErrorCode.PAYMENT_NOT_ORPHAN)
        await uow.bookings.lock_resources(seen.unit_id, [a.resource_id for a in seen.allocations])
        booking = await uow.bookings.get(booking_id)
        charges = await uow.payments.charges_of(booking_id)
        if not charges:
            raise NotFound("charge of booking", booking_id, field="bookingId")
        charge = await uow.payments.charge(charges[0].id)
        pix = ReceivedPix(payment["provider_payment_id"], charge.txid, payment["amount_cents"], payment["paid_at"])
        await uow.payments.set_outcome(payment_id, "orphan", charge.id, charge.booking_id)
        outcome = await _apply(uow, now, booking, charge, payment_id, pix)
        log.info("staff %s linked payment %s to booking %s: %s", actor, payment_id, booking_id, outcome)
        await uow.commit()
    return outcome


async def deny_claim(deps: Deps, booking_id: UUID, actor: str, reason: str | None = None) -> Booking:
    """"Negar alegação": the payment was not found; the hold expires and the slot is free (RN-HLD-06)."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        booking = await uow.bookings.get(booking_id)
        if booking.status is not BookingStatus.VERIFYING:
            raise InvalidTransition(booking.status.value, BookingStatus.EXPIRED.value, "deny the payment claim of")
        booking.expire(now, actor)
        await uow.bookings.save(booking)
        await uow.queue.resolve_for_booking(booking.id, QueueItemType.CUSTOMER_SAYS_PAID, actor, now,
                                            reason or "alegação negada")  # not expire_booking: staff decided
        await uow.commit()
    await released(deps, booking)
    return booking


async def verifying_charges(deps: Deps) -> list[Charge]:
    """Charges of bookings whose customer says they paid (the system keeps looking them up)."""
    async with deps.uow() as uow:
        return await uow.payments.verifying_charges()


async def poll_charge(deps: Deps, charge: Charge) -> list[Outcome]:
    """Look a charge up at the provider and apply any payment found."""
    assert deps.provider is not None
    lookup = await deps.provider.lookup_charge(charge.txid, charge.provider_ref or charge.txid)
    return [await receive_payment(deps, deps.provider.name, pix) for pix in lookup.payments]


async def look_up_before_expiry(deps: Deps, booking_ids: list[UUID]) -> list[Outcome]:
    """Before lapsed holds expire, ask the bank about their pending Pix charges: a payment made in time whose
    webhook never arrived confirms the booking instead of letting it expire and its money wait for staff (the
    `verifying` poll covers only customers who said "paguei"). A bank that does not answer lets the hold expire."""
    if deps.provider is None or not booking_ids:
        return []
    async with deps.uow() as uow:
        pending = [c for b in booking_ids for c in await uow.payments.charges_of(b)
                   if c.status is ChargeStatus.PENDING]
    found: list[Outcome] = []
    for charge in pending:
        try:
            found += await poll_charge(deps, charge)
        except ProviderUnavailable as e:
            log.warning("looking up charge %s before its hold expires failed: %s", charge.id, e)
    return found


async def cancel_at_provider(deps: Deps, charge_id: UUID) -> bool:
    """Tell the provider a charge is cancelled (the booking side already was); safe to repeat."""
    assert deps.provider is not None
    async with deps.uow() as uow:
        charge = await uow.payments.charge(charge_id)
    if charge.status is not ChargeStatus.CANCELLED or charge.provider_ref is None:
        return False
    await deps.provider.cancel_charge(charge.txid, charge.provider_ref)
    return True




async def record_webhook(deps: Deps, provider: str, authentic: bool, detail: str, payload: str) -> None:
    """Keep a webhook call (forged ones too: they change nothing else)."""
    async with deps.uow() as uow:
        await uow.payments.record_webhook(provider, authentic, detail, payload)
        await uow.commit()
