"""Seat maps on real PostgreSQL (seed 004): states derived from bookings and blocks, many seats at once all or
nothing, two buyers for one seat, TTL per hold type, who may release."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest

from domain import seatmaps as sm
from domain.errors import InvalidInput, NotFound, SeatsUnavailable
from domain.hold_types import Level, Releaser, SeatState
from domain.services import Deps
from tests.services.test_hold_types import define
from tests.venues import arena, at, customer

A, S, L, B = SeatState.ACTIVE, SeatState.SOLD, SeatState.LOCKED, SeatState.BLOCKED


async def theatre(deps: Deps, pool: Any, rows: int = 3, per_row: int = 10) -> tuple[Any, sm.SeatEvent, list[Any]]:
    v = await arena(pool)
    sections = [sm.SectionSpec("Plateia", tuple(sm.RowSpec(chr(65 + r), tuple(str(i) for i in range(1, per_row + 1)))
                                                for r in range(rows))),
                sm.SectionSpec("Balcão", (sm.RowSpec("A", ("1", "2")),))]
    m = await sm.create_seat_map(deps, v.unit_id, "Teatro", sections)
    e = await sm.create_event(deps, m.id, "Hamlet", at(10, 20), at(10, 23))
    return v, e, [s.id for s in m.seats]


async def states(deps: Deps, e: sm.SeatEvent) -> dict[Any, SeatState]:
    return {s.seat.id: s.state for s in (await sm.seat_map_view(deps, e.id)).seats}


def cmd(e: sm.SeatEvent, seats: list[Any], n: int = 1, **kw: Any) -> sm.SeatCommand:
    kw.setdefault("customer", customer(n))
    kw.setdefault("releaser", Releaser.CUSTOMER)
    kw.setdefault("placed_by", kw["releaser"])
    return sm.SeatCommand(e.id, tuple(seats), **kw)


async def test_a_map_lists_sections_rows_and_labels_all_active(deps: Deps, pool: Any) -> None:
    v, e, _ = await theatre(deps, pool)
    view = await sm.seat_map_view(deps, e.id)
    assert len(view.seats) == 32 and {s.state for s in view.seats} == {A}
    first = view.seats[0].seat
    assert (first.section, first.row, first.label, first.name) == ("Plateia", "A", "1", "Plateia A-1")
    assert view.seats[-1].seat.section == "Balcão"
    # Seats are off the slot grid: the unit's fields are still its only resources there.
    async with deps.uow() as uow:
        assert len(await uow.units.resources(v.unit_id)) == 4
    assert [x.id for x in await sm.events_of(deps, v.unit_id)] == [e.id]


async def test_map_and_event_input_errors(deps: Deps, pool: Any) -> None:
    v = await arena(pool)
    bad = [([sm.SectionSpec("P", (sm.RowSpec("A", ("1", "1")),))], "duplicate_seat"),
           ([], "no_seats"), ([sm.SectionSpec("P", ())], "no_seats"),
           ([sm.SectionSpec("P", (sm.RowSpec("A", ()),))], "no_seats"),
           ([sm.SectionSpec("P", (sm.RowSpec("A", ("",)),))], "invalid_label"),
           ([sm.SectionSpec("P", (sm.RowSpec("A", tuple(str(i) for i in range(5001))),))], "too_many_seats")]
    for sections, code in bad:
        with pytest.raises(InvalidInput) as err:
            await sm.create_seat_map(deps, v.unit_id, "M", sections)
        assert err.value.code == code
    with pytest.raises(InvalidInput) as err:  # a resource group of the unit has that name
        await sm.create_seat_map(deps, v.unit_id, "Campos", [sm.SectionSpec("P", (sm.RowSpec("A", ("1",)),))])
    assert err.value.code == "name_taken"
    m = await sm.create_seat_map(deps, v.unit_id, "M", [sm.SectionSpec("P", (sm.RowSpec("A", ("1",)),))])
    for start, end, code in [(at(10, 20), at(10, 19), "invalid_range"), (at(1, 20), at(1, 21), "in_the_past"),
                             (at(10, 20), at(28, 20), "invalid_range")]:
        with pytest.raises(InvalidInput) as err:
            await sm.create_event(deps, m.id, "X", start, end)
        assert err.value.code == code
    assert await pool.fetchval("SELECT count(*) FROM seats WHERE unit_id = $1", v.unit_id) == 1


async def test_lock_sell_unlock_revert_block_unblock(deps: Deps, pool: Any) -> None:
    _, e, seats = await theatre(deps, pool)
    a1, a2, a3, a4, a5 = seats[:5]
    booking = (await sm.lock_seats(deps, cmd(e, [a1, a2]))).booking
    assert booking.hold_type == "CART" and len(booking.allocations) == 2
    s = await states(deps, e)
    assert (s[a1], s[a2], s[a3]) == (L, L, A)
    with pytest.raises(InvalidInput) as err:  # whole bookings only
        await sm.unlock_seats(deps, cmd(e, [a1]))
    assert err.value.code == "partial_booking"
    sold = await sm.sell_seats(deps, cmd(e, [a1, a2], actor="staff", releaser=Releaser.ADMIN))
    assert [b.id for b in sold] == [booking.id] and sold[0].status.value == "confirmed"
    assert (await states(deps, e))[a1] is S
    # Free seats sold at once, as a type valid in SOLD; a type only valid in LOCKED is refused.
    await define(pool, e.unit_id, Level.ORGANIZATION, "COMP", validStates=["LOCKED", "SOLD"], paymentRequired=False,
                 releaseApi=["ADMIN"], displayColor="#FFD700")
    with pytest.raises(InvalidInput) as err:
        await sm.sell_seats(deps, cmd(e, [a3], hold_type="RESERVED", releaser=Releaser.ADMIN))
    assert err.value.code == "hold_type_state_invalid"
    comp = await sm.sell_seats(deps, cmd(e, [a3], hold_type="COMP", releaser=Releaser.ADMIN, customer=None))
    assert comp[0].hold_type == "COMP" and comp[0].status.value == "confirmed"
    assert len(await sm.sell_seats(deps, cmd(e, [a4, a5], releaser=Releaser.ADMIN))) == 1
    await sm.lock_seats(deps, cmd(e, [seats[6]], n=3))
    with pytest.raises(InvalidInput) as err:  # free and locked seats in one sale
        await sm.sell_seats(deps, cmd(e, [seats[6], seats[7]], releaser=Releaser.ADMIN))
    assert err.value.code == "mixed_seat_states"
    reverted = await sm.revert_sale(deps, cmd(e, [a1, a2], actor="staff", releaser=Releaser.ADMIN))
    assert reverted[0].status.value == "cancelled" and reverted[0].hold_type is None
    assert (await states(deps, e))[a1] is A
    assert await sm.block_seats(deps, cmd(e, [a1, a2], actor="staff", reason="quebrada")) == 2
    s = await states(deps, e)
    assert (s[a1], s[a2]) == (B, B)
    with pytest.raises(SeatsUnavailable) as taken:
        await sm.lock_seats(deps, cmd(e, [a2, seats[8]], n=2))
    assert [(c.seat_id, c.state) for c in taken.value.seats] == [(a2, "BLOCKED")]
    assert (await states(deps, e))[seats[8]] is A  # nothing was locked
    assert await sm.unblock_seats(deps, cmd(e, [a1, a2])) == 2
    assert (await states(deps, e))[a1] is A
    topics = [r["topic"] for r in await pool.fetch("SELECT topic FROM outbox WHERE unit_id = $1 ORDER BY id",
                                                   e.unit_id)]
    assert topics.count("block_changed") == 2


async def test_all_or_nothing_names_every_seat_in_the_way(deps: Deps, pool: Any) -> None:
    _, e, seats = await theatre(deps, pool)
    await sm.lock_seats(deps, cmd(e, seats[2:4]))
    with pytest.raises(SeatsUnavailable) as err:
        await sm.lock_seats(deps, cmd(e, seats[0:5], n=2))
    assert sorted(str(c.seat_id) for c in err.value.seats) == sorted(str(s) for s in seats[2:4])
    s = await states(deps, e)
    assert [s[x] for x in seats[:5]] == [A, A, L, L, A]
    for bad, code in [([], "no_seat"), ([seats[0], seats[0]], "duplicate_seat")]:
        with pytest.raises(InvalidInput) as e2:
            await sm.lock_seats(deps, cmd(e, bad))
        assert e2.value.code == code
    with pytest.raises(NotFound):
        await sm.lock_seats(deps, cmd(e, [e.id]))
    with pytest.raises(SeatsUnavailable):
        await sm.unblock_seats(deps, cmd(e, [seats[0]]))
    with pytest.raises(SeatsUnavailable):
        await sm.revert_sale(deps, cmd(e, [seats[2], seats[3]]))


async def test_two_buyers_one_seat(deps: Deps, pool: Any) -> None:
    """20 buyers at once, each for two seats that all include the same one: exactly one gets both."""
    _, e, seats = await theatre(deps, pool)
    hot = seats[0]
    results = await asyncio.gather(*(sm.lock_seats(deps, cmd(e, [hot, seats[1 + n]], n=n)) for n in range(20)),
                                   return_exceptions=True)
    won = [r for r in results if not isinstance(r, BaseException)]
    lost = [r for r in results if isinstance(r, BaseException)]
    assert len(won) == 1 and len(lost) == 19
    assert all(isinstance(x, SeatsUnavailable) for x in lost), lost
    s = await states(deps, e)
    assert s[hot] is L and sum(1 for x in seats[1:21] if s[x] is L) == 1  # the loser's other seat stayed free
    assert await pool.fetchval("SELECT count(*) FROM allocations WHERE resource_id = $1 AND occupies", hot) == 1


async def test_lock_and_block_race_for_a_seat(deps: Deps, pool: Any) -> None:
    _, e, seats = await theatre(deps, pool)
    for i in range(5):
        seat = seats[i]
        r = await asyncio.gather(sm.lock_seats(deps, cmd(e, [seat], n=i)),
                                 sm.block_seats(deps, cmd(e, [seat], actor="staff")), return_exceptions=True)
        assert sum(1 for x in r if isinstance(x, SeatsUnavailable)) == 1, r
        assert await pool.fetchval("SELECT count(*) FROM allocations WHERE resource_id = $1 AND occupies", seat) == 1


async def test_ttl_per_type_frees_seats_and_release_api_decides_who_unlocks(deps: Deps, pool: Any, clock: Any
                                                                           ) -> None:
    _, e, seats = await theatre(deps, pool)
    await define(pool, e.unit_id, Level.TENANT, "PARTNER_HOLD", ttlSeconds=3600, releaseApi=["ADMIN", "API"])
    cart = (await sm.lock_seats(deps, cmd(e, seats[0:1]))).booking
    partner = (await sm.lock_seats(deps, cmd(e, seats[1:2], hold_type="PARTNER_HOLD", releaser=Releaser.API))).booking
    reserved = (await sm.lock_seats(deps, cmd(e, seats[2:3], hold_type="RESERVED", releaser=Releaser.ADMIN))).booking
    now = clock.now()
    assert cart.hold_expires_at == now + timedelta(minutes=10)
    assert partner.hold_expires_at == now + timedelta(hours=1)
    assert reserved.hold_expires_at == e.ends_at  # only staff release it: kept for the whole event
    clock.advance(minutes=11)
    s = await states(deps, e)
    assert [s[x] for x in seats[:3]] == [A, L, L]  # a lapsed hold is free at once
    again = (await sm.lock_seats(deps, cmd(e, seats[0:1], n=9))).booking  # expires the stale one in its transaction
    assert await pool.fetchval("SELECT status FROM bookings WHERE id = $1", cart.id) == "expired"
    assert again.id != cart.id
    with pytest.raises(InvalidInput) as err:
        await sm.unlock_seats(deps, cmd(e, seats[2:3], releaser=Releaser.API))
    assert err.value.code == "release_not_allowed"
    with pytest.raises(InvalidInput):
        await sm.unlock_seats(deps, cmd(e, seats[1:2], releaser=Releaser.CUSTOMER))
    freed = await sm.unlock_seats(deps, cmd(e, seats[1:3], releaser=Releaser.ADMIN))
    assert {b.status.value for b in freed} == {"cancelled"} and {b.hold_type for b in freed} == {None}
    assert [(await states(deps, e))[x] for x in seats[1:3]] == [A, A]
    events = await pool.fetch("SELECT new_status, hold_type FROM booking_events WHERE booking_id = ANY($1::uuid[]) "
                              "AND new_status = 'cancelled'", [partner.id, reserved.id])
    assert sorted(r["hold_type"] for r in events) == ["PARTNER_HOLD", "RESERVED"]


async def test_box_office_goes_straight_to_sold(deps: Deps, pool: Any) -> None:
    _, e, seats = await theatre(deps, pool)
    await define(pool, e.unit_id, Level.ORGANIZATION, "BOX_OFFICE", validStates=["SOLD"], skipLockedState=True,
                 paymentRequired=False)
    b = (await sm.lock_seats(deps, cmd(e, seats[:4], hold_type="BOX_OFFICE", releaser=Releaser.ADMIN,
                                       customer=None))).booking
    assert b.status.value == "confirmed" and b.hold_type == "BOX_OFFICE"
    assert {(await states(deps, e))[x] for x in seats[:4]} == {S}
    with pytest.raises(InvalidInput) as err:
        await sm.lock_seats(deps, cmd(e, seats[4:5], hold_type="BOX_OFFICE"))  # a customer may not
    assert err.value.code == "hold_type_not_allowed"


async def test_customers_unlock_only_their_own_and_sold_seats_are_not_unlocked(deps: Deps, pool: Any) -> None:
    _, e, seats = await theatre(deps, pool)
    mine = (await sm.lock_seats(deps, cmd(e, seats[:1]))).booking

    async def not_me(_: Any) -> bool:
        return False

    from domain.access import Forbidden
    with pytest.raises(Forbidden):
        await sm.unlock_seats(deps, cmd(e, seats[:1], owns=not_me))
    from domain import checkout
    await checkout.confirm(deps, checkout.ConfirmCommand(mine.id))  # nothing to pay: sold
    with pytest.raises(SeatsUnavailable) as err:
        await sm.unlock_seats(deps, cmd(e, seats[:1], releaser=Releaser.ADMIN))
    assert [c.state for c in err.value.seats] == ["SOLD"]
