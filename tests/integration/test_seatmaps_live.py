"""Seat maps through real API and worker processes: many buyers for one seat over HTTP, and the grid subscription
(slotChanged) serving the seat map's changes live, blocks included."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.integration.cluster import WsClient, cluster, gql
from tests.integration.test_realtime import tomorrow
from tests.venues import arena, cpf

SEATS = """
subscription($unit: ID!, $from: DateTime!, $to: DateTime!) {
  slotChanged(unitId: $unit, from: $from, to: $to) {
    seq event bookingId status state seatState holdType displayColor slots { resourceId }
  }
}
"""
MAP = """mutation($u: ID!) { createSeatMap(input: {unitId: $u, name: "Teatro", sections: [
  {name: "Plateia", rows: [{label: "A", seats: ["1","2","3","4","5","6"]}, {label: "B", seats: ["1","2","3"]}]}]}) {
  __typename ... on SeatMap { id seatCount } ... on Error { code message } } }"""
EVENT = """mutation($m: ID!, $s: DateTime!, $e: DateTime!) { createSeatEvent(seatMapId: $m, name: "Hamlet",
  startsAt: $s, endsAt: $e) { __typename ... on SeatEvent { id startsAt endsAt } ... on Error { code message } } }"""
VIEW = """query($e: ID!) { seatMap(eventId: $e) { __typename ... on SeatMapView {
  counts { active locked sold blocked } sections { name rows { label seats { id label state holdType bookingId } } }
} } }"""
LOCK = """mutation($e: ID!, $s: [ID!]!, $c: String!) { lockSeats(input: {eventId: $e, seatIds: $s,
  customer: {cpf: $c}}) { __typename ... on BookingPayload { booking { id holdType } }
  ... on SeatsUnavailable { code seats { seatId label state } } ... on Error { code message } } }"""
BLOCK = """mutation($e: ID!, $s: [ID!]!) { blockSeats(eventId: $e, seatIds: $s, reason: "quebrada") {
  __typename ... on SeatsChanged { seats } ... on Error { code } } }"""


async def test_many_buyers_one_seat_and_the_seat_map_live(database_url: str, redis_url: str, pool: Any,
                                                          tmp_path: Path) -> None:
    v = await arena(pool)
    with cluster(database_url, redis_url, tmp_path, apis=1, workers=1) as c:
        port = c.apis[0][1]
        m = (await gql(port, MAP, {"u": str(v.unit_id)}))["createSeatMap"]
        assert m["seatCount"] == 9, m
        start, end = tomorrow(20), tomorrow(22)
        e = (await gql(port, EVENT, {"m": m["id"], "s": start.isoformat(), "e": end.isoformat()}))["createSeatEvent"]
        view = (await gql(port, VIEW, {"e": e["id"]}))["seatMap"]
        assert view["counts"] == {"active": 9, "locked": 0, "sold": 0, "blocked": 0}
        row_a = view["sections"][0]["rows"][0]["seats"]
        hot, other = row_a[0]["id"], row_a[1]["id"]

        ws = await WsClient.connect(port)
        await ws.subscribe(SEATS, {"unit": str(v.unit_id), "from": start.isoformat(), "to": end.isoformat()})
        await asyncio.sleep(0.3)
        tries = await asyncio.gather(*(gql(port, LOCK, {"e": e["id"], "s": [hot, row_a[2 + n % 4]["id"]],
                                                        "c": cpf(610_000 + n)}) for n in range(12)))
        kinds = [t["lockSeats"]["__typename"] for t in tries]
        assert kinds.count("BookingPayload") == 1 and kinds.count("SeatsUnavailable") == 11, kinds
        for t in tries:
            if t["lockSeats"]["__typename"] == "SeatsUnavailable":
                assert {s["seatId"] for s in t["lockSeats"]["seats"]} >= {hot}
        won = next(t["lockSeats"]["booking"] for t in tries if t["lockSeats"]["__typename"] == "BookingPayload")
        (locked,) = await ws.collect(1)
        change = locked["slotChanged"]
        assert (change["bookingId"], change["seatState"], change["holdType"]) == (won["id"], "LOCKED", "CART")
        assert hot in {s["resourceId"] for s in change["slots"]}

        assert (await gql(port, BLOCK, {"e": e["id"], "s": [other]}))["blockSeats"] == {
            "__typename": "SeatsChanged", "seats": 1}
        (blocked,) = await ws.collect(1)
        assert blocked["slotChanged"]["bookingId"] is None and blocked["slotChanged"]["seatState"] == "BLOCKED"
        assert [s["resourceId"] for s in blocked["slotChanged"]["slots"]] == [other]
        await ws.close()

        view = (await gql(port, VIEW, {"e": e["id"]}))["seatMap"]
        assert view["counts"] == {"active": 6, "locked": 2, "sold": 0, "blocked": 1}
        seats = {s["id"]: s for s in view["sections"][0]["rows"][0]["seats"]}
        assert seats[hot]["state"] == "LOCKED" and seats[hot]["bookingId"] == won["id"]
        assert seats[other]["state"] == "BLOCKED"


SEATS_SINCE = """
subscription($unit: ID!, $from: DateTime!, $to: DateTime!, $since: Int) {
  slotChanged(unitId: $unit, from: $from, to: $to, since: $since) { seq bookingId seatState slots { resourceId } }
}
"""


async def test_a_seat_map_followed_from_its_seq_misses_a_seat_taken_before_the_subscription(
        database_url: str, redis_url: str, pool: Any, tmp_path: Path) -> None:
    """The seat map says which event it reflects (`seq`): a buyer whose subscription starts late, with since: seq,
    still hears of a seat locked after the read."""
    v = await arena(pool)
    with cluster(database_url, redis_url, tmp_path, apis=1, workers=1) as c:
        port = c.apis[0][1]
        m = (await gql(port, MAP, {"u": str(v.unit_id)}))["createSeatMap"]
        start, end = tomorrow(20), tomorrow(22)
        e = (await gql(port, EVENT, {"m": m["id"], "s": start.isoformat(), "e": end.isoformat()}))["createSeatEvent"]
        view = (await gql(port, VIEW.replace("counts {", "seq counts {"), {"e": e["id"]}))["seatMap"]
        assert view["seq"] == await pool.fetchval(
            "SELECT coalesce((SELECT last_seq FROM unit_sequences WHERE unit_id = $1), 0)", v.unit_id)
        seat = view["sections"][0]["rows"][0]["seats"][0]["id"]
        won = (await gql(port, LOCK, {"e": e["id"], "s": [seat], "c": cpf(620_001)}))["lockSeats"]
        assert won["__typename"] == "BookingPayload", won
        for _ in range(100):  # numbered by the relay before the subscriber gets there
            if await pool.fetchval("SELECT count(*) FROM outbox WHERE unit_id = $1 AND topic = 'slot_changed' "
                                   "AND seq > $2", v.unit_id, view["seq"]):
                break
            await asyncio.sleep(0.1)
        ws = await WsClient.connect(port)
        await ws.subscribe(SEATS_SINCE, {"unit": str(v.unit_id), "from": start.isoformat(), "to": end.isoformat(),
                                         "since": view["seq"]})
        (caught,) = await ws.collect(1)
        assert caught["slotChanged"]["bookingId"] == won["booking"]["id"]
        assert caught["slotChanged"]["seatState"] == "LOCKED"
        assert [s["resourceId"] for s in caught["slotChanged"]["slots"]] == [seat]
        await ws.close()
