"""Access (SPEC §14): tokens and sign-in — who a token says it is, bad and revoked tokens, login codes that expire and
resist guessing, and the token command's checks. The world is the access matrix's (test_access.py)."""

from __future__ import annotations

import asyncio
import re
import secrets
from typing import Any
from uuid import uuid4

import pytest

from schema.ids import decode_id
from slothold.cli.tokens import TokenError, create_token
from store.access import PgAccess
from tests.api.test_access import World, world  # noqa: F401 (fixtures)
from tests.conftest import MutableClock
from tests.venues import arena


async def test_bad_tokens_and_who_am_i(world: World) -> None:  # noqa: F811
    me = "{ me { kind role scopes unitId } }"
    got = (await world.gql("manager", me))["data"]["me"]
    assert decode_id(got.pop("unitId")) == ("Unit", world.unit)
    assert got == {"kind": "STAFF", "role": "MANAGER", "scopes": []}
    assert (await world.gql("read", me))["data"]["me"]["scopes"] == ["READ"]
    assert (await world.gql("anonymous", me))["data"]["me"]["kind"] == "ANONYMOUS"
    for bad in ("slh_s_" + "x" * 43, "garbage", "slh_c_nope"):
        r = await world.client.post("/graphql", json={"query": "query($u: ID!) { unit(id: $u) { __typename } }",
                                                      "variables": {"u": str(world.unit)}},
                                    headers={"authorization": f"Bearer {bad}"})
        assert r.json()["errors"][0]["extensions"]["code"] == "unauthenticated", r.text


async def test_revoked_tokens_stop_working(world: World, pool: Any) -> None:  # noqa: F811
    access = PgAccess(pool)
    tenant = await pool.fetchval("SELECT o.tenant_id FROM units u JOIN organizations o ON o.id = u.organization_id "
                                 "WHERE u.id = $1", world.unit)
    token_id, token = await access.issue_token(tenant, world.unit, "staff", "operator", [], "temp")
    world.tokens["temp"] = token
    q = "query($u: ID!) { queue(unitId: $u) { id } }"
    assert "errors" not in await world.gql("temp", q, {"u": str(world.unit)})
    assert await access.revoke_token(token_id)
    await asyncio.sleep(2.1)
    assert (await world.gql("temp", q, {"u": str(world.unit)}))["errors"][0]["extensions"]["code"] == \
        "unauthenticated"


async def test_login_codes_expire_and_resist_guessing(world: World, clock: MutableClock) -> None:  # noqa: F811
    phone = f"+55119{secrets.randbelow(10**8):08d}"
    ask = ("mutation($u: ID!, $p: String) { requestLoginCode(unitId: $u, phone: $p) { __typename "
           "... on Error { code } } }")
    verify = ("mutation($u: ID!, $p: String, $c: String!) { verifyLoginCode(unitId: $u, phone: $p, code: $c) { "
              "__typename ... on Error { code } } }")
    v = {"u": str(world.unit), "p": phone}
    assert (await world.gql("anonymous", ask, v))["data"]["requestLoginCode"]["__typename"] == "LoginCodeSent"
    for _ in range(5):
        r = await world.gql("anonymous", verify, {**v, "c": "000000"})
        assert r["data"]["verifyLoginCode"]["code"] in ("wrong_code",)
    r = await world.gql("anonymous", verify, {**v, "c": "000000"})
    assert r["data"]["verifyLoginCode"]["code"] == "too_many_attempts"
    for _ in range(2):
        assert (await world.gql("anonymous", ask, v))["data"]["requestLoginCode"]["__typename"] == "LoginCodeSent"
    r = await world.gql("anonymous", ask, v)
    assert r["data"]["requestLoginCode"]["code"] == "too_many_attempts"  # 3 per 15 minutes
    clock.advance(minutes=16)
    assert (await world.gql("anonymous", ask, v))["data"]["requestLoginCode"]["__typename"] == "LoginCodeSent"
    text = (await world.gql("system", "query($t: String!) { sandboxMessages(to: $t) { text } }",
                            {"t": phone}))["data"]["sandboxMessages"][0]["text"]
    code = re.search(r"\b(\d{6})\b", text).group(1)  # type: ignore[union-attr]
    clock.advance(minutes=11)  # codes live 10 minutes
    assert (await world.gql("anonymous", verify, {**v, "c": code}))["data"]["verifyLoginCode"]["code"] == "wrong_code"
    bad = await world.gql("anonymous", ask, {"u": str(world.unit), "p": "12"})
    assert bad["data"]["requestLoginCode"]["__typename"] == "InvalidInput"


async def test_token_cli_checks_its_arguments(pool: Any) -> None:
    access = PgAccess(pool)
    v = await arena(pool)
    with pytest.raises(TokenError, match="--role"):
        await create_token(access, unit=v.unit_id, tenant=None, role="boss", scopes=None, system=False, name="x")
    with pytest.raises(TokenError, match="unknown scope"):
        await create_token(access, unit=v.unit_id, tenant=None, role=None, scopes=["fly"], system=False, name="x")
    with pytest.raises(TokenError, match="no unit"):
        await create_token(access, unit=uuid4(), tenant=None, role="owner", scopes=None, system=False, name="x")
    with pytest.raises(TokenError, match="one of them"):
        await create_token(access, unit=v.unit_id, tenant=None, role="owner", scopes=["read"], system=False,
                           name="x")
    token_id, token = await create_token(access, unit=v.unit_id, tenant=None, role="owner", scopes=None,
                                         system=False, name="x")
    stored = await pool.fetchrow("SELECT secret_hash, role FROM access_tokens WHERE id = $1", token_id)
    assert stored["role"] == "owner" and token.encode() not in bytes(stored["secret_hash"])
