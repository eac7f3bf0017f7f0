"""Hold types through the GraphQL API (SPEC §10): the merged catalog, owners' definitions, typed errors, the
grid's colours, who may release."""

from __future__ import annotations

from typing import Any

import httpx

from tests.api.conftest import Api
from tests.venues import arena, at, cpf

DEFINE = """mutation($u: ID!, $scope: HoldTypeScope!, $n: String!, $f: HoldTypeFieldsInput!) {
  defineHoldType(unitId: $u, scope: $scope, name: $n, fields: $f) {
    __typename
    ... on HoldTypeDefinition { name validStates ttlSeconds expiresAutomatically releaseApi paymentRequired
                                skipLockedState displayName displayColor displayIcon definedBy }
    ... on Error { code message }
    ... on InvalidInput { field }
  } }"""
REMOVE = """mutation($u: ID!, $n: String!) { removeHoldType(unitId: $u, scope: ORGANIZATION, name: $n) {
  __typename ... on HoldTypeList { holdTypes { name } } ... on Error { code } } }"""
LIST = """query($u: ID!) { holdTypes(unitId: $u) { __typename ... on HoldTypeList { holdTypes { name displayName
  displayColor releaseApi definedBy internal } } } }"""
HOLD = """mutation($i: HoldInput!) { hold(input: $i) { __typename ... on BookingPayload { booking { id holdType
  holdExpiresAt } } ... on Error { code } ... on InvalidInput { field } } }"""
GRID = """query($u: ID!, $from: DateTime!, $to: DateTime!) { availabilityGrid(unitId: $u, from: $from, to: $to) {
  ... on Grid { rows { segments { state holdType holdTypeName displayColor } } } } }"""


async def test_owners_define_types_and_the_catalog_merges_them(api: Api, pool: Any) -> None:
    v = await arena(pool)
    u = str(v.unit_id)
    listed = (await api.gql(LIST, {"u": u}))["holdTypes"]["holdTypes"]
    assert [h["name"] for h in listed] == ["CART", "RESERVED", "WAITLIST_OFFER"]
    assert listed[0]["releaseApi"] == ["ADMIN", "CUSTOMER", "SYSTEM"] and listed[2]["internal"]

    r = (await api.gql(DEFINE, {"u": u, "scope": "TENANT", "n": "PARTNER_HOLD", "f": {
        "validStates": ["LOCKED"], "ttlSeconds": 3600, "releaseApi": ["ADMIN", "API"], "paymentRequired": True,
        "displayName": "Partner Hold", "displayColor": "#8b008b"}}))["defineHoldType"]
    assert r == {"__typename": "HoldTypeDefinition", "name": "PARTNER_HOLD", "validStates": ["LOCKED"],
                 "ttlSeconds": 3600, "expiresAutomatically": True, "releaseApi": ["ADMIN", "API"],
                 "paymentRequired": True, "skipLockedState": False, "displayName": "Partner Hold",
                 "displayColor": "#8B008B", "displayIcon": None, "definedBy": ["TENANT"]}
    r = (await api.gql(DEFINE, {"u": u, "scope": "ORGANIZATION", "n": "CART",
                                "f": {"displayColor": "#000001"}}))["defineHoldType"]
    assert r["displayColor"] == "#000001" and r["displayName"] == "Hold do bot"
    assert r["definedBy"] == ["PLATFORM", "ORGANIZATION"] and r["releaseApi"] == ["ADMIN", "CUSTOMER", "SYSTEM"]
    # null drops the organization's value: inherited again.
    r = (await api.gql(DEFINE, {"u": u, "scope": "ORGANIZATION", "n": "PARTNER_HOLD",
                                "f": {"ttlSeconds": 600, "displayIcon": "/icons/partner.svg"}}))["defineHoldType"]
    assert (r["ttlSeconds"], r["displayIcon"]) == (600, "/icons/partner.svg")
    assert r["definedBy"] == ["TENANT", "ORGANIZATION"]
    r = (await api.gql(DEFINE, {"u": u, "scope": "ORGANIZATION", "n": "PARTNER_HOLD",
                                "f": {"ttlSeconds": None}}))["defineHoldType"]
    assert r["ttlSeconds"] == 3600

    # The grid shows a hold with the organization's colour and name.
    held = (await api.gql(HOLD, {"i": {"unitId": u, "resourceIds": [str(v.resource_ids["Campo 1"])],
                                       "startsAt": at(8, 19).isoformat(), "endsAt": at(8, 20).isoformat(),
                                       "customer": {"cpf": cpf(4242)}, "holdType": "PARTNER_HOLD"}}))["hold"]
    assert held["booking"]["holdType"] == "PARTNER_HOLD"
    grid = (await api.gql(GRID, {"u": u, "from": at(8, 19).isoformat(), "to": at(8, 20).isoformat()}))
    segs = [s for row in grid["availabilityGrid"]["rows"] for s in row["segments"] if s["state"] == "HELD"]
    assert segs == [{"state": "HELD", "holdType": "PARTNER_HOLD", "holdTypeName": "Partner Hold",
                     "displayColor": "#8B008B"}]
    removed = (await api.gql(REMOVE, {"u": u, "n": "CART"}))["removeHoldType"]
    assert removed["__typename"] == "HoldTypeList"


async def test_every_error_is_typed_and_names_its_field(api: Api, pool: Any) -> None:
    v = await arena(pool)
    u = str(v.unit_id)
    cases = [
        ("lower", {"displayColor": "#000000"}, "name", "invalid_hold_type_name"),
        ("X1", {}, "definition", "empty_definition"),
        ("X1", {"ttlSeconds": 5}, "definition.ttlSeconds", "invalid_ttl"),
        ("X1", {"validStates": ["ACTIVE"]}, "definition.validStates", "invalid_valid_states"),
        ("X1", {"releaseApi": []}, "definition.releaseApi", "invalid_release_api"),
        ("X1", {"displayColor": "red"}, "definition.displayColor", "invalid_color"),
        ("X1", {"displayName": ""}, "definition.displayName", "invalid_display_name"),
        ("X1", {"displayIcon": "a b"}, "definition.displayIcon", "invalid_display_icon"),
        ("X1", {"skipLockedState": True}, "definition.skipLockedState", "skip_locked_needs_sold"),
        ("X1", {"validStates": ["SOLD"]}, "definition.validStates", "locked_state_required"),
        ("WAITLIST_OFFER", {"paymentRequired": False}, "definition.paymentRequired", "internal_hold_type"),
    ]
    for name, fields, field, code in cases:
        r = (await api.gql(DEFINE, {"u": u, "scope": "ORGANIZATION", "n": name, "f": fields}))["defineHoldType"]
        assert (r["__typename"], r.get("field"), r["code"]) == ("InvalidInput", field, code), (name, fields, r)
    r = (await api.gql(REMOVE, {"u": u, "n": "X1"}))["removeHoldType"]
    assert r == {"__typename": "InvalidInput", "code": "not_defined_here"}
    r = (await api.gql(HOLD, {"i": {"unitId": u, "resourceIds": [str(v.resource_ids["Campo 1"])],
                                    "startsAt": at(8, 19).isoformat(), "endsAt": at(8, 20).isoformat(),
                                    "customer": {"cpf": cpf(1)}, "holdType": "NOPE"}}))["hold"]
    assert (r["__typename"], r["field"], r["code"]) == ("InvalidInput", "holdType", "unknown_hold_type")
    assert await pool.fetchval("SELECT count(*) FROM bookings WHERE unit_id = $1", v.unit_id) == 0
    layers = await pool.fetchval("SELECT o.hold_types FROM units u JOIN organizations o ON o.id = u.organization_id "
                                 "WHERE u.id = $1", v.unit_id)
    assert layers == {}  # nothing stored by any refusal


async def test_tenant_scope_needs_a_tenant_wide_owner_and_integrators_follow_release_api(api: Api, pool: Any,
                                                                                         ) -> None:
    v = await arena(pool)
    u = str(v.unit_id)
    access = api.http._transport.app.state.slothold["access"]  # type: ignore[attr-defined]
    tenant = await pool.fetchval("SELECT o.tenant_id FROM units u JOIN organizations o ON o.id = u.organization_id "
                                 "WHERE u.id = $1", v.unit_id)
    _, bound = await access.issue_token(tenant, v.unit_id, "staff", "owner", [], "owner of one unit")
    _, wide = await access.issue_token(tenant, None, "staff", "owner", [], "tenant owner")
    _, integrator = await access.issue_token(tenant, v.unit_id, "client", None, ["book", "drop"], "partner")

    async def as_(token: str, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        r = await api.http.post("/graphql", json={"query": query, "variables": variables},
                                headers={"authorization": f"Bearer {token}"})
        assert isinstance(r, httpx.Response)
        return r.json()  # type: ignore[no-any-return]

    f = {"releaseApi": ["ADMIN"], "paymentRequired": True}
    refused = await as_(bound, DEFINE, {"u": u, "scope": "TENANT", "n": "STAFF_ONLY", "f": f})
    assert refused["errors"][0]["extensions"]["code"] == "forbidden"
    ok = await as_(wide, DEFINE, {"u": u, "scope": "TENANT", "n": "STAFF_ONLY", "f": f})
    assert ok["data"]["defineHoldType"]["definedBy"] == ["TENANT"]

    # An integrator may not place a type it could not release... and may not release what only staff release.
    i = {"unitId": u, "resourceIds": [str(v.resource_ids["Campo 2"])], "startsAt": at(8, 19).isoformat(),
         "endsAt": at(8, 20).isoformat(), "customer": {"cpf": cpf(7)}}
    r = await as_(integrator, HOLD, {"i": {**i, "holdType": "RESERVED"}})
    assert r["data"]["hold"]["code"] == "hold_type_not_allowed"
    staff_hold = (await api.gql(HOLD, {"i": {**i, "holdType": "STAFF_ONLY"}}))["hold"]["booking"]
    r = await as_(integrator, 'mutation($b: ID!) { drop(bookingId: $b, reason: "x") { __typename '
                  '... on Error { code } } }', {"b": staff_hold["id"]})
    assert r["data"]["drop"] == {"__typename": "InvalidInput", "code": "release_not_allowed"}
    r = await as_(bound, 'mutation($b: ID!) { drop(bookingId: $b, reason: "x") { __typename } }',
                  {"b": staff_hold["id"]})
    assert r["data"]["drop"]["__typename"] == "BookingPayload"
    # With 'book' an integrator acts for its customer: it may cancel a CART hold (CUSTOMER) though not drop it.
    cart = (await as_(integrator, HOLD, {"i": {**i, "startsAt": at(8, 21).isoformat(),
                                                "endsAt": at(8, 22).isoformat()}}))["data"]["hold"]["booking"]
    r = await as_(integrator, 'mutation($b: ID!) { drop(bookingId: $b, reason: "x") { __typename '
                  '... on Error { code } } }', {"b": cart["id"]})
    assert r["data"]["drop"]["code"] == "release_not_allowed"
    r = await as_(integrator, 'mutation($b: ID!) { cancel(bookingId: $b) { __typename } }', {"b": cart["id"]})
    assert r["data"]["cancel"]["__typename"] == "BookingPayload"
