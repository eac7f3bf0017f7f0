"""The hold engine through the GraphQL HTTP API, on real PostgreSQL."""

from __future__ import annotations

import asyncio
from typing import Any

from schema.ids import global_id
from tests.api.conftest import Api
from tests.venues import arena, at, cpf

HOLD = """
mutation($input: HoldInput!, $key: String) {
  hold(input: $input, idempotencyKey: $key) {
    __typename
    ... on BookingPayload { replayed booking { id status holdType holdExpiresAt startsAt endsAt
                                             allocations { resourceId quantity } } }
    ... on SlotTaken { code message alternatives { resourceId startsAt endsAt } waitlist { resourceId } }
    ... on Error { code message }
    ... on InvalidInput { field }
    ... on NotFound { field }
  }
}
"""

CHANGE = """
mutation($id: ID!) { %s(bookingId: $id%s) {
  __typename
  ... on BookingPayload { booking { id status } }
  ... on InvalidTransition { currentState targetState }
  ... on Error { code message }
} }
"""


def hold_input(unit: Any, resources: list[Any], start: Any, end: Any, n: int = 1, **extra: Any) -> dict[str, Any]:
    return {"unitId": str(unit), "resourceIds": [str(r) for r in resources], "startsAt": start.isoformat(),
            "endsAt": end.isoformat(), "customer": {"cpf": cpf(200_000 + n)}, **extra}


async def bookings_of(pool: Any, unit: Any) -> int:
    async with pool.acquire() as conn:
        return int(await conn.fetchval("SELECT count(*) FROM bookings WHERE unit_id = $1", unit))


async def test_fifty_concurrent_holds_through_the_api_make_one_booking(api: Api, pool: Any) -> None:
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    results = await asyncio.gather(*(
        api.gql(HOLD, {"input": hold_input(v.unit_id, [c1], at(8, 19), at(8, 20), n)}) for n in range(50)
    ))
    kinds = [r["hold"]["__typename"] for r in results]
    assert kinds.count("BookingPayload") == 1
    assert kinds.count("SlotTaken") == 49
    for r in results:
        if r["hold"]["__typename"] == "SlotTaken":
            assert r["hold"]["code"] == "slot_taken"
            assert len(r["hold"]["alternatives"]) == 3
            assert r["hold"]["waitlist"] == [{"resourceId": global_id("Resource", c1)}]
    assert await bookings_of(pool, v.unit_id) == 1


async def test_a_pooled_class_of_twelve_takes_exactly_twelve_of_forty(api: Api, pool: Any) -> None:
    v = await arena(pool, pooled={"Aula de futevôlei": 12})
    aula = v.resource_ids["Aula de futevôlei"]
    results = await asyncio.gather(*(
        api.gql(HOLD, {"input": hold_input(v.unit_id, [aula], at(8, 9), at(8, 10), n)}) for n in range(40)
    ))
    kinds = [r["hold"]["__typename"] for r in results]
    assert kinds.count("BookingPayload") == 12
    assert kinds.count("SlotTaken") == 28
    async with pool.acquire() as conn:
        used = await conn.fetchval("SELECT max(used) FROM pool_usage WHERE resource_id = $1", aula)
    assert used == 12


async def test_overlapping_multi_resource_holds_are_all_or_nothing(api: Api, pool: Any) -> None:
    v = await arena(pool)
    c1, c2, c3 = (v.resource_ids[f"Campo {i}"] for i in (1, 2, 3))
    # Two customers race for overlapping pairs of fields; whoever loses gets nothing at all.
    for round_ in range(5):
        start, end = at(9, 10 + 2 * round_), at(9, 12 + 2 * round_)
        a, b = await asyncio.gather(
            api.gql(HOLD, {"input": hold_input(v.unit_id, [c1, c2], start, end, 2 * round_)}),
            api.gql(HOLD, {"input": hold_input(v.unit_id, [c2, c3], start, end, 2 * round_ + 1)}),
        )
        kinds = sorted([a["hold"]["__typename"], b["hold"]["__typename"]])
        assert kinds == ["BookingPayload", "SlotTaken"]
    async with pool.acquire() as conn:
        rows = await conn.fetch(
            "SELECT b.id, count(a.id) AS n FROM bookings b JOIN allocations a ON a.booking_id = b.id "
            "WHERE b.unit_id = $1 GROUP BY b.id", v.unit_id)
        free_c3_or_c1 = await conn.fetchval(
            "SELECT count(*) FROM allocations WHERE unit_id = $1 AND occupies", v.unit_id)
    assert len(rows) == 5 and all(r["n"] == 2 for r in rows)
    assert free_c3_or_c1 == 10


async def test_a_hold_past_its_deadline_is_free_to_others_with_no_job(api: Api, pool: Any, clock: Any) -> None:
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    first = await api.gql(HOLD, {"input": hold_input(v.unit_id, [c1], at(8, 19), at(8, 20), 1)})
    assert first["hold"]["booking"]["status"] == "HELD"
    taken = await api.gql(HOLD, {"input": hold_input(v.unit_id, [c1], at(8, 19), at(8, 20), 2)})
    assert taken["hold"]["__typename"] == "SlotTaken"
    clock.advance(minutes=10, seconds=1)
    grid = await api.gql(GRID, {"unit": str(v.unit_id), "from": at(8, 19).isoformat(), "to": at(8, 20).isoformat(),
                                "rs": [str(c1)]})
    assert grid["availabilityGrid"]["rows"][0]["segments"][0]["state"] == "FREE"
    second = await api.gql(HOLD, {"input": hold_input(v.unit_id, [c1], at(8, 19), at(8, 20), 2)})
    assert second["hold"]["__typename"] == "BookingPayload"
    old = await api.gql('query($id: ID!) { booking(id: $id) { ... on Booking { status } } }',
                        {"id": first["hold"]["booking"]["id"]})
    assert old["booking"]["status"] == "EXPIRED"


async def test_twenty_concurrent_retries_with_one_key_make_one_booking(api: Api, pool: Any) -> None:
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    variables = {"input": hold_input(v.unit_id, [c1], at(8, 19), at(8, 20), 1)}
    results = await asyncio.gather(*(
        api.gql(HOLD, variables, headers={"Idempotency-Key": "retry-me"}) for _ in range(20)
    ))
    assert {r["hold"]["__typename"] for r in results} == {"BookingPayload"}
    assert len({r["hold"]["booking"]["id"] for r in results}) == 1
    assert [r["hold"]["replayed"] for r in results].count(False) == 1
    assert await bookings_of(pool, v.unit_id) == 1
    different = {"input": hold_input(v.unit_id, [c1], at(8, 20), at(8, 21), 1)}
    reused = await api.gql(HOLD, different, headers={"Idempotency-Key": "retry-me"})
    assert reused["hold"]["code"] == "idempotency_key_reused"
    assert await bookings_of(pool, v.unit_id) == 1


async def test_confirm_is_idempotent_by_argument(api: Api, pool: Any) -> None:
    v = await arena(pool)
    held = await api.gql(HOLD, {"input": hold_input(v.unit_id, [v.resource_ids["Campo 1"]], at(8, 19), at(8, 20))})
    bid = held["hold"]["booking"]["id"]
    q = CHANGE % ("confirm", ', idempotencyKey: "c-1"')
    a = await api.gql(q, {"id": bid})
    b = await api.gql(q, {"id": bid})
    assert a == b and a["confirm"]["booking"]["status"] == "CONFIRMED"


async def test_refused_transitions_name_the_current_state(api: Api, pool: Any, clock: Any) -> None:
    v = await arena(pool)
    held = await api.gql(HOLD, {"input": hold_input(v.unit_id, [v.resource_ids["Campo 1"]], at(8, 19), at(8, 20))})
    bid = held["hold"]["booking"]["id"]
    r = await api.gql(CHANGE % ("checkIn", ""), {"id": bid})
    assert r["checkIn"] == {"__typename": "InvalidTransition", "currentState": "held", "targetState": "checked_in",
                            "code": "invalid_transition", "message": "cannot check in a booking that is held"}
    assert (await api.gql(CHANGE % ("confirm", ""), {"id": bid}))["confirm"]["booking"]["status"] == "CONFIRMED"
    clock.set(at(8, 18))  # inside the check-in window
    assert (await api.gql(CHANGE % ("checkIn", ""), {"id": bid}))["checkIn"]["booking"]["status"] == "CHECKED_IN"
    assert (await api.gql(CHANGE % ("complete", ""), {"id": bid}))["complete"]["booking"]["status"] == "COMPLETED"
    again = await api.gql(CHANGE % ("cancel", ""), {"id": bid})
    assert again["cancel"]["currentState"] == "completed"


async def test_drop_needs_a_reason_and_frees_the_slot(api: Api, pool: Any) -> None:
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    held = await api.gql(HOLD, {"input": hold_input(v.unit_id, [c1], at(8, 19), at(8, 20))})
    bid = held["hold"]["booking"]["id"]
    q = 'mutation($id: ID!, $r: String!) { drop(bookingId: $id, reason: $r) { __typename ... on Error { code } ' \
        '... on BookingPayload { booking { status } } } }'
    assert (await api.gql(q, {"id": bid, "r": " "}))["drop"]["code"] == "reason_required"
    assert (await api.gql(q, {"id": bid, "r": "cliente ligou"}))["drop"]["booking"]["status"] == "CANCELLED"
    counter = await api.gql(COUNTER, {"input": {"unitId": str(v.unit_id), "resourceIds": [str(c1)],
                                                "startsAt": at(8, 19).isoformat(), "endsAt": at(8, 20).isoformat()}})
    assert counter["counterBooking"]["booking"]["status"] == "CONFIRMED"


COUNTER = """
mutation($input: CounterBookingInput!) { counterBooking(input: $input) {
  __typename ... on BookingPayload { booking { status channel } } ... on Error { code message }
} }
"""

GRID = """
query($unit: ID!, $from: DateTime!, $to: DateTime!, $rs: [ID!]) {
  availabilityGrid(unitId: $unit, from: $from, to: $to, resourceIds: $rs) {
    __typename
    ... on Grid { slotMinutes rows { resource { name } segments { startsAt endsAt state slots available holdType
                                                               holdTypeName displayColor bookingId } } }
    ... on Error { code message }
  }
}
"""


async def test_bad_input_gets_typed_errors_and_writes_nothing(api: Api, pool: Any) -> None:
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    cases = [
        (hold_input(v.unit_id, [c1], at(8, 20), at(8, 19)), "InvalidInput", "endsAt"),
        (hold_input("00000000-0000-0000-0000-000000000000", [c1], at(8, 19), at(8, 20)), "NotFound", "unitId"),
        (hold_input(v.unit_id, ["00000000-0000-0000-0000-000000000001"], at(8, 19), at(8, 20)), "NotFound",
         "resourceIds"),
        (hold_input("not-a-uuid", [c1], at(8, 19), at(8, 20)), "InvalidInput", "unitId"),
        ({**hold_input(v.unit_id, [c1], at(8, 19), at(8, 20)), "startsAt": "2027-02-01T19:00:00-03:00",
          "endsAt": "2027-02-01T20:00:00-03:00"}, "InvalidInput", "startsAt"),
        ({**hold_input(v.unit_id, [c1], at(8, 19), at(8, 20)), "customer": {"cpf": "123.456.789-00"}},
         "InvalidInput", "customer.cpf"),
        ({**hold_input(v.unit_id, [c1], at(8, 19), at(8, 20)), "startsAt": "2026-12-08T19:00:00"},
         "InvalidInput", "startsAt"),
        (hold_input(v.unit_id, [c1], at(8, 19, 30), at(8, 20, 30)), "InvalidInput", "startsAt"),
        (hold_input(v.unit_id, [c1], at(8, 19), at(8, 20, 30)), "InvalidInput", "endsAt"),
        (hold_input(v.unit_id, [c1], at(7, 9, 0), at(7, 10)), "InvalidInput", "startsAt"),
        ({**hold_input(v.unit_id, [c1], at(8, 19), at(8, 20)), "quantity": 2}, "InvalidInput", "quantity"),
        ({**hold_input(v.unit_id, [c1], at(8, 19), at(8, 20)), "holdType": "NOPE"}, "InvalidInput", "holdType"),
        ({**hold_input(v.unit_id, [c1], at(8, 19), at(8, 20)), "customer": {}}, "InvalidInput", "customer"),
        ({**hold_input(v.unit_id, [c1], at(8, 19), at(8, 20)), "customer": {"phone": "11 9999"}}, "InvalidInput",
         "customer.phone"),
    ]
    for variables, typename, field in cases:
        r = (await api.gql(HOLD, {"input": variables}))["hold"]
        assert (r["__typename"], r.get("field")) == (typename, field), (variables, r)
        assert r["message"]
    assert await bookings_of(pool, v.unit_id) == 0
