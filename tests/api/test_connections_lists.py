"""The bookings search's filters and who sees what (issue 19); every other new connection walked in pages."""

from __future__ import annotations

from typing import Any
from uuid import UUID, uuid4

import pytest

from store.access import PgAccess
from tests.api.conftest import Api, system_token
from tests.api.test_access import _sign_in
from tests.api.test_connections import SEARCH, uuid_of
from tests.venues import arena, at, cpf

COUNTER = """mutation($i: CounterBookingInput!) { counterBooking(input: $i) {
  __typename ... on BookingPayload { booking { id } } ... on Error { code message } } }"""
HOLD = """mutation($i: HoldInput!) { hold(input: $i) {
  __typename ... on BookingPayload { booking { id } } ... on Error { code message } } }"""
CANCEL = "mutation($b: ID!) { cancel(bookingId: $b) { __typename } }"

A_PHONE, B_PHONE = "+5511987650001", "+5511987650002"
A_CPF, B_CPF = cpf(190_001), cpf(190_002)


def _input(unit: UUID, resource: UUID, day: int, hour: int, customer: dict[str, str] | None) -> dict[str, Any]:
    out: dict[str, Any] = {"unitId": str(unit), "resourceIds": [str(resource)], "startsAt": at(day, hour).isoformat(),
                           "endsAt": at(day, hour + 1).isoformat()}
    if customer:
        out["customer"] = customer
    return out


async def _book(api: Api, mutation: str, i: dict[str, Any]) -> str:
    name = "counterBooking" if mutation is COUNTER else "hold"
    r = (await api.gql(mutation, {"i": i}))[name]
    assert r["__typename"] == "BookingPayload", r
    return r["booking"]["id"]  # type: ignore[no-any-return]


@pytest.fixture
async def venue(api: Api, pool: Any) -> dict[str, Any]:
    """A unit with bookings of João (two, one cancelled), Maria (one confirmed, one held) and one without anyone."""
    v = await arena(pool)
    c = [v.resource_ids[f"Campo {i}"] for i in range(1, 5)]
    joao = {"phone": A_PHONE, "cpf": A_CPF, "name": "João da Silva"}
    maria = {"phone": B_PHONE, "cpf": B_CPF, "name": "MARIA CONCEIÇÃO"}
    ids = {
        "a1": await _book(api, COUNTER, _input(v.unit_id, c[0], 9, 10, joao)),
        "a2": await _book(api, COUNTER, _input(v.unit_id, c[1], 9, 14, joao)),
        "b1": await _book(api, COUNTER, _input(v.unit_id, c[0], 10, 10, maria)),
        "b2": await _book(api, HOLD, _input(v.unit_id, c[2], 11, 10, maria)),
        "n1": await _book(api, COUNTER, _input(v.unit_id, c[3], 12, 10, None)),
    }
    assert (await api.gql(CANCEL, {"b": ids["a2"]}))["cancel"]["__typename"] == "BookingPayload"
    return {"v": v, "ids": ids, "fields": c}


async def _found(api: Api, variables: dict[str, Any], headers: dict[str, str] | None = None) -> list[str]:
    edges = (await api.gql(SEARCH, {"first": 50, **variables}, headers))["bookings"]["edges"]
    return [e["node"]["id"] for e in edges]


async def test_each_filter_of_the_bookings_search(api: Api, venue: dict[str, Any]) -> None:
    v, ids, c = venue["v"], venue["ids"], venue["fields"]
    u = str(v.unit_id)

    async def found(f: dict[str, Any]) -> set[str]:
        return set(await _found(api, {"u": u, "f": f}))

    every = await _found(api, {"u": u})
    assert every == [ids[k] for k in ("a1", "a2", "b1", "b2", "n1")]  # by start time
    assert await found({"statuses": ["CANCELLED"]}) == {ids["a2"]}
    assert await found({"statuses": ["HELD", "CANCELLED"]}) == {ids["a2"], ids["b2"]}
    assert await found({"statuses": []}) == set(every)
    # Overlapping [from, to): a booking 10:00-11:00 overlaps [10:30, 10:45); one ending at 11:00 not [11:00, 12:00).
    assert await found({"from": at(9, 10, 30).isoformat(), "to": at(9, 10, 45).isoformat()}) == {ids["a1"]}
    assert await found({"from": at(9, 11).isoformat(), "to": at(9, 12).isoformat()}) == set()
    assert await found({"from": at(9, 0).isoformat(), "to": at(10, 23).isoformat()}) == {ids["a1"], ids["a2"],
                                                                                         ids["b1"]}
    assert await found({"from": at(11, 0).isoformat()}) == {ids["b2"], ids["n1"]}
    assert await found({"to": at(9, 12).isoformat()}) == {ids["a1"]}
    assert await found({"resourceId": str(c[0])}) == {ids["a1"], ids["b1"]}
    # The customer: name in any case and without accents, phone as typed, CPF with its punctuation.
    assert await found({"customer": {"name": "joao"}}) == {ids["a1"], ids["a2"]}
    assert await found({"customer": {"name": "JOÃO DA"}}) == {ids["a1"], ids["a2"]}
    assert await found({"customer": {"name": "conceicao"}}) == {ids["b1"], ids["b2"]}
    assert await found({"customer": {"name": "%"}}) == set()  # LIKE's wildcards are plain characters
    assert await found({"customer": {"name": "_"}}) == set()
    assert await found({"customer": {"phone": "(11) 98765-0002"}}) == {ids["b1"], ids["b2"]}
    assert await found({"customer": {"phone": "+55 11 98765-0001"}}) == {ids["a1"], ids["a2"]}
    a_cpf = f"{A_CPF[:3]}.{A_CPF[3:6]}.{A_CPF[6:9]}-{A_CPF[9:]}"
    assert await found({"customer": {"cpf": a_cpf}}) == {ids["a1"], ids["a2"]}
    # Every criterion must hold.
    assert await found({"customer": {"cpf": A_CPF}, "statuses": ["CONFIRMED"]}) == {ids["a1"]}
    assert await found({"customer": {"name": "maria", "phone": A_PHONE}}) == set()
    # Refusals name the field.
    for f, field, code in (({"customer": {"phone": "12"}}, "filter.customer.phone", "invalid_phone"),
                           ({"customer": {"cpf": "111.111.111-11"}}, "filter.customer.cpf", "invalid_cpf"),
                           ({"from": at(9, 12).isoformat(), "to": at(9, 11).isoformat()}, "filter.to",
                            "invalid_range"),
                           ({"resourceId": "nope"}, "filter.resourceId", "invalid_id")):
        body = (await api.http.post("/graphql", json={"query": SEARCH, "variables": {"u": u, "f": f}})).json()
        assert body["errors"][0]["extensions"] == {"code": code, "field": field}, body
    body = (await api.http.post("/graphql", json={"query": SEARCH, "variables": {}})).json()
    assert body["errors"][0]["extensions"] == {"code": "unit_required", "field": "unitId"}


async def test_a_customer_finds_only_their_own_bookings(api: Api, venue: dict[str, Any], pool: Any) -> None:
    v, ids = venue["v"], venue["ids"]
    system = await system_token(PgAccess(pool))
    session = await _sign_in(api.http, system, v.unit_id, A_PHONE)
    me = {"authorization": f"Bearer {session}"}
    u = str(v.unit_id)
    mine = {ids["a1"], ids["a2"]}
    assert set(await _found(api, {"u": u}, me)) == mine
    assert set(await _found(api, {}, me)) == mine  # every unit of the tenant
    # Filtering by someone else's phone, CPF or name finds nothing of theirs.
    for f in ({"customer": {"phone": B_PHONE}}, {"customer": {"cpf": B_CPF}}, {"customer": {"name": "maria"}},
              {"resourceId": str(venue["fields"][2])}):
        assert await _found(api, {"u": u, "f": f}, me) == [], f
    assert set(await _found(api, {"u": u, "f": {"customer": {"phone": A_PHONE}}}, me)) == mine
    assert await _found(api, {"u": u, "f": {"statuses": ["CANCELLED"]}}, me) == [ids["a2"]]
    # Another tenant's unit: the answer of a missing one.
    other = await arena(pool)
    body = (await api.http.post("/graphql", headers=me, json={"query": SEARCH, "variables": {
        "u": str(other.unit_id)}})).json()
    assert body["errors"][0]["extensions"] == {"code": "not_found", "field": "unitId"}
    # Staff of the unit see both customers'; customer ids come back as the API gives them.
    staff = await _found(api, {"u": u, "f": {"customer": {"phone": B_PHONE}}})
    assert set(staff) == {ids["b1"], ids["b2"]}
    b_customer = await pool.fetchval("SELECT customer_id FROM bookings WHERE id = $1", uuid_of(ids["b1"]))
    nodes = (await api.gql(SEARCH, {"u": u, "first": 1, "f": {"customer": {"cpf": B_CPF}}}))["bookings"]["edges"]
    assert uuid_of(nodes[0]["node"]["customerId"]) == b_customer


async def _walk(api: Api, query: str, path: list[str], variables: dict[str, Any], size: int = 2,
                backward: bool = False) -> list[list[dict[str, Any]]]:
    """The pages of a connection (`path`: where it is in the answer), walked to its end."""
    pages: list[list[dict[str, Any]]] = []
    cursor = None
    while True:
        step = {"last": size, "before": cursor} if backward else {"first": size, "after": cursor}
        found: Any = await api.gql(query, {**variables, **step})
        for key in path:
            found = found[key]
        pages.append([e["node"] for e in found["edges"]])
        info = found["pageInfo"]
        if not (info["hasPreviousPage"] if backward else info["hasNextPage"]):
            break
        cursor = info["startCursor"] if backward else info["endCursor"]
    assert len(pages) >= 2, pages
    return pages[::-1] if backward else pages


ARGS = "first: $first, after: $after, last: $last, before: $before"
VARS = "$first: Int, $after: String, $last: Int, $before: String"
PAGE = "pageInfo { hasNextPage hasPreviousPage startCursor endCursor }"


def flat(pages: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return [n for p in pages for n in p]


async def test_every_new_connection_walks_in_pages(api: Api, venue: dict[str, Any], pool: Any) -> None:
    v, ids = venue["v"], venue["ids"]
    u, unit = str(v.unit_id), v.unit_id
    # Queue: most urgent first.
    for kind, priority, minutes in (("no_show_suggestion", "normal", 1), ("pix_failing", "critical", 2),
                                    ("refund_failed", "high", 3)):
        await pool.execute("INSERT INTO queue_items (id, unit_id, type, priority, created_at) VALUES ($1, $2, $3, $4, "
                           "now() - make_interval(mins => $5))", uuid4(), unit, kind, priority, minutes)
    q = (f"query($u: ID!, {VARS}) {{ queueConnection(unitId: $u, {ARGS}) {{ edges {{ node {{ id priority }} }} "
         f"{PAGE} }} }}")
    pages = await _walk(api, q, ["queueConnection"], {"u": u})
    assert [n["priority"] for n in flat(pages)] == ["CRITICAL", "HIGH", "NORMAL"]
    assert flat(await _walk(api, q, ["queueConnection"], {"u": u}, backward=True)) == flat(pages)
    by_status = ("query($u: ID!, $s: [QueueItemStatus!]) { queueConnection(unitId: $u, statuses: $s) "
                 "{ edges { cursor } } }")
    assert len((await api.gql(by_status, {"u": u, "s": ["OPEN"]}))["queueConnection"]["edges"]) == 3
    assert (await api.gql(by_status, {"u": u, "s": ["RESOLVED"]}))["queueConnection"]["edges"] == []
    # A booking's charges, newest first.
    booking = uuid_of(ids["a1"])
    for n in range(3):
        await pool.execute(
            "INSERT INTO charges (id, unit_id, booking_id, provider, txid, amount_cents, status, expires_at, "
            "created_at) VALUES ($1, $2, $3, 'sandbox', $4, 100, 'cancelled', now(), now() - make_interval(mins => "
            "$5))", uuid4(), unit, booking, f"txid{n}{'0' * 26}", n)
    q = (f"query($b: ID!, {VARS}) {{ chargesConnection(bookingId: $b, {ARGS}) {{ edges {{ node {{ id txid }} }} "
         f"{PAGE} }} }}")
    assert [c["txid"][:5] for c in flat(await _walk(api, q, ["chargesConnection"], {"b": ids["a1"]}))] == [
        "txid0", "txid1", "txid2"]
    # The booking's audit trail (oldest first) and the unit's (newest first).
    q = (f"query($b: ID!, {VARS}) {{ booking(id: $b) {{ ... on Booking {{ historyConnection({ARGS}) {{ "
         f"edges {{ node {{ newStatus bookingId }} }} {PAGE} }} }} }} }}")
    trail = flat(await _walk(api, q, ["booking", "historyConnection"], {"b": ids["a2"]}, size=1))
    assert [h["newStatus"] for h in trail] == ["CONFIRMED", "CANCELLED"]
    assert {uuid_of(h["bookingId"]) for h in trail} == {uuid_of(ids["a2"])}
    q = (f"query($u: ID!, {VARS}) {{ auditEntries(unitId: $u, {ARGS}) {{ edges {{ node {{ at bookingId }} }} "
         f"{PAGE} }} }}")
    entries = flat(await _walk(api, q, ["auditEntries"], {"u": u}, size=3))
    seqs = await pool.fetch("SELECT booking_id FROM booking_events WHERE unit_id = $1 ORDER BY id DESC", unit)
    assert [uuid_of(e["bookingId"]) for e in entries] == [r["booking_id"] for r in seqs]
    # Waitlists: the slot lines (places counted before the page is cut) and the walk-ins.
    for n in range(3):
        r = await api.gql("mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!, $c: String!) { joinSlotWaitlist("
                          "unitId: $u, resourceId: $r, startsAt: $s, endsAt: $e, customer: {cpf: $c}) { __typename } }",
                          {"u": u, "r": str(venue["fields"][0]), "s": at(9, 10).isoformat(),
                           "e": at(9, 11).isoformat(), "c": cpf(191_000 + n)})
        assert r["joinSlotWaitlist"]["__typename"] == "SlotWaitlistEntry", r
        r = await api.gql('mutation($u: ID!, $p: String!) { addWalkIn(unitId: $u, area: "bar", name: "Ana", '
                          "phone: $p) { __typename } }", {"u": u, "p": f"+551190000100{n}"})
        assert r["addWalkIn"]["__typename"] == "WalkIn", r
    for name, fields in (("slotsConnection", "place"), ("walkInsConnection", "phone")):
        q = (f"query($u: ID!, {VARS}) {{ waitlists(unitId: $u) {{ {name}({ARGS}) {{ edges {{ node {{ {fields} }} }} "
             f"{PAGE} }} }} }}")
        got = [n[fields] for n in flat(await _walk(api, q, ["waitlists", name], {"u": u}))]
        assert got == ([1, 2, 3] if fields == "place" else [f"+551190000100{n}" for n in range(3)])
    # The unit's staff notifications, newest first.
    for n in range(3):
        await pool.execute("INSERT INTO notifications (id, unit_id, audience, kind, title, body, created_at) VALUES "
                           "($1, $2, 'staff', 'owner_alert', $3, 'b', now() - make_interval(mins => $4))",
                           uuid4(), unit, f"n{n}", n)
    q = (f"query($u: ID!, {VARS}) {{ notificationsConnection(unitId: $u, {ARGS}) {{ edges {{ node {{ title }} }} "
         f"{PAGE} }} }}")
    assert [n["title"] for n in flat(await _walk(api, q, ["notificationsConnection"], {"u": u}))] == ["n0", "n1",
                                                                                                    "n2"]
    # An endpoint's webhook deliveries, newest first, and by status.
    endpoint = uuid4()
    await pool.execute("INSERT INTO webhook_endpoints (id, unit_id, url, event_types, secret, created_by, created_at, "
                       "updated_at) VALUES ($1, $2, 'https://hooks.example.com/a', '{booking.held}', 'whsec_x', 't', "
                       "now(), now())", endpoint, unit)
    for n in range(3):
        await pool.execute("INSERT INTO webhook_deliveries (id, endpoint_id, unit_id, outbox_id, event_id, event_type, "
                           "seq, body, status, attempts, created_at) VALUES ($1, $2, $3, $4::bigint, $1, "
                           "'booking.held', $4, '{}', $5, 1, now() - make_interval(mins => $4::int))", uuid4(),
                           endpoint, unit, n, "failed" if n else "delivered")
    q = (f"query($e: ID!, $s: WebhookDeliveryStatus, {VARS}) {{ webhookDeliveriesConnection(endpointId: $e, "
         f"status: $s, {ARGS}) {{ edges {{ node {{ seq status }} }} {PAGE} }} }}")
    got = flat(await _walk(api, q, ["webhookDeliveriesConnection"], {"e": str(endpoint)}))
    assert [d["seq"] for d in got] == [0, 1, 2]
    failed = (await api.gql(q, {"e": str(endpoint), "s": "FAILED"}))["webhookDeliveriesConnection"]["edges"]
    assert [d["node"]["seq"] for d in failed] == [1, 2]
