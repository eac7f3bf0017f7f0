"""Waitlists on real PostgreSQL (SPEC §8, RN-ATD-08)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest

from domain import checkout, waitlist
from domain.errors import InvalidInput, NotFound
from domain.services import ChangeCommand, Deps, HoldCommand, cancel, drop, expire_hold, expire_lapsed, hold
from store.venues import ResourceSpec, VenueSpec, create_venue, every_day
from tests.services.fake_bank import FakeBank
from tests.venues import arena, at, customer


async def status(pool: Any, table: str, entry_id: Any) -> str:
    async with pool.acquire() as conn:
        return str(await conn.fetchval(f"SELECT status FROM {table} WHERE id = $1", entry_id))


async def offers(pool: Any, unit_id: Any) -> list[Any]:
    async with pool.acquire() as conn:
        rows = await conn.fetch("SELECT customer_id, status FROM bookings WHERE unit_id = $1 AND channel = 'waitlist' "
                                "ORDER BY created_at", unit_id)
    return [(r["customer_id"], r["status"]) for r in rows]


async def taken_slot(deps: Deps, pool: Any) -> tuple[Any, Any, Any]:
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    first = await hold(deps, HoldCommand(v.unit_id, at(8, 21), at(8, 22), (c1,), customer=customer(900)))
    return v, c1, first.booking


async def test_joins_are_fifo_under_concurrency_and_the_offer_passes_on_when_unpaid(
    deps: Deps, pool: Any, clock: Any
) -> None:
    v, c1, taken = await taken_slot(deps, pool)
    entries = await asyncio.gather(*(
        waitlist.join_slot_waitlist(deps, v.unit_id, c1, at(8, 21), at(8, 22), customer(n)) for n in range(8)))
    assert len({e["position"] for e in entries}) == 8  # a total order, whatever the interleaving
    line = sorted(entries, key=lambda e: e["position"])
    async with pool.acquire() as conn:
        places = [await conn.fetchval("SELECT count(*) FROM slot_waitlist o WHERE o.resource_id = $1 AND "
                                      "o.status = 'waiting' AND o.position <= $2", c1, e["position"]) for e in line]
    assert places == list(range(1, 9))
    await cancel(deps, ChangeCommand(taken.id))  # the slot frees: the first in line is offered it, at once
    assert await status(pool, "slot_waitlist", line[0]["id"]) == "offered"
    (offer,) = await offers(pool, v.unit_id)
    assert offer == (line[0]["customer_id"], "held")
    clock.advance(minutes=10)  # RN-ATD-08: 10 minutes to pay, then the offer passes to the next
    await expire_lapsed(deps)
    assert await status(pool, "slot_waitlist", line[0]["id"]) == "expired"
    assert await status(pool, "slot_waitlist", line[1]["id"]) == "offered"
    assert [o[0] for o in await offers(pool, v.unit_id)] == [line[0]["customer_id"], line[1]["customer_id"]]


async def test_an_offer_is_never_given_twice_for_one_slot(deps: Deps, pool: Any) -> None:
    v, c1, taken = await taken_slot(deps, pool)
    for n in range(5):
        await waitlist.join_slot_waitlist(deps, v.unit_id, c1, at(8, 21), at(8, 22), customer(n))
    async with pool.acquire() as conn:  # free the slot behind the waitlist's back, then promote from many places
        await conn.execute("UPDATE allocations SET occupies = false WHERE booking_id = $1", taken.id)
    key = waitlist.SlotKey(v.unit_id, c1, at(8, 21), at(8, 22))
    results = await asyncio.gather(*(waitlist.promote_slot(deps, key) for _ in range(10)))
    assert len([r for r in results if r]) == 1
    assert len(await offers(pool, v.unit_id)) == 1


@pytest.mark.parametrize("release", ["drop", "expiry", "swap", "deny"])
async def test_every_kind_of_release_promotes_the_line(
    deps: Deps, pool: Any, clock: Any, release: str
) -> None:
    bank = FakeBank()
    d = replace(deps, provider=bank)
    v = await create_venue(pool, VenueSpec(
        unit_name=f"Arena wl {release} {id(clock)}", hours=every_day(8, 23),
        resources=[ResourceSpec(name=f"Campo {i}") for i in (1, 2)],
        services=[{"name": "1h", "duration_minutes": 60, "price_cents": 10000}]))
    c1 = v.resource_ids["Campo 1"]
    taken = (await hold(d, HoldCommand(v.unit_id, at(8, 21), at(8, 22), (c1,), customer=customer(900),
                                       service_id=v.service_ids["1h"]))).booking
    entry = await waitlist.join_slot_waitlist(d, v.unit_id, c1, at(8, 21), at(8, 22), customer(1),
                                              service_id=v.service_ids["1h"])
    if release == "drop":
        await drop(d, ChangeCommand(taken.id, actor="manager", reason="cliente desistiu"))
    elif release == "expiry":
        clock.advance(minutes=15)
        await expire_hold(d, taken.id)
    elif release == "swap":
        other = HoldCommand(v.unit_id, at(8, 19), at(8, 20), (c1,), customer=customer(900),
                            service_id=v.service_ids["1h"])
        await checkout.swap(d, checkout.SwapCommand(taken.id, other))
    else:
        await checkout.confirm(d, checkout.ConfirmCommand(taken.id))
        await checkout.claim_paid(d, taken.id)
        from domain.settlement import deny_claim

        await deny_claim(d, taken.id, "operator")
    assert await status(pool, "slot_waitlist", entry["id"]) == "offered"
    async with pool.acquire() as conn:  # the offer is a hold with its Pix (RN-ATD-08)
        offer = await conn.fetchrow("SELECT b.id, b.status, b.hold_expires_at FROM bookings b JOIN slot_waitlist w "
                                    "ON w.offer_booking_id = b.id WHERE w.id = $1", entry["id"])
        charge = await conn.fetchval("SELECT txid FROM charges WHERE booking_id = $1", offer["id"])
    assert offer["status"] == "pending_payment"
    assert offer["hold_expires_at"] == clock.now() + timedelta(minutes=10)
    from domain.settlement import receive_payment

    await receive_payment(d, "fake", bank.pay(charge, clock.now()))
    assert await status(pool, "slot_waitlist", entry["id"]) == "fulfilled"


async def test_the_list_closes_at_the_minimum_advance(deps: Deps, pool: Any, clock: Any) -> None:
    v, c1, _taken = await taken_slot(deps, pool)
    entry = await waitlist.join_slot_waitlist(deps, v.unit_id, c1, at(8, 21), at(8, 22), customer(1))
    clock.set(at(8, 20, 0))  # the game is at 21h: from 20h the list is no longer valid
    with pytest.raises(InvalidInput) as e:
        await waitlist.join_slot_waitlist(deps, v.unit_id, c1, at(8, 21), at(8, 22), customer(2))
    assert e.value.code == "waitlist_closed"
    await expire_lapsed(deps)  # the hold that took the slot lapsed long ago: the slot frees
    assert await status(pool, "slot_waitlist", entry["id"]) == "closed"
    assert await offers(pool, v.unit_id) == []


async def test_capacity_offers_respect_party_sizes_and_the_order_of_the_line(
    deps: Deps, pool: Any, clock: Any
) -> None:
    v = await arena(pool, fields=1, pooled={"Aula": 4})
    aula = v.resource_ids["Aula"]
    places = [await hold(deps, HoldCommand(v.unit_id, at(9, 10), at(9, 11), (aula,), customer=customer(n)))
              for n in range(4)]
    big = await waitlist.join_capacity_waitlist(deps, v.unit_id, aula, at(9, 10), at(9, 11), 2, "user-big")
    small = await waitlist.join_capacity_waitlist(deps, v.unit_id, aula, at(9, 10), at(9, 11), 1, "user-small")
    assert (big["status"], small["status"]) == ("waiting", "waiting")
    await cancel(deps, ChangeCommand(places[0].booking.id))  # 1 place: the party of 2 is first and does not fit
    assert await status(pool, "capacity_waitlist", big["id"]) == "waiting"
    assert await status(pool, "capacity_waitlist", small["id"]) == "waiting"
    await cancel(deps, ChangeCommand(places[1].booking.id))  # 2 places: the party of 2, and no one else
    assert await status(pool, "capacity_waitlist", big["id"]) == "offered"
    assert await status(pool, "capacity_waitlist", small["id"]) == "waiting"
    async with pool.acquire() as conn:
        token = await conn.fetchval("SELECT token FROM capacity_waitlist WHERE id = $1", big["id"])
        used = await conn.fetchval("SELECT max(used) FROM pool_usage WHERE resource_id = $1", aula)
    assert len(token) == 64 and used == 4  # the offer sets its places aside
    with pytest.raises(InvalidInput) as e:
        await waitlist.claim_capacity_offer(deps, v.unit_id, token, "user-small")
    assert e.value.code == "offer_of_another_user"
    claimed = await waitlist.claim_capacity_offer(deps, v.unit_id, token, "user-big")
    assert claimed.hold_expires_at == clock.now() + timedelta(minutes=10) and claimed.hold_type == "CART"
    await checkout.confirm(deps, checkout.ConfirmCommand(claimed.id))
    assert await status(pool, "capacity_waitlist", big["id"]) == "fulfilled"
    await cancel(deps, ChangeCommand(places[2].booking.id))
    assert await status(pool, "capacity_waitlist", small["id"]) == "offered"
    async with pool.acquire() as conn:
        small_token = await conn.fetchval("SELECT token FROM capacity_waitlist WHERE id = $1", small["id"])
    await waitlist.decline_capacity_offer(deps, v.unit_id, small_token, "user-small")
    assert await status(pool, "capacity_waitlist", small["id"]) == "cancelled"
    with pytest.raises(NotFound):
        await waitlist.claim_capacity_offer(deps, v.unit_id, small_token, "user-small")


async def test_an_unclaimed_capacity_offer_expires_after_24h_and_passes_on(deps: Deps, pool: Any, clock: Any) -> None:
    v = await arena(pool, fields=1, pooled={"Aula": 1})
    aula = v.resource_ids["Aula"]
    seat = await hold(deps, HoldCommand(v.unit_id, at(12, 10), at(12, 11), (aula,), customer=customer(1)))
    first = await waitlist.join_capacity_waitlist(deps, v.unit_id, aula, at(12, 10), at(12, 11), 1, "u1")
    second = await waitlist.join_capacity_waitlist(deps, v.unit_id, aula, at(12, 10), at(12, 11), 1, "u2")
    await cancel(deps, ChangeCommand(seat.booking.id))
    assert await status(pool, "capacity_waitlist", first["id"]) == "offered"
    clock.advance(hours=24)
    await expire_lapsed(deps)
    assert await status(pool, "capacity_waitlist", first["id"]) == "expired"
    assert await status(pool, "capacity_waitlist", second["id"]) == "offered"


async def test_walk_ins_are_never_promoted_automatically(deps: Deps, pool: Any) -> None:
    v, _c1, taken = await taken_slot(deps, pool)
    party = await waitlist.add_walk_in(deps, v.unit_id, "Quadras", "Família Souza", "+55 11 98888-7777", 4)
    await cancel(deps, ChangeCommand(taken.id))
    await waitlist.sweep_waitlists(deps)
    assert await status(pool, "walkin_queue", party["id"]) == "waiting"
    offered = await waitlist.offer_walk_in(deps, party["id"])
    assert offered["status"] == "offered" and len(offered["token"]) == 64
    with pytest.raises(NotFound):
        await waitlist.claim_walk_in(deps, v.unit_id, "0" * 64)
    assert (await waitlist.claim_walk_in(deps, v.unit_id, offered["token"]))["status"] == "claimed"
    assert (await waitlist.seat_walk_in(deps, party["id"]))["status"] == "seated"
    async with pool.acquire() as conn:
        msg = await conn.fetchval("SELECT payload->>'to' FROM outbox WHERE unit_id = $1 AND "
                                  "payload->>'kind' = 'walk_in_offer'", v.unit_id)
    assert msg == "+5511988887777"


async def test_the_customer_offered_a_capacity_place_is_sent_the_link_that_claims_it(
    deps: Deps, pool: Any
) -> None:
    from schema.waitlists import CapacityWaitlistEntry

    v = await arena(pool, fields=1, pooled={"Aula": 1})
    aula = v.resource_ids["Aula"]
    seat = await hold(deps, HoldCommand(v.unit_id, at(13, 10), at(13, 11), (aula,), customer=customer(1)))
    entry = await waitlist.join_capacity_waitlist(deps, v.unit_id, aula, at(13, 10), at(13, 11), 1, "u7",
                                                  customer(7))
    assert CapacityWaitlistEntry.from_row(await waitlist.capacity_entry(deps, entry["id"])).offer_token is None
    await cancel(deps, ChangeCommand(seat.booking.id))
    async with pool.acquire() as conn:
        token = await conn.fetchval("SELECT token FROM capacity_waitlist WHERE id = $1", entry["id"])
        told = await conn.fetch("SELECT payload FROM outbox WHERE unit_id = $1 AND topic = 'notification' "
                                "AND payload->>'kind' = 'capacity_offer'", v.unit_id)
    assert [(r["payload"]["text"], r["payload"]["customer_id"]) for r in told] == [
        (f"http://127.0.0.1:8000/waitlist/claim/{token}", str(entry["customer_id"]))]
    shown = CapacityWaitlistEntry.from_row(await waitlist.capacity_entry(deps, entry["id"]))
    assert shown.status == "offered" and shown.offer_token == token


@pytest.mark.parametrize("minutes_before, expected", [(63, "waiting"), (61, "waiting"), (59, "closed")])
async def test_the_list_is_valid_until_start_minus_the_minimum_advance(
    deps: Deps, pool: Any, clock: Any, minutes_before: int, expected: str
) -> None:
    """RN-ATD-08: with the factory 60-minute minimum advance, a customer joining 63 or 61 minutes before the game
    waits in line; 59 minutes before, the list is no longer valid."""
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    clock.set(at(8, 19, 50))  # 70 minutes before the 21h game: still bookable
    await hold(deps, HoldCommand(v.unit_id, at(8, 21), at(8, 22), (c1,), customer=customer(900)))
    clock.set(at(8, 21) - timedelta(minutes=minutes_before))
    if expected == "closed":
        with pytest.raises(InvalidInput) as e:
            await waitlist.join_slot_waitlist(deps, v.unit_id, c1, at(8, 21), at(8, 22), customer(1))
        assert e.value.code == "waitlist_closed"
        return
    entry = await waitlist.join_slot_waitlist(deps, v.unit_id, c1, at(8, 21), at(8, 22), customer(1))
    assert (entry["status"], entry["place"]) == ("waiting", 1)
    await waitlist.sweep_waitlists(deps)  # the sweep leaves a valid line alone
    assert await status(pool, "slot_waitlist", entry["id"]) == "waiting"
    clock.set(at(8, 20, 0))  # from start − min_advance on, the sweep closes the line
    await waitlist.sweep_waitlists(deps)
    assert await status(pool, "slot_waitlist", entry["id"]) == "closed"
