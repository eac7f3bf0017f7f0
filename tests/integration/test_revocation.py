"""Revoked, expired or changed credentials end what is already open with them (issue 16), on every API process.

Two real API processes (uvicorn) and a worker (the relay) on one PostgreSQL and Redis; clients are real
websockets. A staff token revoked with `slothold token revoke`, a customer who signs out, a session that expires
and a token whose role changes: each socket opened with them, on both processes, is closed with 4403 within 2 s
(measured). Sockets of other credentials stay open and keep receiving. A blacklisted customer keeps their own
booking's live feed (README, Access). With Redis stopped, revocation still cuts.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import secrets
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any
from uuid import UUID

import httpx
import pytest
import websockets

from slothold.cli.embedded import free_port, start_redis
from slothold.cli.tokens import cmd_token
from slothold.settings import Settings
from store.access import PgAccess, digest, reach_digest
from tests.integration.cluster import Cluster, WsClient, cluster, gql
from tests.integration.test_realtime import HOLD, SLOTS, hold_on, tomorrow, window
from tests.venues import arena

CUT_WITHIN = 2.5
"""Seconds: the promise is 2 s; the margin covers the test's own polling and a loaded machine."""

BOOKING = "subscription($b: ID!) { bookingChanged(bookingId: $b) { seq event status } }"


async def _tenant(pool: Any, unit: UUID) -> UUID:
    return await pool.fetchval(  # type: ignore[no-any-return]
        "SELECT o.tenant_id FROM units u JOIN organizations o ON o.id = u.organization_id WHERE u.id = $1", unit)


async def _subscribed(port: int, token: str, query: str, variables: dict[str, Any]) -> WsClient:
    """A socket with one accepted subscription (no error within 0.3 s; an event that was already on its way, such
    as the hold just placed, may arrive)."""
    ws = await WsClient.connect(port, token)
    await ws.subscribe(query, variables)
    await _still_open(ws, 0.3)
    return ws


async def _closed(ws: WsClient, since: float, timeout: float = 5.0) -> tuple[int | None, float]:
    """Wait for the server to close the socket: (close code, seconds since `since`). Events already on their way
    before the cut may arrive first; they are skipped."""
    try:
        while True:
            await ws.next(timeout=max(0.01, since + timeout - time.monotonic()))
    except websockets.ConnectionClosed as closed:
        return (closed.rcvd.code if closed.rcvd else None), time.monotonic() - since
    except TimeoutError:
        raise AssertionError(f"the socket was still open {timeout} s after the revocation") from None


async def _still_open(ws: WsClient, seconds: float) -> list[dict[str, Any]]:
    """The socket stays open for `seconds`, with no error: the events it received meanwhile."""
    events: list[dict[str, Any]] = []
    deadline = time.monotonic() + seconds
    while True:
        try:
            msg = await ws.next(timeout=max(0.01, deadline - time.monotonic()))
        except TimeoutError:
            return events
        assert msg["type"] == "next" and "errors" not in msg["payload"], msg
        events.append(msg["payload"]["data"])


async def _refused_at_connect(port: int, token: str) -> int | None:
    ws = await websockets.connect(f"ws://127.0.0.1:{port}/graphql", subprotocols=["graphql-transport-ws"])
    await ws.send('{"type": "connection_init", "payload": {"authorization": "Bearer ' + token + '"}}')
    with pytest.raises(websockets.ConnectionClosed) as closed:
        await asyncio.wait_for(ws.recv(), 5)
    return closed.value.rcvd.code if closed.value.rcvd else None


async def _sign_in(port: int, unit: UUID) -> tuple[str, str]:
    """A customer session (phone, token) through the sandbox's message box."""
    phone = f"+55119{secrets.randbelow(10**8):08d}"
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=10) as http:
        r = await http.post("/graphql", json={
            "query": "mutation($u: ID!, $p: String) { requestLoginCode(unitId: $u, phone: $p) { __typename } }",
            "variables": {"u": str(unit), "p": phone}})
        assert r.json()["data"]["requestLoginCode"]["__typename"] == "LoginCodeSent", r.text
        messages = await gql(port, "query($t: String!) { sandboxMessages(to: $t) { kind text } }", {"t": phone})
        code = re.search(r"\b(\d{6})\b", messages["sandboxMessages"][0]["text"]).group(1)  # type: ignore[union-attr]
        r = await http.post("/graphql", json={
            "query": "mutation($u: ID!, $p: String, $c: String!) { verifyLoginCode(unitId: $u, phone: $p, code: $c) "
                     "{ __typename ... on CustomerSession { token } } }",
            "variables": {"u": str(unit), "p": phone, "c": code}})
        session = r.json()["data"]["verifyLoginCode"]
        assert session["__typename"] == "CustomerSession", r.text
    return phone, session["token"]


async def _own_hold(port: int, v: Any, token: str, phone: str, hour: int) -> str:
    """A hold the customer places for themselves; its booking id."""
    data = await gql(port, HOLD, {"input": {
        "unitId": str(v.unit_id), "resourceIds": [str(v.resource_ids["Campo 1"])],
        "startsAt": tomorrow(hour).isoformat(), "endsAt": tomorrow(hour + 1).isoformat(),
        "customer": {"phone": phone}}}, token=token)
    assert data["hold"]["__typename"] == "BookingPayload", data
    return data["hold"]["booking"]["id"]  # type: ignore[no-any-return]


def _revoke_with_cli(database_url: str, token_id: UUID) -> int:
    """`slothold token revoke <id>`, as the command line runs it."""
    args = argparse.Namespace(token_command="revoke", id=str(token_id), database_url=database_url)
    return cmd_token(args, Settings(database_url=database_url))



@pytest.fixture(scope="module")
def two_apis(database_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Two API processes and a worker, shared by the tests of this module (each makes its own venue and tokens)."""
    with cluster(database_url, redis_url, tmp_path_factory.mktemp("revocation"), apis=2, workers=1) as c:
        yield c

async def test_lapsed_credentials_sees_every_kind_of_token_and_session_as_it_was_opened(pool: Any) -> None:
    """The reach digest computed from a principal (when a socket authenticates) and the one the query computes from
    the rows agree for every kind of credential; each change, revocation or expiry makes it lapse."""
    v = await arena(pool)
    access = PgAccess(pool)
    tenant = await _tenant(pool, v.unit_id)
    issued = {
        "system": await access.issue_token(None, None, "system", None, [], "platform"),
        "staff": await access.issue_token(tenant, v.unit_id, "staff", "manager", [], "desk"),
        "tenant staff": await access.issue_token(tenant, None, "staff", "owner", [], "owner"),
        "client": await access.issue_token(tenant, None, "client", None, ["book", "read", "webhooks"], "bot"),
    }
    customer = await pool.fetchval("INSERT INTO customers (id, tenant_id, phone, name) VALUES (gen_random_uuid(), $1, "
                                   "$2, 'Ana') RETURNING id", tenant, f"+55119{secrets.randbelow(10**8):08d}")
    now = await pool.fetchval("SELECT now()")
    issued["customer"] = await access.open_session(v.unit_id, tenant, customer, now, timedelta(days=30))
    principals = {kind: await access.principal(token, now) for kind, (_, token) in issued.items()}
    watched = {kind: (p.token_id, reach_digest(p)) for kind, p in principals.items() if p is not None}
    assert len(watched) == 5
    assert await access.lapsed_credentials(list(watched.values()), now) == []
    await access.revoke_token(issued["system"][0])
    await pool.execute("UPDATE access_tokens SET role = 'operator' WHERE id = $1", issued["staff"][0])
    await pool.execute("UPDATE access_tokens SET scopes = '{read,book}' WHERE id = $1", issued["client"][0])
    await pool.execute("UPDATE customer_sessions SET expires_at = $2 WHERE id = $1", issued["customer"][0],
                       now + timedelta(seconds=1))
    lapsed = await access.lapsed_credentials(list(watched.values()), now + timedelta(seconds=2))
    assert sorted(lapsed) == sorted(watched[k] for k in ("system", "staff", "client", "customer"))


async def test_a_revoked_staff_token_ends_its_live_subscriptions_on_every_api_process(
    two_apis: Cluster, pool: Any, database_url: str
) -> None:
    v = await arena(pool)
    access = PgAccess(pool)
    tenant = await _tenant(pool, v.unit_id)
    token_id, token = await access.issue_token(tenant, v.unit_id, "staff", "operator", [], "front desk")
    _, other = await access.issue_token(tenant, v.unit_id, "staff", "operator", [], "back office")
    with contextlib.nullcontext(two_apis) as c:
        (_, port_a), (_, port_b) = c.apis
        revoked = [await _subscribed(port, token, SLOTS, window(v)) for port in (port_a, port_b)]
        kept = [await _subscribed(port, other, SLOTS, window(v)) for port in (port_a, port_b)]
        await hold_on(port_a, v, "Campo 1", 9, 1)
        for ws in (*revoked, *kept):  # all four are live
            (event,) = await ws.collect(1)
            assert event["slotChanged"]["event"] == "BOOKING_HELD"
        assert await asyncio.to_thread(_revoke_with_cli, database_url, token_id) == 0
        revoked_at = time.monotonic()
        cuts = await asyncio.gather(*(_closed(ws, revoked_at) for ws in revoked))
        print("staff token revoked: sockets closed after", [round(t, 3) for _, t in cuts], "s")
        assert [code for code, _ in cuts] == [4403, 4403], cuts
        assert max(t for _, t in cuts) < CUT_WITHIN, cuts
        # The other token's sockets stay open and keep receiving.
        await hold_on(port_b, v, "Campo 2", 9, 2)
        for ws in kept:
            (event,) = await ws.collect(1)
            assert event["slotChanged"]["event"] == "BOOKING_HELD"
        for port in (port_a, port_b):
            assert await _refused_at_connect(port, token) == 4403
        for ws in kept:
            await ws.close()


async def test_a_customer_who_signs_out_loses_their_booking_feed_on_every_api_process(
    two_apis: Cluster, pool: Any
) -> None:
    v = await arena(pool)
    with contextlib.nullcontext(two_apis) as c:
        (_, port_a), (_, port_b) = c.apis
        phone, token = await _sign_in(port_a, v.unit_id)
        booking = await _own_hold(port_a, v, token, phone, 10)
        feeds = [await _subscribed(port, token, BOOKING, {"b": booking}) for port in (port_a, port_b)]
        assert await gql(port_b, "mutation { signOut }", token=token) == {"signOut": True}
        signed_out = time.monotonic()
        cuts = await asyncio.gather(*(_closed(ws, signed_out) for ws in feeds))
        print("customer signed out (on API 2): sockets closed after", [round(t, 3) for _, t in cuts], "s")
        assert [code for code, _ in cuts] == [4403, 4403], cuts
        assert max(t for _, t in cuts) < CUT_WITHIN, cuts


async def test_an_expired_customer_session_loses_its_feed(
    two_apis: Cluster, pool: Any
) -> None:
    v = await arena(pool)
    with contextlib.nullcontext(two_apis) as c:
        (_, port_a), (_, port_b) = c.apis
        phone, token = await _sign_in(port_a, v.unit_id)
        booking = await _own_hold(port_a, v, token, phone, 11)
        feeds = [await _subscribed(port, token, BOOKING, {"b": booking}) for port in (port_a, port_b)]
        assert await pool.execute("UPDATE customer_sessions SET expires_at = now() WHERE secret_hash = $1",
                                  digest(token)) == "UPDATE 1"
        expired = time.monotonic()
        cuts = await asyncio.gather(*(_closed(ws, expired) for ws in feeds))
        print("customer session expired: sockets closed after", [round(t, 3) for _, t in cuts], "s")
        assert [code for code, _ in cuts] == [4403, 4403], cuts
        assert max(t for _, t in cuts) < CUT_WITHIN, cuts


@pytest.mark.parametrize("change", ["role", "unit", "scopes"])
async def test_a_token_whose_reach_changes_is_cut(
    two_apis: Cluster, pool: Any, change: str
) -> None:
    v = await arena(pool)
    access = PgAccess(pool)
    tenant = await _tenant(pool, v.unit_id)
    if change == "scopes":
        token_id, token = await access.issue_token(tenant, v.unit_id, "client", None, ["read", "book"], "bot")
    else:
        token_id, token = await access.issue_token(tenant, v.unit_id, "staff", "operator", [], "front desk")
    _, other = await access.issue_token(tenant, v.unit_id, "staff", "operator", [], "back office")
    with contextlib.nullcontext(two_apis) as c:
        (_, port_a), (_, port_b) = c.apis
        changed = [await _subscribed(port, token, SLOTS, window(v)) for port in (port_a, port_b)]
        kept = await _subscribed(port_b, other, SLOTS, window(v))
        await asyncio.sleep(1.2)  # a check or more passes: nothing changed yet, nothing is cut
        if change == "role":  # there is no API for it yet: as an administrator would, in SQL
            await pool.execute("UPDATE access_tokens SET role = 'manager' WHERE id = $1", token_id)
        elif change == "unit":
            # bound to the whole tenant now rather than to one unit: another reach, so a new authentication
            await pool.execute("UPDATE access_tokens SET unit_id = NULL WHERE id = $1", token_id)
        else:
            await pool.execute("UPDATE access_tokens SET scopes = '{read}' WHERE id = $1", token_id)
        changed_at = time.monotonic()
        cuts = await asyncio.gather(*(_closed(ws, changed_at) for ws in changed))
        print(f"token {change} changed: sockets closed after", [round(t, 3) for _, t in cuts], "s")
        assert [code for code, _ in cuts] == [4403, 4403], cuts
        assert max(t for _, t in cuts) < CUT_WITHIN, cuts
        await hold_on(port_a, v, "Campo 3", 9, 3)
        (event,) = await kept.collect(1)
        assert event["slotChanged"]["event"] == "BOOKING_HELD"
        # Opened again with the token as it is now, it stays open.
        again = await _subscribed(port_a, token, SLOTS, window(v))
        await _still_open(again, 1.5)
        await again.close()
        await kept.close()


async def test_a_blacklisted_customer_keeps_reading_their_own_booking_live(
    two_apis: Cluster, pool: Any
) -> None:
    v = await arena(pool)
    with contextlib.nullcontext(two_apis) as c:
        (_, port_a), (_, port_b) = c.apis
        phone, token = await _sign_in(port_a, v.unit_id)
        booking = await _own_hold(port_a, v, token, phone, 12)
        feeds = [await _subscribed(port, token, BOOKING, {"b": booking}) for port in (port_a, port_b)]
        blacklist = ('mutation($u: ID!, $p: String!) { setCustomerBlacklisted(unitId: $u, customer: {phone: $p}, '
                     'blacklisted: true, reason: "chargebacks") { __typename } }')
        result = await gql(port_a, blacklist, {"u": str(v.unit_id), "p": phone})
        assert result["setCustomerBlacklisted"]["__typename"] == "CustomerBlacklistPayload", result
        for ws in feeds:  # two checks and more: nothing is cut
            await _still_open(ws, 1.3)
        # Their own booking: still read over HTTP, and its changes still arrive live on both processes.
        read = await gql(port_b, "query($b: ID!) { booking(id: $b) { __typename ... on Booking { id } } }",
                         {"b": booking}, token=token)
        assert read["booking"] == {"__typename": "Booking", "id": booking}, read
        cancelled = await gql(port_b, "mutation($b: ID!) { cancel(bookingId: $b) { __typename } }", {"b": booking})
        assert cancelled["cancel"]["__typename"] == "BookingPayload", cancelled
        for ws in feeds:
            (event,) = await ws.collect(1)
            assert event["bookingChanged"]["status"] == "CANCELLED", event
        # What the blacklist refuses: a new self-service hold.
        data = await gql(port_a, HOLD, {"input": {
            "unitId": str(v.unit_id), "resourceIds": [str(v.resource_ids["Campo 2"])],
            "startsAt": tomorrow(14).isoformat(), "endsAt": tomorrow(15).isoformat(),
            "customer": {"phone": phone}}}, token=token)
        assert data["hold"]["__typename"] == "CustomerBlacklisted", data
        for ws in feeds:
            await ws.close()


async def test_revocation_cuts_with_redis_down(database_url: str, pool: Any, tmp_path: Path) -> None:
    v = await arena(pool)
    access = PgAccess(pool)
    token_id, token = await access.issue_token(await _tenant(pool, v.unit_id), v.unit_id, "staff", "operator", [],
                                               "front desk")
    redis = start_redis(tmp_path / "redis", port=free_port())
    try:
        with cluster(database_url, redis.url, tmp_path, apis=2, workers=1) as c:
            feeds = [await _subscribed(port, token, SLOTS, window(v)) for _, port in c.apis]
            redis.stop()
            await asyncio.sleep(0.5)
            assert await access.revoke_token(token_id)
            revoked_at = time.monotonic()
            cuts = await asyncio.gather(*(_closed(ws, revoked_at) for ws in feeds))
            print("staff token revoked, Redis down: sockets closed after", [round(t, 3) for _, t in cuts], "s")
            assert [code for code, _ in cuts] == [4403, 4403], cuts
            assert max(t for _, t in cuts) < CUT_WITHIN, cuts
    finally:
        redis.stop()
