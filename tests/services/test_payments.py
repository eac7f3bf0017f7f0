"""Payments on real PostgreSQL with a controlled clock and an in-memory bank (SPEC §7, RN-HLD-03/06/07)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest

from domain import checkout, settlement
from domain.bookings import BookingStatus
from domain.errors import InvalidTransition, PaymentNotFound, PaymentUnavailable
from domain.pix import parse
from domain.services import ChangeCommand, Deps, HoldCommand, cancel, expire_hold, hold
from domain.settlement import Outcome
from store.venues import ResourceSpec, VenueSpec, create_venue, every_day
from tests.services.fake_bank import FakeBank
from tests.venues import at, customer


@pytest.fixture
def bank() -> FakeBank:
    return FakeBank()


@pytest.fixture
def pay_deps(deps: Deps, bank: FakeBank) -> Deps:
    return replace(deps, provider=bank)


async def paid_arena(pool: Any, **params: Any) -> Any:
    """Four fields; R$ 200 an hour with a 50 % deposit (RN-ATD-09's example)."""
    return await create_venue(pool, VenueSpec(
        unit_name=f"Arena pix {id(params)} {asyncio.get_running_loop().time()}", hours=every_day(8, 23),
        resources=[ResourceSpec(name=f"Campo {i}", group="Campos") for i in range(1, 5)],
        services=[{"name": "Campo 1h", "duration_minutes": 60, "price_cents": 20000,
                   "payment_rule": "deposit_percent", "deposit_percent": 50}],
        params=params))


async def held(deps: Deps, v: Any, field: str = "Campo 1", hour: int = 19, n: int = 1) -> Any:
    r = await hold(deps, HoldCommand(v.unit_id, at(12, hour), at(12, hour + 1), (v.resource_ids[field],),
                                     customer=customer(n), service_id=v.service_ids["Campo 1h"]))
    return r.booking


async def status_of(pool: Any, booking_id: Any) -> str:
    async with pool.acquire() as conn:
        return str(await conn.fetchval("SELECT status FROM bookings WHERE id = $1", booking_id))


async def test_confirm_records_the_acceptance_and_returns_a_pix_charge(pay_deps: Deps, pool: Any, clock: Any) -> None:
    v = await paid_arena(pool)
    b = await held(pay_deps, v)
    assert b.hold_expires_at == clock.now() + timedelta(minutes=15)  # a payment is due: 15 minutes
    r = await checkout.confirm(pay_deps, checkout.ConfirmCommand(b.id, channel="whatsapp", contact="+5511999990001"))
    assert r.booking.status is BookingStatus.PENDING_PAYMENT
    assert r.charge is not None and r.charge.amount_cents == 10000
    assert r.charge.expires_at == b.hold_expires_at - timedelta(minutes=2)
    fields = parse(r.charge.brcode or "")
    assert fields["54"] == "100.00"
    acc = r.booking.acceptance
    assert acc is not None
    assert (acc["channel"], acc["contact"], acc["price_version"], acc["policy_version"], acc["payment_rule"]) == (
        "whatsapp", "+5511999990001", 1, 1, "deposit_percent")
    assert (acc["total_cents"], acc["due_now_cents"], acc["at_venue_cents"]) == (20000, 10000, 10000)
    assert acc["policy_summary"].endswith("com menos de 6 h: sem devolução.")
    # A new price published during the hold does not touch what was accepted.
    async with pool.acquire() as conn:
        await conn.execute("INSERT INTO service_prices (unit_id, service_id, version, price_cents, payment_rule) "
                           "VALUES ($1, $2, 2, 99900, 'full')", v.unit_id, v.service_ids["Campo 1h"])
        await conn.execute("UPDATE services SET price_version = 2 WHERE id = $1", v.service_ids["Campo 1h"])
        stored = await conn.fetchval("SELECT acceptance FROM bookings WHERE id = $1", b.id)
    assert stored["total_cents"] == 20000


async def test_a_payment_in_time_confirms_once_and_duplicates_change_nothing(
    pay_deps: Deps, pool: Any, bank: FakeBank, clock: Any
) -> None:
    v = await paid_arena(pool)
    b = await held(pay_deps, v)
    r = await checkout.confirm(pay_deps, checkout.ConfirmCommand(b.id))
    assert r.charge is not None
    pix = bank.pay(r.charge.txid, clock.now() + timedelta(minutes=3))
    clock.advance(minutes=3)
    outcomes = await asyncio.gather(*(settlement.receive_payment(pay_deps, "fake", pix) for _ in range(10)))
    assert sorted(outcomes) == sorted([Outcome.CONFIRMED] + [Outcome.DUPLICATE] * 9)
    assert await status_of(pool, b.id) == "confirmed"
    async with pool.acquire() as conn:
        events = await conn.fetch("SELECT payload->>'event' AS e FROM outbox WHERE unit_id = $1 AND topic = 'payment'",
                                  v.unit_id)
        paid = await conn.fetchval("SELECT paid_cents FROM bookings WHERE id = $1", b.id)
    assert [e["e"] for e in events] == ["payment.paid"] and paid == 10000


async def test_a_bank_failure_cancels_the_hold_and_the_third_in_a_row_alerts_once_a_day(
    pay_deps: Deps, pool: Any, bank: FakeBank, clock: Any
) -> None:
    v = await paid_arena(pool, owner_alert_whatsapp="+5511988887777")
    bank.failing = True

    async def attempt(n: int) -> None:
        b = await held(pay_deps, v, f"Campo {1 + n % 4}", 10 + n // 4, n)
        with pytest.raises(PaymentUnavailable):
            await checkout.confirm(pay_deps, checkout.ConfirmCommand(b.id))
        assert await status_of(pool, b.id) == "cancelled"  # the slot is free at once

    async def alerts() -> tuple[int, int]:
        async with pool.acquire() as conn:
            q = await conn.fetchval("SELECT count(*) FROM queue_items WHERE unit_id = $1 AND type = 'pix_failing'",
                                    v.unit_id)
            w = await conn.fetchval("SELECT count(*) FROM outbox WHERE unit_id = $1 AND payload->>'kind' = "
                                    "'owner_alert'", v.unit_id)
        return int(q), int(w)

    for n in range(2):
        await attempt(n)
    assert await alerts() == (0, 0)
    await attempt(2)
    assert await alerts() == (1, 1)
    await attempt(3)
    assert await alerts() == (1, 1)  # once per streak
    bank.failing = False
    ok = await held(pay_deps, v, "Campo 1", 20, 20)
    assert (await checkout.confirm(pay_deps, checkout.ConfirmCommand(ok.id))).charge is not None  # resets
    bank.failing = True
    for n in range(4, 7):
        await attempt(n)
    assert await alerts() == (1, 1)  # a new streak, but at most one alert per unit per day
    clock.advance(days=1)
    for n in range(8, 11):
        await attempt(n)
    assert await alerts() == (2, 2)


async def test_a_late_payment_confirms_when_the_slot_is_free_and_is_flagged_when_taken(
    pay_deps: Deps, pool: Any, bank: FakeBank, clock: Any
) -> None:
    v = await paid_arena(pool)
    free = await held(pay_deps, v, "Campo 1", 19, 1)
    taken = await held(pay_deps, v, "Campo 2", 19, 2)
    c_free = (await checkout.confirm(pay_deps, checkout.ConfirmCommand(free.id))).charge
    c_taken = (await checkout.confirm(pay_deps, checkout.ConfirmCommand(taken.id))).charge
    assert c_free and c_taken
    clock.advance(minutes=16)
    await expire_hold(pay_deps, free.id)
    await expire_hold(pay_deps, taken.id)
    other = await held(pay_deps, v, "Campo 2", 19, 3)  # someone else takes Campo 2 at 19h
    late_free = bank.pay(c_free.txid, clock.now())
    late_taken = bank.pay(c_taken.txid, clock.now())
    assert await settlement.receive_payment(pay_deps, "fake", late_free) is Outcome.LATE_CONFIRMED
    assert await settlement.receive_payment(pay_deps, "fake", late_taken) is Outcome.REFUND_DUE
    assert await status_of(pool, free.id) == "confirmed"
    assert await status_of(pool, taken.id) == "expired"
    assert await status_of(pool, other.id) == "held"
    async with pool.acquire() as conn:
        items = await conn.fetch("SELECT type, priority, booking_id FROM queue_items WHERE unit_id = $1", v.unit_id)
        occupying = await conn.fetchval("SELECT occupies FROM allocations WHERE booking_id = $1", free.id)
    assert [(i["type"], i["priority"], i["booking_id"]) for i in items] == [("late_pix_slot_taken", "high", taken.id)]
    assert occupying is True


async def test_a_webhook_racing_the_expiry_job_never_has_both_outcomes(
    pay_deps: Deps, pool: Any, bank: FakeBank, clock: Any
) -> None:
    v = await paid_arena(pool)
    for round_ in range(6):
        b = await held(pay_deps, v, f"Campo {1 + round_ % 4}", 9 + round_, round_)
        c = (await checkout.confirm(pay_deps, checkout.ConfirmCommand(b.id))).charge
        assert c is not None
        pix = bank.pay(c.txid, b.hold_expires_at - timedelta(seconds=30))  # paid in time, arriving late
        clock.set(b.hold_expires_at + timedelta(seconds=1))
        outcome, _ = await asyncio.gather(settlement.receive_payment(pay_deps, "fake", pix),
                                          expire_hold(pay_deps, b.id))
        assert outcome in (Outcome.CONFIRMED, Outcome.LATE_CONFIRMED)
        assert await status_of(pool, b.id) == "confirmed"
        async with pool.acquire() as conn:
            outcomes = await conn.fetch("SELECT outcome FROM payments WHERE booking_id = $1", b.id)
        assert [o["outcome"] for o in outcomes] == [outcome.value]
        clock.set(at(7, 12))


async def test_paguei_freezes_the_slot_and_the_system_confirms_when_the_pix_shows(
    pay_deps: Deps, pool: Any, bank: FakeBank, clock: Any
) -> None:
    v = await paid_arena(pool)
    b = await held(pay_deps, v)
    c = (await checkout.confirm(pay_deps, checkout.ConfirmCommand(b.id))).charge
    assert c is not None
    clock.advance(minutes=5)
    verifying = await checkout.claim_paid(pay_deps, b.id)
    assert verifying.status is BookingStatus.VERIFYING
    assert verifying.hold_expires_at == clock.now() + timedelta(minutes=30)
    with pytest.raises(InvalidTransition):
        await cancel(pay_deps, ChangeCommand(b.id))
    with pytest.raises(PaymentNotFound):
        await settlement.staff_confirm_payment(pay_deps, b.id, "operator")
    assert await settlement.poll_charge(pay_deps, c) == []
    bank.pay(c.txid, clock.now())
    # (of this booking: other tests' claims in the same database are being looked up too)
    (charge,) = [ch for ch in await settlement.verifying_charges(pay_deps) if ch.booking_id == b.id]
    assert await settlement.poll_charge(pay_deps, charge) == [Outcome.CONFIRMED]
    assert await status_of(pool, b.id) == "confirmed"
    async with pool.acquire() as conn:
        item = await conn.fetchrow("SELECT type, priority, status, resolved_by FROM queue_items WHERE booking_id = $1",
                                   b.id)
    assert dict(item) == {"type": "customer_says_paid", "priority": "critical", "status": "resolved",
                          "resolved_by": "system"}


async def test_staff_deny_a_claim_and_link_an_orphan_payment(
    pay_deps: Deps, pool: Any, bank: FakeBank, clock: Any
) -> None:
    v = await paid_arena(pool)
    denied = await held(pay_deps, v, "Campo 1", 19, 1)
    await checkout.confirm(pay_deps, checkout.ConfirmCommand(denied.id))
    await checkout.claim_paid(pay_deps, denied.id)
    await settlement.deny_claim(pay_deps, denied.id, "operator", "comprovante de outro dia")
    assert await status_of(pool, denied.id) == "expired"
    linked = await held(pay_deps, v, "Campo 2", 19, 2)
    c = (await checkout.confirm(pay_deps, checkout.ConfirmCommand(linked.id))).charge
    assert c is not None
    await checkout.claim_paid(pay_deps, linked.id)
    orphan = bank.pay(c.txid, clock.now())
    orphan = replace(orphan, txid=None)  # the Pix came without our txid (paid by hand to the key)
    assert await settlement.receive_payment(pay_deps, "fake", orphan) is Outcome.ORPHAN
    async with pool.acquire() as conn:
        # the unit's orphan, or (when another test's claim of the same amount is open in this database, so the
        # Pix cannot be told for one unit) an unattributed one, which linking makes this unit's
        pid = await conn.fetchval("SELECT id FROM payments WHERE provider_payment_id = $1 UNION ALL "
                                  "SELECT id FROM unattributed_payments WHERE provider_payment_id = $1",
                                  orphan.provider_payment_id)
    assert await settlement.link_payment(pay_deps, linked.id, pid, "manager") is Outcome.CONFIRMED
    assert await status_of(pool, linked.id) == "confirmed"


async def test_a_swap_frees_the_old_slot_and_double_payment_becomes_credit(
    pay_deps: Deps, pool: Any, bank: FakeBank, clock: Any
) -> None:
    v = await paid_arena(pool)
    old = await held(pay_deps, v, "Campo 1", 19, 1)
    old_charge = (await checkout.confirm(pay_deps, checkout.ConfirmCommand(old.id))).charge
    assert old_charge is not None
    clock.advance(minutes=5)
    new_hold = HoldCommand(v.unit_id, at(12, 20), at(12, 21), (v.resource_ids["Campo 2"],), customer=customer(1),
                           service_id=v.service_ids["Campo 1h"])
    swapped = await checkout.swap(pay_deps, checkout.SwapCommand(old.id, new_hold))
    assert swapped.booking.status is BookingStatus.PENDING_PAYMENT and swapped.charge is not None
    assert swapped.booking.hold_expires_at == clock.now() + timedelta(minutes=15)
    assert await status_of(pool, old.id) == "cancelled"
    async with pool.acquire() as conn:
        assert await conn.fetchval("SELECT status FROM charges WHERE id = $1", old_charge.id) == "cancelled"
    # The customer pays the old code anyway; 19h on Campo 1 is still free: the original confirms, the new goes.
    assert await settlement.receive_payment(pay_deps, "fake", bank.pay(old_charge.txid, clock.now())) is \
        Outcome.LATE_CONFIRMED
    assert await status_of(pool, old.id) == "confirmed"
    assert await status_of(pool, swapped.booking.id) == "cancelled"
    # And then the new code too: that money becomes the customer's credit.
    assert await settlement.receive_payment(pay_deps, "fake", bank.pay(swapped.charge.txid, clock.now())) is \
        Outcome.CREDITED
    async with pool.acquire() as conn:
        assert await conn.fetchval("SELECT amount_cents FROM customer_credits WHERE unit_id = $1", v.unit_id) == 10000


async def test_no_swap_while_verifying(pay_deps: Deps, pool: Any) -> None:
    v = await paid_arena(pool)
    b = await held(pay_deps, v)
    await checkout.confirm(pay_deps, checkout.ConfirmCommand(b.id))
    await checkout.claim_paid(pay_deps, b.id)
    other = HoldCommand(v.unit_id, at(12, 20), at(12, 21), (v.resource_ids["Campo 2"],), customer=customer(1),
                        service_id=v.service_ids["Campo 1h"])
    with pytest.raises(InvalidTransition) as e:
        await checkout.swap(pay_deps, checkout.SwapCommand(b.id, other))
    assert e.value.current_state == "verifying"
    async with pool.acquire() as conn:  # the new hold was rolled back with the refused swap
        assert await conn.fetchval("SELECT count(*) FROM bookings WHERE unit_id = $1", v.unit_id) == 1


async def test_an_unresolved_claim_expires_by_itself_and_closes_its_queue_item(
    pay_deps: Deps, pool: Any, clock: Any
) -> None:
    v = await paid_arena(pool)
    b = await held(pay_deps, v)
    await checkout.confirm(pay_deps, checkout.ConfirmCommand(b.id))
    await checkout.claim_paid(pay_deps, b.id)
    clock.advance(minutes=29)
    assert not await expire_hold(pay_deps, b.id)
    clock.advance(minutes=1)
    assert await expire_hold(pay_deps, b.id)
    assert await status_of(pool, b.id) == "expired"
    async with pool.acquire() as conn:
        item = await conn.fetchrow("SELECT status, resolved_by FROM queue_items WHERE booking_id = $1", b.id)
    assert dict(item) == {"status": "resolved", "resolved_by": "system"}


async def test_a_pix_paid_in_time_whose_webhook_was_lost_confirms_at_the_deadline_instead_of_expiring(
    pay_deps: Deps, pool: Any, bank: FakeBank, clock: Any
) -> None:
    from jobs import tasks

    v = await paid_arena(pool)
    b = await held(pay_deps, v)
    c = (await checkout.confirm(pay_deps, checkout.ConfirmCommand(b.id))).charge
    assert c is not None
    clock.advance(minutes=3)
    bank.pay(c.txid, clock.now())  # the customer paid; the bank's webhook never reached us (no "paguei" either)
    clock.advance(minutes=13)  # past the hold's deadline: its deadline job runs
    assert not await tasks.expire_hold({"deps": pay_deps}, str(b.id))
    assert await status_of(pool, b.id) == "confirmed"
    other = await held(pay_deps, v, "Campo 2")  # a hold nobody paid still expires
    await checkout.confirm(pay_deps, checkout.ConfirmCommand(other.id))
    clock.advance(minutes=16)
    assert await tasks.expire_hold({"deps": pay_deps}, str(other.id))
    assert await status_of(pool, other.id) == "expired"
