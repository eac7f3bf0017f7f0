"""Regressions the fuzzer found: every error a client gets names its kind in `extensions.code`, and a JSON body
nested thousands deep is a 400, not a 500 (the decoder's RecursionError escaped the view)."""

from __future__ import annotations

import json

import pytest

from tests.fuzz.conftest import Fuzzer

HEADERS = {"content-type": "application/json", "accept": "application/graphql-response+json"}


@pytest.mark.parametrize(("body", "status", "code"), [
    ({"query": "{ me { kind }"}, 400, "invalid_syntax"),
    ({"query": "{ nope }"}, 400, "invalid_document"),
    ({"query": "query($u: ID!) { unit(id: $u) { __typename } }", "variables": {}}, 400, "invalid_variables"),
    ({"query": "query($n: Int!) { sandboxMessages(to: \"x\", limit: $n) { text } }", "variables": {"n": 2**31}},
     400, "invalid_variables"),
    ({"query": "{ me { kind } }", "variables": "x"}, 400, "bad_request"),
], ids=["syntax", "validation", "missing variable", "int overflow", "variables not an object"])
async def test_graphql_request_errors_carry_a_code(fuzzer: Fuzzer, body: dict[str, object], status: int,
                                                   code: str) -> None:
    r = await fuzzer.client.post("/graphql", content=json.dumps(body), headers=HEADERS)
    assert r.status_code == status, r.text
    assert r.json()["errors"][0]["extensions"]["code"] == code, r.text


@pytest.mark.parametrize(("method", "headers", "status", "code"), [
    ("PUT", HEADERS, 405, "method_not_allowed"),
    ("POST", {"content-type": "text/plain"}, 415, "unsupported_media_type"),
    ("POST", {"content-type": "application/json", "accept": "text/html"}, 406, "not_acceptable"),
])
async def test_http_refusals_carry_a_code(fuzzer: Fuzzer, method: str, headers: dict[str, str], status: int,
                                          code: str) -> None:
    r = await fuzzer.client.request(method, "/graphql", content=b'{"query": "{ me { kind } }"}', headers=headers)
    assert r.status_code == status and r.json()["errors"][0]["extensions"]["code"] == code, r.text


async def test_a_json_body_nested_too_deeply_is_a_bad_request(fuzzer: Fuzzer) -> None:
    for body in ("[" * 100_000 + "]" * 100_000,
                 '{"query": "{ me { kind } }", "variables": {"v": ' + "[" * 100_000 + "]" * 100_000 + "}}"):
        r = await fuzzer.client.post("/graphql", content=body, headers=HEADERS)
        assert r.status_code == 400, r.text
        assert r.json()["errors"][0] == {"message": "Unable to parse request body as JSON: it is nested too deeply.",
                                         "extensions": {"code": "bad_request"}}


@pytest.mark.parametrize("text", ["\x00", "a\x00b", "\ud800", "x\udfff"], ids=["nul", "nul inside", "surrogate",
                                                                           "low surrogate"])
async def test_text_postgres_cannot_store_is_refused_before_anything_runs(fuzzer: Fuzzer, text: str) -> None:
    system = fuzzer.world.headers("system")
    before = await fuzzer.footprint()
    for query, variables in [
        ("query($t: String!) { sandboxMessages(to: $t) { text } }", {"t": text}),
        ("mutation($t: String!) { sandboxPay(txid: $t) { __typename } }", {"t": text}),
        ('mutation($u: ID!, $n: String!) { addWalkIn(unitId: $u, area: "bar", name: $n, phone: "+5511900000009") '
         "{ __typename } }", {"u": fuzzer.world.ids["unit"][0], "n": text}),
    ]:
        r = await fuzzer.client.post("/graphql", content=json.dumps({"query": query, "variables": variables}),
                                     headers={**HEADERS, **system})
        assert r.status_code == 400 and r.json()["errors"][0]["extensions"]["code"] == "invalid_text", r.text
    if "\x00" in text:  # a GraphQL string literal may spell NUL as \u0000 (a lone surrogate is a syntax error there)
        r = await fuzzer.client.post("/graphql", headers={**HEADERS, **system}, content=json.dumps(
            {"query": '{ sandboxMessages(to: "a\\u0000") { text } }'}))
        assert r.status_code == 400 and r.json()["errors"][0]["extensions"]["code"] == "invalid_text", r.text
    assert await fuzzer.footprint() == before


@pytest.mark.parametrize("when", ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-12:00"])
async def test_a_datetime_beyond_what_utc_can_hold_is_invalid_input(fuzzer: Fuzzer, when: str) -> None:
    query = ('mutation($m: ID!, $s: DateTime!, $e: DateTime!) { createSeatEvent(seatMapId: $m, name: "X", '
             "startsAt: $s, endsAt: $e) { __typename ... on InvalidInput { code field } } }")
    r = await fuzzer.client.post("/graphql", headers={**HEADERS, **fuzzer.world.headers("system")}, content=json.dumps(
        {"query": query, "variables": {"m": fuzzer.world.ids["seat_map"][0], "s": when,
                                       "e": "2026-12-10T22:00:00-03:00"}}))
    assert r.json()["data"]["createSeatEvent"] == {"__typename": "InvalidInput", "code": "datetime_out_of_range",
                                                   "field": "startsAt"}, r.text


async def test_confirm_refuses_an_idempotency_key_longer_than_it_can_keep(fuzzer: Fuzzer) -> None:
    # Found by the fuzzer: the key reached the idempotency_keys CHECK (1..255 characters) and was an internal error.
    query = ("mutation($b: ID!, $k: String) { confirm(bookingId: $b, idempotencyKey: $k) { __typename "
             "... on InvalidInput { code field } } }")
    before = await fuzzer.footprint()
    r = await fuzzer.client.post("/graphql", headers={**HEADERS, **fuzzer.world.headers("system")}, content=json.dumps(
        {"query": query, "variables": {"b": fuzzer.world.ids["booking"][0], "k": "x" * 256}}))
    assert r.json()["data"]["confirm"] == {"__typename": "InvalidInput", "code": "too_long",  # text limits (issue 16)
                                           "field": "idempotencyKey"}, r.text
    assert await fuzzer.footprint() == before


async def test_audit_periods_refuse_a_datetime_beyond_what_utc_can_hold(fuzzer: Fuzzer) -> None:
    # Found by the fuzzer: domain/audit_reports.check_range converted to UTC unguarded (OverflowError).
    query = ("query($u: ID!, $f: DateTime!, $t: DateTime!) { auditPeriods(unitId: $u, from: $f, to: $t) { __typename "
             "... on InvalidInput { code field } } }")
    r = await fuzzer.client.post("/graphql", headers={**HEADERS, **fuzzer.world.headers("owner")}, content=json.dumps(
        {"query": query, "variables": {"u": fuzzer.world.ids["unit"][0], "f": "0001-01-01T00:00:00+14:00",
                                       "t": "2026-12-11T13:00:00-03:00"}}))
    assert r.json()["data"]["auditPeriods"] == {"__typename": "InvalidInput", "code": "datetime_out_of_range",
                                                "field": "from"}, r.text


async def test_text_guard_allows_ordinary_text(fuzzer: Fuzzer) -> None:
    r = await fuzzer.client.post("/graphql", headers={**HEADERS, **fuzzer.world.headers("system")}, content=json.dumps(
        {"query": "query($t: String!) { sandboxMessages(to: $t) { text } }", "variables": {"t": "ção 😀 \u202e"}}))
    assert r.status_code == 200 and r.json()["data"]["sandboxMessages"] == [], r.text


@pytest.mark.parametrize(("extra", "field"), [({"depositPercent": 0}, "depositPercent"),
                                              ({"depositPercent": 101}, "depositPercent"),
                                              ({"depositCents": -1}, "depositCents")])
async def test_publishing_a_full_price_checks_the_deposit_fields_too(fuzzer: Fuzzer, extra: dict[str, int],
                                                                     field: str) -> None:
    # Found by the fuzzer: with rule "full" an out-of-range deposit reached the services CHECK (internal error).
    query = ("mutation($u: ID!, $s: ID!, $p: Int, $c: Int) { publishServicePrice(unitId: $u, serviceId: $s, "
             'priceCents: 1000, paymentRule: FULL, depositPercent: $p, depositCents: $c) { __typename '
             "... on InvalidInput { code field } } }")
    variables = {"u": fuzzer.world.ids["unit"][0], "s": fuzzer.world.ids["service"][0],
                 "p": extra.get("depositPercent"), "c": extra.get("depositCents")}
    before = await fuzzer.footprint()
    r = await fuzzer.client.post("/graphql", headers={**HEADERS, **fuzzer.world.headers("system")},
                                 content=json.dumps({"query": query, "variables": variables}))
    assert r.json()["data"]["publishServicePrice"] == {"__typename": "InvalidInput", "code": "invalid_price",
                                                       "field": field}, r.text
    assert await fuzzer.footprint() == before


async def test_a_counter_booking_for_a_service_the_unit_does_not_have_is_not_found(fuzzer: Fuzzer) -> None:
    # Found by the fuzzer: a counter booking never looked its service up, so an unknown serviceId reached the
    # bookings → services foreign key (ForeignKeyViolationError → internal error).
    query = ("mutation($i: CounterBookingInput!) { counterBooking(input: $i) { __typename "
             "... on NotFound { code field } } }")
    variables = {"i": {"unitId": fuzzer.world.ids["unit"][0], "resourceIds": [fuzzer.world.ids["resource"][3]],
                       "startsAt": "2026-12-13T09:00:00-03:00", "endsAt": "2026-12-13T10:00:00-03:00",
                       "serviceId": "05a327ce-9e88-4d68-9351-4284598db7c7"}}
    before = await fuzzer.footprint()
    r = await fuzzer.client.post("/graphql", headers={**HEADERS, **fuzzer.world.headers("system")},
                                 content=json.dumps({"query": query, "variables": variables}))
    assert r.json()["data"]["counterBooking"] == {"__typename": "NotFound", "code": "not_found",
                                                  "field": "serviceId"}, r.text
    assert await fuzzer.footprint() == before


async def test_a_hold_spanning_millennia_is_refused_as_too_long(fuzzer: Fuzzer) -> None:
    # Found by the fuzzer: swapHold (any resource) to 2026-12-06 → 9999-12-31 overflowed timedelta arithmetic in
    # domain/availability.bookable_slots (OverflowError → internal error).
    query = ("mutation($i: HoldInput!) { hold(input: $i) { __typename ... on InvalidInput { code field } } }")
    variables = {"i": {"unitId": fuzzer.world.ids["unit"][0], "startsAt": "2026-12-06T00:00:00-03:00",
                       "endsAt": "9999-12-31T23:59:59Z", "customer": {"cpf": fuzzer.world.strings["cpf"][0]}}}
    before = await fuzzer.footprint()
    r = await fuzzer.client.post("/graphql", headers={**HEADERS, **fuzzer.world.headers("system")},
                                 content=json.dumps({"query": query, "variables": variables}))
    assert r.json()["data"]["hold"] == {"__typename": "InvalidInput", "code": "range_too_long", "field": "endsAt"}, \
        r.text
    assert await fuzzer.footprint() == before
