"""One-step checkout and waitlists on or off (issue 18) through the API: success, replay, a failure in the middle
that leaves nothing, a taken slot; a disabled waitlist refuses joins and makes no offers, logged and live."""

from __future__ import annotations

from typing import Any
from uuid import UUID, uuid4

import pytest

from domain.services import ChangeCommand, CounterCommand, Deps, cancel, counter_booking
from domain.waitlist import sweep_waitlists
from schema.ids import decode_id, global_id
from store.uow import PgUnitOfWork
from store.venues import ResourceSpec, VenueSpec, create_venue, every_day
from tests.conftest import MutableClock
from tests.live import live_api
from tests.venues import at, cpf, customer

CHECKOUT = """mutation($i: CheckoutInput!, $k: String) { checkout(input: $i, idempotencyKey: $k) { __typename
  ... on BookingPayload { replayed booking { id status dueNowCents acceptance { totalCents dueNowCents contact } }
    charge { txid amountCents status copiaECola qrCodePng } }
  ... on InvalidInput { field code } ... on SlotTaken { code } ... on PaymentUnavailable { code } } }"""
SWITCH = ("mutation($r: ID, $e: ID, $on: Boolean!) { setWaitlistEnabled(resourceId: $r, seatEventId: $e, "
          "enabled: $on) { __typename ... on WaitlistSetting { resourceId seatEventId waitlistEnabled } "
          "... on InvalidInput { field code } ... on NotFound { field } } }")
JOIN = ("mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!, $c: String!) { joinSlotWaitlist(unitId: $u, "
        "resourceId: $r, startsAt: $s, endsAt: $e, customer: {cpf: $c}) { __typename ... on SlotWaitlistEntry "
        "{ id status } ... on InvalidInput { field code } } }")
JOIN_CAPACITY = ("mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!) { joinCapacityWaitlist(unitId: $u, "
                 'resourceId: $r, startsAt: $s, endsAt: $e, partySize: 2, user: "u-1") { __typename '
                 "... on InvalidInput { field code } } }")
CHANGES = "query($u: ID!) { venueChanges(unitId: $u, first: 5) { entity entityId before after session } }"


@pytest.fixture
async def live(database_url: str, redis_url: str, clock: MutableClock) -> Any:
    async with live_api(database_url, redis_url, clock) as server:
        yield server


async def venue(pool: Any) -> Any:
    return await create_venue(pool, VenueSpec(
        unit_name=f"Arena checkout {uuid4()}", hours=every_day(8, 23),
        resources=[ResourceSpec(name=f"Campo {i}") for i in (1, 2)] + [ResourceSpec(name="Aula", kind="pooled",
                                                                                    capacity=4)],
        services=[{"name": "Campo 1h", "duration_minutes": 60, "price_cents": 20000,
                   "payment_rule": "deposit_percent", "deposit_percent": 50}]))


def checkout_input(v: Any, hour: int, n: int, **extra: Any) -> dict[str, Any]:
    return {"unitId": str(v.unit_id), "resourceIds": [str(v.resource_ids["Campo 1"])],
            "startsAt": at(12, hour).isoformat(), "endsAt": at(12, hour + 1).isoformat(),
            "customer": {"cpf": cpf(620_000 + n)}, "serviceId": str(v.service_ids["Campo 1h"]), "acceptTerms": True,
            "contact": "+5511999990002", **extra}


async def bookings_of(pool: Any, v: Any) -> list[tuple[UUID, str]]:
    rows = await pool.fetch("SELECT id, status FROM bookings WHERE unit_id = $1 ORDER BY created_at", v.unit_id)
    return [(r["id"], r["status"]) for r in rows]


async def test_one_step_checkout_holds_accepts_and_charges_at_once_and_replays(live: Any, pool: Any) -> None:
    v = await venue(pool)
    _, system = await live.access.issue_token(None, None, "system", None, [], "tests")
    refused = (await live.gql(system, CHECKOUT, {"i": checkout_input(v, 19, 1, acceptTerms=False)}))["checkout"]
    assert refused == {"__typename": "InvalidInput", "field": "input.acceptTerms", "code": "terms_not_accepted"}
    assert await bookings_of(pool, v) == []
    first = (await live.gql(system, CHECKOUT, {"i": checkout_input(v, 19, 1), "k": "app-1"}))["checkout"]
    assert first["__typename"] == "BookingPayload" and first["replayed"] is False
    booking, charge = first["booking"], first["charge"]
    assert booking["status"] == "PENDING_PAYMENT" and booking["dueNowCents"] == 10000
    assert booking["acceptance"] == {"totalCents": 20000, "dueNowCents": 10000, "contact": "+5511999990002"}
    assert charge["amountCents"] == 10000 and charge["status"] == "PENDING"
    assert charge["copiaECola"] and charge["qrCodePng"].startswith("data:image/png;base64,")
    again = (await live.gql(system, CHECKOUT, {"i": checkout_input(v, 19, 1), "k": "app-1"}))["checkout"]
    assert again["replayed"] is True and again["booking"]["id"] == booking["id"]
    assert again["charge"]["txid"] == charge["txid"]
    assert len(await bookings_of(pool, v)) == 1
    assert await pool.fetchval("SELECT count(*) FROM charges WHERE booking_id = $1", decode_id(booking["id"])[1]) == 1
    # The same slot, taken: refused, nothing left behind.
    taken = (await live.gql(system, CHECKOUT, {"i": checkout_input(v, 19, 2), "k": "app-2"}))["checkout"]
    assert taken == {"__typename": "SlotTaken", "code": "slot_taken"}
    assert len(await bookings_of(pool, v)) == 1


async def test_a_checkout_whose_charge_fails_leaves_no_hold_and_replays_its_refusal(
        live: Any, pool: Any, monkeypatch: Any) -> None:
    v = await venue(pool)
    _, system = await live.access.issue_token(None, None, "system", None, [], "tests")
    provider = live.app.state.slothold["provider"]
    monkeypatch.setattr(provider, "failing", True)
    failed = (await live.gql(system, CHECKOUT, {"i": checkout_input(v, 20, 3), "k": "app-3"}))["checkout"]
    assert failed == {"__typename": "PaymentUnavailable", "code": "payment_unavailable"}
    ((bid, status),) = await bookings_of(pool, v)
    assert status == "cancelled"  # no hold is left: the slot is free at once
    assert await pool.fetchval("SELECT count(*) FROM allocations WHERE booking_id = $1 AND occupies", bid) == 0
    monkeypatch.setattr(provider, "failing", False)
    replayed = (await live.gql(system, CHECKOUT, {"i": checkout_input(v, 20, 3), "k": "app-3"}))["checkout"]
    assert replayed == failed and len(await bookings_of(pool, v)) == 1  # the same answer, nothing new
    # A new key gets the (free) slot.
    ok = (await live.gql(system, CHECKOUT, {"i": checkout_input(v, 20, 3), "k": "app-4"}))["checkout"]
    assert ok["booking"]["status"] == "PENDING_PAYMENT"
    # A hold too short to pay by Pix is refused the same way: cancelled, its refusal replayed by the key.
    await pool.execute("UPDATE units SET hold_ttl_payment_seconds = 120, charge_margin_seconds = 100, "
                       "hold_min_seconds = 0 WHERE id = $1", v.unit_id)
    from store.units import invalidate

    invalidate(v.unit_id)
    short = (await live.gql(system, CHECKOUT, {"i": checkout_input(v, 21, 5), "k": "app-5"}))["checkout"]
    assert short == {"__typename": "InvalidInput", "field": "bookingId", "code": "hold_too_short"}
    assert [s for _, s in await bookings_of(pool, v)][-1] == "cancelled"
    again = (await live.gql(system, CHECKOUT, {"i": checkout_input(v, 21, 5), "k": "app-5"}))["checkout"]
    assert again == short


async def test_a_waitlist_turned_off_refuses_joins_and_makes_no_offers(
        live: Any, pool: Any, clock: MutableClock) -> None:
    v, other = await venue(pool), await venue(pool)
    deps = Deps(uow=lambda: PgUnitOfWork(pool), clock=clock)
    owner_id, owner = await live.access.issue_token(v.tenant_id, v.unit_id, "staff", "owner", [], "owner")
    _, manager = await live.access.issue_token(v.tenant_id, v.unit_id, "staff", "manager", [], "manager")
    _, stranger = await live.access.issue_token(other.tenant_id, None, "staff", "owner", [], "elsewhere")
    u, field, aula = str(v.unit_id), str(v.resource_ids["Campo 1"]), str(v.resource_ids["Aula"])
    slot = {"u": u, "r": field, "s": at(12, 19).isoformat(), "e": at(12, 20).isoformat()}
    taken = await counter_booking(deps, CounterCommand(v.unit_id, at(12, 19), at(12, 20), (v.resource_ids["Campo 1"],),
                                                       customer=customer(81)))
    waiting = (await live.gql(owner, JOIN, {**slot, "c": cpf(630_001)}))["joinSlotWaitlist"]
    assert waiting["status"] == "WAITING"
    for caller in (manager, stranger):
        body = await live.post(caller, SWITCH, {"r": field, "on": False})
        assert body["errors"][0]["extensions"]["code"] == "forbidden", body
    async with live.subscribe(manager, "subscription($u: ID!) { venueChanged(unitId: $u) { entity entityId "
                                       "session } }", {"u": u}) as feed:
        off = (await live.gql(owner, SWITCH, {"r": field, "on": False}))["setWaitlistEnabled"]
        assert off == {"__typename": "WaitlistSetting", "resourceId": global_id("Resource", field), "seatEventId": None,
                       "waitlistEnabled": False}
        assert (await feed.next())["venueChanged"] == {"entity": "RESOURCE", "entityId": global_id("Resource", field),
                                                       "session": f"staff:{owner_id}"}
    logged = (await live.gql(manager, CHANGES, {"u": u}))["venueChanges"][0]
    assert (logged["before"], logged["after"]) == ({"waitlistEnabled": True}, {"waitlistEnabled": False})
    refused = (await live.gql(owner, JOIN, {**slot, "c": cpf(630_002)}))["joinSlotWaitlist"]
    assert refused == {"__typename": "InvalidInput", "field": "resourceId", "code": "waitlist_disabled"}
    # The slot frees: nobody is offered it while the waitlist is off; turned on again, the sweep offers it.
    await cancel(deps, ChangeCommand(taken.booking.id, actor="staff", reason="desistiu"))
    await sweep_waitlists(deps)
    status = "SELECT status FROM slot_waitlist WHERE id = $1"
    assert await pool.fetchval(status, decode_id(waiting["id"])[1]) == "waiting"
    await live.gql(owner, SWITCH, {"r": field, "on": True})
    await sweep_waitlists(deps)
    assert await pool.fetchval(status, decode_id(waiting["id"])[1]) == "offered"
    # The capacity waitlist of a pooled resource follows its switch too.
    await live.gql(owner, SWITCH, {"r": aula, "on": False})
    capacity = {"u": u, "r": aula, "s": at(12, 19).isoformat(), "e": at(12, 20).isoformat()}
    refused = (await live.gql(owner, JOIN_CAPACITY, capacity))["joinCapacityWaitlist"]
    assert refused == {"__typename": "InvalidInput", "field": "resourceId", "code": "waitlist_disabled"}
    # Exactly one target; a resource of another tenant is out of reach.
    both = (await live.gql(owner, SWITCH, {"r": field, "e": field, "on": True}))["setWaitlistEnabled"]
    assert both == {"__typename": "InvalidInput", "field": "resourceId", "code": "required"}
    body = await live.post(stranger, SWITCH, {"r": field, "on": True})
    assert body["errors"][0]["extensions"]["code"] == "forbidden"


async def test_a_seat_events_waitlist_switch_is_kept_and_logged(live: Any, pool: Any, clock: MutableClock) -> None:
    from domain import seatmaps

    v = await venue(pool)
    deps = Deps(uow=lambda: PgUnitOfWork(pool), clock=clock)
    m = await seatmaps.create_seat_map(deps, v.unit_id, "Palco", [seatmaps.SectionSpec("P", (seatmaps.RowSpec(
        "A", ("1", "2")),))])
    e = await seatmaps.create_event(deps, m.id, "Show", at(10, 20), at(10, 22))
    owner_id, owner = await live.access.issue_token(v.tenant_id, v.unit_id, "staff", "owner", [], "owner")
    r = (await live.gql(owner, SWITCH, {"e": str(e.id), "on": False}))["setWaitlistEnabled"]
    assert r == {"__typename": "WaitlistSetting", "resourceId": None, "seatEventId": global_id("SeatEvent", e.id),
                 "waitlistEnabled": False}
    assert await pool.fetchval("SELECT waitlist_enabled FROM seat_events WHERE id = $1", e.id) is False
    logged = (await live.gql(owner, CHANGES, {"u": str(v.unit_id)}))["venueChanges"][0]
    assert (logged["entity"], logged["entityId"], logged["session"]) == ("SEAT_EVENT", global_id("SeatEvent", e.id),
                                                                         f"staff:{owner_id}")
    missing = (await live.gql(owner, SWITCH, {"e": str(uuid4()), "on": False}))["setWaitlistEnabled"]
    assert missing == {"__typename": "NotFound", "field": "seatEventId"}
