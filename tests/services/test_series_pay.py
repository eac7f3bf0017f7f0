"""Paying a series by period (issue 23) on real PostgreSQL with a controlled clock and the fake bank: the whole
cycle (first period charged and paid at acceptance, the next charged ahead, reminded, released unpaid while the
rest keeps going, a later one recorded by hand, a late Pix rebooking what is free and refunding the rest), jobs
run twice, and a Pix racing the release."""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import asyncpg
import pytest

from domain import series_pay, settlement
from domain.manual_payments import ManualMethod
from domain.services import Deps, HoldCommand, hold
from domain.services.series import (
    ConfirmSeriesCommand,
    SeriesCommand,
    cancel_series_from,
    confirm_series,
    hold_series,
    retime_series,
)
from domain.settlement import Outcome
from store.uow import PgUnitOfWork
from store.venues import ResourceSpec, VenueSpec, create_venue, every_day
from tests.services import test_payments
from tests.services.fake_bank import FakeBank
from tests.venues import customer

SP = ZoneInfo("America/Sao_Paulo")
FIRST = date(2026, 12, 8)  # a Tuesday: 4 in December, 4 in January, 4 in February


bank, pay_deps = test_payments.bank, test_payments.pay_deps  # the fake bank, and deps that use it (fixtures)


def local(d: date, hour: int = 0) -> datetime:
    return datetime.combine(d, time(hour), tzinfo=SP).astimezone(UTC)


async def season(deps: Deps, pool: asyncpg.Pool, n: int = 12, who: int = 1, **params: Any) -> tuple[Any, Any]:
    """R$ 200 an hour with a 50 % deposit (R$ 100 due by Pix per occurrence), Tuesdays at 19h, accepted."""
    v = await create_venue(pool, VenueSpec(
        unit_name=f"Arena série {asyncio.get_running_loop().time()}", hours=every_day(8, 23),
        resources=[ResourceSpec(name=f"Campo {i}", group="Campos") for i in (1, 2)],
        services=[{"name": "Campo 1h", "duration_minutes": 60, "price_cents": 20000,
                   "payment_rule": "deposit_percent", "deposit_percent": 50}],
        params={"max_advance_days": 200, **params}))
    out = await hold_series(deps, SeriesCommand(
        unit_id=v.unit_id, starts_at=local(FIRST, 19), ends_at=local(FIRST, 20),
        resource_ids=(v.resource_ids["Campo 1"],), customer=customer(who), occurrences=n, channel="web",
        service_id=v.service_ids["Campo 1h"]))
    await confirm_series(deps, ConfirmSeriesCommand(out.series.id, channel="web"))
    return v, out


async def periods(pool: asyncpg.Pool, series_id: Any) -> list[Any]:
    return await pool.fetch(
        "SELECT p.id, p.starts_on, p.status, p.due_at, p.deadline_at, p.charge_id, p.reminded_at, p.paid_by, "
        "c.txid, c.amount_cents AS charged, c.status AS charge_status, "
        "(SELECT array_agg(b.status ORDER BY b.series_index) FROM bookings b WHERE b.period_id = p.id) AS statuses "
        "FROM series_periods p LEFT JOIN charges c ON c.id = p.charge_id WHERE p.series_id = $1 ORDER BY p.starts_on",
        series_id)


async def charges(pool: asyncpg.Pool, unit_id: Any) -> int:
    return int(await pool.fetchval("SELECT count(*) FROM charges WHERE unit_id = $1", unit_id))


async def notices(pool: asyncpg.Pool, unit_id: Any) -> list[str]:
    rows = await pool.fetch("SELECT payload->>'text' AS t FROM outbox WHERE unit_id = $1 AND topic = 'notification' "
                            "AND payload->>'kind' = 'hold_reminder' ORDER BY id", unit_id)
    return [r["t"] for r in rows]


async def test_the_whole_cycle_of_paying_by_period(pay_deps: Deps, pool: asyncpg.Pool, bank: FakeBank,
                                                    clock: Any) -> None:
    v, out = await season(pay_deps, pool)
    dec, jan, feb = await periods(pool, out.series.id)
    # Acceptance: December (4 occurrences × R$ 100) in ONE Pix; the rest held for the series, not charged yet.
    assert (dec["status"], dec["charged"], dec["charge_status"]) == ("charged", 40000, "pending")
    assert dec["statuses"] == ["pending_payment"] * 4 and len(bank.charges) == 1
    assert jan["status"] == feb["status"] == "open" and jan["charge_id"] is None
    assert jan["statuses"] == feb["statuses"] == ["pending_payment"] * 4
    assert jan["due_at"] == local(date(2026, 12, 25)) and jan["deadline_at"] == local(date(2027, 1, 1))
    # Paying it confirms all of December in one go; January stays held past December's hold.
    pix = bank.pay(dec["txid"], clock.now())
    assert await settlement.receive_payment(pay_deps, "fake", pix) is Outcome.CONFIRMED
    assert await settlement.receive_payment(pay_deps, "fake", pix) is Outcome.DUPLICATE
    dec, jan, feb = await periods(pool, out.series.id)
    assert (dec["status"], dec["statuses"]) == ("paid", ["confirmed"] * 4)
    clock.advance(hours=2)
    await series_pay.charge_due_periods(pay_deps)
    await series_pay.release_lapsed_periods(pay_deps)
    assert (await periods(pool, out.series.id))[1]["statuses"] == ["pending_payment"] * 4
    assert await charges(pool, v.unit_id) == 1

    # January is charged 7 days before it starts (once, however often the job runs) and its customer told.
    clock.set(local(date(2026, 12, 25)) + timedelta(minutes=1))
    # two workers at once, then again: one charge
    await asyncio.gather(*(series_pay.charge_due_periods(pay_deps) for _ in range(2)))
    await series_pay.charge_due_periods(pay_deps)
    assert await charges(pool, v.unit_id) == 2
    _, jan, feb = await periods(pool, out.series.id)
    assert (jan["status"], jan["charged"], feb["status"]) == ("charged", 40000, "open")
    told = await notices(pool, v.unit_id)
    assert len(told) == 1 and "01/2027" in told[0] and "R$ 400,00" in told[0]
    # Reminded once, a day before its deadline.
    await series_pay.remind_periods(pay_deps)
    assert len(await notices(pool, v.unit_id)) == 1
    clock.set(local(date(2026, 12, 31)) + timedelta(minutes=1))
    await asyncio.gather(*(series_pay.remind_periods(pay_deps) for _ in range(2)))
    await series_pay.remind_periods(pay_deps)
    assert len(await notices(pool, v.unit_id)) == 2

    # Unpaid at its deadline: released (once), slots free; February keeps going.
    clock.set(local(date(2027, 1, 1)) + timedelta(minutes=1))
    await asyncio.gather(*(series_pay.release_lapsed_periods(pay_deps) for _ in range(2)))
    await series_pay.release_lapsed_periods(pay_deps)
    trail = await pool.fetch("SELECT e.new_status, e.actor FROM booking_events e JOIN bookings b "
                             "ON b.id = e.booking_id WHERE b.period_id = $1 AND e.new_status = 'expired'", jan["id"])
    assert [(r["new_status"], r["actor"]) for r in trail] == [("expired", "system")] * 4
    live = await pool.fetchval("SELECT count(*) FROM outbox o JOIN bookings b ON b.id::text = o.payload->>'booking_id' "
                               "WHERE o.topic = 'slot_changed' AND o.payload->>'status' = 'expired' "
                               "AND b.period_id = $1", jan["id"])
    assert live == 4  # each freed slot is published (slotChanged)
    async with PgUnitOfWork(pool) as uow:  # anti-fraud: four occurrences released, one expiration; no open hold
        standing = await uow.antifraud.standing(v.tenant_id, customer(1), clock.now(), clock.now() - timedelta(days=60),
                                                None)
    assert len(standing.expirations) == 1 and standing.open_holds == ()
    dec, jan, feb = await periods(pool, out.series.id)
    assert (jan["status"], jan["statuses"], jan["charge_status"]) == ("released", ["expired"] * 4, "cancelled")
    assert (dec["statuses"], feb["statuses"]) == (["confirmed"] * 4, ["pending_payment"] * 4)
    taken = await hold(pay_deps, HoldCommand(v.unit_id, local(date(2027, 1, 12), 19), local(date(2027, 1, 12), 20),
                                             (v.resource_ids["Campo 1"],), customer=customer(2)))

    # Staff record February paid by hand (before it is even charged): confirmed; never charged afterwards.
    paid, confirmed = await series_pay.record_period_payment(pay_deps, series_pay.RecordPeriodPayment(
        feb["id"], ManualMethod.CASH, "pagou o mês no balcão", "staff:gerente", "s1"))
    assert paid.status == "paid" and len(confirmed) == 4
    with pytest.raises(Exception) as twice:
        await series_pay.record_period_payment(pay_deps, series_pay.RecordPeriodPayment(
            feb["id"], ManualMethod.CASH, "de novo", "staff:gerente", "s1"))
    assert getattr(twice.value, "code", None) == "invalid_transition"
    clock.set(local(date(2027, 1, 25)) + timedelta(minutes=1))
    await series_pay.charge_due_periods(pay_deps)
    assert await charges(pool, v.unit_id) == 2
    feb = (await periods(pool, out.series.id))[2]
    assert (feb["status"], feb["statuses"], feb["paid_by"], feb["charge_id"]) == (
        "paid", ["confirmed"] * 4, "staff:gerente", None)
    assert await pool.fetchval("SELECT count(*) FROM manual_payments WHERE unit_id = $1", v.unit_id) == 4

    # A late Pix for January: each occurrence by §7 — rebooked where free, the taken one refunded by staff.
    late = bank.pay(jan["txid"], clock.now())
    assert await settlement.receive_payment(pay_deps, "fake", late) is Outcome.LATE_CONFIRMED
    jan = (await periods(pool, out.series.id))[1]
    assert jan["statuses"] == ["confirmed", "expired", "confirmed", "confirmed"]
    items = await pool.fetch("SELECT type, booking_id, payload->>'amount_cents' AS cents FROM queue_items "
                             "WHERE unit_id = $1", v.unit_id)
    expired_one = await pool.fetchval("SELECT id FROM bookings WHERE period_id = $1 AND status = 'expired'",
                                      jan["id"])
    assert [(i["type"], i["booking_id"], i["cents"]) for i in items] == [
        ("late_pix_slot_taken", expired_one, "10000")]
    assert await pool.fetchval("SELECT status FROM bookings WHERE id = $1", taken.booking.id) == "held"


async def test_a_pix_racing_the_release_confirms_every_occurrence(pay_deps: Deps, pool: asyncpg.Pool,
                                                                  bank: FakeBank, clock: Any) -> None:
    v, out = await season(pay_deps, pool, n=8)
    dec = (await periods(pool, out.series.id))[0]
    bank.pay(dec["txid"], clock.now())  # paid in time, but the webhook is lost...
    pix = bank.charges[dec["txid"]]["payments"][0]  # type: ignore[index]
    clock.set(dec["deadline_at"] + timedelta(seconds=1))  # ...and the deadline passes
    bank.charges[dec["txid"]]["payments"] = []  # the release's look-up does not find it either
    results = await asyncio.gather(series_pay.release_lapsed_periods(pay_deps),
                                   settlement.receive_payment(pay_deps, "fake", pix), return_exceptions=True)
    assert not any(isinstance(r, BaseException) for r in results), results
    dec = (await periods(pool, out.series.id))[0]
    # Paid within the hold (in time) or late with every slot still free: either way all four are confirmed.
    assert dec["statuses"] == ["confirmed"] * 4
    assert await pool.fetchval("SELECT count(*) FROM queue_items WHERE unit_id = $1", v.unit_id) == 0


async def test_moving_a_charged_period_charges_it_again(pay_deps: Deps, pool: asyncpg.Pool, bank: FakeBank,
                                                        clock: Any) -> None:
    _, out = await season(pay_deps, pool, n=8)
    dec = (await periods(pool, out.series.id))[0]
    assert await settlement.receive_payment(pay_deps, "fake", bank.pay(dec["txid"], clock.now())) is Outcome.CONFIRMED
    clock.set(local(date(2026, 12, 25)) + timedelta(minutes=1))
    await series_pay.charge_due_periods(pay_deps)
    old = (await periods(pool, out.series.id))[1]
    # Every future occurrence to 20:00: January's still await its Pix, and its period is charged anew.
    await retime_series(pay_deps, out.series.id, time(20), None, None, "staff", True)
    jan = (await periods(pool, out.series.id))[1]
    assert (jan["status"], jan["charge_id"]) == ("open", None)
    assert sorted(jan["statuses"]) == ["cancelled"] * 4 + ["pending_payment"] * 4  # the old ones: rescheduled
    await series_pay.charge_due_periods(pay_deps)
    jan = (await periods(pool, out.series.id))[1]
    assert jan["status"] == "charged" and jan["txid"] != old["txid"] and jan["charged"] == 40000
    pix = bank.pay(jan["txid"], clock.now())
    assert await settlement.receive_payment(pay_deps, "fake", pix) is Outcome.CONFIRMED
    moved = await pool.fetch("SELECT b.status, (SELECT lower(a.during) FROM allocations a WHERE a.booking_id = b.id "
                             "LIMIT 1) AS s FROM bookings b WHERE b.period_id = $1 AND b.rescheduled_to IS NULL "
                             "ORDER BY b.series_index", jan["id"])
    assert [r["status"] for r in moved] == ["confirmed"] * 4
    assert {r["s"].astimezone(SP).hour for r in moved} == {20}


async def test_cancelling_the_rest_of_a_series_cancels_its_periods(pay_deps: Deps, pool: asyncpg.Pool,
                                                                   bank: FakeBank, clock: Any) -> None:
    v, out = await season(pay_deps, pool, n=12)
    dec = (await periods(pool, out.series.id))[0]
    assert await settlement.receive_payment(pay_deps, "fake", bank.pay(dec["txid"], clock.now())) is Outcome.CONFIRMED
    clock.set(local(date(2026, 12, 25)) + timedelta(minutes=1))
    await series_pay.charge_due_periods(pay_deps)
    await cancel_series_from(pay_deps, out.series.id, local(date(2027, 1, 1)), "customer")
    _, jan, feb = await periods(pool, out.series.id)
    assert (jan["status"], jan["charge_status"], feb["status"]) == ("cancelled", "cancelled", "cancelled")
    clock.set(local(date(2026, 12, 31)) + timedelta(minutes=1))
    await series_pay.remind_periods(pay_deps)
    clock.set(local(date(2027, 1, 25)) + timedelta(minutes=1))
    await series_pay.charge_due_periods(pay_deps)
    await series_pay.release_lapsed_periods(pay_deps)
    assert len(await notices(pool, v.unit_id)) == 1 and await charges(pool, v.unit_id) == 2  # told once, no more
    assert [p["status"] for p in await periods(pool, out.series.id)] == ["paid", "cancelled", "cancelled"]


async def test_the_unit_chooses_how_far_ahead_a_period_is_charged(pay_deps: Deps, pool: asyncpg.Pool) -> None:
    _, out = await season(pay_deps, pool, n=8, series_charge_days_ahead=3)
    jan = (await periods(pool, out.series.id))[1]
    assert (jan["due_at"], jan["deadline_at"]) == (local(date(2026, 12, 29)), local(date(2027, 1, 1)))


async def test_the_owner_sets_series_charge_days_ahead_within_its_range(deps: Deps, pool: asyncpg.Pool) -> None:
    from domain import unit_settings
    from domain.errors import InvalidInput
    from store import units as unit_cache

    v = await create_venue(pool, VenueSpec(unit_name=f"Arena dias {asyncio.get_running_loop().time()}",
                                           hours=every_day(8, 23), resources=[ResourceSpec(name="Campo 1")]))
    assert await unit_settings.change_parameters(deps, v.unit_id, {"seriesChargeDaysAhead": 10}, "owner:s")
    unit_cache.invalidate(v.unit_id)
    async with PgUnitOfWork(pool) as uow:
        assert (await uow.units.get(v.unit_id)).params.series_charge_days_ahead == 10
    with pytest.raises(InvalidInput) as refused:
        await unit_settings.change_parameters(deps, v.unit_id, {"seriesChargeDaysAhead": 0}, "owner:s")
    assert refused.value.field == "seriesChargeDaysAhead"


async def test_cancelling_one_paid_occurrence_refunds_its_own_share_of_the_period_pix(
        pay_deps: Deps, pool: asyncpg.Pool, bank: FakeBank, clock: Any) -> None:
    """December's four occurrences are paid by ONE Pix of R$ 400 (stored against the first): cancelling the first
    alone refunds its R$ 100, not the whole Pix, and cancelling another refunds its R$ 100 too, from the same Pix
    (found by the series UI: "devolve R$ 450,00 dos R$ 150,00 pagos", and "nada a devolver" for the others)."""
    from domain import refunds
    from domain.services import ChangeCommand, cancel

    v, out = await season(pay_deps, pool)
    dec = (await periods(pool, out.series.id))[0]
    pix = bank.pay(dec["txid"], clock.now())
    assert await settlement.receive_payment(pay_deps, "fake", pix) is Outcome.CONFIRMED
    first, second = [r["id"] for r in await pool.fetch(
        "SELECT id FROM bookings WHERE period_id = $1 ORDER BY series_index LIMIT 2", dec["id"])]
    assert await refunds.refund_if_cancelled_now(pay_deps, first) == 10000
    assert await refunds.refund_if_cancelled_now(pay_deps, second) == 10000
    await cancel(pay_deps, ChangeCommand(second, actor="customer"))
    await cancel(pay_deps, ChangeCommand(first, actor="customer"))
    got = await pool.fetch("SELECT booking_id, paid_cents, amount_cents FROM refunds WHERE unit_id = $1 "
                           "ORDER BY created_at, booking_id", v.unit_id)
    assert sorted((r["booking_id"], r["paid_cents"], r["amount_cents"]) for r in got) == sorted(
        [(first, 10000, 10000), (second, 10000, 10000)])


async def test_cancelling_the_occurrence_a_period_pix_hangs_on_charges_the_rest_again(
        pay_deps: Deps, pool: asyncpg.Pool, bank: FakeBank, clock: Any) -> None:
    """December's Pix hangs on its first occurrence; cancelling that one alone (before paying) cancelled the Pix and
    nothing charged the other three, which would then be released unpaid. Now the period is open again and the
    charging cron asks a Pix for the three left."""
    from domain.services import ChangeCommand, cancel

    _, out = await season(pay_deps, pool)
    dec = (await periods(pool, out.series.id))[0]
    first = await pool.fetchval("SELECT id FROM bookings WHERE period_id = $1 ORDER BY series_index LIMIT 1",
                                dec["id"])
    await cancel(pay_deps, ChangeCommand(first, actor="customer"))
    dec = (await periods(pool, out.series.id))[0]
    assert (dec["status"], dec["charge_id"]) == ("open", None)
    await series_pay.charge_due_periods(pay_deps)
    dec = (await periods(pool, out.series.id))[0]
    assert (dec["status"], dec["charged"], dec["charge_status"]) == ("charged", 30000, "pending")
    pix = bank.pay(dec["txid"], clock.now())
    assert await settlement.receive_payment(pay_deps, "fake", pix) is Outcome.CONFIRMED
    assert (await periods(pool, out.series.id))[0]["statuses"] == ["cancelled"] + ["confirmed"] * 3
