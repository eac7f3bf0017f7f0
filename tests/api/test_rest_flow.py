"""The REST door end to end (issue 19 point 6): availability → hold (201, Location) → the same key replays → another
customer's hold on the same slot is 409 slot_taken with alternatives and the waitlist → confirm with the Pix charge →
the sandbox bank pays it → the booking reads CONFIRMED → cancel refunds by the accepted policy. Every response is
checked against the OpenAPI document; ids are passed back exactly as the API gave them."""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

import pytest

from domain.pix import parse
from schema.ids import decode_id
from tests.api.rest_contract import bearer, check, rest_app
from tests.api.test_access import _sign_in
from tests.api.test_payments_api import PAY, paid_venue
from tests.conftest import MutableClock
from tests.venues import at, cpf


def _phone() -> str:
    return f"+55119{secrets.randbelow(10**8):08d}"  # limits are counted in the shared Redis


def hold_body(v: Any, n: int, hour: int = 19) -> dict[str, Any]:
    return {"unitId": str(v.unit_id), "resourceIds": [str(v.resource_ids["Campo 1"])],
            "startsAt": at(12, hour).isoformat(), "endsAt": at(12, hour + 1).isoformat(),
            "customer": {"cpf": cpf(610_000 + n)}, "serviceId": str(v.service_ids["Campo 1h"])}


@pytest.fixture
async def door(database_url: str, redis_url: str, clock: MutableClock, pool: Any) -> Any:
    async with rest_app(database_url, redis_url, clock) as (client, system):
        v = await paid_venue(pool)
        ana = await _sign_in(client, system, v.unit_id, _phone())
        bia = await _sign_in(client, system, v.unit_id, _phone())
        yield client, system, v, ana, bia


async def test_the_core_flow_over_rest(door: Any, pool: Any, clock: MutableClock) -> None:
    client, system, v, ana, bia = door
    # Availability: public, the same slots as bookableSlots.
    r = await client.get("/v1/availability", params={"unitId": str(v.unit_id), "from": at(12, 18).isoformat(),
                                                     "to": at(12, 21).isoformat(), "slots": "1"})
    assert r.status_code == 200, r.text
    slots = check(r)["slots"]
    campo1 = str(v.resource_ids["Campo 1"])
    assert {"resourceId": campo1, "startsAt": at(12, 19).isoformat(), "endsAt": at(12, 20).isoformat()} in [
        {**s, "resourceId": str(decode_id(s["resourceId"])[1])} for s in slots]
    # Ana holds the 19h slot: 201, with where to read it.
    body = hold_body(v, 1)
    r = await client.post("/v1/holds", json=body, headers={**bearer(ana), "Idempotency-Key": "ana-hold-1"})
    assert r.status_code == 201, r.text
    booking = check(r)
    assert booking["status"] == "HELD" and booking["quote"]["dueNowCents"] == 10000
    assert r.headers["location"] == f"/v1/bookings/{booking['id']}" and "idempotent-replayed" not in r.headers
    bid = booking["id"]
    assert await pool.fetchval("SELECT status FROM bookings WHERE id = $1", decode_id(bid)[1]) == "held"
    # The same key and body again: the same answer, and still one booking.
    again = await client.post("/v1/holds", json=body, headers={**bearer(ana), "Idempotency-Key": "ana-hold-1"})
    assert again.status_code == 201 and check(again) == booking
    assert again.headers["idempotent-replayed"] == "true" and again.headers["location"] == r.headers["location"]
    assert await pool.fetchval("SELECT count(*) FROM bookings WHERE unit_id = $1", v.unit_id) == 1
    # Bia wants the same slot: taken, with the nearest free options and the slot's waitlist.
    r = await client.post("/v1/holds", json=hold_body(v, 2), headers={**bearer(bia), "Idempotency-Key": "bia-1"})
    assert r.status_code == 409, r.text
    taken = check(r)
    assert (taken["code"], taken["type"], taken["status"]) == ("slot_taken", "urn:slothold:problem:slot_taken", 409)
    assert r.headers["content-type"].startswith("application/problem+json")
    assert 1 <= len(taken["alternatives"]) <= 3
    assert all(a["startsAt"] != at(12, 19).isoformat() or a["resourceId"] != campo1 for a in taken["alternatives"])
    assert [(w["startsAt"], w["endsAt"]) for w in taken["waitlist"]] == [(at(12, 19).isoformat(),
                                                                          at(12, 20).isoformat())]
    # Ana confirms: pending payment, with the Pix charge to pay.
    r = await client.post(f"/v1/holds/{bid}/confirm", json={"contact": "+5511999990001"},
                          headers={**bearer(ana), "Idempotency-Key": "ana-confirm-1"})
    assert r.status_code == 200, r.text
    confirmed = check(r)
    charge = confirmed["charge"]
    assert confirmed["booking"]["status"] == "PENDING_PAYMENT" and confirmed["booking"]["acceptance"]["contact"] == \
        "+5511999990001"
    assert charge["amountCents"] == 10000 and charge["status"] == "PENDING" and charge["txid"]
    assert parse(charge["copiaECola"])["54"] == "100.00" and charge["qrCodePng"].startswith("data:image/png;base64,")
    assert charge["expiresAt"] < confirmed["booking"]["holdExpiresAt"]
    replay = await client.post(f"/v1/holds/{bid}/confirm", json={"contact": "+5511999990001"},
                               headers={**bearer(ana), "Idempotency-Key": "ana-confirm-1"})
    assert replay.status_code == 200 and check(replay)["charge"]["txid"] == charge["txid"]  # no second charge
    # The customer pays (the sandbox bank); the booking reads confirmed.
    paid = await client.post("/graphql", headers=bearer(system),
                             json={"query": PAY, "variables": {"t": charge["txid"]}})
    assert paid.json()["data"]["sandboxPay"]["outcome"] == "confirmed"
    r = await client.get(f"/v1/bookings/{bid}", headers=bearer(ana))
    assert r.status_code == 200 and check(r)["status"] == "CONFIRMED" and r.json()["paidCents"] == 10000
    # Cancelled 12 h before the start: half back by the accepted policy (≥24 h 100 %, 6–24 h 50 %).
    clock.set(at(12, 19) - timedelta(hours=12))
    r = await client.post(f"/v1/bookings/{bid}/cancel", json={"reason": "imprevisto"},
                          headers={**bearer(ana), "Idempotency-Key": "ana-cancel-1"})
    assert r.status_code == 200, r.text
    cancelled = check(r)
    assert cancelled["status"] == "CANCELLED" and cancelled["paidCents"] == 10000
    [refund] = cancelled["refunds"]
    assert (refund["percent"], refund["amountCents"], refund["policyVersion"], refund["status"]) == (
        50, 5000, 1, "REQUESTED")
    # The slot is free again: Bia may hold it now.
    r = await client.post("/v1/holds", json=hold_body(v, 2), headers={**bearer(bia), "Idempotency-Key": "bia-2"})
    assert r.status_code == 201 and check(r)["status"] == "HELD"


async def test_the_rest_answers_are_graphqls(door: Any) -> None:
    """No second implementation: the REST booking is GraphQL's booking, field for field."""
    client, _, v, ana, _ = door
    r = await client.post("/v1/holds", json=hold_body(v, 3, 20), headers={**bearer(ana), "Idempotency-Key": "g-1"})
    booking = check(r)
    q = ("query($id: ID!) { booking(id: $id) { ... on Booking { id unitId status holdType channel startsAt endsAt "
         "holdExpiresAt customerId dueNowCents paidCents allocations { resourceId startsAt endsAt quantity } } } }")
    g = await client.post("/graphql", headers=bearer(ana), json={"query": q, "variables": {"id": booking["id"]}})
    graphql = g.json()["data"]["booking"]
    assert {k: booking[k] for k in graphql} == graphql
