"""Notifications through the API: list, mark read, and the live `notificationAdded` subscription (customers:
their own; staff: their unit's), with the relay carrying in-app notifications to websockets through Redis."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

import httpx
import pytest
import websockets

from domain.notifications import Delivery
from providers.channels import InAppChannel
from store.in_app import PgInApp
from tests.live import live_api
from tests.venues import arena


@pytest.fixture
async def server(database_url: str, redis_url: str, pool: Any) -> AsyncIterator[dict[str, Any]]:
    async with live_api(database_url, redis_url) as live:
        port, access = live.port, live.access
        v, other = await arena(pool), await arena(pool)
        tenant_of = "SELECT o.tenant_id FROM units u JOIN organizations o ON o.id = u.organization_id WHERE u.id = $1"
        tenant, other_tenant = await pool.fetchval(tenant_of, v.unit_id), await pool.fetchval(tenant_of, other.unit_id)
        customers = []
        for n in (1, 2):
            cid = uuid4()
            await pool.execute("INSERT INTO customers (id, tenant_id, phone, name) VALUES ($1, $2, $3, 'Ana')", cid,
                               tenant, f"+55119777{n:05d}")
            customers.append(cid)
        now = datetime.now(UTC)
        tokens = {
            "operator": (await access.issue_token(tenant, v.unit_id, "staff", "operator", [], "op"))[1],
            "stranger": (await access.issue_token(other_tenant, None, "staff", "owner", [], "st"))[1],
            "customer": (await access.open_session(v.unit_id, tenant, customers[0], now, timedelta(days=1)))[1],
        }
        yield {"port": port, "tokens": tokens, "unit": v.unit_id, "customers": customers}


async def _gql(port: int, token: str | None, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
        r = await http.post("/graphql", headers={"authorization": f"Bearer {token}"} if token else {},
                            json={"query": query, "variables": variables or {}})
    return r.json()  # type: ignore[no-any-return]


async def _subscribe(port: int, token: str | None, variables: dict[str, Any]) -> Any:
    ws = await websockets.connect(f"ws://127.0.0.1:{port}/graphql", subprotocols=["graphql-transport-ws"])
    await ws.send(json.dumps({"type": "connection_init",
                              "payload": {"authorization": f"Bearer {token}"} if token else {}}))
    assert json.loads(await ws.recv())["type"] == "connection_ack"
    query = ("subscription($u: ID) { notificationAdded(unitId: $u) { seq notification { id audience kind title "
             "body } } }")
    await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": {"query": query, "variables": variables}}))
    return ws


async def _in_app(pool: Any, unit: UUID, audience: str, customer: UUID | None, title: str) -> None:
    row_id = uuid4()
    await pool.execute(
        "INSERT INTO notification_deliveries (id, key, unit_id, kind, audience, customer_id, channel, locale, title, "
        "body, next_attempt_at, created_at) VALUES ($1, $2, $3, 'created', $4, $5, 'in_app', 'pt-BR', $6, 'corpo', "
        "now(), now())", row_id, f"test:{row_id}", unit, audience, customer, title)
    await InAppChannel(PgInApp(pool)).send(Delivery(id=row_id, unit_id=unit, kind="created", audience=audience,
                                           channel="in_app", title=title, body="corpo", customer_id=customer),
                                  datetime.now(UTC))


LIST = "query($u: ID, $unread: Boolean!) { notifications(unitId: $u, unreadOnly: $unread) { id audience title } }"
MARK = "mutation($u: ID, $i: [ID!]!) { markNotificationsRead(unitId: $u, ids: $i) }"


async def test_notifications_live_listed_and_read(server: dict[str, Any], pool: Any) -> None:
    port, tokens, unit = server["port"], server["tokens"], server["unit"]
    mine, someone_else = server["customers"]
    customer_ws = await _subscribe(port, tokens["customer"], {})
    staff_ws = await _subscribe(port, tokens["operator"], {"u": str(unit)})
    for ws in (customer_ws, staff_ws):
        with pytest.raises(TimeoutError):  # accepted: waiting
            await asyncio.wait_for(ws.recv(), 0.3)
    for token, variables, code in ((tokens["stranger"], {"u": str(unit)}, "forbidden"),
                                   (None, {}, "unauthenticated"), (tokens["customer"], {"u": str(unit)}, "forbidden")):
        ws = await _subscribe(port, token, variables)
        msg = json.loads(await asyncio.wait_for(ws.recv(), 5))
        assert msg["payload"]["errors"][0]["extensions"]["code"] == code, msg
        await ws.close()

    await _in_app(pool, unit, "customer", someone_else, "Não é seu")
    await _in_app(pool, unit, "customer", mine, "Reserva criada")
    await _in_app(pool, unit, "staff", None, "Reserva cancelada")
    got = json.loads(await asyncio.wait_for(customer_ws.recv(), 10))["payload"]["data"]["notificationAdded"]
    assert got["notification"]["title"] == "Reserva criada" and got["notification"]["audience"] == "CUSTOMER"
    got = json.loads(await asyncio.wait_for(staff_ws.recv(), 10))["payload"]["data"]["notificationAdded"]
    assert got["notification"]["title"] == "Reserva cancelada" and got["notification"]["audience"] == "STAFF"
    for ws in (customer_ws, staff_ws):  # nothing else: not another customer's, not the other audience's
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(ws.recv(), 0.5)
        await ws.close()

    own = (await _gql(port, tokens["customer"], LIST, {"unread": False}))["data"]["notifications"]
    assert [n["title"] for n in own] == ["Reserva criada"]
    staff = (await _gql(port, tokens["operator"], LIST, {"u": str(unit), "unread": True}))["data"]["notifications"]
    assert [n["title"] for n in staff] == ["Reserva cancelada"]
    refused = await _gql(port, tokens["customer"], LIST, {"u": str(unit), "unread": False})
    assert refused["errors"][0]["extensions"]["code"] == "forbidden"
    refused = await _gql(port, tokens["operator"], LIST, {"unread": False})
    assert refused["errors"][0]["extensions"]["code"] == "unit_required"
    refused = await _gql(port, None, LIST, {"unread": False})
    assert refused["errors"][0]["extensions"]["code"] == "unauthenticated"
    # A customer marks only their own; staff mark the unit's.
    marked = await _gql(port, tokens["customer"], MARK, {"i": [staff[0]["id"], own[0]["id"]]})
    assert marked["data"]["markNotificationsRead"] == [own[0]["id"]]
    assert (await _gql(port, tokens["customer"], LIST, {"unread": True}))["data"]["notifications"] == []
    marked = await _gql(port, tokens["operator"], MARK, {"u": str(unit), "i": [staff[0]["id"], own[0]["id"]]})
    assert marked["data"]["markNotificationsRead"] == [staff[0]["id"]]
    page = await _gql(port, tokens["operator"], "query($u: ID) { notifications(unitId: $u, first: 501) { id } }",
                      {"u": str(unit)})
    assert page["errors"][0]["extensions"]["code"] == "page_too_large"


async def test_the_unit_chooses_the_language_of_its_notifications(api: Any, pool: Any) -> None:
    from tests.services.test_notifications import relay_pass

    v = await arena(pool)
    update = ("mutation($u: ID!, $l: NotificationLocale!) { updateUnitParameters(unitId: $u, input: "
              "{notificationLocale: $l}) { __typename ... on InvalidInput { field } } }")
    refused = await api.http.post("/graphql", json={"query": update, "variables": {"u": str(v.unit_id), "l": "fr"}})
    assert refused.json()["errors"][0]["extensions"]["code"] == "invalid_variables"  # the enum refuses it
    assert (await api.gql(update, {"u": str(v.unit_id), "l": "EN"}))["updateUnitParameters"]["__typename"] == "Unit"
    await pool.execute("INSERT INTO outbox (unit_id, topic, payload) VALUES ($1, 'notification', $2)", v.unit_id,
                       {"topic": "notification", "kind": "owner_alert", "text": "Banco falhando ao gerar o PIX"})
    await relay_pass(pool, v.unit_id, datetime.now(UTC))
    row = await pool.fetchrow("SELECT locale, title FROM notification_deliveries WHERE unit_id = $1", v.unit_id)
    assert (row["locale"], row["title"]) == ("en", "Operational alert")
