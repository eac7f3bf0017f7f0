"""Paying a series by period (issue 23): one Pix per calendar month of a series' occurrences.

At acceptance (`confirm_series`) every occurrence with an amount due awaits its period's Pix (pending_payment)
until its period's deadline, so the rest of the series is held for it and does not expire with the first hold;
the first period is charged at once. A later period is charged `series_charge_days_ahead` before it starts
(`charge_due_periods`, a cron) and its customer told; reminded `REMIND_BEFORE` its deadline
(`remind_periods`); released unpaid at its deadline (`release_lapsed_periods`: its occurrences expire in one
transaction, the slots are freed and published like any expiry). A period's Pix confirms all its occurrences in
one transaction; one that arrives late goes through SPEC §7 per occurrence (settlement's `_late`: rebooked if
its slot is free, else a refund for staff). Staff may record a period paid by hand (`record_period_payment`).

A period's charge is an ordinary charge tied to the first of its occurrences (its anchor), which the period
points to (`series_periods.charge_id`): the bank, the webhook, lookups and cancellations need nothing new.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from datetime import datetime
from uuid import UUID, uuid4

from domain.bookings import LOCKED, Booking, BookingStatus
from domain.errors import ErrorCode, InvalidInput, InvalidTransition
from domain.events import ChargeCancelRequested, HoldReminderDue, PaymentReceived
from domain.manual_payments import ManualMethod, ManualPayment, RecordManualPayment, _checked
from domain.payments import Charge, ChargeStatus, ProviderUnavailable, ReceivedPix, charge_expiry
from domain.ports import UnitOfWork
from domain.series import REMIND_BEFORE, Period
from domain.services import Deps, expire_booking, released
from domain.staff_queue import QueueItemType
from domain.units import Unit

log = logging.getLogger("slothold.series_pay")

OPEN, CHARGED, PAID, RELEASED = "open", "charged", "paid", "released"


def _awaiting(bookings: list[Booking], now: datetime) -> list[Booking]:
    """The occurrences a period's Pix pays for: an amount due, nothing paid, still waiting for it."""
    return [b for b in bookings if b.due_now_cents > 0 and b.paid_cents == 0
            and b.status in (BookingStatus.PENDING_PAYMENT, BookingStatus.VERIFYING) and not b.is_lapsed(now)]


async def open_period_charge(deps: Deps, uow: UnitOfWork, unit: Unit, period: Period, now: datetime,
                             reminded: bool = True) -> Charge | None:
    """Write the period's one charge (the sum of what its waiting occurrences owe), tied to the first of them;
    the period is `charged`. None when nothing of it waits for a Pix. The provider is asked after commit."""
    assert deps.provider is not None and period.deadline_at is not None
    due = _awaiting(await uow.series.period_bookings(period.id), now)
    if not due:
        return None
    charge = Charge(id=uuid4(), unit_id=unit.id, booking_id=due[0].id, provider=deps.provider.name,
                    txid=uuid4().hex, amount_cents=sum(b.due_now_cents for b in due),
                    expires_at=charge_expiry(period.deadline_at, unit.params.charge_margin), created_at=now)
    await uow.payments.add_charge(charge)
    # The first period's customer is reminded by the hold's own reminder (RN-HLD-08), not a period's.
    await uow.series.save_period(replace(period, status=CHARGED, charge_id=charge.id,
                                         reminded_at=period.reminded_at if reminded else now))
    return charge


async def charge_at_provider(deps: Deps, period_id: UUID, charge: Charge, notify: bool) -> Charge | None:
    """Ask the bank for a period's charge (outside any transaction), then record it; with `notify`, tell the
    customer (its copia-e-cola). A bank that fails leaves the period open: the charging cron tries again."""
    assert deps.provider is not None
    try:
        created = await deps.provider.create_charge(charge.txid, charge.amount_cents, charge.expires_at,
                                                    f"Série {str(period_id)[:8]}")
    except ProviderUnavailable as e:
        log.warning("Pix charge of series period %s failed: %s", period_id, e)
        created = None
    now = deps.clock.now()
    async with deps.uow() as uow:
        period = await uow.series.period(period_id, lock=True)
        current = await uow.payments.charge(charge.id)
        if created is None:
            current.status = ChargeStatus.FAILED
            await uow.payments.save_charge(current, now)
            if period.status == CHARGED and period.charge_id == charge.id:
                await uow.series.save_period(replace(period, status=OPEN, charge_id=None))
            await uow.commit()
            return None
        if current.status is not ChargeStatus.CREATING:  # released or paid by hand while the bank answered
            await uow.events.notify(current.unit_id, ChargeCancelRequested(current.id))
        else:
            current.status, current.brcode = ChargeStatus.PENDING, created.brcode
            current.provider_ref = created.provider_ref
            await uow.payments.save_charge(current, now)
            if notify:
                anchor = await uow.bookings.find(current.booking_id)
                await uow.events.notify(current.unit_id, HoldReminderDue(
                    anchor.id, anchor.customer_id, period.deadline_at, _notice(period, current, reminder=False)))
        await uow.payments.charge_succeeded(current.unit_id)
        await uow.commit()
    return current


def _notice(period: Period, charge: Charge, reminder: bool) -> str:
    """The customer's message of a period's Pix (the charge's copia-e-cola)."""
    month = period.starts_on.strftime("%m/%Y")
    value = f"R$ {charge.amount_cents // 100},{charge.amount_cents % 100:02d}"
    head = "Lembrete: o PIX" if reminder else "O PIX"
    return (f"{head} da sua série de {month} ({value}) vence em "
            f"{period.deadline_at:%d/%m %H:%M} UTC; sem ele, os horários do mês são liberados. "
            f"PIX copia e cola: {charge.brcode or ''}")


async def charge_due_periods(deps: Deps, limit: int = 50) -> int:
    """Charge every later period that is due (`series_charge_days_ahead` before it starts): one charge each,
    however often this runs (the period row is locked and rechecked)."""
    if deps.provider is None:
        return 0
    now = deps.clock.now()
    async with deps.uow() as uow:
        due = await uow.series.periods_due(now, limit)
    done = 0
    for period_id in due:
        async with deps.uow() as uow:
            period = await uow.series.period(period_id, lock=True)
            if period.status != OPEN or period.due_at > now:
                continue
            unit = await uow.units.get(period.unit_id or (await uow.series.get(period.series_id)).unit_id)
            charge = await open_period_charge(deps, uow, unit, period, now)
            await uow.commit()
        if charge is not None and await charge_at_provider(deps, period_id, charge, notify=True) is not None:
            done += 1
    return done


async def remind_periods(deps: Deps, limit: int = 100) -> int:
    """Remind, once, the customer of each charged period whose deadline is near (REMIND_BEFORE)."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        due = await uow.series.periods_to_remind(now, REMIND_BEFORE, limit)
    done = 0
    for period_id in due:
        async with deps.uow() as uow:
            period = await uow.series.period(period_id, lock=True)
            if period.status != CHARGED or period.reminded_at is not None or period.charge_id is None:
                continue
            charge = await uow.payments.charge(period.charge_id)
            if charge.status is not ChargeStatus.PENDING:  # a dead copia-e-cola: nothing to remind of
                continue
            anchor = await uow.bookings.find(charge.booking_id)
            await uow.series.save_period(replace(period, reminded_at=now))
            await uow.events.notify(charge.unit_id, HoldReminderDue(anchor.id, anchor.customer_id,
                                                                    period.deadline_at,
                                                                    _notice(period, charge, reminder=True)))
            await uow.commit()
            done += 1
    return done


async def release_lapsed_periods(deps: Deps, limit: int = 50) -> int:
    """Release each period past its deadline unpaid: its waiting occurrences expire together (one transaction,
    each audited; anti-fraud counts the series' expiry once), the slots are published free, the period is
    `released`; the rest of the series keeps going. The bank is asked first (a Pix whose webhook was lost)."""
    from domain.settlement import poll_charge

    now = deps.clock.now()
    async with deps.uow() as uow:
        lapsed = [await uow.series.period(p) for p in await uow.series.periods_lapsed(now, limit)]
        charges = [await uow.payments.charge(p.charge_id) for p in lapsed if p.charge_id is not None]
    for c in charges:
        if deps.provider is not None and c.status is ChargeStatus.PENDING:
            try:
                await poll_charge(deps, c)
            except ProviderUnavailable as e:
                log.warning("looking up charge %s before its period is released failed: %s", c.id, e)
    done = 0
    for p in lapsed:
        freed = await _release(deps, p.id, now)
        if freed is not None:
            done += 1
            for b in freed:
                await released(deps, b)
    return done


async def locked_period(uow: UnitOfWork, period_id: UUID) -> tuple[Period, list[Booking]]:
    """The period and its bookings, locked in the house's order: resources, bookings, the period."""
    seen = await uow.series.period_bookings(period_id)
    if seen:
        await uow.bookings.lock_resources(seen[0].unit_id, sorted({a.resource_id for b in seen
                                                                   for a in b.allocations}, key=str))
    bookings = await uow.series.period_bookings(period_id, lock=True)
    return await uow.series.period(period_id, lock=True), bookings


async def _release(deps: Deps, period_id: UUID, now: datetime) -> list[Booking] | None:
    async with deps.uow() as uow:
        period, bookings = await locked_period(uow, period_id)
        if period.status not in (OPEN, CHARGED) or period.deadline_at is None or period.deadline_at > now:
            return None
        freed = []
        for b in bookings:
            if b.status in LOCKED and b.due_now_cents > 0 and b.paid_cents == 0:
                await expire_booking(uow, b, now)  # its open charges go with it (store: cancelled + told)
                freed.append(b)
        await uow.series.save_period(replace(period, status=RELEASED))
        await uow.commit()
    log.info("series period %s released unpaid at its deadline (%d occurrences)", period_id, len(freed))
    return freed


async def apply_period_payment(uow: UnitOfWork, now: datetime, period: Period, bookings: list[Booking],
                               charge: Charge, payment_id: UUID, pix: ReceivedPix) -> str:
    """A Pix of a period's charge (the period, its bookings and the charge locked): in time, every occurrence it
    pays for is confirmed; late, each goes through SPEC §7's late-payment rule on its own share (rebooked if its
    slot is free, else a refund for staff). Returns settlement's Outcome value."""
    from domain.settlement import Outcome, _late, _refund_due

    charge.status = ChargeStatus.PAID
    await uow.payments.save_charge(charge, now)
    owed = [b for b in bookings if b.due_now_cents > 0 and b.paid_cents == 0
            and b.status in (*LOCKED, BookingStatus.EXPIRED)]
    if pix.amount_cents < charge.amount_cents or not owed:
        anchor = next((b for b in bookings if b.id == charge.booking_id), bookings[0])
        why = "amount below the charge" if owed else "period already settled"
        return (await _refund_due(uow, now, anchor, payment_id, pix, why)).value
    outcomes = []
    for b in owed:
        share = replace(pix, amount_cents=b.due_now_cents)
        if b.status in LOCKED and b.hold_expires_at is not None and pix.paid_at <= b.hold_expires_at:
            b.settle(now, share.amount_cents, reason="payment.paid (series period)")
            await uow.bookings.save(b)
            outcome = Outcome.CONFIRMED
        else:
            outcome = await _late(uow, now, b, payment_id, share)
        outcomes.append(outcome)
        if outcome is not Outcome.REFUND_DUE:
            await uow.queue.resolve_for_booking(b.id, QueueItemType.CUSTOMER_SAYS_PAID, "system", now,
                                                "o PIX apareceu no banco")
            await uow.events.notify(b.unit_id, PaymentReceived(
                booking_id=b.id, charge_id=charge.id, payment_id=payment_id, amount_cents=share.amount_cents,
                late=outcome is Outcome.LATE_CONFIRMED, at=now))
    rest = pix.amount_cents - sum(b.due_now_cents for b in owed)
    if rest > 0:  # paid more than the period: the customer's credit
        await uow.payments.add_credit(charge.unit_id, owed[0].customer_id, payment_id, rest)
    refused = Outcome.REFUND_DUE in outcomes
    # Paid when every occurrence it paid for is confirmed; a late Pix that some slots could not take: `released`
    # stays, with the money's arrival (the refunds wait for staff in the queue).
    await uow.series.save_period(replace(period, status=RELEASED if refused else PAID, paid_at=now, paid_by="pix"))
    if all(o is Outcome.CONFIRMED for o in outcomes):
        return Outcome.CONFIRMED.value
    if any(o is Outcome.LATE_CONFIRMED for o in outcomes):
        return Outcome.LATE_CONFIRMED.value
    return Outcome.REFUND_DUE.value


@dataclass(frozen=True)
class RecordPeriodPayment:
    """Staff record a series period paid outside Pix (managers and owners, like recordManualPayment)."""

    period_id: UUID
    method: ManualMethod
    reason: str
    actor: str
    session: str


async def record_period_payment(deps: Deps, cmd: RecordPeriodPayment, unit_id: UUID | None = None
                                ) -> tuple[Period, list[Booking]]:
    """Confirm every waiting occurrence of a period on a payment taken by hand, in one transaction: a manual
    payment per occurrence (its share; audited with method and reason), the period's open charge cancelled,
    the period `paid` by the actor. `unit_id`: the unit the caller may act on (another's period: not found)."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        period, bookings = await locked_period(uow, cmd.period_id)
        if unit_id is not None and period.unit_id != unit_id:
            from domain.errors import NotFound

            raise NotFound("series period", cmd.period_id, field="periodId")
        unit = await uow.units.get(period.unit_id or bookings[0].unit_id)
        if not unit.params.manual_payments_enabled:
            raise InvalidInput("periodId", "this venue does not take payments recorded by hand",
                               code=ErrorCode.MANUAL_PAYMENTS_OFF)
        owed = _awaiting(bookings, now)
        if period.status not in (OPEN, CHARGED) or not owed:
            raise InvalidTransition(period.status, PAID, "record a payment for")
        total = sum(b.due_now_cents for b in owed)
        reason = _checked(RecordManualPayment(owed[0].id, cmd.method, total, cmd.reason, cmd.actor, cmd.session))
        for b in owed:
            b.settle(now, b.due_now_cents, cmd.actor, f"manual payment ({cmd.method.value}) of the series period "
                     f"{period.starts_on:%Y-%m}: {reason}")
            await uow.bookings.save(b)
            await uow.manual_payments.add(ManualPayment(deps.new_id(), unit.id, b.id, cmd.method, b.due_now_cents,
                                                        reason, cmd.actor, cmd.session, now))
        if period.charge_id is not None:
            charge = await uow.payments.charge(period.charge_id)
            if charge.status in (ChargeStatus.CREATING, ChargeStatus.PENDING):
                charge.status = ChargeStatus.CANCELLED
                await uow.payments.save_charge(charge, now)
                await uow.events.notify(unit.id, ChargeCancelRequested(charge.id))
        period = replace(period, status=PAID, paid_at=now, paid_by=cmd.actor)
        await uow.series.save_period(period)
        await uow.commit()
    return period, owed



async def periods_with_charges(deps: Deps, series_id: UUID) -> list[tuple[Period, Charge | None]]:
    """A series' periods, oldest first, each with its current Pix charge (None before it is charged)."""
    async with deps.uow() as uow:
        found = await uow.series.periods(series_id)
        charges = await uow.series.period_charges(series_id)
    return [(p, charges.get(p.id)) for p in found]
