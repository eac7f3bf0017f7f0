"""Issue 16's account takeover, replayed against two real API processes: each step is refused.

The attacker signs in on one process and works there; the victim's booking is made and read on the other. Every
request is an ordinary HTTP request with a real customer session.
"""

from __future__ import annotations

import json
import re
import secrets
from pathlib import Path
from typing import Any

import httpx

from schema.ids import decode_id
from tests.integration.cluster import cluster, gql
from tests.integration.test_realtime import tomorrow
from tests.venues import arena, cpf

HOLD = """mutation($i: HoldInput!) { hold(input: $i) { __typename
  ... on BookingPayload { booking { id customerId } } ... on InvalidInput { field } ... on Error { code message } } }"""
COUNTER = """mutation($i: CounterBookingInput!) { counterBooking(input: $i) { __typename
  ... on BookingPayload { booking { id customerId } } ... on Error { code message } } }"""
BOOKING = "query($b: ID!) { booking(id: $b) { __typename ... on Booking { id customerId } } }"


async def _post(port: int, token: str | None, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=10) as c:
        r = await c.post("/graphql", json={"query": query, "variables": variables}, headers=headers)
    return r.json()  # type: ignore[no-any-return]


async def _sign_in(port: int, unit: str, phone: str) -> str:
    await _post(port, None, "mutation($u: ID!, $p: String) { requestLoginCode(unitId: $u, phone: $p) { __typename } }",
                {"u": unit, "p": phone})
    msgs = await gql(port, "query($t: String!) { sandboxMessages(to: $t) { text } }", {"t": phone})
    code = re.search(r"\b(\d{6})\b", msgs["sandboxMessages"][0]["text"]).group(1)  # type: ignore[union-attr]
    r = await _post(port, None, "mutation($u: ID!, $p: String, $c: String!) { verifyLoginCode(unitId: $u, phone: $p, "
                                "code: $c) { ... on CustomerSession { token } } }", {"u": unit, "p": phone, "c": code})
    return r["data"]["verifyLoginCode"]["token"]  # type: ignore[no-any-return]


def _slot(unit: str, field: str, hour: int) -> dict[str, Any]:
    return {"unitId": unit, "resourceIds": [field], "startsAt": tomorrow(hour).isoformat(),
            "endsAt": tomorrow(hour + 1).isoformat()}


async def test_the_takeover_is_refused_at_every_step_across_two_api_processes(database_url: str, redis_url: str,
                                                                              pool: Any, tmp_path: Path) -> None:
    v = await arena(pool)
    unit, c1, c2 = str(v.unit_id), str(v.resource_ids["Campo 1"]), str(v.resource_ids["Campo 2"])
    victim_cpf, victim_phone = cpf(750_001), f"+55119{secrets.randbelow(10**8):08d}"
    with cluster(database_url, redis_url, tmp_path, apis=2, workers=0) as c:
        (_, one), (_, two) = c.apis
        # 1. staff book at the counter for V (process two)
        v_booking = (await gql(two, COUNTER, {"i": {**_slot(unit, c1, 10), "customer": {
            "cpf": victim_cpf, "phone": victim_phone}}}))["counterBooking"]["booking"]
        # 2. the attacker signs in with their own phone (process one)
        attacker = await _sign_in(one, unit, f"+55119{secrets.randbelow(10**8):08d}")
        # 3. a hold naming V's CPF is refused, and says nothing of V
        r = await _post(one, attacker, HOLD, {"i": {**_slot(unit, c2, 14), "customer": {"cpf": victim_cpf}}})
        assert r["data"]["hold"]["code"] == "identity_conflict", r
        assert v_booking["id"] not in json.dumps(r) and v_booking["customerId"] not in json.dumps(r)
        # 4. V's record is untouched; the attacker can neither read nor cancel V's booking, on either process
        assert await pool.fetchval("SELECT phone FROM customers WHERE id = $1", decode_id(v_booking["customerId"])[1]) \
            == victim_phone
        for port in (one, two):
            r = await _post(port, attacker, BOOKING, {"b": v_booking["id"]})
            assert r["errors"][0]["extensions"]["code"] == "forbidden", r
            r = await _post(port, attacker, "mutation($b: ID!) { cancel(bookingId: $b) { __typename } }",
                            {"b": v_booking["id"]})
            assert r["errors"][0]["extensions"]["code"] == "forbidden", r
        # ... V signs in with V's phone (process two) and reads V's own booking
        victim = await _sign_in(two, unit, victim_phone)
        r = await _post(two, victim, BOOKING, {"b": v_booking["id"]})
        assert r["data"]["booking"]["customerId"] == v_booking["customerId"], r
        # 5. another CPF with the attacker's e-mail: refused; the e-mail never lands on that record
        other = cpf(750_002)
        await gql(two, COUNTER, {"i": {**_slot(unit, c1, 11), "customer": {"cpf": other,
                                                                        "phone": "+5511988887777"}}})
        r = await _post(one, attacker, HOLD, {"i": {**_slot(unit, c2, 15), "customer": {
            "cpf": other, "email": "attacker@example.com"}}})
        assert r["data"]["hold"]["code"] == "identity_conflict", r
        assert await pool.fetchval("SELECT count(*) FROM customers WHERE lower(email) = 'attacker@example.com'") == 0
        # 6. V has an open hold: the attacker naming V still learns nothing of it
        held = (await gql(two, HOLD, {"i": {**_slot(unit, c1, 12), "customer": {"cpf": victim_cpf}}}))["hold"]
        r = await _post(one, attacker, HOLD, {"i": {**_slot(unit, c2, 16), "customer": {"cpf": victim_cpf}}})
        assert r["data"]["hold"]["code"] == "identity_conflict" and held["booking"]["id"] not in json.dumps(r), r
