"""What the seeds' examples showed differently (issue 18), each found by trying the product: lockSeats resent
with its idempotency key replays, orphan Pix are findable by staff, walk-in and capacity offers carry a claim
link that claims them."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import Api
from tests.venues import arena, at, cpf

SEAT_MAP = """mutation($i: SeatMapInput!) { createSeatMap(input: $i) { __typename ... on SeatMap { id }
  ... on Error { code message } } }"""
SEAT_EVENT = """mutation($m: ID!, $s: DateTime!, $e: DateTime!) { createSeatEvent(seatMapId: $m, name: "Hamlet",
  startsAt: $s, endsAt: $e) { __typename ... on SeatEvent { id } ... on Error { code message } } }"""
LOCK = """mutation($i: LockSeatsInput!, $key: String) { lockSeats(input: $i, idempotencyKey: $key) { __typename
  ... on BookingPayload { replayed booking { id status } } ... on Error { code } } }"""


async def seat_event(api: Api, pool: Any) -> tuple[Any, str]:
    v = await arena(pool)
    rows = [{"label": "A", "seats": ["1", "2", "3", "4"]}]
    m = (await api.gql(SEAT_MAP, {"i": {"unitId": str(v.unit_id), "name": "Teatro",
                                        "sections": [{"name": "Plateia", "rows": rows}]}}))["createSeatMap"]
    e = (await api.gql(SEAT_EVENT, {"m": m["id"], "s": at(10, 20).isoformat(), "e": at(10, 23).isoformat()}
                       ))["createSeatEvent"]
    return v, e["id"]


async def seat_ids(pool: Any, unit_id: Any) -> list[str]:
    rows = await pool.fetch("SELECT resource_id FROM seats WHERE unit_id = $1 ORDER BY sort", unit_id)
    return [str(r["resource_id"]) for r in rows]


async def test_lock_seats_resent_with_its_key_replays_and_another_request_under_it_is_refused(
        api: Api, pool: Any) -> None:
    v, event = await seat_event(api, pool)
    seats = await seat_ids(pool, v.unit_id)
    ask = {"eventId": event, "seatIds": seats[:2], "customer": {"cpf": cpf(410_001)}}
    first = (await api.gql(LOCK, {"i": ask, "key": "seats-1"}))["lockSeats"]
    assert first["__typename"] == "BookingPayload" and first["replayed"] is False, first
    again = (await api.gql(LOCK, {"i": ask, "key": "seats-1"}))["lockSeats"]
    assert again == {"__typename": "BookingPayload", "replayed": True, "booking": first["booking"]}
    other = (await api.gql(LOCK, {"i": {**ask, "seatIds": seats[2:]}, "key": "seats-1"}))["lockSeats"]
    assert other == {"__typename": "IdempotencyKeyReused", "code": "idempotency_key_reused"}
    taken = (await api.gql(LOCK, {"i": {**ask, "customer": {"cpf": cpf(410_002)}}, "key": "seats-2"}))["lockSeats"]
    assert taken["__typename"] == "SeatsUnavailable", taken  # a new key on locked seats: still refused
    assert await pool.fetchval("SELECT count(*) FROM bookings WHERE unit_id = $1", v.unit_id) == 1


SELL = """mutation($i: SellSeatsInput!, $key: String) { sellSeats(input: $i, idempotencyKey: $key) { __typename
  ... on SeatBookingsPayload { bookings { id status } } ... on Error { code } } }"""


async def test_sell_seats_resent_with_its_key_answers_the_same_sale(api: Api, pool: Any) -> None:
    v, event = await seat_event(api, pool)
    seats = await seat_ids(pool, v.unit_id)
    ask = {"eventId": event, "seatIds": seats[:2]}
    first = (await api.gql(SELL, {"i": ask, "key": "sale-1"}))["sellSeats"]
    assert first["__typename"] == "SeatBookingsPayload", first
    assert (await api.gql(SELL, {"i": ask, "key": "sale-1"}))["sellSeats"] == first
    other = (await api.gql(SELL, {"i": {**ask, "seatIds": seats[2:]}, "key": "sale-1"}))["sellSeats"]
    assert other == {"__typename": "IdempotencyKeyReused", "code": "idempotency_key_reused"}
    assert await pool.fetchval("SELECT count(*) FROM bookings WHERE unit_id = $1", v.unit_id) == 1
