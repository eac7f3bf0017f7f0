"""Checkout: accepting the summary, the Pix charge, "paguei" and swapping the slot (SPEC §7, RN-HLD-03/06/07)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from uuid import UUID, uuid4

from domain.bookings import Booking, BookingStatus, booking_from_snapshot, booking_snapshot
from domain.errors import ErrorCode, InvalidInput, InvalidTransition, PaymentUnavailable
from domain.events import ChargeCancelRequested, OwnerAlerted
from domain.hold_types import Releaser
from domain.payments import Acceptance, Charge, ChargeStatus, ProviderUnavailable, charge_expiry, summary_pt
from domain.ports import UnitOfWork
from domain.pricing import price_of
from domain.services import (
    Deps,
    HoldCommand,
    check_key,
    check_release,
    claim,
    expire_booking,
    hold,
    released,
)
from domain.staff_queue import QueueItemType
from domain.units import Unit

log = logging.getLogger("slothold.checkout")
OWNER_PIX_ALERT = "Alerta: o banco está falhando ao gerar o PIX (3 falhas seguidas). Verifique a integração."


@dataclass(frozen=True)
class CheckoutResult:
    """A booking after checkout, with the charge to pay when one is due."""

    booking: Booking
    charge: Charge | None = None
    replayed: bool = False


@dataclass(frozen=True)
class ConfirmCommand:
    """The customer accepts the summary of a held booking."""

    booking_id: UUID
    actor: str = "customer"
    channel: str = "api"
    contact: str | None = None
    idempotency_key: str | None = None


def _charge_json(c: Charge) -> dict[str, object]:
    return {"id": str(c.id), "unit_id": str(c.unit_id), "booking_id": str(c.booking_id), "provider": c.provider,
            "txid": c.txid, "amount_cents": c.amount_cents, "expires_at": c.expires_at.isoformat(),
            "status": c.status.value, "brcode": c.brcode, "provider_ref": c.provider_ref}


def _charge_from_json(d: dict[str, object]) -> Charge:
    return Charge(id=UUID(str(d["id"])), unit_id=UUID(str(d["unit_id"])), booking_id=UUID(str(d["booking_id"])),
                  provider=str(d["provider"]), txid=str(d["txid"]), amount_cents=int(str(d["amount_cents"])),
                  expires_at=datetime.fromisoformat(str(d["expires_at"])), status=ChargeStatus(str(d["status"])),
                  brcode=_text(d.get("brcode")), provider_ref=_text(d.get("provider_ref")))


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _replay(stored: dict[str, object]) -> CheckoutResult:
    if "error" in stored:
        raise PaymentUnavailable()
    charge = stored.get("charge")
    return CheckoutResult(booking_from_snapshot(stored["booking"]),  # type: ignore[arg-type]
                          _charge_from_json(charge) if isinstance(charge, dict) else None, replayed=True)


async def _accept(uow: UnitOfWork, unit: Unit, booking: Booking, now: datetime, cmd: ConfirmCommand) -> int:
    """Record the acceptance (price and policy versions, payment rule); return the amount due now."""
    acceptance = await _terms(uow, unit, booking, now, cmd.channel, cmd.contact)
    booking.accept(acceptance.as_json(), acceptance.due_now_cents)
    return acceptance.due_now_cents


async def quote(deps: Deps, booking_id: UUID) -> Acceptance | None:
    """What accepting the hold now would record (RN-ATD-09: the summary shown before "1"); None unless it is held."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        booking = await uow.bookings.find(booking_id)
        if booking.status is not BookingStatus.HELD or booking.is_lapsed(now):
            return None
        unit = await uow.units.get(booking.unit_id)
        return await _terms(uow, unit, booking, now, booking.channel, None)  # a quote: the booking's own


async def _terms(uow: UnitOfWork, unit: Unit, booking: Booking, now: datetime, channel: str, contact: str | None
                 ) -> Acceptance:
    """The terms in force now for the booking: price version, payment rule, amounts, the policy and its summary."""
    policy = await uow.payments.current_policy(unit.id)
    if booking.service_id is not None:  # at the price version the hold was made at, its band's price and rule
        quantity = max(a.quantity for a in booking.allocations)
        priced = await price_of(uow, unit, booking.service_id, booking.starts_at, booking.ends_at, quantity,
                                booking.id)
        due_now, at_venue, total = priced.due_now_cents, priced.at_venue_cents, priced.total_cents
        price_version, rule = priced.version, priced.rule.value
    else:
        due_now = at_venue = total = 0
        price_version, rule = None, "full"
    held_as = unit.hold_types.find(booking.hold_type)
    if held_as is not None and not held_as.payment_required:  # e.g. RESERVED: nothing is charged by Pix
        due_now, at_venue = 0, total
    hours = (booking.ends_at - booking.starts_at).total_seconds() / 3600
    local = booking.starts_at.astimezone(unit.tz)
    found = await uow.units.resources_by_id(unit.id, [a.resource_id for a in booking.allocations])
    names = " + ".join(found[a.resource_id].name for a in booking.allocations if a.resource_id in found)
    return Acceptance(
        at=now, channel=channel, contact=contact, price_version=price_version, policy_version=policy.version,
        payment_rule=rule, total_cents=total, due_now_cents=due_now, at_venue_cents=at_venue,
        policy_summary=summary_pt(names, local, hours, total, due_now, policy.summary_pt()) if total else
        policy.summary_pt(),
    )


async def confirm(deps: Deps, cmd: ConfirmCommand) -> CheckoutResult:
    """The customer accepts: confirmed at once when nothing is due, else pending_payment with a Pix charge."""
    now = deps.clock.now()
    key = cmd.idempotency_key
    check_key(key)
    async with deps.uow() as uow:
        booking = await uow.bookings.get(cmd.booking_id)
        if key:
            stored = await claim(uow, booking.unit_id, key, "confirm", cmd, now)
            if stored is not None:
                return _replay(stored)
        if booking.is_lapsed(now):
            await expire_booking(uow, booking, now)
            await uow.commit()
            raise InvalidTransition(BookingStatus.EXPIRED.value, BookingStatus.CONFIRMED.value, "confirm")
        if booking.status is not BookingStatus.HELD:
            raise InvalidTransition(booking.status.value, BookingStatus.CONFIRMED.value, "confirm")
        unit = await uow.units.get(booking.unit_id)
        due_now = await _accept(uow, unit, booking, now, cmd)
        if due_now == 0:
            booking.confirm(now, cmd.actor)
            await uow.bookings.save(booking)
            if key:
                await uow.idempotency.complete(booking.unit_id, key, {"booking": booking_snapshot(booking)})
            await uow.commit()
            return CheckoutResult(booking)
        charge = await _open_charge(deps, uow, unit, booking, now, cmd.actor, due_now)
        await uow.commit()
    return await _create_at_provider(deps, unit, booking.id, charge, key)


async def _open_charge(deps: Deps, uow: UnitOfWork, unit: Unit, booking: Booking, now: datetime, actor: str,
                       amount_cents: int) -> Charge:
    if deps.provider is None:
        raise PaymentUnavailable("Pagamentos não estão configurados nesta instalação.")
    assert booking.hold_expires_at is not None
    expires = charge_expiry(booking.hold_expires_at, unit.params.charge_margin)
    if expires <= now + timedelta(seconds=30):
        raise InvalidInput("bookingId", "the hold ends too soon to pay by Pix; ask for the slot again",
                           code=ErrorCode.HOLD_TOO_SHORT)
    booking.await_payment(now, actor, deadline=booking.hold_expires_at)
    charge = Charge(id=uuid4(), unit_id=unit.id, booking_id=booking.id, provider=deps.provider.name,
                    txid=uuid4().hex, amount_cents=amount_cents, expires_at=expires, created_at=now)
    await uow.payments.add_charge(charge)
    await uow.bookings.save(booking)
    return charge


async def _create_at_provider(deps: Deps, unit: Unit, booking_id: UUID, charge: Charge,
                              key: str | None) -> CheckoutResult:
    """Ask the provider for the charge (outside any transaction), then record the outcome."""
    assert deps.provider is not None
    try:
        created = await deps.provider.create_charge(charge.txid, charge.amount_cents, charge.expires_at,
                                                    f"Reserva {str(booking_id)[:8]}")
    except ProviderUnavailable as e:
        log.warning("Pix charge creation failed for unit %s: %s", unit.id, e)
        await _charge_creation_failed(deps, unit, booking_id, charge, key)
        raise PaymentUnavailable() from None
    now = deps.clock.now()
    async with deps.uow() as uow:
        booking = await uow.bookings.get(booking_id)
        charge = await uow.payments.charge(charge.id)
        if charge.status is not ChargeStatus.CREATING:
            # The hold ended while the bank answered; the charge was cancelled with it: tell the bank too.
            await uow.events.notify(unit.id, ChargeCancelRequested(charge.id))
        else:
            charge.status, charge.brcode = ChargeStatus.PENDING, created.brcode
            charge.provider_ref = created.provider_ref
            await uow.payments.save_charge(charge, now)
        await uow.payments.charge_succeeded(unit.id)
        if key:
            await uow.idempotency.complete(unit.id, key, {"booking": booking_snapshot(booking),
                                                          "charge": _charge_json(charge)})
        await uow.commit()
    return CheckoutResult(booking, charge)


async def _charge_creation_failed(deps: Deps, unit: Unit, booking_id: UUID, charge: Charge, key: str | None) -> None:
    """RN-HLD-03: the hold is cancelled at once; the third failure in a row raises one alert."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        booking = await uow.bookings.get(booking_id)
        charge = await uow.payments.charge(charge.id)
        charge.status = ChargeStatus.FAILED
        await uow.payments.save_charge(charge, now)
        if booking.status in (BookingStatus.HELD, BookingStatus.PENDING_PAYMENT):
            booking.cancel(now, "system", "pix_failed")
            await uow.bookings.save(booking)
        today = now.astimezone(unit.tz).date()
        if await uow.payments.charge_failed(unit.id, today, unit.params.pix_failures_before_alert):
            await uow.queue.open(unit.id, QueueItemType.PIX_FAILING, now,
                                 payload={"reason": "Banco falhando ao gerar o PIX"})
            if unit.params.owner_alert_whatsapp:
                await uow.events.notify(unit.id, OwnerAlerted("whatsapp", unit.params.owner_alert_whatsapp,
                                                              OWNER_PIX_ALERT))
        if key:
            await uow.idempotency.complete(unit.id, key, {"error": {"code": PaymentUnavailable.code}})
        await uow.commit()
    await released(deps, booking)


async def claim_paid(deps: Deps, booking_id: UUID, actor: str = "customer") -> Booking:
    """"Paguei": the booking waits, frozen, while staff check; a critical queue item opens (RN-HLD-06)."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        booking = await uow.bookings.get(booking_id)
        if booking.status is not BookingStatus.PENDING_PAYMENT:
            raise InvalidTransition(booking.status.value, BookingStatus.VERIFYING.value, "claim payment for")
        unit = await uow.units.get(booking.unit_id)
        booking.claim_paid(now, actor, now + unit.params.verification_wait)
        await uow.bookings.save(booking)
        await uow.queue.open(booking.unit_id, QueueItemType.CUSTOMER_SAYS_PAID, now, booking.id,
                             {"until": booking.hold_expires_at.isoformat() if booking.hold_expires_at else None})
        await uow.commit()
    return booking


@dataclass(frozen=True)
class SwapCommand:
    """Move an open hold to another slot: the old one is freed and its charge cancelled in the same step."""

    booking_id: UUID
    hold: HoldCommand
    contact: str | None = None
    releaser: Releaser | frozenset[Releaser] | None = None
    """Who releases the old hold, for its type's releaseApi (None: as `hold.placed_by`)."""


async def swap(deps: Deps, cmd: SwapCommand) -> CheckoutResult:
    """RN-HLD-07: cancel the old charge, free the old slot, hold the new one and charge it, in one step."""
    now = deps.clock.now()
    state: dict[str, Booking] = {}

    async def release_old(uow: UnitOfWork, new: Booking) -> None:
        old = await uow.bookings.get(cmd.booking_id)
        if old.unit_id != new.unit_id:
            raise InvalidInput("bookingId", "a hold can only be swapped for a slot of the same unit",
                               code=ErrorCode.OTHER_UNIT)
        if old.status not in (BookingStatus.HELD, BookingStatus.PENDING_PAYMENT) or old.is_lapsed(now):
            current = "expired" if old.is_lapsed(now) else old.status.value
            raise InvalidTransition(current, BookingStatus.CANCELLED.value, "swap")
        await check_release(uow, old, cmd.releaser if cmd.releaser is not None else cmd.hold.placed_by)
        old.swapped_to = new.id
        old.cancel(now, cmd.hold.actor, "swapped")
        await uow.bookings.save(old)
        new.swapped_from = old.id
        state["old"] = old

    result = await hold(deps, cmd.hold, before_insert=release_old, replacing=cmd.booking_id)
    if result.replayed:  # a retried swap: answer with the new booking as it is now, and its charge
        async with deps.uow() as uow:
            new = await uow.bookings.find(result.booking.id)
            charges = await uow.payments.charges_of(new.id)
        return CheckoutResult(new, charges[0] if charges else None, replayed=True)
    new, old = result.booking, state["old"]
    await released(deps, old)
    if old.status is BookingStatus.CANCELLED and old.acceptance is not None and old.due_now_cents > 0:
        # The customer had accepted and was paying: the new slot gets its own charge at once.
        return await confirm(deps, ConfirmCommand(new.id, actor=cmd.hold.actor, channel=cmd.hold.channel,
                                                  contact=cmd.contact))
    return CheckoutResult(new)
