"""Reschedule (SPEC §11) and counter bookings over holds, on real PostgreSQL with a controlled clock."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest

from domain import checkout, lifecycle, settlement, waitlist
from domain.bookings import BookingStatus
from domain.errors import IdempotencyKeyReused, InvalidInput, InvalidTransition, SlotHeld, SlotTaken
from domain.lifecycle import RescheduleCommand
from domain.services import ChangeCommand, CounterCommand, Deps, HoldCommand, check_in, counter_booking, hold
from domain.settlement import Outcome
from tests.services.fake_bank import FakeBank
from tests.services.test_payments import held, paid_arena
from tests.venues import arena, at, customer

S = BookingStatus


@pytest.fixture
def bank() -> FakeBank:
    return FakeBank()


@pytest.fixture
def pay_deps(deps: Deps, bank: FakeBank) -> Deps:
    return replace(deps, provider=bank)


async def counter(deps: Deps, unit: Any, resource: Any, day: int, hour: int, n: int = 1) -> Any:
    r = await counter_booking(deps, CounterCommand(unit, at(day, hour), at(day, hour + 1), (resource,),
                                                   customer=customer(n), channel="counter", actor="staff"))
    return r.booking


def move(booking: Any, day: int, hour: int, resource: Any = None, **kw: Any) -> RescheduleCommand:
    return RescheduleCommand(booking.id, at(day, hour), at(day, hour + 1),
                             (resource,) if resource is not None else None, **kw)


async def row(pool: Any, booking_id: Any) -> Any:
    return await pool.fetchrow("SELECT status, rescheduled_from, rescheduled_to, swapped_from, swapped_to, paid_cents, "
                               "due_now_cents, acceptance FROM bookings WHERE id = $1", booking_id)


async def events(pool: Any, booking_id: Any) -> list[tuple[Any, ...]]:
    rows = await pool.fetch("SELECT old_status, new_status, reason, actor FROM booking_events WHERE booking_id = $1 "
                            "ORDER BY id", booking_id)
    return [tuple(r) for r in rows]


async def footprint(pool: Any, unit: Any) -> tuple[Any, ...]:
    return tuple(await pool.fetchrow(
        "SELECT (SELECT count(*) FROM bookings WHERE unit_id = $1), (SELECT count(*) FROM booking_events WHERE "
        "unit_id = $1), (SELECT count(*) FROM outbox WHERE unit_id = $1), (SELECT count(*) FROM allocations WHERE "
        "unit_id = $1 AND occupies), (SELECT count(*) FROM charges WHERE unit_id = $1 AND status = 'paid')", unit))


async def test_a_paid_confirmed_booking_moves_with_its_acceptance_and_payments(
    pay_deps: Deps, pool: Any, bank: FakeBank, clock: Any
) -> None:
    v = await paid_arena(pool)
    b = await held(pay_deps, v)
    r = await checkout.confirm(pay_deps, checkout.ConfirmCommand(b.id, channel="whatsapp", contact="+5511999990001"))
    assert r.charge is not None
    pix = bank.pay(r.charge.txid, clock.now() + timedelta(minutes=1))
    assert await settlement.receive_payment(pay_deps, "fake", pix) is Outcome.CONFIRMED
    before = await row(pool, b.id)
    assert (before["status"], before["paid_cents"]) == ("confirmed", 10000)

    moved = await lifecycle.reschedule(pay_deps, move(b, 12, 21, v.resource_ids["Campo 2"]))
    new = moved.booking
    assert new.status is S.CONFIRMED and new.rescheduled_from == b.id and not moved.replayed
    assert (new.starts_at, new.allocations[0].resource_id) == (at(12, 21), v.resource_ids["Campo 2"])
    assert new.paid_cents == 10000 and new.acceptance == before["acceptance"]
    old, fresh = await row(pool, b.id), await row(pool, new.id)
    assert (old["status"], old["rescheduled_to"], old["paid_cents"]) == ("cancelled", new.id, 0)
    assert old["acceptance"] == before["acceptance"]  # what was accepted stays on record
    assert (fresh["status"], fresh["rescheduled_from"], fresh["paid_cents"], fresh["due_now_cents"]) == (
        "confirmed", b.id, 10000, 10000)
    assert fresh["acceptance"] == before["acceptance"] and fresh["acceptance"]["channel"] == "whatsapp"
    # The payment records go with the money.
    assert await pool.fetchval("SELECT booking_id FROM charges WHERE id = $1", r.charge.id) == new.id
    assert await pool.fetchval("SELECT booking_id FROM payments WHERE txid = $1", r.charge.txid) == new.id
    # Audit: the old one cancelled (rescheduled), the new one born confirmed, pointing back.
    assert (await events(pool, b.id))[-1] == ("confirmed", "cancelled", "rescheduled", "customer")
    assert await events(pool, new.id) == [(None, "confirmed", f"rescheduled from {b.id}", "customer")]
    # Realtime: both slots change in the outbox.
    changes = await pool.fetch("SELECT payload->>'booking_id' AS b, payload->>'state' AS s FROM outbox WHERE unit_id = "
                               "$1 AND topic = 'slot_changed' ORDER BY id DESC LIMIT 2", v.unit_id)
    assert {(c["b"], c["s"]) for c in changes} == {(str(b.id), "free"), (str(new.id), "booked")}
    # What was accepted and paid was for one hour: a customer cannot make it two; staff can.
    with pytest.raises(InvalidInput) as longer:
        await lifecycle.reschedule(pay_deps, RescheduleCommand(new.id, at(13, 19), at(13, 21)))
    assert longer.value.code == "accepted_size_changed"
    # The old slot is free at once.
    again = await held(pay_deps, v, n=2)
    assert again.status is S.HELD
    # A second Pix of the moved charge meets the booking with the money: credit, never the old slot back.
    twice = bank.pay(r.charge.txid, clock.now() + timedelta(minutes=2))
    assert await settlement.receive_payment(pay_deps, "fake", twice) is Outcome.CREDITED
    assert (await row(pool, b.id))["status"] == "cancelled"


async def test_an_open_hold_moves_like_a_swap(pay_deps: Deps, pool: Any, bank: FakeBank, clock: Any) -> None:
    v = await paid_arena(pool)
    b = await held(pay_deps, v)
    r = await checkout.confirm(pay_deps, checkout.ConfirmCommand(b.id))
    assert r.charge is not None and r.booking.status is S.PENDING_PAYMENT
    clock.advance(minutes=1)
    # Self-service, with the customer counted by RN-HLD-05: the hold being replaced is not a second open hold.
    moved = await lifecycle.reschedule(pay_deps, move(b, 12, 20, customer=customer(1)))
    new = moved.booking
    assert new.status is S.PENDING_PAYMENT and moved.charge is not None and moved.charge.txid != r.charge.txid
    assert new.hold_expires_at == clock.now() + timedelta(minutes=15)
    old = await row(pool, b.id)
    assert (old["status"], old["rescheduled_to"], old["swapped_to"]) == ("cancelled", new.id, new.id)
    fresh = await row(pool, new.id)
    assert (fresh["rescheduled_from"], fresh["swapped_from"]) == (b.id, b.id)
    assert await pool.fetchval("SELECT status FROM charges WHERE id = $1", r.charge.id) == "cancelled"
    assert (await events(pool, b.id))[-1] == ("pending_payment", "cancelled", "rescheduled", "customer")
    assert [e[1] for e in await events(pool, new.id)] == ["held", "pending_payment"]


async def test_rescheduling_a_hold_is_never_counted_as_an_expiration_or_a_second_hold(
    deps: Deps, pool: Any, clock: Any
) -> None:
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    b = (await hold(deps, HoldCommand(v.unit_id, at(12, 10), at(12, 11), (c1,), customer=customer(7)))).booking
    for hour in (11, 12, 13, 14):  # 3 customer cancels of holds would mean a cooldown: these are not cancels
        r = await lifecycle.reschedule(deps, move(b, 12, hour, customer=customer(7)))
        assert r.booking.status is S.HELD and r.booking.rescheduled_from == b.id
        b = r.booking
    with pytest.raises(Exception) as refused:  # still one open hold: a second one is refused as always
        await hold(deps, HoldCommand(v.unit_id, at(13, 10), at(13, 11), (c1,), customer=customer(7)))
    assert getattr(refused.value, "code", None) == "open_hold_exists"


async def test_a_taken_slot_changes_nothing_and_offers_alternatives(deps: Deps, pool: Any) -> None:
    v = await arena(pool)
    c1, c2 = v.resource_ids["Campo 1"], v.resource_ids["Campo 2"]
    mine = await counter(deps, v.unit_id, c1, 12, 19, n=1)
    await counter(deps, v.unit_id, c2, 12, 20, n=2)
    before = await footprint(pool, v.unit_id)
    with pytest.raises(SlotTaken) as taken:
        await lifecycle.reschedule(deps, move(mine, 12, 20, c2))
    assert taken.value.code == "slot_taken" and len(taken.value.alternatives) == 3
    assert taken.value.resource_ids == [c2]
    assert await footprint(pool, v.unit_id) == before
    assert (await row(pool, mine.id))["status"] == "confirmed" and (await row(pool, mine.id))["rescheduled_to"] is None


async def test_past_started_or_settled_bookings_are_refused(deps: Deps, pool: Any, clock: Any) -> None:
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    today = await counter(deps, v.unit_id, c1, 7, 10)
    clock.advance(hours=1, minutes=30)  # 10:30: it has started
    with pytest.raises(InvalidTransition, match="already started"):
        await lifecycle.reschedule(deps, move(today, 12, 10, staff=True, actor="staff"))
    later = await counter(deps, v.unit_id, c1, 7, 12)
    await check_in(deps, ChangeCommand(later.id, actor="staff"))  # inside its window (2 h before the start)
    with pytest.raises(InvalidTransition) as refused:
        await lifecycle.reschedule(deps, move(later, 12, 10))
    assert refused.value.current_state == "checked_in"
    with pytest.raises(InvalidInput) as same:
        await lifecycle.reschedule(deps, move(await counter(deps, v.unit_id, c1, 9, 10), 9, 10))
    assert same.value.code == "same_slot"
    # Verifying ("paguei") is frozen while staff check (RN-HLD-06).
    v_id = (await hold(deps, HoldCommand(v.unit_id, at(12, 16), at(12, 17), (c1,), customer=customer(4)))).booking
    await pool.execute("UPDATE bookings SET status = 'verifying' WHERE id = $1", v_id.id)
    with pytest.raises(InvalidTransition) as verifying:
        await lifecycle.reschedule(deps, move(v_id, 12, 18))
    assert verifying.value.current_state == "verifying"
    # A lapsed hold is over: it expires, and is not moved.
    h = (await hold(deps, HoldCommand(v.unit_id, at(12, 10), at(12, 11), (c1,), customer=customer(3)))).booking
    clock.advance(minutes=11)
    with pytest.raises(InvalidTransition) as lapsed:
        await lifecycle.reschedule(deps, move(h, 12, 12))
    assert lapsed.value.current_state == "expired" and (await row(pool, h.id))["status"] == "expired"


async def test_the_freed_slot_is_offered_to_its_waitlist(deps: Deps, pool: Any) -> None:
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    b = await counter(deps, v.unit_id, c1, 8, 21, n=1)
    entry = await waitlist.join_slot_waitlist(deps, v.unit_id, c1, at(8, 21), at(8, 22), customer(5))
    assert entry["status"] == "waiting"
    r = await lifecycle.reschedule(deps, move(b, 8, 19, staff=True, actor="staff"))
    assert r.booking.status is S.CONFIRMED
    got = await pool.fetchrow("SELECT status, offer_booking_id FROM slot_waitlist WHERE id = $1", entry["id"])
    assert got["status"] == "offered"
    offer = await row(pool, got["offer_booking_id"])
    assert offer["status"] == "held"


async def test_an_idempotency_key_replays_the_reschedule(deps: Deps, pool: Any) -> None:
    v = await arena(pool)
    b = await counter(deps, v.unit_id, v.resource_ids["Campo 1"], 12, 19)
    first = await lifecycle.reschedule(deps, move(b, 12, 20, idempotency_key="move-1"))
    again = await lifecycle.reschedule(deps, move(b, 12, 20, idempotency_key="move-1"))
    assert again.replayed and again.booking.id == first.booking.id and again.booking.status is S.CONFIRMED
    assert await pool.fetchval("SELECT count(*) FROM bookings WHERE rescheduled_from = $1", b.id) == 1
    with pytest.raises(IdempotencyKeyReused):
        await lifecycle.reschedule(deps, move(b, 12, 21, idempotency_key="move-1"))


async def test_two_reschedules_to_one_free_slot_have_exactly_one_winner(deps: Deps, pool: Any) -> None:
    v = await arena(pool)
    ids = [v.resource_ids[f"Campo {i}"] for i in (1, 2, 3, 4)]
    for rnd in range(5):
        a = await counter(deps, v.unit_id, ids[0], 10 + rnd, 10, n=1)
        b = await counter(deps, v.unit_id, ids[1], 10 + rnd, 10, n=2)
        results = await asyncio.gather(
            lifecycle.reschedule(deps, move(a, 10 + rnd, 12, ids[2])),
            lifecycle.reschedule(deps, move(b, 10 + rnd, 12, ids[2])), return_exceptions=True)
        won = [r for r in results if isinstance(r, lifecycle.CheckoutResult)]
        lost = [r for r in results if isinstance(r, SlotTaken)]
        assert len(won) == 1 and len(lost) == 1, results
        loser = b if won[0].booking.rescheduled_from == a.id else a
        assert (await row(pool, loser.id))["status"] == "confirmed"
    # One booking moved twice at once, to two slots: one move, the other finds it cancelled.
    c = await counter(deps, v.unit_id, ids[3], 20, 10, n=3)
    results = await asyncio.gather(lifecycle.reschedule(deps, move(c, 20, 12)),
                                   lifecycle.reschedule(deps, move(c, 20, 14)), return_exceptions=True)
    assert sorted(type(r).__name__ for r in results) == ["CheckoutResult", "InvalidTransition"], results
    assert await pool.fetchval("SELECT count(*) FROM bookings WHERE rescheduled_from = $1", c.id) == 1


async def test_a_counter_booking_over_a_hold_is_refused_with_the_hold_to_drop(
    deps: Deps, pool: Any, clock: Any
) -> None:
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    h = (await hold(deps, HoldCommand(v.unit_id, at(12, 19), at(12, 20), (c1,), customer=customer(1)))).booking
    with pytest.raises(SlotHeld) as refused:
        await counter(deps, v.unit_id, c1, 12, 19, n=2)
    assert refused.value.code == "slot_held" and refused.value.booking_id == h.id
    assert "drop the hold first" in refused.value.message and refused.value.alternatives
    # Verifying ("paguei") is refused the same way.
    async with pool.acquire() as conn:  # as if the customer had said they paid (RN-HLD-06)
        await conn.execute("UPDATE bookings SET status = 'verifying' WHERE id = $1", h.id)
        await conn.execute("UPDATE allocations SET status = 'verifying' WHERE booking_id = $1", h.id)
    with pytest.raises(SlotHeld, match="verification"):
        await counter(deps, v.unit_id, c1, 12, 19, n=2)
    # A booked slot stays slot_taken.
    await counter(deps, v.unit_id, c1, 12, 21, n=3)
    with pytest.raises(SlotTaken) as booked:
        await counter(deps, v.unit_id, c1, 12, 21, n=2)
    assert booked.value.code == "slot_taken" and not isinstance(booked.value, SlotHeld)


async def test_a_booking_may_move_onto_part_of_its_own_slot_and_pooled_places_follow(deps: Deps, pool: Any) -> None:
    v = await arena(pool, pooled={"Aula": 12})
    c1, aula = v.resource_ids["Campo 1"], v.resource_ids["Aula"]
    two = await counter_booking(deps, CounterCommand(v.unit_id, at(12, 19), at(12, 21), (c1,), customer=customer(1),
                                       channel="counter", actor="staff"))
    later = await lifecycle.reschedule(deps, RescheduleCommand(two.booking.id, at(12, 20), at(12, 22)))
    assert [(a.starts_at, a.ends_at) for a in later.booking.allocations] == [(at(12, 20), at(12, 22))]
    places = await counter_booking(deps, CounterCommand(v.unit_id, at(12, 10), at(12, 11), (aula,), quantity=10,
                                          customer=customer(2), channel="counter", actor="staff"))
    moved = await lifecycle.reschedule(deps, RescheduleCommand(places.booking.id, at(12, 11), at(12, 12),
                                                               quantity=12))
    used = dict(await pool.fetch("SELECT slot_start, used FROM pool_usage WHERE resource_id = $1", aula))
    assert (used.get(at(12, 10)), used.get(at(12, 11))) == (0, 12) and moved.booking.allocations[0].quantity == 12
    await counter_booking(deps, CounterCommand(v.unit_id, at(12, 10), at(12, 11), (aula,), quantity=12,
                                               customer=customer(3), channel="counter", actor="staff"))  # places free
    with pytest.raises(SlotTaken):  # 10h is full again: moving back is refused
        await lifecycle.reschedule(deps, RescheduleCommand(moved.booking.id, at(12, 10), at(12, 11), quantity=1))
