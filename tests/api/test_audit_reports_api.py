"""holdConversion and auditPeriods through the GraphQL API (SPEC §15, seed 004)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from uuid import uuid4

import pytest

from schema.ids import global_id
from tests.api.conftest import Api
from tests.api.test_reschedule_api import counter
from tests.conftest import T0, MutableClock
from tests.venues import arena, at, cpf

HOLD = """mutation($i: HoldInput!) { hold(input: $i) { __typename
  ... on BookingPayload { booking { id status } } ... on Error { code message } } }"""
CONFIRM = "mutation($b: ID!) { confirm(bookingId: $b) { __typename ... on BookingPayload { booking { status } } } }"
CANCEL = "mutation($b: ID!) { cancel(bookingId: $b) { __typename ... on BookingPayload { booking { status } } } }"

CONVERSION = """query($u: ID!, $from: DateTime!, $to: DateTime!, $t: String) {
  holdConversion(unitId: $u, from: $from, to: $to, holdType: $t) { __typename
    ... on HoldConversion { unitId from to holdType created sold expired cancelled open soldShare }
    ... on InvalidInput { code field message } ... on NotFound { code field } } }"""

PERIODS = """query($u: ID!, $from: DateTime!, $to: DateTime!, $b: AuditBucket!, $t: String) {
  auditPeriods(unitId: $u, from: $from, to: $to, bucket: $b, holdType: $t) { __typename
    ... on AuditPeriods { unitId timeZone bucket holdType periods { date startsAt endsAt holdsCreated sold
                          bornConfirmed moved expired noShows cancelled } }
    ... on InvalidInput { code field message } ... on NotFound { code field } } }"""


async def _hold(api: Api, unit: Any, resource: Any, hour: int, n: int, hold_type: str | None = None) -> str:
    i = {"unitId": str(unit), "resourceIds": [str(resource)], "startsAt": at(8, hour).isoformat(),
         "endsAt": at(8, hour + 1).isoformat(), "customer": {"cpf": cpf(700_000 + n)}, "holdType": hold_type}
    r = (await api.gql(HOLD, {"i": i}))["hold"]
    assert r["__typename"] == "BookingPayload", r
    return r["booking"]["id"]  # type: ignore[no-any-return]


async def test_what_share_of_cart_holds_became_sold(api: Api, pool: Any, clock: MutableClock) -> None:
    v = await arena(pool, hold_ceiling_percent=100)
    c1, c2 = v.resource_ids["Campo 1"], v.resource_ids["Campo 2"]
    clock.set(at(7, 23, 55))  # late Monday in São Paulo, already Tuesday in UTC
    sold = await _hold(api, v.unit_id, c1, 10, 1)
    cancelled = await _hold(api, v.unit_id, c1, 11, 2)
    await _hold(api, v.unit_id, c1, 12, 3, "RESERVED")
    assert (await counter(api, v.unit_id, c2, 8, 10))["booking"]["status"] == "CONFIRMED"
    assert (await api.gql(CANCEL, {"b": cancelled}))["cancel"]["booking"]["status"] == "CANCELLED"
    clock.set(at(8, 0, 2))  # Tuesday: the sale happens the next local day, within the hold
    assert (await api.gql(CONFIRM, {"b": sold}))["confirm"]["booking"]["status"] == "CONFIRMED"
    await _hold(api, v.unit_id, c2, 11, 4)

    monday = {"u": str(v.unit_id), "from": at(7, 0).isoformat(), "to": at(8, 0).isoformat()}
    cart = (await api.gql(CONVERSION, {**monday, "t": "CART"}))["holdConversion"]
    assert cart == {"__typename": "HoldConversion", "unitId": global_id("Unit", v.unit_id), "from": monday["from"],
                    "to": monday["to"], "holdType": "CART", "created": 2, "sold": 1, "expired": 0, "cancelled": 1,
                    "open": 0, "soldShare": 0.5}
    every = (await api.gql(CONVERSION, {**monday, "t": None}))["holdConversion"]
    assert (every["created"], every["sold"], every["open"], every["holdType"]) == (3, 1, 1, None)
    assert every["soldShare"] == pytest.approx(1 / 3)
    nothing = (await api.gql(CONVERSION, {**monday, "t": "COMP"}))["holdConversion"]
    assert (nothing["created"], nothing["soldShare"]) == (0, None)

    days = (await api.gql(PERIODS, {"u": str(v.unit_id), "from": at(7, 0).isoformat(), "to": at(9, 0).isoformat(),
                                    "b": "DAY", "t": None}))["auditPeriods"]
    assert (days["__typename"], days["timeZone"], days["bucket"]) == ("AuditPeriods", "America/Sao_Paulo", "DAY")
    counts = [{k: p[k] for k in ("date", "holdsCreated", "sold", "bornConfirmed", "moved", "expired", "noShows",
                                 "cancelled")} for p in days["periods"]]
    assert counts == [
        {"date": "2026-12-07", "holdsCreated": 3, "sold": 0, "bornConfirmed": 1, "moved": 0, "expired": 0,
         "noShows": 0, "cancelled": 1},
        {"date": "2026-12-08", "holdsCreated": 1, "sold": 1, "bornConfirmed": 0, "moved": 0, "expired": 0,
         "noShows": 0, "cancelled": 0}]
    assert [p["startsAt"] for p in days["periods"]] == [at(7, 0).isoformat(), at(8, 0).isoformat()]
    weeks = (await api.gql(PERIODS, {"u": str(v.unit_id), "from": at(7, 0).isoformat(), "to": at(21, 0).isoformat(),
                                     "b": "WEEK", "t": "RESERVED"}))["auditPeriods"]
    assert [(p["date"], p["holdsCreated"]) for p in weeks["periods"]] == [("2026-12-07", 1), ("2026-12-14", 0)]
    assert weeks["holdType"] == "RESERVED"


@pytest.mark.parametrize(("args", "typename", "field", "code"), [
    ({"from": "2026-12-07T00:00:00"}, "InvalidInput", "from", "naive_datetime"),
    ({"to": "2026-12-08T00:00:00"}, "InvalidInput", "to", "naive_datetime"),
    ({"to": T0.isoformat()}, "InvalidInput", "to", "invalid_range"),
    ({"to": (T0 + timedelta(days=367)).isoformat()}, "InvalidInput", "to", "range_too_long"),
    ({"t": ""}, "InvalidInput", "holdType", "invalid_hold_type"),
    ({"u": "not-an-id"}, "InvalidInput", "unitId", "invalid_id"),
    ({"u": str(uuid4())}, "NotFound", "unitId", "not_found"),
])
async def test_bad_arguments_are_typed_errors_naming_the_field(api: Api, pool: Any, args: dict[str, Any],
                                                               typename: str, field: str, code: str) -> None:
    v = await arena(pool)
    variables = {"u": str(v.unit_id), "from": T0.isoformat(), "to": (T0 + timedelta(days=7)).isoformat(), "t": None,
                 **args}
    conversion = (await api.gql(CONVERSION, variables))["holdConversion"]
    periods = (await api.gql(PERIODS, {**variables, "b": "WEEK"}))["auditPeriods"]
    for result in (conversion, periods):
        assert (result["__typename"], result["field"], result["code"]) == (typename, field, code), result
