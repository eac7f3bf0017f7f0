"""Setting a venue up through GraphQL (issue 18): the platform creates tenants, organizations and units; owners
issue, list and revoke tokens within their reach, and set the unit's contacts. Real tokens of each role and of two
tenants against a real server; every change in venueChanges and live on venueChanged."""

from __future__ import annotations

import asyncio
import json
import time
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

import pytest
import websockets

from schema.ids import decode_id, global_id
from store.access import PgAccess, digest, reach_digest
from tests.api.conftest import system_token
from tests.live import live_api
from tests.venues import arena

TENANT = "mutation($n: String!) { createTenant(name: $n) { __typename ... on Tenant { id name } "\
         "... on InvalidInput { field code } } }"
ORG = ("mutation($t: ID!, $n: String!) { createOrganization(tenantId: $t, name: $n) { __typename "
       "... on Organization { id tenantId name } ... on Error { code } ... on NotFound { field } } }")
UNIT = ("mutation($i: CreateUnitInput!) { createUnit(input: $i) { __typename ... on CreatedUnit { tenantId "
        "unit { id name timezone currency parameters { slotMinutes } } ownerToken { secret token { id name kind role "
        "tenantWide unitId } } } ... on InvalidInput { field code } ... on NotFound { field code } } }")
ME = "{ me { kind role unitId tenantId } }"
CHANGES = "query($u: ID!) { venueChanges(unitId: $u) { entity entityId action before after session } }"
LIVE = "subscription($u: ID!) { venueChanged(unitId: $u) { entity entityId action session } }"
ISSUE = ("mutation($i: IssueStaffTokenInput!) { issueStaffToken(input: $i) { __typename ... on IssuedStaffToken { "
         "secret token { id name kind role scopes unitId tenantWide expiresAt revokedAt } } "
         "... on InvalidInput { field code } } }")
TOKENS = ("query($u: ID!, $r: Boolean! = false) { staffTokens(unitId: $u, includeRevoked: $r) { id name kind role "
          "scopes unitId tenantWide createdAt lastUsedAt expiresAt revokedAt } }")
REVOKE = ("mutation($t: ID!) { revokeStaffToken(tokenId: $t) { __typename ... on StaffTokenRevoked { "
          "revokedOwnToken token { id revokedAt } } ... on NotFound { field } } }")
CONTACTS = ("mutation($u: ID!, $i: UnitContactsInput!) { updateUnitContacts(unitId: $u, input: $i) { __typename "
            "... on Unit { contacts { alertWhatsapp ownerEmail } } ... on InvalidInput { field code } } }")
SEE = "query($u: ID!) { unit(id: $u) { ... on Unit { currency contacts { alertWhatsapp ownerEmail } } } }"


@pytest.fixture
async def live(database_url: str, redis_url: str) -> Any:
    async with live_api(database_url, redis_url) as server:
        yield server


def _code(body: dict[str, Any]) -> str:
    return str(body["errors"][0]["extensions"]["code"])


async def test_the_platform_creates_a_tenant_an_organization_and_a_unit_with_its_owner(live: Any, pool: Any
                                                                                       ) -> None:
    system = await system_token(live.access)
    tenant = (await live.gql(system, TENANT, {"n": "  Arena Sul   Ltda "}))["createTenant"]
    assert tenant["__typename"] == "Tenant" and tenant["name"] == "Arena Sul Ltda"
    org = (await live.gql(system, ORG, {"t": tenant["id"], "n": "Arena Sul"}))["createOrganization"]
    assert org["__typename"] == "Organization" and org["tenantId"] == tenant["id"]
    made = (await live.gql(system, UNIT, {"i": {"organizationId": org["id"], "name": "Arena Sul — Centro",
                                                "timezone": "America/Recife", "slotMinutes": 30, "currency": "brl",
                                                "ownerTokenName": "Dona Ana"}}))["createUnit"]
    assert made["__typename"] == "CreatedUnit" and made["tenantId"] == tenant["id"]
    unit = made["unit"]
    assert (unit["timezone"], unit["currency"], unit["parameters"]["slotMinutes"]) == ("America/Recife", "BRL", 30)
    owner = made["ownerToken"]
    assert owner["token"]["role"] == "OWNER" and owner["token"]["unitId"] == unit["id"]
    assert owner["secret"].startswith("slh_s_")
    me = (await live.gql(owner["secret"], ME))["me"]
    assert me == {"kind": "STAFF", "role": "OWNER", "unitId": unit["id"], "tenantId": tenant["id"]}
    # Both are in the unit's log, with who; the token without its secret.
    system_id = await pool.fetchval("SELECT id FROM access_tokens WHERE secret_hash = $1", digest(system))
    logged = (await live.gql(owner["secret"], CHANGES, {"u": unit["id"]}))["venueChanges"]
    assert [(c["entity"], c["action"]) for c in logged] == [("STAFF_TOKEN", "CREATED"), ("UNIT", "CREATED")]
    assert {c["session"] for c in logged} == {f"system:{system_id}"}
    assert logged[1]["after"] == {"name": "Arena Sul — Centro", "timezone": "America/Recife", "slotMinutes": 30,
                                  "currency": "BRL", "organizationId": str(decode_id(org["id"])[1])}  # stored JSON
    assert logged[0]["after"]["role"] == "owner" and owner["secret"] not in json.dumps(logged)
    # A unit without an owner token is made too.
    bare = (await live.gql(system, UNIT, {"i": {"organizationId": org["id"], "name": "Anexo"}}))["createUnit"]
    assert bare["ownerToken"] is None and bare["unit"]["timezone"] == "America/Sao_Paulo"


@pytest.mark.parametrize(("given", "field", "code"), [
    ({"timezone": "Mars/Olympus"}, "timezone", "invalid_timezone"),
    ({"timezone": ""}, "timezone", "invalid_timezone"),
    ({"slotMinutes": 7}, "slotMinutes", "invalid_slot_minutes"),
    ({"slotMinutes": 480}, "slotMinutes", "invalid_slot_minutes"),
    ({"slotMinutes": 0}, "slotMinutes", "invalid_slot_minutes"),
    ({"currency": "XYZ"}, "currency", "invalid_currency"),
    ({"name": "   "}, "name", "required"),
    ({"name": "x" * 121}, "name", "invalid_name"),
    ({"ownerTokenName": ""}, "ownerTokenName", "required"),
])
async def test_create_unit_refuses_bad_values_naming_them(live: Any, pool: Any, given: dict[str, Any], field: str,
                                                          code: str) -> None:
    system = await system_token(live.access)
    v = await arena(pool)
    before = await pool.fetchval("SELECT (SELECT count(*) FROM units) + (SELECT count(*) FROM access_tokens)")
    body = await live.gql(system, UNIT, {"i": {"organizationId": str(v.organization_id), "name": "Nova",
                                               "ownerTokenName": "owner", **given}})
    assert body["createUnit"] == {"__typename": "InvalidInput", "field": field, "code": code}
    after = await pool.fetchval("SELECT (SELECT count(*) FROM units) + (SELECT count(*) FROM access_tokens)")
    assert after == before


async def test_only_the_platform_creates_tenants_organizations_and_units(live: Any, pool: Any) -> None:
    system = await system_token(live.access)
    v = await arena(pool)
    missing = "00000000-0000-4000-8000-000000000000"
    assert (await live.gql(system, ORG, {"t": missing, "n": "x"}))["createOrganization"] == {
        "__typename": "NotFound", "code": "not_found", "field": "tenantId"}
    assert (await live.gql(system, UNIT, {"i": {"organizationId": missing, "name": "x"}}))["createUnit"] == {
        "__typename": "NotFound", "field": "organizationId", "code": "not_found"}
    assert (await live.gql(system, TENANT, {"n": " "}))["createTenant"] == {
        "__typename": "InvalidInput", "field": "name", "code": "required"}
    callers = {
        "tenant owner": (await live.access.issue_token(v.tenant_id, None, "staff", "owner", [], "o"))[1],
        "unit owner": (await live.access.issue_token(v.tenant_id, v.unit_id, "staff", "owner", [], "o"))[1],
        "manager": (await live.access.issue_token(v.tenant_id, v.unit_id, "staff", "manager", [], "m"))[1],
        "integrator": (await live.access.issue_token(v.tenant_id, None, "client", None, ["configure"], "i"))[1],
    }
    tenants = await pool.fetchval("SELECT count(*) FROM tenants")
    for who, token in [*callers.items(), ("anonymous", None)]:
        for query, variables in ((TENANT, {"n": "Mine"}), (ORG, {"t": str(v.tenant_id), "n": "Mine"}),
                                 (UNIT, {"i": {"organizationId": str(v.organization_id), "name": "Mine"}})):
            body = await live.post(token, query, variables)
            assert _code(body) == ("unauthenticated" if token is None else "forbidden"), (who, body)
            assert body["data"] is None
    assert await pool.fetchval("SELECT count(*) FROM tenants") == tenants
    assert await pool.fetchval("SELECT count(*) FROM units WHERE name = 'Mine'") == 0


async def _two_units(live: Any, pool: Any) -> tuple[Any, str, str, dict[str, tuple[UUID, str]]]:
    """Tenant A with units a1 and a2 (a2 made by createUnit), and tokens of every kind of caller."""
    system = await system_token(live.access)
    v, other = await arena(pool), await arena(pool)
    a2 = (await live.gql(system, UNIT, {"i": {"organizationId": str(v.organization_id), "name": "A2"}}))[
        "createUnit"]["unit"]["id"]
    issue = live.access.issue_token
    tokens = {
        "unit owner": await issue(v.tenant_id, v.unit_id, "staff", "owner", [], "unit owner"),
        "tenant owner": await issue(v.tenant_id, None, "staff", "owner", [], "tenant owner"),
        "manager": await issue(v.tenant_id, v.unit_id, "staff", "manager", [], "manager"),
        "operator": await issue(v.tenant_id, v.unit_id, "staff", "operator", [], "operator"),
        "integrator": await issue(v.tenant_id, None, "client", None, ["configure", "read"], "integrator"),
        "stranger": await issue(other.tenant_id, None, "staff", "owner", [], "stranger"),
        "a2 operator": await issue(v.tenant_id, decode_id(a2)[1], "staff", "operator", [], "a2 operator"),
    }
    return v, str(v.unit_id), a2, tokens


async def test_owners_issue_tokens_only_within_their_reach(live: Any, pool: Any) -> None:
    v, a1, a2, tokens = await _two_units(live, pool)
    t = {k: s for k, (_, s) in tokens.items()}
    desk = {"unitId": a1, "kind": "STAFF", "role": "OPERATOR", "name": " Recepção  1 "}
    issued = (await live.gql(t["unit owner"], ISSUE, {"i": desk}))["issueStaffToken"]
    assert issued["__typename"] == "IssuedStaffToken", issued
    assert issued["token"]["name"] == "Recepção 1" and issued["token"]["unitId"] == global_id("Unit", a1)
    assert not issued["token"]["tenantWide"] and issued["token"]["role"] == "OPERATOR"
    assert (await live.gql(issued["secret"], ME))["me"]["role"] == "OPERATOR"
    # A unit owner: that unit only, never tenant-wide; a tenant owner: the tenant and any of its units.
    for refused in ({**desk, "unitId": a2}, {**desk, "tenantWide": True}):
        assert _code(await live.post(t["unit owner"], ISSUE, {"i": refused})) == "forbidden", refused
    wide = await live.gql(t["tenant owner"], ISSUE, {"i": {**desk, "tenantWide": True, "role": "MANAGER",
                                                           "name": "wide"}})
    assert wide["issueStaffToken"]["token"]["tenantWide"] and wide["issueStaffToken"]["token"]["unitId"] is None
    wide_me = (await live.gql(wide["issueStaffToken"]["secret"], ME))["me"]
    assert wide_me == {"kind": "STAFF", "role": "MANAGER", "unitId": None, "tenantId": global_id("Tenant", v.tenant_id)}
    a2_desk = await live.gql(t["tenant owner"], ISSUE, {"i": {**desk, "unitId": a2, "name": "a2 desk"}})
    assert a2_desk["issueStaffToken"]["token"]["unitId"] == a2
    # Managers, operators, integrators (even with `configure`), other tenants' owners and anonymous callers: no.
    for who in ("manager", "operator", "integrator", "stranger"):
        assert _code(await live.post(t[who], ISSUE, {"i": {**desk, "role": "OPERATOR"}})) == "forbidden", who
    assert _code(await live.post(t["manager"], ISSUE, {"i": {**desk, "role": "OWNER"}})) == "forbidden"
    assert _code(await live.post(None, ISSUE, {"i": desk})) == "unauthenticated"
    # Integrators get scopes, staff a role; each refusal names its field.
    api = (await live.gql(t["unit owner"], ISSUE, {"i": {"unitId": a1, "kind": "INTEGRATOR", "name": "site",
                                                         "scopes": ["BOOK", "READ", "BOOK"]}}))["issueStaffToken"]
    assert api["token"]["kind"] == "INTEGRATOR" and api["token"]["scopes"] == ["BOOK", "READ"]
    assert (await live.gql(api["secret"], ME))["me"]["kind"] == "INTEGRATOR"
    soon = (datetime.now(UTC) - timedelta(minutes=1)).isoformat()
    for bad, field, code in (
            ({"kind": "INTEGRATOR", "scopes": []}, "scopes", "invalid_scope"),
            ({"kind": "STAFF"}, "role", "invalid_role"),
            ({"kind": "STAFF", "role": "OWNER", "scopes": ["READ"]}, "scopes", "invalid_scope"),
            ({"kind": "INTEGRATOR", "role": "OWNER", "scopes": ["READ"]}, "role", "invalid_role"),
            ({"kind": "STAFF", "role": "OWNER", "name": ""}, "name", "required"),
            ({"kind": "STAFF", "role": "OWNER", "expiresAt": soon}, "expiresAt", "in_the_past")):
        body = await live.gql(t["unit owner"], ISSUE, {"i": {"unitId": a1, "name": "x", **bad}})
        assert body["issueStaffToken"] == {"__typename": "InvalidInput", "field": field, "code": code}, bad
    for unknown in ("FLY", "PLATFORM"):  # not a Scope (PLATFORM is no integrator's): refused by the schema
        body = await live.post(t["unit owner"], ISSUE, {"i": {"unitId": a1, "name": "x", "kind": "INTEGRATOR",
                                                               "scopes": [unknown]}})
        assert body["errors"][0]["extensions"]["code"] == "invalid_variables", body
    # Listed for the unit (its own and tenant-wide tokens), never a secret; each issue in the log, no secret there.
    listed = (await live.gql(t["unit owner"], TOKENS, {"u": a1}))["staffTokens"]
    names = [x["name"] for x in listed]
    assert {"Recepção 1", "wide", "tenant owner", "integrator"} <= set(names)
    assert "a2 operator" not in names and "stranger" not in names and "x" not in names
    assert issued["secret"] not in json.dumps(listed) and "secret" not in json.dumps(listed)
    a2_names = {x["name"] for x in (await live.gql(t["tenant owner"], TOKENS, {"u": a2}))["staffTokens"]}
    assert {"a2 operator", "a2 desk", "wide", "tenant owner"} <= a2_names and "Recepção 1" not in a2_names
    for who in ("manager", "operator", "integrator", "stranger"):
        assert _code(await live.post(t[who], TOKENS, {"u": a1})) == "forbidden", who
    log = (await live.gql(t["unit owner"], CHANGES, {"u": a1}))["venueChanges"]
    created = [c for c in log if c["entity"] == "STAFF_TOKEN" and c["action"] == "CREATED"]
    assert {c["entityId"] for c in created} == {issued["token"]["id"], api["token"]["id"],
                                                wide["issueStaffToken"]["token"]["id"]}
    assert issued["secret"] not in json.dumps(log)
    a2_log = (await live.gql(t["tenant owner"], CHANGES, {"u": a2}))["venueChanges"]
    assert wide["issueStaffToken"]["token"]["id"] in {c["entityId"] for c in a2_log}  # tenant-wide: every unit


async def test_owners_revoke_tokens_within_their_reach_and_the_token_stops_at_once(live: Any, pool: Any) -> None:
    _, a1, _, tokens = await _two_units(live, pool)
    t = {k: s for k, (_, s) in tokens.items()}
    ids = {k: str(i) for k, (i, _) in tokens.items()}
    gids = {k: global_id("StaffToken", i) for k, (i, _) in tokens.items()}  # as the API answers them
    # Outside the caller's reach, or not an owner: refused, and the token still works.
    for who, target in (("unit owner", "tenant owner"), ("unit owner", "a2 operator"), ("stranger", "operator"),
                        ("manager", "operator"), ("operator", "operator"), ("integrator", "operator"),
                        ("tenant owner", "stranger")):
        assert _code(await live.post(t[who], REVOKE, {"t": ids[target]})) == "forbidden", (who, target)
    assert (await live.gql(t["operator"], ME))["me"]["role"] == "OPERATOR"
    system_id = await pool.fetchval("SELECT id FROM access_tokens WHERE kind = 'system' LIMIT 1")
    assert (await live.gql(t["tenant owner"], REVOKE, {"t": str(system_id)}))["revokeStaffToken"] == {
        "__typename": "NotFound", "field": "tokenId"}
    # Revoked: refused at once (this process), listed as revoked with includeRevoked, logged as removed.
    async with live.subscribe(t["manager"], LIVE, {"u": a1}) as feed:
        done = (await live.gql(t["unit owner"], REVOKE, {"t": ids["operator"]}))["revokeStaffToken"]
        assert done["__typename"] == "StaffTokenRevoked" and done["revokedOwnToken"] is False
        assert done["token"]["revokedAt"]
        event = (await feed.next())["venueChanged"]
        assert (event["entity"], event["entityId"], event["action"]) == ("STAFF_TOKEN", gids["operator"], "REMOVED")
    assert _code(await live.post(t["operator"], ME)) == "unauthenticated"
    again = (await live.gql(t["unit owner"], REVOKE, {"t": ids["operator"]}))["revokeStaffToken"]
    assert again["token"]["revokedAt"] == done["token"]["revokedAt"]  # revoking twice changes nothing
    live_list = (await live.gql(t["unit owner"], TOKENS, {"u": a1}))["staffTokens"]
    assert gids["operator"] not in {x["id"] for x in live_list}
    every = (await live.gql(t["unit owner"], TOKENS, {"u": a1, "r": True}))["staffTokens"]
    assert [x["revokedAt"] is not None for x in every if x["id"] == gids["operator"]] == [True]
    log = (await live.gql(t["unit owner"], CHANGES, {"u": a1}))["venueChanges"]
    removed = [c for c in log if c["entity"] == "STAFF_TOKEN" and c["action"] == "REMOVED"]
    assert len(removed) == 1 and removed[0]["before"]["role"] == "operator"
    assert removed[0]["session"] == f"staff:{ids['unit owner']}"
    # A tenant owner may revoke a unit's token; an owner may revoke the very token it calls with, and is told so.
    assert (await live.gql(t["tenant owner"], REVOKE, {"t": ids["manager"]}))["revokeStaffToken"][
        "revokedOwnToken"] is False
    own = (await live.gql(t["unit owner"], REVOKE, {"t": ids["unit owner"]}))["revokeStaffToken"]
    assert own["revokedOwnToken"] is True
    assert _code(await live.post(t["unit owner"], ME)) == "unauthenticated"


async def test_a_revoked_token_closes_its_open_websocket(live: Any, pool: Any) -> None:
    v = await arena(pool)
    owner = (await live.access.issue_token(v.tenant_id, v.unit_id, "staff", "owner", [], "owner"))[1]
    desk_id, desk = await live.access.issue_token(v.tenant_id, v.unit_id, "staff", "operator", [], "desk")
    async with websockets.connect(f"ws://127.0.0.1:{live.port}/graphql",
                                  subprotocols=[websockets.Subprotocol("graphql-transport-ws")]) as ws:
        await ws.send(json.dumps({"type": "connection_init", "payload": {"authorization": f"Bearer {desk}"}}))
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        await ws.send(json.dumps({"id": "1", "type": "subscribe",
                                  "payload": {"query": LIVE, "variables": {"u": str(v.unit_id)}}}))
        await asyncio.sleep(0.3)
        started = time.monotonic()
        assert (await live.gql(owner, REVOKE, {"t": str(desk_id)}))["revokeStaffToken"]["revokedOwnToken"] is False
        with pytest.raises(websockets.ConnectionClosed) as closed:
            while True:
                await asyncio.wait_for(ws.recv(), 5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
        assert time.monotonic() - started < 2.5


async def test_tokens_expire_and_say_when_they_were_last_used(live: Any, pool: Any) -> None:
    v = await arena(pool)
    owner = (await live.access.issue_token(v.tenant_id, v.unit_id, "staff", "owner", [], "owner"))[1]
    until = datetime.now(UTC) + timedelta(hours=1)
    issued = (await live.gql(owner, ISSUE, {"i": {"unitId": str(v.unit_id), "kind": "STAFF", "role": "OPERATOR",
                                                  "name": "temp", "expiresAt": until.isoformat()}}))["issueStaffToken"]
    assert datetime.fromisoformat(issued["token"]["expiresAt"]) == until
    listed = {x["name"]: x for x in (await live.gql(owner, TOKENS, {"u": str(v.unit_id)}))["staffTokens"]}
    assert listed["temp"]["lastUsedAt"] is None and listed["owner"]["lastUsedAt"] is not None
    await live.gql(issued["secret"], ME)
    listed = {x["name"]: x for x in (await live.gql(owner, TOKENS, {"u": str(v.unit_id)}))["staffTokens"]}
    assert listed["temp"]["lastUsedAt"] is not None
    access = PgAccess(pool)
    token_id = decode_id(issued["token"]["id"])[1]
    assert await access.principal(issued["secret"], until - timedelta(seconds=1)) is not None
    assert await access.principal(issued["secret"], until) is None  # expired: as if revoked
    who = await access.principal(issued["secret"], datetime.now(UTC))
    assert who is not None
    assert await access.lapsed_credentials([(token_id, reach_digest(who))], datetime.now(UTC)) == []
    assert await access.lapsed_credentials([(token_id, reach_digest(who))], until) == [(token_id, reach_digest(who))]


async def test_owners_set_the_unit_contacts_and_only_staff_see_them(live: Any, pool: Any) -> None:
    v, other = await arena(pool), await arena(pool)
    u = str(v.unit_id)
    owner_id, owner = await live.access.issue_token(v.tenant_id, v.unit_id, "staff", "owner", [], "owner")
    operator = (await live.access.issue_token(v.tenant_id, v.unit_id, "staff", "operator", [], "op"))[1]
    manager = (await live.access.issue_token(v.tenant_id, v.unit_id, "staff", "manager", [], "m"))[1]
    reader = (await live.access.issue_token(v.tenant_id, None, "client", None, ["read", "configure"], "r"))[1]
    stranger = (await live.access.issue_token(other.tenant_id, None, "staff", "owner", [], "s"))[1]
    async with live.subscribe(operator, LIVE, {"u": u}) as feed:
        done = (await live.gql(owner, CONTACTS, {"u": u, "i": {"alertWhatsapp": "(11) 98888-7777",
                                                               "ownerEmail": " Dona.Ana@Arena.COM.br "}}))
        assert done["updateUnitContacts"]["contacts"] == {"alertWhatsapp": "+5511988887777",
                                                          "ownerEmail": "dona.ana@arena.com.br"}
        event = (await feed.next())["venueChanged"]
        assert (event["entity"], event["entityId"], event["action"]) == ("CONTACTS", global_id("Unit", u), "UPDATED")
        assert event["session"] == f"staff:{owner_id}"
        # The same value again changes and logs nothing.
        await live.gql(owner, CONTACTS, {"u": u, "i": {"ownerEmail": "dona.ana@arena.com.br"}})
        await feed.nothing()
    log = [c for c in (await live.gql(owner, CHANGES, {"u": u}))["venueChanges"] if c["entity"] == "CONTACTS"]
    assert len(log) == 1 and log[0]["before"] == {"alertWhatsapp": None, "ownerEmail": None}
    assert log[0]["after"] == {"alertWhatsapp": "+5511988887777", "ownerEmail": "dona.ana@arena.com.br"}
    # Staff of the unit see them; the public, integrators and other tenants do not.
    for token in (owner, operator):
        assert (await live.gql(token, SEE, {"u": u}))["unit"] == {"currency": "BRL", "contacts": {
            "alertWhatsapp": "+5511988887777", "ownerEmail": "dona.ana@arena.com.br"}}
    for token in (None, reader, stranger):
        assert (await live.gql(token, SEE, {"u": u}))["unit"]["contacts"] is None
    # Refusals name the field and change nothing; "" clears; updateUnitParameters still sets the same number.
    for bad, field, code in (({"alertWhatsapp": "12345"}, "alertWhatsapp", "invalid_phone"),
                             ({"ownerEmail": "not-an-email"}, "ownerEmail", "invalid_email"),
                             ({}, "input", "nothing_to_change")):
        assert (await live.gql(owner, CONTACTS, {"u": u, "i": bad}))["updateUnitContacts"] == {
            "__typename": "InvalidInput", "field": field, "code": code}
    for token in (manager, operator, stranger):
        assert _code(await live.post(token, CONTACTS, {"u": u, "i": {"ownerEmail": ""}})) == "forbidden"
    # An integrator with the `configure` scope may set them (as it may set parameters), yet is not shown them.
    by_api = await live.gql(reader, CONTACTS, {"u": u, "i": {"ownerEmail": "api@arena.com.br"}})
    assert by_api["updateUnitContacts"] == {"__typename": "Unit", "contacts": None}
    assert _code(await live.post(None, CONTACTS, {"u": u, "i": {"ownerEmail": ""}})) == "unauthenticated"
    cleared = await live.gql(owner, CONTACTS, {"u": u, "i": {"ownerEmail": ""}})
    assert cleared["updateUnitContacts"]["contacts"] == {"alertWhatsapp": "+5511988887777", "ownerEmail": None}
    params = await live.gql(owner, "mutation($u: ID!) { updateUnitParameters(unitId: $u, input: "
                                   '{ownerAlertWhatsapp: "+5521977776666"}) { __typename } }', {"u": u})
    assert params["updateUnitParameters"]["__typename"] == "Unit"
    assert (await live.gql(owner, SEE, {"u": u}))["unit"]["contacts"]["alertWhatsapp"] == "+5521977776666"
    assert await pool.fetchval("SELECT owner_email FROM units WHERE id = $1", v.unit_id) is None
