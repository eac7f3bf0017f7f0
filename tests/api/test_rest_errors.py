"""The REST door's refusals: RFC 9457 problems with GraphQL's codes and the right status — never a 500 — each checked
against the OpenAPI document: missing Idempotency-Key, bad JSON, a body of another type, unknown fields, bad ids,
bad values, a bad token, another customer's booking (exactly a missing one's 404), an unknown path, another method,
a key reused for another request, the hold rate limit (429 with Retry-After), a body too large."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from schema.ids import global_id
from tests.api.rest_contract import bearer, check, rest_app
from tests.api.test_access import _sign_in
from tests.api.test_payments_api import paid_venue
from tests.api.test_rest_flow import _phone, hold_body
from tests.conftest import MutableClock
from tests.venues import at


@pytest.fixture
async def door(database_url: str, redis_url: str, clock: MutableClock, pool: Any) -> Any:
    # Three holds per token per window, and small bodies: the limits' answers are tested here too.
    async with rest_app(database_url, redis_url, clock, hold_rate_per_token=3, hold_rate_window_seconds=600,
                        max_body_bytes=4000) as (client, system):
        v = await paid_venue(pool)
        ana = await _sign_in(client, system, v.unit_id, _phone())
        bia = await _sign_in(client, system, v.unit_id, _phone())
        yield client, system, v, ana, bia


def problem_of(r: Any, status: int, code: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = check(r)
    assert (body["status"], body["code"], body["type"]) == (status, code, f"urn:slothold:problem:{code}"), body
    assert "Traceback" not in r.text
    return body


async def test_bad_requests_are_400_problems_that_name_the_fault(door: Any) -> None:
    client, _, v, ana, _ = door
    auth = bearer(ana)
    key = {**auth, "Idempotency-Key": "k-1"}
    body = hold_body(v, 11)
    for r in (await client.post("/v1/holds", json=body, headers=auth),
              await client.post("/v1/holds/x/confirm", headers=auth),
              await client.post("/v1/bookings/x/cancel", headers=auth),
              await client.post("/v1/holds", json=body, headers={**auth, "Idempotency-Key": "  "})):
        assert problem_of(r, 400, "required")["field"] == "Idempotency-Key"
    bad_json = await client.post("/v1/holds", content=b'{"unitId": ', headers={**key, "content-type":
                                                                                 "application/json"})
    assert problem_of(bad_json, 400, "bad_request")["detail"].startswith("Unable to parse request body as JSON")
    problem_of(await client.post("/v1/holds", json=[body], headers=key), 400, "bad_request")
    problem_of(await client.post("/v1/holds", headers=key), 400, "bad_request")  # no body at all
    deep = b"[" * 3_500  # under the 4,000 bytes, nested deeper than the decoder recurses
    problem_of(await client.post("/v1/holds", content=deep, headers={**key, "content-type": "application/json"}),
               400, "bad_request")
    problem_of(await client.post("/v1/holds", content=b"unitId=1", headers={
        **key, "content-type": "application/x-www-form-urlencoded"}), 415, "unsupported_media_type")
    # The body's values, as GraphQL's coercion refuses them, naming the field.
    assert problem_of(await client.post("/v1/holds", json={**body, "startsAt": "tomorrow"}, headers=key),
                      400, "invalid_variables")["field"] == "startsAt"
    assert problem_of(await client.post("/v1/holds", json={**body, "colour": "red"}, headers=key),
                      400, "invalid_variables")["field"] == "colour"
    missing = {k: v for k, v in body.items() if k != "endsAt"}
    assert problem_of(await client.post("/v1/holds", json=missing, headers=key), 400,
                      "invalid_variables")["field"] == "endsAt"
    assert problem_of(await client.post("/v1/holds", json={**body, "unitId": "nope"}, headers=key),
                      400, "invalid_id")["field"] == "unitId"
    naive = {**body, "startsAt": at(12, 19).isoformat()[:19]}
    assert problem_of(await client.post("/v1/holds", json=naive, headers=key), 400,
                      "naive_datetime")["field"] == "startsAt"
    # Bad ids in the path, bad query parameters, unknown fields of a body.
    assert problem_of(await client.get("/v1/bookings/nope", headers=auth), 400, "invalid_id")["field"] == "id"
    assert problem_of(await client.post("/v1/holds/nope/confirm", headers=key), 400,
                      "invalid_id")["field"] == "id"
    assert problem_of(await client.post(f"/v1/bookings/{uuid.uuid4()}/cancel", json={"why": "x"}, headers=key),
                      400, "unknown_field")["field"] == "why"
    params = {"unitId": str(v.unit_id), "from": at(12, 18).isoformat(), "to": at(12, 20).isoformat()}
    assert problem_of(await client.get("/v1/availability", params={**params, "slots": "two"}), 400,
                      "invalid_variables")["field"] == "slots"
    assert problem_of(await client.get("/v1/availability", params={"unitId": str(v.unit_id)}), 400,
                      "invalid_variables")["field"] == "from"
    assert problem_of(await client.get("/v1/availability", params={**params, "resource_id": "x"}), 400,
                      "unknown_field")["field"] == "resource_id"


async def test_tokens_and_other_customers(door: Any) -> None:
    client, system, v, ana, bia = door
    r = await client.post("/v1/holds", json=hold_body(v, 12), headers={**bearer(ana), "Idempotency-Key": "a-1"})
    bid = check(r)["id"]
    bad = await client.get(f"/v1/bookings/{bid}", headers=bearer("not-a-token"))
    problem_of(bad, 401, "unauthenticated")
    assert bad.headers["www-authenticate"] == 'Bearer error="invalid_token"'
    anonymous = await client.post("/v1/holds", json=hold_body(v, 13), headers={"Idempotency-Key": "anon-1"})
    assert problem_of(anonymous, 401, "unauthenticated") and anonymous.headers["www-authenticate"] == "Bearer"
    # A customer books only for themselves (GraphQL's forbidden, 403).
    someone_else = {**hold_body(v, 13), "customer": {"phone": "+5511911112222"}}
    problem_of(await client.post("/v1/holds", json=someone_else, headers={**bearer(ana), "Idempotency-Key": "a-2"}),
               403, "forbidden")
    problem_of(await client.get("/v1/availability", params={"unitId": str(v.unit_id), "from": at(12, 18).isoformat(),
               "to": at(12, 20).isoformat()}, headers=bearer("not-a-token")), 401, "unauthenticated")
    # Bia may not see Ana's booking: the very answer of a booking that does not exist.
    missing_id = global_id("Booking", uuid.uuid4())
    for path in ("/v1/bookings/{}", "/v1/holds/{}/confirm", "/v1/bookings/{}/cancel"):
        method = "GET" if path == "/v1/bookings/{}" else "POST"
        headers = {**bearer(bia), "Idempotency-Key": "b-1"}
        theirs = await client.request(method, path.format(bid), headers=headers)
        missing = await client.request(method, path.format(missing_id), headers=headers)
        shown, absent = problem_of(theirs, 404, "not_found"), problem_of(missing, 404, "not_found")
        assert {**shown, "detail": "", "instance": ""} == {**absent, "detail": "", "instance": ""}
        assert shown["detail"] == f"booking {bid} not found" and absent["detail"] == f"booking {missing_id} not found"
    assert check(await client.get(f"/v1/bookings/{bid}", headers=bearer(ana)))["status"] == "HELD"  # still there
    # Staff of the platform read it.
    assert check(await client.get(f"/v1/bookings/{bid}", headers=bearer(system)))["id"] == bid


async def test_paths_methods_keys_and_limits(door: Any) -> None:
    client, _, v, ana, _ = door
    unknown = await client.get("/v1/reservas")
    problem_of(unknown, 404, "not_found")
    problem_of(await client.post("/v1/", json={}), 404, "not_found")
    for method, path, allow in (("GET", "/v1/holds", "POST"), ("DELETE", f"/v1/bookings/{uuid.uuid4()}", "GET"),
                                ("PUT", "/v1/availability", "GET"), ("GET", "/v1/holds/x/confirm", "POST")):
        r = await client.request(method, path)
        problem_of(r, 405, "method_not_allowed")
        assert r.headers["allow"] == allow
    openapi = await client.get("/v1/openapi.json")
    assert openapi.status_code == 200 and check(openapi)["openapi"] == "3.1.0"
    # The same key for another request: refused, nothing made.
    auth = {**bearer(ana), "Idempotency-Key": "same-key"}
    check(await client.post("/v1/holds", json=hold_body(v, 14, 20), headers=auth))
    reused = await client.post("/v1/holds", json=hold_body(v, 14, 21), headers=auth)
    assert problem_of(reused, 422, "idempotency_key_reused")["key"] == "same-key"
    # A second open hold for the same customer: the conflict says which hold to swap.
    other = await client.post("/v1/holds", json=hold_body(v, 14, 21), headers={**bearer(ana), "Idempotency-Key": "k2"})
    open_hold = problem_of(other, 409, "open_hold_exists")
    assert open_hold["swapAvailable"] is True and open_hold["bookingId"]
    # The per-token hold rate: 429 with Retry-After (the limiter counted 3 already: a reused key counts).
    limited = await client.post("/v1/holds", json=hold_body(v, 15, 22), headers={**bearer(ana),
                                                                                "Idempotency-Key": "k3"})
    limit = problem_of(limited, 429, "rate_limited")
    assert int(limited.headers["retry-after"]) == limit["retryAfterSeconds"] > 0
    big = await client.post("/v1/holds", json={**hold_body(v, 16), "x": "y" * 5000}, headers=auth)
    problem_of(big, 413, "body_too_large")


async def test_outages_and_bugs_are_problems_too(door: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    client, _, _, ana, _ = door
    import slothold.app

    async def unreachable(context: Any, token: str | None) -> None:
        raise OSError("connection refused")

    with monkeypatch.context() as m:  # the database cannot say who is calling: the GraphQL view's own 503
        m.setattr(slothold.app, "_authenticate", unreachable)
        r = await client.get(f"/v1/bookings/{uuid.uuid4()}", headers=bearer(ana))
        assert problem_of(r, 503, "busy") and r.headers["retry-after"] == "1"
    from api.rest.gateway import Gateway

    async def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(Gateway, "run", broken)
    r = await client.get(f"/v1/bookings/{uuid.uuid4()}", headers=bearer(ana))
    assert r.status_code == 500 and r.headers["content-type"].startswith("application/problem+json")
    assert r.json()["code"] == "internal_error" and "a bug" not in r.text and "Traceback" not in r.text
