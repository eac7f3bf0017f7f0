"""Job use cases with a controlled clock: reminders, completion, pruning, and the outbox contract."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from domain import checkout
from domain.errors import SlotTaken
from domain.services import (
    ChangeCommand,
    Deps,
    HoldCommand,
    check_in,
    complete_past,
    expire_hold,
    hold,
    remind_hold,
)
from store.outbox import prune, sequence_pending
from tests.venues import arena, at, customer


async def test_the_hold_reminder_goes_out_once_before_the_deadline(deps: Deps, pool: Any, clock: Any) -> None:
    v = await arena(pool)
    r = await hold(deps, HoldCommand(v.unit_id, at(8, 19), at(8, 20), (v.resource_ids["Campo 1"],),
                                     customer=customer(1)))
    b = r.booking
    assert b.remind_at == b.hold_expires_at - timedelta(minutes=5)
    assert not await remind_hold(deps, b.id)  # too early
    clock.set(b.remind_at)
    assert await remind_hold(deps, b.id)
    assert not await remind_hold(deps, b.id)  # once
    async with pool.acquire() as conn:
        texts = await conn.fetch("SELECT payload->>'text' AS t FROM outbox WHERE unit_id = $1 AND topic = "
                                 "'notification'", v.unit_id)
    assert [t["t"] for t in texts] == ["Pagamento perto de expirar"]


async def test_a_hold_born_shorter_than_the_reminder_gets_none(deps: Deps, pool: Any, clock: Any) -> None:
    v = await arena(pool, hold_reminder_seconds=7 * 60)
    # RN-HLD-02/08: game at 19:00, min advance 60 min, so holds end by 18:00.
    clock.set(at(8, 17, 52))  # 8 minutes: reminded at 17:53
    long = await hold(deps, HoldCommand(v.unit_id, at(8, 19), at(8, 20), (v.resource_ids["Campo 1"],),
                                        customer=customer(1)))
    assert (long.booking.hold_expires_at, long.booking.remind_at) == (at(8, 18), at(8, 17, 53))
    clock.set(at(8, 17, 54))  # 6 minutes, shorter than the 7-minute reminder: never reminded
    short = await hold(deps, HoldCommand(v.unit_id, at(8, 19), at(8, 20), (v.resource_ids["Campo 2"],),
                                         customer=customer(2)))
    assert (short.booking.hold_expires_at, short.booking.remind_at) == (at(8, 18), None)
    clock.set(at(8, 17, 58))
    assert await remind_hold(deps, long.booking.id)
    assert not await remind_hold(deps, short.booking.id)


async def test_a_settled_hold_is_not_expired_by_its_deadline_job(deps: Deps, pool: Any, clock: Any) -> None:
    v = await arena(pool)
    r = await hold(deps, HoldCommand(v.unit_id, at(8, 19), at(8, 20), (v.resource_ids["Campo 1"],),
                                     customer=customer(1)))
    await checkout.confirm(deps, checkout.ConfirmCommand(r.booking.id))
    clock.advance(minutes=30)
    assert not await expire_hold(deps, r.booking.id)
    other = await hold(deps, HoldCommand(v.unit_id, at(8, 20), at(8, 21), (v.resource_ids["Campo 1"],),
                                         customer=customer(2)))
    clock.advance(minutes=10)
    assert await expire_hold(deps, other.booking.id)
    assert not await expire_hold(deps, other.booking.id)  # twice is harmless


async def test_past_checked_in_bookings_complete_by_job(deps: Deps, pool: Any, clock: Any) -> None:
    v = await arena(pool)
    r = await hold(deps, HoldCommand(v.unit_id, at(7, 14), at(7, 15), (v.resource_ids["Campo 1"],),
                                     customer=customer(1)))
    await checkout.confirm(deps, checkout.ConfirmCommand(r.booking.id))
    clock.set(at(7, 14, 5))
    await check_in(deps, ChangeCommand(r.booking.id, actor="staff"))
    await complete_past(deps)  # other tests' bookings, of every unit, that ended before now
    status = "SELECT status FROM bookings WHERE id = $1"
    assert await pool.fetchval(status, r.booking.id) == "checked_in"  # not before its end
    clock.set(at(7, 15))
    assert await complete_past(deps) >= 1
    assert await complete_past(deps) == 0
    assert await pool.fetchval(status, r.booking.id) == "completed"


async def test_a_refused_hold_leaves_nothing_in_the_outbox(deps: Deps, pool: Any) -> None:
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    await hold(deps, HoldCommand(v.unit_id, at(8, 19), at(8, 20), (c1,), customer=customer(1)))
    with pytest.raises(SlotTaken):
        await hold(deps, HoldCommand(v.unit_id, at(8, 19), at(8, 20), (c1,), customer=customer(2)))
    async with pool.acquire() as conn:
        rows = await conn.fetch("SELECT payload->>'event' AS e FROM outbox WHERE unit_id = $1", v.unit_id)
    assert [r["e"] for r in rows] == ["booking.held"]


async def test_the_relay_numbers_each_units_events_consecutively_and_pruning_keeps_recent_ones(
    deps: Deps, pool: Any, clock: Any
) -> None:
    a, b = await arena(pool), await arena(pool)
    for i, v in enumerate((a, b, a, a, b)):
        await hold(deps, HoldCommand(v.unit_id, at(8, 10 + i), at(8, 11 + i), (v.resource_ids["Campo 1"],),
                                     customer=customer(i)))
    async with pool.acquire() as conn:
        while True:  # every pending row of the session's database, a batch at a time (earlier tests leave some)
            async with conn.transaction():
                if not await sequence_pending(conn):
                    break
        seqs = await conn.fetch("SELECT unit_id, seq FROM outbox WHERE unit_id = ANY($1) ORDER BY id",
                                [a.unit_id, b.unit_id])
        assert [r["seq"] for r in seqs if r["unit_id"] == a.unit_id] == [1, 2, 3]
        assert [r["seq"] for r in seqs if r["unit_id"] == b.unit_id] == [1, 2]
        await conn.execute("UPDATE outbox SET published_at = now() WHERE unit_id = $1", a.unit_id)
        await conn.execute("UPDATE outbox SET created_at = now() - interval '2 days' WHERE unit_id = ANY($1)",
                           [a.unit_id, b.unit_id])
        await prune(conn, datetime.now(UTC) - timedelta(hours=24), clock.now())
        left = await conn.fetch("SELECT unit_id FROM outbox WHERE unit_id = ANY($1)", [a.unit_id, b.unit_id])
    assert {r["unit_id"] for r in left} == {b.unit_id}  # unpublished rows are never pruned
