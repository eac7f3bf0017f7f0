"""Outgoing webhooks through the API: registering (secret shown once, never listed), validation by field, access
(owners and integrators with the `webhooks` scope; operators, other scopes and other tenants refused), the delivery
log, replays, rotation and disabling — with a real receiver."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import httpx
import pytest

from domain import webhooks_out as wh
from providers.webhooks import HttpWebhookSender
from schema.ids import decode_id, global_id
from slothold.app import create_app
from slothold.settings import Settings
from store.access import PgAccess
from store.outbox import OutboxEvent, sequence_pending
from store.webhooks_out import PgWebhooks, schedule
from tests.api.conftest import system_token
from tests.conftest import MutableClock
from tests.venues import arena, at, cpf
from tests.webhook_receiver import Receiver

REGISTER = """mutation($u: ID!, $url: String!, $t: [WebhookEventType!]!) {
  registerWebhook(unitId: $u, url: $url, eventTypes: $t)
  { __typename ... on WebhookSecret { secret endpoint { id url eventTypes enabled } }
    ... on InvalidInput { code field message } } }"""
LIST = "query($u: ID!) { webhooks(unitId: $u) { id url eventTypes enabled } }"
LOG = """query($e: ID!) { webhookDeliveries(endpointId: $e) { id eventId eventType seq status attempts responseCode
  latencyMs lastError nextAttemptAt deliveredAt } }"""
REPLAY = """mutation($d: ID!) { replayWebhookDelivery(deliveryId: $d) { __typename
  ... on WebhookDelivery { id status } ... on Error { code } } }"""
HOLD = """mutation($i: HoldInput!) { hold(input: $i) { __typename ... on BookingPayload { booking { id } } } }"""


@dataclass
class Env:
    client: httpx.AsyncClient
    tokens: dict[str, str]
    unit: UUID
    fields: dict[str, UUID]
    pool: Any

    async def gql(self, who: str, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        r = await self.client.post("/graphql", json={"query": query, "variables": variables or {}},
                                   headers={"authorization": f"Bearer {self.tokens[who]}"})
        return r.json()  # type: ignore[no-any-return]


@pytest.fixture
async def env(database_url: str, redis_url: str, clock: MutableClock, pool: Any) -> AsyncIterator[Env]:
    app = create_app(Settings(database_url=database_url, redis_url=redis_url, db_pool_max=10), clock=clock)
    async with app.router.lifespan_context(app):
        access: PgAccess = app.state.slothold["access"]
        v, other = await arena(pool), await arena(pool)
        tenant_of = "SELECT o.tenant_id FROM units u JOIN organizations o ON o.id = u.organization_id WHERE u.id = $1"
        tenant, other_tenant = await pool.fetchval(tenant_of, v.unit_id), await pool.fetchval(tenant_of, other.unit_id)
        tokens = {"system": await system_token(access)}
        for role in ("operator", "manager", "owner"):
            tokens[role] = (await access.issue_token(tenant, v.unit_id, "staff", role, [], role))[1]
        for scope in ("webhooks", "read"):
            tokens[scope] = (await access.issue_token(tenant, None, "client", None, [scope], scope))[1]
        tokens["stranger"] = (await access.issue_token(other_tenant, None, "staff", "owner", [], "other"))[1]
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://slothold.test") as c:
            yield Env(c, tokens, v.unit_id, v.resource_ids, pool)


async def _relay_webhooks(pool: Any, unit: UUID, now: Any) -> list[UUID]:
    """What the relay does for webhooks (jobs/relay.py), for one unit's new events."""
    async with pool.acquire() as conn:
        while True:  # every pending row of the session's database, a batch at a time (earlier tests leave some)
            async with conn.transaction():
                if not await sequence_pending(conn):
                    break
        rows = await conn.fetch("SELECT id, unit_id, seq, topic, payload FROM outbox WHERE unit_id = $1 ORDER BY seq",
                                unit)
        events = [OutboxEvent(r["id"], r["unit_id"], r["seq"], r["topic"], r["payload"]) for r in rows]
        return [d for d, _ in await schedule(conn, events, now)]


async def test_register_deliver_log_replay(env: Env, clock: MutableClock) -> None:
    async with Receiver() as rx, httpx.AsyncClient() as http:
        r = await env.gql("owner", REGISTER, {"u": str(env.unit), "url": rx.url, "t": ["BOOKING_HELD"]})
        created = r["data"]["registerWebhook"]
        assert created["__typename"] == "WebhookSecret" and created["secret"].startswith("whsec_"), r
        secret, endpoint = created["secret"], created["endpoint"]
        assert endpoint["eventTypes"] == ["BOOKING_HELD"] and endpoint["enabled"] is True
        listed = await env.gql("owner", LIST, {"u": str(env.unit)})
        assert listed["data"]["webhooks"] == [endpoint]
        assert secret not in json.dumps(listed)  # never shown again
        fields = (await env.gql("owner", '{ __type(name: "WebhookEndpoint") { fields { name } } }'))
        assert "secret" not in {f["name"] for f in fields["data"]["__type"]["fields"]}

        hold = await env.gql("system", HOLD, {"i": {
            "unitId": str(env.unit), "resourceIds": [str(env.fields["Campo 1"])], "startsAt": at(8, 19).isoformat(),
            "endsAt": at(8, 20).isoformat(), "customer": {"cpf": cpf(700_001)}}})
        booking = hold["data"]["hold"]["booking"]["id"]
        (d,) = await _relay_webhooks(env.pool, env.unit, clock.now())
        store = PgWebhooks(env.pool)
        assert await wh.deliver(store, HttpWebhookSender(http), d, clock.now()) == ("delivered", None)
        (req,) = rx.requests
        assert wh.verify(secret, req.headers["x-slothold-signature"], req.body, int(clock.now().timestamp()))
        sent = json.loads(req.body)
        assert sent["type"] == "booking.held"
        assert sent["data"]["booking_id"] == str(decode_id(booking)[1])  # webhook bodies carry database UUIDs

        log = (await env.gql("webhooks", LOG, {"e": endpoint["id"]}))["data"]["webhookDeliveries"]
        assert len(log) == 1 and log[0]["id"] == global_id("WebhookDelivery", d) and log[0]["eventId"] == sent["id"]
        assert (log[0]["status"], log[0]["attempts"], log[0]["responseCode"]) == ("DELIVERED", 1, 200)
        assert log[0]["latencyMs"] is not None and log[0]["nextAttemptAt"] is None and log[0]["deliveredAt"]
        assert log[0]["seq"] == sent["seq"]

        replayed = (await env.gql("owner", REPLAY, {"d": str(d)}))["data"]["replayWebhookDelivery"]
        assert replayed == {"__typename": "WebhookDelivery", "id": global_id("WebhookDelivery", d), "status": "PENDING"}
        assert await wh.deliver(store, HttpWebhookSender(http), d, clock.now()) == ("delivered", None)
        assert [q.headers["x-slothold-delivery"] for q in rx.requests] == [str(d), str(d)]
        log = (await env.gql("owner", LOG, {"e": endpoint["id"]}))["data"]["webhookDeliveries"]
        assert (log[0]["status"], log[0]["attempts"]) == ("DELIVERED", 2)


async def test_urls_and_event_types_are_refused_by_field(env: Env) -> None:
    cases = [("http://example.com/h", ["BOOKING_HELD"], "url", "https_required"),
             ("not a url", ["BOOKING_HELD"], "url", "invalid_url"),
             ("https://example.com/h", [], "eventTypes", "no_event_types")]
    for url, types, field, code in cases:
        r = await env.gql("owner", REGISTER, {"u": str(env.unit), "url": url, "t": types})
        assert r["data"]["registerWebhook"]["__typename"] == "InvalidInput", r
        assert (r["data"]["registerWebhook"]["field"], r["data"]["registerWebhook"]["code"]) == (field, code)
    unknown = await env.gql("owner", REGISTER, {"u": str(env.unit), "url": "https://example.com/h",
                                                 "t": ["BOOKING_EXPLODED"]})  # the enum refuses it before any resolver
    assert unknown["errors"][0]["extensions"]["code"] == "invalid_variables", unknown
    assert await env.pool.fetchval("SELECT count(*) FROM webhook_endpoints WHERE unit_id = $1", env.unit) == 0
    ok = await env.gql("owner", REGISTER, {"u": str(env.unit), "url": "http://localhost:9/h", "t": ["PAYMENT_PAID"]})
    assert ok["data"]["registerWebhook"]["__typename"] == "WebhookSecret"


async def test_owners_and_webhook_integrators_only(env: Env) -> None:
    variables = {"u": str(env.unit), "url": "https://hooks.example.com/a", "t": ["BOOKING_CONFIRMED"]}
    for who in ("operator", "manager", "read", "stranger"):
        r = await env.gql(who, REGISTER, variables)
        assert r["errors"][0]["extensions"]["code"] == "forbidden" and not (r.get("data") or {}).get(
            "registerWebhook"), (who, r)
        r = await env.gql(who, LIST, {"u": str(env.unit)})
        assert r["errors"][0]["extensions"]["code"] == "forbidden", (who, r)
    assert await env.pool.fetchval("SELECT count(*) FROM webhook_endpoints WHERE unit_id = $1", env.unit) == 0
    r = await env.client.post("/graphql", json={"query": LIST, "variables": {"u": str(env.unit)}})
    assert r.json()["errors"][0]["extensions"]["code"] == "unauthenticated"
    made = (await env.gql("webhooks", REGISTER, variables))["data"]["registerWebhook"]
    assert made["__typename"] == "WebhookSecret"
    eid = made["endpoint"]["id"]
    # Operations on an endpoint: the same rule, through the endpoint's unit.
    rotate = "mutation($e: ID!) { rotateWebhookSecret(endpointId: $e) { __typename ... on WebhookSecret { secret } } }"
    disable = "mutation($e: ID!) { disableWebhook(endpointId: $e) { __typename ... on WebhookEndpoint { enabled } } }"
    update = """mutation($e: ID!) { updateWebhook(endpointId: $e, eventTypes: [BOOKING_CANCELLED], enabled: true)
      { __typename ... on WebhookEndpoint { eventTypes enabled } } }"""
    secret = await env.pool.fetchval("SELECT secret FROM webhook_endpoints WHERE id = $1", decode_id(eid)[1])
    for who in ("operator", "read", "stranger"):
        for q in (rotate, disable, update, LOG):
            r = await env.gql(who, q, {"e": eid})
            assert r["errors"][0]["extensions"]["code"] == "forbidden", (who, q, r)
    assert await env.pool.fetchval("SELECT secret FROM webhook_endpoints WHERE id = $1", decode_id(eid)[1]) == secret
    new = (await env.gql("owner", rotate, {"e": eid}))["data"]["rotateWebhookSecret"]["secret"]
    assert new != made["secret"] and new.startswith("whsec_")
    assert (await env.gql("owner", disable, {"e": eid}))["data"]["disableWebhook"] == {
        "__typename": "WebhookEndpoint", "enabled": False}
    assert (await env.gql("webhooks", update, {"e": eid}))["data"]["updateWebhook"] == {
        "__typename": "WebhookEndpoint", "eventTypes": ["BOOKING_CANCELLED"], "enabled": True}
    missing = await env.gql("owner", disable, {"e": "00000000-0000-4000-8000-000000000000"})
    assert missing["data"]["disableWebhook"]["__typename"] == "NotFound"
