"""The grid and bookable slots through the API, with the unit's clock and parameters."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from schema.ids import decode_id
from tests.api.conftest import Api
from tests.api.test_hold_api import GRID, HOLD, hold_input
from tests.venues import arena, at

BOOKABLE = """
query($unit: ID!, $from: DateTime!, $to: DateTime!, $r: ID, $slots: Int, $q: Int) {
  bookableSlots(unitId: $unit, from: $from, to: $to, resourceId: $r, slots: $slots, quantity: $q) {
    __typename
    ... on BookableSlots { slots { resourceId startsAt endsAt } }
    ... on Error { code message }
    ... on InvalidInput { field }
  }
}
"""


def starts(data: dict[str, Any]) -> list[str]:
    return [s["startsAt"] for s in data["bookableSlots"]["slots"]]


async def test_bookable_slots_follow_the_seed_example_of_rn_atd_06(api: Api, pool: Any, clock: Any) -> None:
    v = await arena(pool, fields=2)
    c1 = v.resource_ids["Campo 1"]
    clock.set(at(8, 17, 20))  # 17:20 local: 18:00 is under an hour away, the first offer is 19:00
    other = await api.gql(HOLD, {"input": hold_input(v.unit_id, [c1], at(8, 20), at(8, 21))})
    assert other["hold"]["__typename"] == "BookingPayload"
    data = await api.gql(BOOKABLE, {"unit": str(v.unit_id), "from": at(8, 0).isoformat(),
                                    "to": at(9, 0).isoformat(), "r": str(c1)})
    assert starts(data) == [at(8, h).isoformat() for h in (19, 21, 22)]  # 20:00 is held by another


async def test_any_resource_and_consecutive_slots(api: Api, pool: Any, clock: Any) -> None:
    v = await arena(pool, fields=2)
    c1, c2 = v.resource_ids["Campo 1"], v.resource_ids["Campo 2"]
    clock.set(at(8, 17, 20))
    await api.gql(HOLD, {"input": hold_input(v.unit_id, [c1], at(8, 21), at(8, 22))})
    data = await api.gql(BOOKABLE, {"unit": str(v.unit_id), "from": at(8, 0).isoformat(),
                                    "to": at(9, 0).isoformat(), "slots": 2})
    pairs = [(str(decode_id(s["resourceId"])[1]), s["startsAt"], s["endsAt"]) for s in data["bookableSlots"]["slots"]]
    assert (str(c1), at(8, 19).isoformat(), at(8, 21).isoformat()) in pairs
    assert (str(c1), at(8, 20).isoformat(), at(8, 22).isoformat()) not in pairs  # crosses the held 21:00
    assert (str(c2), at(8, 21).isoformat(), at(8, 23).isoformat()) in pairs  # until closing at 23:00


async def test_an_expired_hold_counts_as_free_and_far_dates_offer_nothing(api: Api, pool: Any, clock: Any) -> None:
    v = await arena(pool, fields=1)
    c1 = v.resource_ids["Campo 1"]
    made = await api.gql(HOLD, {"input": hold_input(v.unit_id, [c1], at(9, 19), at(9, 20))})
    deadline = made["hold"]["booking"]["holdExpiresAt"]
    assert deadline == (clock.now() + timedelta(minutes=10)).isoformat()  # no payment due: 10 minutes
    q = {"unit": str(v.unit_id), "from": at(9, 19).isoformat(), "to": at(9, 20).isoformat()}
    assert starts(await api.gql(BOOKABLE, q)) == []
    clock.advance(minutes=10)
    assert starts(await api.gql(BOOKABLE, q)) == [at(9, 19).isoformat()]
    far = {"unit": str(v.unit_id), "from": (clock.now() + timedelta(days=40)).isoformat(),
           "to": (clock.now() + timedelta(days=41)).isoformat()}
    assert starts(await api.gql(BOOKABLE, far)) == []


async def test_bookable_slots_refuse_bad_ranges(api: Api, pool: Any) -> None:
    v = await arena(pool, fields=1)
    bad = await api.gql(BOOKABLE, {"unit": str(v.unit_id), "from": at(9, 20).isoformat(), "to": at(9, 19).isoformat()})
    assert bad["bookableSlots"]["field"] == "to"
    naive = await api.gql(BOOKABLE, {"unit": str(v.unit_id), "from": "2026-12-09T10:00:00",
                                     "to": at(9, 19).isoformat()})
    assert (naive["bookableSlots"]["code"], naive["bookableSlots"]["field"]) == ("naive_datetime", "from")


async def test_the_grid_shows_holds_with_their_type_and_colour_and_a_compact_form(api: Api, pool: Any) -> None:
    v = await arena(pool, fields=1)
    c1 = v.resource_ids["Campo 1"]
    await api.gql(HOLD, {"input": hold_input(v.unit_id, [c1], at(8, 19), at(8, 20))})
    counter = await api.gql("""mutation($i: CounterBookingInput!) { counterBooking(input: $i) { __typename } }""",
                            {"i": {"unitId": str(v.unit_id), "resourceIds": [str(c1)],
                                   "startsAt": at(8, 21).isoformat(), "endsAt": at(8, 23).isoformat()}})
    assert counter["counterBooking"]["__typename"] == "BookingPayload"
    grid = await api.gql(GRID, {"unit": str(v.unit_id), "from": at(8, 0).isoformat(), "to": at(9, 0).isoformat(),
                                "rs": [str(c1)]})
    segs = grid["availabilityGrid"]["rows"][0]["segments"]
    assert [(s["startsAt"], s["state"], s["slots"]) for s in segs] == [
        (at(8, 8).isoformat(), "FREE", 11), (at(8, 19).isoformat(), "HELD", 1), (at(8, 20).isoformat(), "FREE", 1),
        (at(8, 21).isoformat(), "BOOKED", 2)]
    held = segs[1]
    assert (held["holdType"], held["holdTypeName"], held["displayColor"]) == ("CART", "Hold do bot", "#F59E0B")
    compact = await api.gql("""query($u: ID!, $f: DateTime!, $t: DateTime!) { availabilityGrid(unitId: $u, from: $f,
        to: $t) { ... on Grid { rows { windowStarts windowStates } } } }""",
                            {"u": str(v.unit_id), "f": at(8, 0).isoformat(), "t": at(9, 0).isoformat()})
    row = compact["availabilityGrid"]["rows"][0]
    assert row == {"windowStarts": [at(8, 8).isoformat()], "windowStates": ["F" * 11 + "HFBB"]}


async def test_the_grid_names_each_holds_channel_and_no_other_runs(api: Api, pool: Any) -> None:
    """Issue 20: a grid names a default-type hold by where it came from without reading each booking."""
    v = await arena(pool, fields=1)
    c1 = v.resource_ids["Campo 1"]
    for hour, channel, n in ((18, "WHATSAPP", 1), (19, "WEB", 2), (20, None, 3)):  # None: staff through the API
        extra = {"channel": channel} if channel else {}
        made = await api.gql(HOLD, {"input": hold_input(v.unit_id, [c1], at(8, hour), at(8, hour + 1), n, **extra)})
        assert made["hold"]["__typename"] == "BookingPayload", made
    counter = await api.gql("""mutation($i: CounterBookingInput!) { counterBooking(input: $i) { __typename } }""",
                            {"i": {"unitId": str(v.unit_id), "resourceIds": [str(c1)],
                                   "startsAt": at(8, 21).isoformat(), "endsAt": at(8, 22).isoformat()}})
    assert counter["counterBooking"]["__typename"] == "BookingPayload"
    grid = await api.gql("""query($u: ID!, $f: DateTime!, $t: DateTime!, $rs: [ID!]) {
        availabilityGrid(unitId: $u, from: $f, to: $t, resourceIds: $rs) {
        ... on Grid { rows { segments { startsAt state holdType channel } } } } }""",
                         {"u": str(v.unit_id), "f": at(8, 17).isoformat(), "t": at(8, 22).isoformat(),
                          "rs": [str(c1)]})
    segs = [(s["startsAt"], s["state"], s["holdType"], s["channel"])
            for s in grid["availabilityGrid"]["rows"][0]["segments"]]
    assert segs == [(at(8, 17).isoformat(), "FREE", None, None), (at(8, 18).isoformat(), "HELD", "CART", "WHATSAPP"),
                    (at(8, 19).isoformat(), "HELD", "CART", "WEB"), (at(8, 20).isoformat(), "HELD", "CART", "API"),
                    (at(8, 21).isoformat(), "BOOKED", None, None)]  # a booking that is not a hold: no origin shown
