"""Reschedule and counter refusals through the GraphQL API (SPEC §11), on real PostgreSQL."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

from schema.ids import decode_id, global_id
from store.access import PgAccess
from tests.api.conftest import Api
from tests.conftest import MutableClock
from tests.venues import arena, at, cpf

RESCHEDULE = """
mutation($b: ID!, $i: RescheduleInput!, $key: String) {
  reschedule(bookingId: $b, input: $i, idempotencyKey: $key) {
    __typename
    ... on BookingPayload { replayed booking { id status startsAt rescheduledFrom rescheduledTo paidCents
                                             allocations { resourceId } } }
    ... on SlotTaken { alternatives { resourceId startsAt } }
    ... on InvalidTransition { currentState }
    ... on InvalidInput { field }
    ... on Error { code message }
  }
}
"""

COUNTER = """
mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!, $cpf: String) {
  counterBooking(input: {unitId: $u, resourceIds: [$r], startsAt: $s, endsAt: $e, customer: {cpf: $cpf}}) {
    __typename
    ... on BookingPayload { booking { id status } }
    ... on SlotTaken { code message heldBookingId alternatives { resourceId startsAt } }
    ... on Error { code message }
  }
}
"""

HOLD = """
mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!, $cpf: String) {
  hold(input: {unitId: $u, resourceIds: [$r], startsAt: $s, endsAt: $e, customer: {cpf: $cpf}}) {
    __typename ... on BookingPayload { booking { id status } } ... on Error { code message }
  }
}
"""

BOOKING = "query($b: ID!) { booking(id: $b) { ... on Booking { status rescheduledFrom rescheduledTo } } }"


def slot(day: int, hour: int, resource: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {"startsAt": at(day, hour).isoformat(), "endsAt": at(day, hour + 1).isoformat()}
    if resource is not None:
        out["resourceIds"] = [str(resource)]
    return out


async def counter(api: Api, unit: Any, resource: Any, day: int, hour: int, n: int = 1) -> dict[str, Any]:
    r = await api.gql(COUNTER, {"u": str(unit), "r": str(resource), "s": at(day, hour).isoformat(),
                                "e": at(day, hour + 1).isoformat(), "cpf": cpf(300_000 + n)})
    return r["counterBooking"]  # type: ignore[no-any-return]


async def test_reschedule_moves_a_booking_and_links_both_ways(api: Api, pool: Any) -> None:
    v = await arena(pool)
    c1, c2 = v.resource_ids["Campo 1"], v.resource_ids["Campo 2"]
    old = (await counter(api, v.unit_id, c1, 12, 19))["booking"]
    r = (await api.gql(RESCHEDULE, {"b": old["id"], "i": slot(12, 21, c2)}))["reschedule"]
    assert r["__typename"] == "BookingPayload" and not r["replayed"], r
    new = r["booking"]
    assert (new["status"], new["rescheduledFrom"], new["rescheduledTo"]) == ("CONFIRMED", old["id"], None)
    assert new["allocations"] == [{"resourceId": global_id("Resource", c2)}]
    assert datetime.fromisoformat(new["startsAt"]) == at(12, 21)
    seen = (await api.gql(BOOKING, {"b": old["id"]}))["booking"]
    assert seen == {"status": "CANCELLED", "rescheduledFrom": None, "rescheduledTo": new["id"]}
    reason = await pool.fetchval("SELECT reason FROM booking_events WHERE booking_id = $1 ORDER BY id DESC LIMIT 1",
                                 decode_id(old["id"])[1])
    assert reason == "rescheduled"
    # Omitted resources: the booking's own.
    again = (await api.gql(RESCHEDULE, {"b": new["id"], "i": slot(12, 22)}))["reschedule"]
    assert again["booking"]["allocations"] == [{"resourceId": global_id("Resource", c2)}], again


async def test_a_taken_slot_answers_with_alternatives_and_changes_nothing(api: Api, pool: Any) -> None:
    v = await arena(pool)
    c1, c2 = v.resource_ids["Campo 1"], v.resource_ids["Campo 2"]
    mine = (await counter(api, v.unit_id, c1, 12, 19, 1))["booking"]
    await counter(api, v.unit_id, c2, 12, 20, 2)
    r = (await api.gql(RESCHEDULE, {"b": mine["id"], "i": slot(12, 20, c2)}))["reschedule"]
    assert r["__typename"] == "SlotTaken" and r["code"] == "slot_taken" and len(r["alternatives"]) == 3, r
    assert (await api.gql(BOOKING, {"b": mine["id"]}))["booking"]["status"] == "CONFIRMED"
    assert await pool.fetchval("SELECT count(*) FROM bookings WHERE unit_id = $1", v.unit_id) == 2


async def test_idempotent_replay_and_refusals(api: Api, pool: Any, clock: MutableClock) -> None:
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    b = (await counter(api, v.unit_id, c1, 12, 19))["booking"]
    first = (await api.gql(RESCHEDULE, {"b": b["id"], "i": slot(12, 20), "key": "r-1"}))["reschedule"]
    again = (await api.gql(RESCHEDULE, {"b": b["id"], "i": slot(12, 20)}, headers={"idempotency-key": "r-1"}))
    assert again["reschedule"]["replayed"] is True
    assert again["reschedule"]["booking"]["id"] == first["booking"]["id"]
    other = (await api.gql(RESCHEDULE, {"b": b["id"], "i": slot(12, 21), "key": "r-1"}))["reschedule"]
    assert other["code"] == "idempotency_key_reused"
    # The old booking is cancelled now: moving it again is an invalid transition.
    stale = (await api.gql(RESCHEDULE, {"b": b["id"], "i": slot(12, 22)}))["reschedule"]
    assert (stale["__typename"], stale["currentState"]) == ("InvalidTransition", "cancelled")
    # Started bookings are refused.
    today = (await counter(api, v.unit_id, c1, 7, 10, 2))["booking"]
    clock.advance(hours=1, minutes=1)
    started = (await api.gql(RESCHEDULE, {"b": today["id"], "i": slot(12, 10)}))["reschedule"]
    assert started["__typename"] == "InvalidTransition" and "already started" in started["message"], started


async def test_staff_move_without_the_minimum_advance_and_are_named_in_the_audit(
    api: Api, pool: Any, clock: MutableClock
) -> None:
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    tenant = await pool.fetchval("SELECT o.tenant_id FROM units u JOIN organizations o ON o.id = u.organization_id "
                                 "WHERE u.id = $1", v.unit_id)
    _, staff = await PgAccess(pool).issue_token(tenant, v.unit_id, "staff", "operator", [], "desk")
    b = (await counter(api, v.unit_id, c1, 12, 19))["booking"]
    clock.advance(minutes=1)
    soon = slot(7, 10)  # 09:01 now: 59 minutes ahead, under the 60-minute minimum advance
    r = (await api.gql(RESCHEDULE, {"b": b["id"], "i": soon}))["reschedule"]
    assert r["code"] == "too_soon", r  # the system token books as self-service does
    moved = (await api.gql(RESCHEDULE, {"b": b["id"], "i": soon},
                           headers={"authorization": f"Bearer {staff}"}))["reschedule"]
    assert moved["__typename"] == "BookingPayload", moved
    actor = await pool.fetchval("SELECT actor FROM booking_events WHERE booking_id = $1 AND reason = 'rescheduled'",
                                decode_id(b["id"])[1])
    assert actor == "staff"


async def test_two_reschedules_to_one_slot_at_once_have_one_winner(api: Api, pool: Any) -> None:
    v = await arena(pool)
    c1, c2, c3 = (v.resource_ids[f"Campo {i}"] for i in (1, 2, 3))
    a = (await counter(api, v.unit_id, c1, 12, 19, 1))["booking"]
    b = (await counter(api, v.unit_id, c2, 12, 19, 2))["booking"]
    results = await asyncio.gather(*(api.gql(RESCHEDULE, {"b": x["id"], "i": slot(12, 21, c3)}) for x in (a, b)))
    kinds = sorted(r["reschedule"]["__typename"] for r in results)
    assert kinds == ["BookingPayload", "SlotTaken"], results
    statuses = sorted([(await api.gql(BOOKING, {"b": x["id"]}))["booking"]["status"] for x in (a, b)])
    assert statuses == ["CANCELLED", "CONFIRMED"]


async def test_a_counter_booking_over_a_hold_names_the_hold_to_drop(api: Api, pool: Any) -> None:
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    h = await api.gql(HOLD, {"u": str(v.unit_id), "r": str(c1), "s": at(12, 19).isoformat(),
                             "e": at(12, 20).isoformat(), "cpf": cpf(310_001)})
    hold_id = h["hold"]["booking"]["id"]
    refused = await counter(api, v.unit_id, c1, 12, 19, 5)
    assert (refused["__typename"], refused["code"], refused["heldBookingId"]) == ("SlotTaken", "slot_held", hold_id)
    assert "drop the hold first (drop)" in refused["message"] and refused["alternatives"]
    await counter(api, v.unit_id, c1, 12, 21, 6)
    booked = await counter(api, v.unit_id, c1, 12, 21, 7)
    assert (booked["code"], booked["heldBookingId"]) == ("slot_taken", None)
    dropped = await api.gql('mutation($b: ID!) { drop(bookingId: $b, reason: "balcão") { __typename } }',
                            {"b": hold_id})
    assert dropped["drop"]["__typename"] == "BookingPayload"
    assert (await counter(api, v.unit_id, c1, 12, 19, 5))["booking"]["status"] == "CONFIRMED"
