"""RN-HLD-05 through the use cases on real PostgreSQL, with the test's clock (SPEC §9)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta
from typing import Any
from uuid import uuid4

import asyncpg
import pytest

from domain import checkout, fraud, waitlist
from domain.bookings import BookingStatus
from domain.customers import CustomerIdentity
from domain.errors import CooldownActive, CustomerBlacklisted, HoldCeilingReached, HoldLimitReached, InvalidInput
from domain.services import (
    BookingResult,
    ChangeCommand,
    CounterCommand,
    Deps,
    HoldCommand,
    cancel,
    counter_booking,
    drop,
    expire_lapsed,
    hold,
)
from store.uow import PgUnitOfWork
from tests.venues import arena, at, cpf, customer


def phone_only(n: int) -> CustomerIdentity:
    return CustomerIdentity(phone=customer(n).phone)


def cpf_only(n: int) -> CustomerIdentity:
    return CustomerIdentity(cpf=customer(n).cpf)


async def hold_at(deps: Deps, v: Any, who: CustomerIdentity | None, day: int = 10, hour: int = 19,
                  field: str = "Campo 1", **kw: Any) -> BookingResult:
    return await hold(deps, HoldCommand(v.unit_id, at(day, hour), at(day, hour + 1), (v.resource_ids[field],),
                                        customer=who, **kw))


async def counter_at(deps: Deps, v: Any, who: CustomerIdentity | None, day: int = 10, hour: int = 19,
                     field: str = "Campo 1") -> BookingResult:
    return await counter_booking(deps, CounterCommand(v.unit_id, at(day, hour), at(day, hour + 1),
                                                      (v.resource_ids[field],), customer=who, channel="counter",
                                                      actor="staff"))


async def footprint(pool: asyncpg.Pool, v: Any) -> tuple[Any, ...]:
    """Everything a hold writes: bookings, audit events, outbox rows, idempotency keys, customer records."""
    async with pool.acquire() as conn:
        return (
            await conn.fetchval("SELECT count(*) FROM bookings WHERE unit_id = $1", v.unit_id),
            await conn.fetchval("SELECT count(*) FROM booking_events WHERE unit_id = $1", v.unit_id),
            await conn.fetchval("SELECT count(*) FROM outbox WHERE unit_id = $1", v.unit_id),
            await conn.fetchval("SELECT count(*) FROM idempotency_keys WHERE unit_id = $1", v.unit_id),
            [tuple(r) for r in await conn.fetch("SELECT id, cpf, phone, blacklisted FROM customers "
                                                "WHERE tenant_id = $1 ORDER BY id", v.tenant_id)],
        )


async def status_of(pool: asyncpg.Pool, booking_id: Any) -> str:
    async with pool.acquire() as conn:
        return str(await conn.fetchval("SELECT status FROM bookings WHERE id = $1", booking_id))


async def ceiling_alerts(pool: asyncpg.Pool, v: Any) -> list[Any]:
    async with pool.acquire() as conn:
        return list(await conn.fetch("SELECT payload, status FROM queue_items WHERE unit_id = $1 "
                                     "AND type = 'hold_ceiling' ORDER BY created_at", v.unit_id))


# --- one open hold per CPF and per phone --------------------------------------------------------------------


async def test_a_second_hold_is_refused_with_the_open_one_and_the_swap_and_nothing_is_written(
    deps: Deps, pool: asyncpg.Pool
) -> None:
    v = await arena(pool)
    first = await hold_at(deps, v, customer(1))
    before = await footprint(pool, v)
    other_phone = CustomerIdentity(cpf=customer(1).cpf, phone="+5511900000001")
    with pytest.raises(HoldLimitReached) as refused:
        await hold_at(deps, v, other_phone, day=11, hour=20, field="Campo 2", idempotency_key="second")
    assert refused.value.code == "open_hold_exists"
    assert refused.value.booking_id == first.booking.id and refused.value.swap_available
    assert "swapHold" in refused.value.message
    assert await footprint(pool, v) == before  # no booking, event, outbox row, key, nor the new phone
    # The swap offered is the way to that slot: the old hold is cancelled in the same step.
    moved = await checkout.swap(deps, checkout.SwapCommand(first.booking.id, HoldCommand(
        v.unit_id, at(11, 20), at(11, 21), (v.resource_ids["Campo 2"],), customer=other_phone)))
    assert moved.booking.status is BookingStatus.HELD
    assert await status_of(pool, first.booking.id) == "cancelled"
    with pytest.raises(HoldLimitReached) as again:
        await hold_at(deps, v, customer(1), day=12)
    assert again.value.booking_id == moved.booking.id


async def test_the_cpf_and_the_phone_each_carry_the_limit(deps: Deps, pool: asyncpg.Pool) -> None:
    v = await arena(pool)
    await hold_at(deps, v, phone_only(1))
    with pytest.raises(HoldLimitReached):  # a new CPF with that phone: the phone has its hold
        await hold_at(deps, v, CustomerIdentity(cpf=cpf(777), phone=customer(1).phone), field="Campo 2")
    await hold_at(deps, v, cpf_only(2), field="Campo 2")
    with pytest.raises(HoldLimitReached):  # a new phone with that CPF: the CPF has its hold
        await hold_at(deps, v, CustomerIdentity(cpf=customer(2).cpf, phone="+5511900000002"), field="Campo 3")
    await hold_at(deps, v, customer(3), field="Campo 3")  # someone else


async def test_a_records_stored_phone_links_its_cpf_to_holds_made_by_that_phone(
    deps: Deps, pool: asyncpg.Pool
) -> None:
    v = await arena(pool)
    await hold_at(deps, v, phone_only(1))  # a record with the phone alone...
    await counter_at(deps, v, customer(1), day=12)  # ...and, made at the counter, a record with CPF and phone
    with pytest.raises(HoldLimitReached):  # the CPF alone: its record knows the phone, which has a hold
        await hold_at(deps, v, cpf_only(1), field="Campo 2")


async def test_the_limit_is_a_unit_parameter(deps: Deps, pool: asyncpg.Pool) -> None:
    v = await arena(pool, open_holds_per_customer=2)
    await hold_at(deps, v, customer(1), field="Campo 1")
    await hold_at(deps, v, customer(1), field="Campo 2")
    with pytest.raises(HoldLimitReached):
        await hold_at(deps, v, customer(1), field="Campo 3")


async def test_a_lapsed_hold_is_not_open_and_counter_bookings_are_neither_limited_nor_counted(
    deps: Deps, pool: asyncpg.Pool, clock: Any
) -> None:
    v = await arena(pool)
    await hold_at(deps, v, customer(1))
    booked = await counter_at(deps, v, customer(1), field="Campo 2")  # the counter books for them anyway
    assert booked.booking.status is BookingStatus.CONFIRMED
    clock.advance(minutes=11)
    await hold_at(deps, v, customer(1), field="Campo 3")  # the first one lapsed: no job needed


def starting_together(pool: asyncpg.Pool, n: int) -> Callable[[], PgUnitOfWork]:
    """Units of work whose first statement (an idempotency key's claim) waits until `n` transactions are there:
    the holds then race from the same point instead of from however fast the pool hands out connections."""
    arrived: list[None] = []
    go = asyncio.Event()

    def uow() -> PgUnitOfWork:
        u = PgUnitOfWork(pool)
        claim = u.idempotency.claim

        async def claim_together(*args: Any) -> Any:
            await u._connection()  # in its transaction already: the pool's pace does not order them
            arrived.append(None)
            if len(arrived) >= n:
                go.set()
            await asyncio.wait_for(go.wait(), 10)
            return await claim(*args)

        u.idempotency.claim = claim_together  # type: ignore[method-assign]
        return u

    return uow


@pytest.mark.parametrize("mix", ["phone", "cpf", "cpf+phone", "mixed", "mixed"])
async def test_simultaneous_holds_of_one_customer_on_different_resources_let_exactly_one_through(
    deps: Deps, pool: asyncpg.Pool, mix: str
) -> None:
    v = await arena(pool, fields=8)
    n = 50
    await counter_at(deps, v, customer(n), day=20)  # a record that links the CPF and the phone
    # The same person, all at once on eight fields: by phone (the bot), CPF, both, or all of these.
    who = {"phone": [phone_only(n)] * 8, "cpf": [cpf_only(n)] * 8, "cpf+phone": [customer(n)] * 8,
           "mixed": [customer(n), phone_only(n), cpf_only(n), customer(n)] * 2}[mix]
    gated = replace(deps, uow=starting_together(pool, len(who)))
    results = await asyncio.gather(
        *(hold_at(gated, v, w, day=9, hour=10 + i, field=f"Campo {i + 1}", idempotency_key=f"k{i}")
          for i, w in enumerate(who)),
        return_exceptions=True)
    wins = [r for r in results if isinstance(r, BookingResult)]
    assert len(wins) == 1, results
    assert all(isinstance(r, HoldLimitReached) and r.booking_id == wins[0].booking.id
               for r in results if r is not wins[0])
    async with pool.acquire() as conn:
        open_holds = await conn.fetchval(
            "SELECT count(*) FROM bookings b JOIN customers c ON c.id = b.customer_id WHERE b.unit_id = $1 "
            "AND b.status = 'held' AND (c.cpf = $2 OR c.phone = $3)", v.unit_id, customer(n).cpf, customer(n).phone)
    assert open_holds == 1


# --- cooldown -----------------------------------------------------------------------------------------------


async def let_expire(deps: Deps, v: Any, who: CustomerIdentity, clock: Any, sweep: bool = True) -> BookingResult:
    """A hold the customer does not pay: 11 minutes later it has lapsed (and, with `sweep`, been marked)."""
    r = await hold_at(deps, v, who, day=28)
    clock.advance(minutes=11)
    if sweep:
        await expire_lapsed(deps)
    return r


async def test_two_expirations_leave_the_customer_free_and_the_third_starts_48_hours_at_the_counter_only(
    deps: Deps, pool: asyncpg.Pool, clock: Any
) -> None:
    v = await arena(pool)
    await let_expire(deps, v, customer(1), clock)
    await let_expire(deps, v, customer(1), clock)
    third = await let_expire(deps, v, customer(1), clock, sweep=False)  # lapsed, not yet marked: it counts
    assert third.booking.hold_expires_at is not None
    until = third.booking.hold_expires_at + timedelta(hours=48)
    before = await footprint(pool, v)
    with pytest.raises(CooldownActive) as refused:
        await hold_at(deps, v, customer(1), day=29, idempotency_key="in-cooldown")
    assert refused.value.code == "cooldown" and refused.value.until == until
    assert "only possible at the counter" in refused.value.message
    assert "só é possível reservar pelo balcão" in refused.value.message_pt
    assert await footprint(pool, v) == before
    booked = await counter_at(deps, v, customer(1), day=29)  # the counter can still book for them
    assert booked.booking.status is BookingStatus.CONFIRMED
    clock.set(until - timedelta(seconds=1))
    with pytest.raises(CooldownActive):
        await hold_at(deps, v, phone_only(1), day=30)  # the phone is in cooldown too
    clock.set(until)
    assert (await hold_at(deps, v, customer(1), day=30)).booking.status is BookingStatus.HELD


async def test_the_customers_own_cancel_counts_but_swaps_and_staff_drops_do_not(
    deps: Deps, pool: asyncpg.Pool
) -> None:
    v = await arena(pool)
    me = customer(1)
    current = (await hold_at(deps, v, me, hour=10)).booking
    for hour in (11, 12, 13):  # three swaps: each cancels the previous hold, none is an expiration
        current = (await checkout.swap(deps, checkout.SwapCommand(current.id, HoldCommand(
            v.unit_id, at(10, hour), at(10, hour + 1), (v.resource_ids["Campo 1"],), customer=me)))).booking
    await drop(deps, ChangeCommand(current.id, actor="staff", reason="ligou pedindo"))
    for hour in (15, 16):
        b = (await hold_at(deps, v, me, hour=hour)).booking
        await cancel(deps, ChangeCommand(b.id, actor="customer", reason="cancelar"))
    b = (await hold_at(deps, v, me, hour=17)).booking  # two own cancels so far: still free
    await cancel(deps, ChangeCommand(b.id, actor="customer", reason="cancelar"))
    with pytest.raises(CooldownActive):
        await hold_at(deps, v, me, hour=18)


async def test_expirations_further_apart_than_the_window_do_not_add_up(
    deps: Deps, pool: asyncpg.Pool, clock: Any
) -> None:
    v = await arena(pool)
    await let_expire(deps, v, customer(1), clock)
    clock.advance(days=4)
    await let_expire(deps, v, customer(1), clock)
    clock.advance(days=3)  # the first is now 7 days and some minutes before the third
    await let_expire(deps, v, customer(1), clock)
    assert (await hold_at(deps, v, customer(1), day=29)).booking.status is BookingStatus.HELD


async def test_a_customer_in_cooldown_cannot_join_waitlists(deps: Deps, pool: asyncpg.Pool, clock: Any) -> None:
    v = await arena(pool, pooled={"Aula": 2})
    for _ in range(3):
        await let_expire(deps, v, customer(1), clock)
    taken = await hold_at(deps, v, customer(2), day=20)
    with pytest.raises(CooldownActive):
        await waitlist.join_slot_waitlist(deps, v.unit_id, v.resource_ids["Campo 1"], at(20, 19), at(20, 20),
                                          customer(1))
    with pytest.raises(CooldownActive):
        await waitlist.join_capacity_waitlist(deps, v.unit_id, v.resource_ids["Aula"], at(20, 19), at(20, 20), 1,
                                              "user-1", customer(1))
    entry = await waitlist.join_slot_waitlist(deps, v.unit_id, v.resource_ids["Campo 1"], at(20, 19), at(20, 20),
                                              customer(3))
    assert entry["place"] == 1 and taken.booking.status is BookingStatus.HELD


# --- the unit's ceiling -------------------------------------------------------------------------------------


async def test_the_seeds_example_40_free_slots_refuse_new_holds_from_12_open_ones(
    deps: Deps, pool: asyncpg.Pool
) -> None:
    v = await arena(pool)  # 4 fields × 15 slots (08–23) on the 10th
    for field in ("Campo 1", "Campo 2"):
        for hour in range(8, 18):
            await counter_at(deps, v, None, hour=hour, field=field)  # 20 slots booked: 40 free
    for i in range(12):  # 11 open → a 12th is still allowed
        await hold_at(deps, v, customer(i), hour=8 + i, field="Campo 3")
    before = await footprint(pool, v)
    with pytest.raises(HoldCeilingReached) as refused:
        await hold_at(deps, v, customer(100), hour=20, field="Campo 3", idempotency_key="over")
    assert refused.value.code == "hold_ceiling" and "try again in a few minutes" in refused.value.message
    assert (refused.value.open_holds, refused.value.free_slots) == (12, 40)
    with pytest.raises(HoldCeilingReached):
        await hold_at(deps, v, customer(101), hour=21, field="Campo 4")
    after = await footprint(pool, v)
    assert after[:2] == before[:2] and after[3:] == before[3:]  # no booking, event, key or customer...
    assert after[2] == before[2] + 1  # ...only the alert's queue_changed row
    alerts = await ceiling_alerts(pool, v)
    assert len(alerts) == 1 and alerts[0]["status"] == "open"
    assert alerts[0]["payload"]["reason"] == "Teto de holds atingido"
    assert (alerts[0]["payload"]["day"], alerts[0]["payload"]["open_holds"]) == ("2026-12-10", 12)
    await counter_at(deps, v, None, hour=22, field="Campo 4")  # the counter is not limited
    await hold_at(deps, v, customer(102), day=11)  # other days are not either


async def test_a_hold_that_lapses_or_a_swap_never_pushes_past_the_ceiling(
    deps: Deps, pool: asyncpg.Pool, clock: Any
) -> None:
    v = await arena(pool, hold_ceiling_percent=10)  # 60 free slots on the 10th: 6 open holds at most
    first = await hold_at(deps, v, customer(0), hour=8)
    clock.advance(minutes=5)
    held = [(await hold_at(deps, v, customer(i), hour=8 + i)).booking for i in range(1, 6)]
    with pytest.raises(HoldCeilingReached):
        await hold_at(deps, v, customer(6), hour=8, field="Campo 2")
    # Swapping one of the six within the day does not add a hold: allowed.
    moved = await checkout.swap(deps, checkout.SwapCommand(held[0].id, HoldCommand(
        v.unit_id, at(10, 20), at(10, 21), (v.resource_ids["Campo 2"],), customer=customer(1))))
    assert moved.booking.status is BookingStatus.HELD
    clock.advance(minutes=6)  # the first hold lapsed: 5 open
    assert first.booking.hold_expires_at is not None and first.booking.hold_expires_at < clock.now()
    await hold_at(deps, v, customer(7), hour=8, field="Campo 2")
    with pytest.raises(HoldCeilingReached):
        await hold_at(deps, v, customer(8), hour=9, field="Campo 2")


async def test_the_alert_is_raised_once_per_unit_and_day_even_by_simultaneous_refusals(
    deps: Deps, pool: asyncpg.Pool, clock: Any
) -> None:
    v = await arena(pool, hold_ceiling_percent=10, owner_alert_whatsapp="+5511988887777")
    for i in range(6):
        await hold_at(deps, v, customer(i), hour=8 + i)
    refusals = await asyncio.gather(*(hold_at(deps, v, customer(10 + i), hour=8 + i, field="Campo 2")
                                      for i in range(8)), return_exceptions=True)
    assert all(isinstance(r, HoldCeilingReached) for r in refusals)
    assert len(await ceiling_alerts(pool, v)) == 1
    clock.advance(days=1)  # the next day, the ceiling of another day is reached: a new alert
    for i in range(6):
        await hold_at(deps, v, customer(20 + i), day=12, hour=8 + i)
    with pytest.raises(HoldCeilingReached):
        await hold_at(deps, v, customer(30), day=12, hour=8, field="Campo 2")
    alerts = await ceiling_alerts(pool, v)
    assert [a["payload"]["alert_day"] for a in alerts] == ["2026-12-07", "2026-12-08"]
    async with pool.acquire() as conn:
        texts = await conn.fetch("SELECT payload FROM outbox WHERE unit_id = $1 AND topic = 'notification' "
                                 "AND payload->>'kind' = 'owner_alert'", v.unit_id)
    assert len(texts) == 2 and all(t["payload"]["to"] == "+5511988887777" for t in texts)


async def _add(conn: asyncpg.Connection, v: Any, resource: Any, s: Any, e: Any, status: str | None,
               deadline: Any = None, quantity: int = 1, pooled: bool = False) -> None:
    during = asyncpg.Range(s, e)
    if status is None:  # a block
        block = uuid4()
        await conn.execute("INSERT INTO blocks (id, unit_id, resource_id, during) VALUES ($1, $2, $3, $4)",
                           block, v.unit_id, resource, during)
        await conn.execute("INSERT INTO allocations (unit_id, block_id, resource_id, during, quantity, pooled) "
                           "VALUES ($1, $2, $3, $4, 1, $5)", v.unit_id, block, resource, during, pooled)
        return
    booking = uuid4()
    await conn.execute("INSERT INTO bookings (id, unit_id, status, during, hold_expires_at, quantity) "
                       "VALUES ($1, $2, $3, $4, $5, $6)", booking, v.unit_id, status, during, deadline, quantity)
    await conn.execute("INSERT INTO allocations (unit_id, booking_id, resource_id, during, quantity, pooled, "
                       "hold_expires_at, status) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                       v.unit_id, booking, resource, during, quantity, pooled, deadline, status)


@pytest.mark.parametrize("seed", range(4))
async def test_the_cheap_bound_never_overstates_the_free_slots(
    deps: Deps, pool: asyncpg.Pool, clock: Any, seed: int
) -> None:
    """The bound that lets most holds skip the exact grid must never be above the exact count, or a hold
    that the rule refuses could get through."""
    rnd = random.Random(seed)
    v = await arena(pool, pooled={"Aula": 12})
    now = clock.now()
    day_start, day_end = fraud.day_range(await deps.uow().units.get(v.unit_id), at(10, 12).date())
    fields = [v.resource_ids[f"Campo {i}"] for i in range(1, 5)]
    open_holds = 0
    async with pool.acquire() as conn:
        for _ in range(30):
            # Some off the grid, some in closed hours, some running past midnight.
            s = at(10, rnd.randrange(6, 24), rnd.choice((0, 0, 15, 30)))
            e = s + timedelta(minutes=rnd.choice((30, 60, 120, 180)))
            kind = rnd.choice(("confirmed", "block", "held", "lapsed", "aula"))
            if kind == "aula":
                await _add(conn, v, v.resource_ids["Aula"], s.replace(minute=0), s.replace(minute=0) +
                           timedelta(hours=1), "confirmed", quantity=rnd.randint(1, 2), pooled=True)
                continue
            try:
                async with conn.transaction():
                    await _add(conn, v, rnd.choice(fields), s, e, None if kind == "block" else
                               "held" if kind in ("held", "lapsed") else kind,
                               deadline=(now + timedelta(minutes=5) if kind == "held" else
                                         now - timedelta(minutes=1) if kind == "lapsed" else None))
                    open_holds += kind == "held"
            except asyncpg.ExclusionViolationError:
                continue
    unit = await deps.uow().units.get(v.unit_id)
    capacity = await deps.uow().units.capacity_by_hours(v.unit_id)
    uow = PgUnitOfWork(pool)
    async with uow:
        locked = await uow.antifraud.lock_customer(v.tenant_id, customer(0), day=fraud.DayWindow(
            v.unit_id, day_start, day_start, day_end, timedelta(hours=1), now))
        found, taken = locked.open_holds, locked.taken_at_most
        occupancy = await uow.bookings.occupancy(v.unit_id, None, day_start, day_end)
        resources = await uow.antifraud.resources(v.unit_id)
    exact = fraud.free_units(unit, resources, occupancy, day_start, day_end, now)
    assert found == open_holds
    assert fraud.grid_units(unit, capacity, day_start, day_end) - taken <= exact


# --- blacklist ----------------------------------------------------------------------------------------------


async def test_a_blacklisted_customer_cannot_hold_until_taken_off_the_list(deps: Deps, pool: asyncpg.Pool) -> None:
    v = await arena(pool)
    records = await fraud.set_blacklisted(deps, v.unit_id, customer(1), True, "  chargeback  ", actor="staff:x")
    assert [(r["blacklisted"], r["blacklist_reason"], r["cpf"]) for r in records] == \
        [(True, "chargeback", customer(1).cpf)]
    before = await footprint(pool, v)
    with pytest.raises(CustomerBlacklisted) as refused:
        await hold_at(deps, v, customer(1))
    assert refused.value.code == "blacklisted"
    assert await footprint(pool, v) == before
    with pytest.raises(InvalidInput):  # waitlists refused them already
        await waitlist.join_slot_waitlist(deps, v.unit_id, v.resource_ids["Campo 1"], at(10, 19), at(10, 20),
                                          customer(1))
    assert (await counter_at(deps, v, customer(1), hour=8)).booking.status is BookingStatus.CONFIRMED
    await fraud.set_blacklisted(deps, v.unit_id, customer(1), False, "acordo feito")
    assert (await hold_at(deps, v, customer(1))).booking.status is BookingStatus.HELD


async def test_blacklisting_a_phone_covers_every_record_that_has_it(deps: Deps, pool: asyncpg.Pool) -> None:
    v = await arena(pool)
    await counter_at(deps, v, customer(1), hour=8)  # a record with CPF and phone
    await counter_at(deps, v, phone_only(1), hour=9)  # found by phone: the same record
    records = await fraud.set_blacklisted(deps, v.unit_id, phone_only(1), True, "golpe")
    assert len(records) == 1 and records[0]["cpf"] == customer(1).cpf
    with pytest.raises(CustomerBlacklisted):
        await hold_at(deps, v, cpf_only(1))
    with pytest.raises(CustomerBlacklisted):  # a new CPF with the blacklisted phone
        await hold_at(deps, v, CustomerIdentity(cpf=cpf(555), phone=customer(1).phone))
    with pytest.raises(CustomerBlacklisted):  # a waitlist under another record with that phone
        await waitlist.join_slot_waitlist(deps, v.unit_id, v.resource_ids["Campo 1"], at(10, 19), at(10, 20),
                                          CustomerIdentity(cpf=cpf(556), phone=customer(1).phone))
    unknown = await fraud.set_blacklisted(deps, v.unit_id, cpf_only(9), True, "aviso de outra unidade")
    assert len(unknown) == 1 and unknown[0]["blacklisted"]  # a customer never seen is recorded blacklisted
    with pytest.raises(CustomerBlacklisted):
        await hold_at(deps, v, customer(9))
