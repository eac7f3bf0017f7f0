"""Access (SPEC §14): every operation × every kind of caller, across tenants, customers' own data, websockets.

Refusals are top-level errors with `extensions.code` `unauthenticated` or `forbidden`, and write nothing.

Here: the matrix (a row per query and mutation in `_operations`, every subscription in the websocket test) and its
world. On the same world: customers' own data (test_access_customers.py), tokens and sign-in (test_access_tokens.py).
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import date
from typing import Any
from uuid import UUID, uuid4

import httpx
import pytest
import websockets

from domain import seatmaps, service_catalog
from domain.access import Action
from domain.layout import blocks as layout_blocks
from domain.layout import hours as layout_hours
from domain.payments import PaymentRule
from domain.services import Deps
from domain.services.series import SeriesCommand, hold_series
from schema.ids import decode_id
from slothold.app import create_app
from slothold.settings import Settings
from store.access import PgAccess
from store.uow import PgUnitOfWork
from tests.api.conftest import system_token
from tests.conftest import MutableClock
from tests.live import serving
from tests.venues import arena, at, cpf, customer

ALLOWED = {Action.PUBLIC: {"operator", "manager", "owner", "read", "book", "customer", "anonymous", "stranger"},
           Action.READ: {"operator", "manager", "owner", "read"},
           Action.BOOK: {"operator", "manager", "owner", "book", "customer"},
           Action.COUNTER: {"operator", "manager", "owner"},
           Action.DROP: {"manager", "owner"},
           Action.MANAGE: {"manager", "owner"},
           Action.CONFIGURE: {"owner"},
           Action.WEBHOOKS: {"owner"},
           Action.RECORD_PAYMENT: {"manager", "owner"},
           Action.PLATFORM: set()}
"""Who may run an operation of each action here (customers on a unit-level booking action; `stranger`: an owner
of another tenant). Customers on someone else's booking are refused: see the per-booking tests below."""

CALLERS = ["anonymous", "stranger", "customer", "read", "book", "operator", "manager", "owner"]


@dataclass
class World:
    client: httpx.AsyncClient
    tokens: dict[str, str | None]
    unit: UUID
    fields: list[UUID]
    booking: UUID
    walk_in: UUID
    queue_item: UUID
    slot_entry: UUID
    capacity_entry: UUID
    pool: Any
    customer_phone: str
    webhook: UUID | None = None
    delivery: UUID | None = None
    seat_map: UUID | None = None
    seat_event: UUID | None = None
    seats: list[UUID] | None = None
    staff_token: UUID | None = None
    calendar_feed: str = ""
    """A staff calendar feed of the unit (its global id)."""
    service: UUID | None = None
    layout: dict[str, str] | None = None
    booking_node: str = ""
    """The booking's id as the API answered it (a global id)."""
    series: UUID | None = None
    """A held series of the unit (someone else's than the signed-in customer's)."""

    async def gql(self, caller: str, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        token = self.tokens[caller]
        headers = {"authorization": f"Bearer {token}"} if token else {}
        r = await self.client.post("/graphql", json={"query": query, "variables": variables or {}},
                                   headers=headers)
        assert r.status_code in (200, 400, 401, 403), r.text
        return r.json()  # type: ignore[no-any-return]


async def _footprint(pool: Any) -> tuple[int, ...]:
    return tuple(await pool.fetchrow(
        "SELECT (SELECT count(*) FROM bookings), (SELECT count(*) FROM booking_events), "
        "(SELECT count(*) FROM outbox), (SELECT count(*) FROM walkin_queue), (SELECT count(*) FROM slot_waitlist), "
        "(SELECT count(*) FROM capacity_waitlist), (SELECT count(*) FROM service_prices), "
        "(SELECT count(*) FROM queue_items WHERE status <> 'open'), (SELECT count(*) FROM customers)"))


async def _sign_in(client: httpx.AsyncClient, system: str, unit: UUID, phone: str) -> str:
    sys_h = {"authorization": f"Bearer {system}"}
    r = await client.post("/graphql", json={"query": "mutation($u: ID!, $p: String) { requestLoginCode(unitId: $u, "
                                                     "phone: $p) { __typename ... on LoginCodeSent { channel } } }",
                                            "variables": {"u": str(unit), "p": phone}})
    assert r.json()["data"]["requestLoginCode"] == {"__typename": "LoginCodeSent", "channel": "WHATSAPP"}
    r = await client.post("/graphql", headers=sys_h, json={
        "query": "query($t: String!) { sandboxMessages(to: $t) { kind text } }", "variables": {"t": phone}})
    (msg, *_) = r.json()["data"]["sandboxMessages"]
    assert msg["kind"] == "LOGIN_CODE"
    code = re.search(r"\b(\d{6})\b", msg["text"]).group(1)  # type: ignore[union-attr]
    r = await client.post("/graphql", json={
        "query": "mutation($u: ID!, $p: String, $c: String!) { verifyLoginCode(unitId: $u, phone: $p, code: $c) { "
                 "__typename ... on CustomerSession { token customerId } ... on Error { code } } }",
        "variables": {"u": str(unit), "p": phone, "c": code}})
    session = r.json()["data"]["verifyLoginCode"]
    assert session["__typename"] == "CustomerSession", session
    return session["token"]  # type: ignore[no-any-return]


@pytest.fixture
async def world(database_url: str, redis_url: str, clock: MutableClock, pool: Any) -> AsyncIterator[World]:
    app = create_app(Settings(database_url=database_url, redis_url=redis_url, db_pool_max=10), clock=clock)
    async with app.router.lifespan_context(app):
        access: PgAccess = app.state.slothold["access"]
        v, other = await arena(pool, pooled={"Aula": 12}), await arena(pool)
        tenant = await pool.fetchval("SELECT o.tenant_id FROM units u JOIN organizations o ON o.id = "
                                     "u.organization_id WHERE u.id = $1", v.unit_id)
        other_tenant = await pool.fetchval("SELECT o.tenant_id FROM units u JOIN organizations o ON o.id = "
                                           "u.organization_id WHERE u.id = $1", other.unit_id)
        tokens: dict[str, str | None] = {"anonymous": None, "system": await system_token(access)}
        for role in ("operator", "manager", "owner"):
            tokens[role] = (await access.issue_token(tenant, v.unit_id, "staff", role, [], role))[1]
        for scope in ("read", "book"):
            tokens[scope] = (await access.issue_token(tenant, None, "client", None, [scope], scope))[1]
        tokens["stranger"] = (await access.issue_token(other_tenant, None, "staff", "owner", [], "other"))[1]
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://slothold.test") as client:
            phone = f"+55119{secrets.randbelow(10**8):08d}"  # limits are counted in the shared Redis
            tokens["customer"] = await _sign_in(client, tokens["system"], v.unit_id, phone)  # type: ignore[arg-type]
            sys_h = {"authorization": f"Bearer {tokens['system']}"}
            r = await client.post("/graphql", headers=sys_h, json={"query": HOLD, "variables": {"i": _hold_input(
                v.unit_id, v.resource_ids["Campo 1"], 9, cpf(900_001))}})
            booking = r.json()["data"]["hold"]["booking"]["id"]
            r = await client.post("/graphql", headers=sys_h, json={
                "query": 'mutation($u: ID!) { addWalkIn(unitId: $u, area: "bar", name: "Ana", phone: "+5511900000001")'
                         ' { ... on WalkIn { id } } }', "variables": {"u": str(v.unit_id)}})
            walk_in = r.json()["data"]["addWalkIn"]["id"]
            item = uuid4()
            await pool.execute("INSERT INTO queue_items (id, unit_id, type, priority) VALUES ($1, $2, 'pix_failing', "
                               "'critical')", item, v.unit_id)
            r = await client.post("/graphql", headers=sys_h, json={
                "query": "mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!) { joinSlotWaitlist(unitId: $u, "
                         "resourceId: $r, startsAt: $s, endsAt: $e, customer: {cpf: \"" + cpf(900_010) + "\"}) "
                         "{ __typename ... on SlotWaitlistEntry { id } ... on Error { code message } } }",
                "variables": {"u": str(v.unit_id), "r": str(v.resource_ids["Campo 1"]), "s": at(8, 9).isoformat(),
                              "e": at(8, 10).isoformat()}})
            slot_entry = r.json()["data"]["joinSlotWaitlist"].get("id")
            assert slot_entry, r.text
            capacity_entry = uuid4()
            await pool.execute(
                "INSERT INTO capacity_waitlist (id, unit_id, resource_id, during, party_size, user_ref, joined_at) "
                "VALUES ($1, $2, $3, tstzrange($4, $5), 2, 'u9', now())", capacity_entry, v.unit_id,
                v.resource_ids["Aula"], at(8, 9), at(8, 10))
            w = World(client, tokens, v.unit_id, list(v.resource_ids.values()), decode_id(booking)[1],
                      decode_id(walk_in)[1], item, decode_id(slot_entry)[1], capacity_entry, pool, phone)
            w.booking_node = booking
            w.webhook, w.delivery = await _webhook_rows(pool, v.unit_id)
            w.seat_map, w.seat_event, w.seats = await _seat_map(pool, clock, v.unit_id)
            w.staff_token = (await access.issue_token(tenant, v.unit_id, "staff", "operator", [], "to revoke"))[0]
            w.service = await _service(pool, clock, v.unit_id, v.resource_ids["Campo 1"])
            w.layout = await _layout_rows(pool, clock, v.unit_id, v.resource_ids["Campo 4"])
            r = await client.post("/graphql", headers=sys_h, json={
                "query": "mutation($u: ID!) { createCalendarFeed(unitId: $u) { ... on CreatedCalendarFeed { feed { id "
                         "} } } }", "variables": {"u": str(v.unit_id)}})
            w.calendar_feed = r.json()["data"]["createCalendarFeed"]["feed"]["id"]
            w.series = (await hold_series(Deps(uow=lambda: PgUnitOfWork(pool), clock=clock), SeriesCommand(
                unit_id=v.unit_id, starts_at=at(17, 10), ends_at=at(17, 11), resource_ids=(v.resource_ids["Campo 3"],),
                customer=customer(78), occurrences=2, channel="web"))).series.id
            yield w


async def _seat_map(pool: Any, clock: MutableClock, unit: UUID) -> tuple[UUID, UUID, list[UUID]]:
    """A seat map of the unit with an event whose first seat someone else locked."""
    deps = Deps(uow=lambda: PgUnitOfWork(pool), clock=clock)
    m = await seatmaps.create_seat_map(deps, unit, "Palco", [seatmaps.SectionSpec("P", (seatmaps.RowSpec(
        "A", tuple(str(i) for i in range(1, 9))),))])
    e = await seatmaps.create_event(deps, m.id, "Show", at(10, 20), at(10, 22))
    seats = [s.id for s in m.seats]
    await seatmaps.lock_seats(deps, seatmaps.SeatCommand(e.id, (seats[0],), customer=customer(77)))
    return m.id, e.id, seats


async def _service(pool: Any, clock: MutableClock, unit: UUID, field: UUID) -> UUID:
    """A service of the unit, on one field."""
    deps = Deps(uow=lambda: PgUnitOfWork(pool), clock=clock)
    made = await service_catalog.create_service(deps, unit, service_catalog.ServiceDraft(
        "Matriz", (1,), (field,), 1000, PaymentRule.FULL), "cli")
    return made.id


async def _layout_rows(pool: Any, clock: MutableClock, unit: UUID, field: UUID) -> dict[str, str]:
    """A grid block and a closed day of the unit, and its group of fields (issue 18's layout)."""
    deps = Deps(uow=lambda: PgUnitOfWork(pool), clock=clock)
    block = await layout_blocks.block_resource(deps, field, at(12, 8), at(12, 9), "matrix", "tests")
    closed = await layout_hours.close_day(deps, unit, date(2026, 12, 28), None, "matrix", "tests")
    group = await pool.fetchval("SELECT group_id FROM resources WHERE id = $1", field)
    return {"block": str(block.id), "closed": str(closed.id), "group": str(group), "field": str(field)}


async def _webhook_rows(pool: Any, unit: UUID) -> tuple[UUID, UUID]:
    """An outgoing webhook endpoint of the unit and one failed delivery of it."""
    endpoint, delivery = uuid4(), uuid4()
    await pool.execute("INSERT INTO webhook_endpoints (id, unit_id, url, event_types, secret, created_by, created_at, "
                       "updated_at) VALUES ($1, $2, 'https://hooks.example.com/a', '{booking.held}', 'whsec_x', 't', "
                       "now(), now())", endpoint, unit)
    await pool.execute("INSERT INTO webhook_deliveries (id, endpoint_id, unit_id, outbox_id, event_id, event_type, "
                       "seq, body, status, attempts, created_at) VALUES ($1, $2, $3, 1, $1, 'booking.held', 1, '{}', "
                       "'failed', 6, now())", delivery, endpoint, unit)
    return endpoint, delivery


HOLD = """mutation($i: HoldInput!) { hold(input: $i) { __typename
  ... on BookingPayload { booking { id status customerId } } ... on Error { code message } } }"""


def _hold_input(unit: UUID, resource: UUID, hour: int, who: str, phone: str | None = None) -> dict[str, Any]:
    customer: dict[str, Any] = {"cpf": who} if phone is None else {"phone": phone}
    return {"unitId": str(unit), "resourceIds": [str(resource)], "startsAt": at(8, hour).isoformat(),
            "endsAt": at(8, hour + 1).isoformat(), "customer": customer}


BOOKING_LEVEL = {"booking", "charges", "chargesConnection", "cancel", "confirm", "swapHold", "claimPaid",
                 "confirmPayment", "linkPayment",
                 "denyPaymentClaim", "drop", "checkIn", "complete", "slotWaitlistEntry", "capacityWaitlistEntry",
                 "reschedule", "markNoShow", "unlockSeats", "node", "nodes", "revokeCalendarFeed", "series",
                 "confirmSeries", "cancelSeriesFrom", "retimeSeries", "recordSeriesPeriodPayment"}
"""Operations on one existing booking or entry: a customer may run them only on their own (here: not theirs)."""
NULL_WHEN_REFUSED = {"node", "nodes"}
"""node(id) and nodes(ids) answer a refused caller as if the object did not exist: null, no error."""
AS_SOMEONE_ELSE = {"joinCapacityWaitlist", "claimWaitlistOffer", "declineWaitlistOffer"}
"""The matrix names a `user`: a customer may act only as themselves (tested without `user` below)."""
CUSTOMER_OWN = {"bookings", "calendarFeeds", "createCalendarFeed"}
"""Reads that show a customer only their own (here: none), so a customer may run them."""
HIDDEN = {"bookings", "customers", "auditEntries", "queueConnection", "chargesConnection", "notificationsConnection",
          "webhookDeliveriesConnection", "calendarFeeds", "unitSeries"}
"""Answer a caller beyond their reach — another tenant's, a customer on someone else's booking — as if the object
did not exist (not_found), never `forbidden` (issue 19)."""


def _operations(w: World) -> list[tuple[str, Action, str, dict[str, Any]]]:
    u, b, f = str(w.unit), str(w.booking), str(w.fields[1])
    day = {"from": at(8, 0).isoformat(), "to": at(9, 0).isoformat()}
    slot = {"u": u, "r": str(w.fields[0]), "s": at(8, 9).isoformat(), "e": at(8, 10).isoformat()}
    b_only = {"b": b}
    ev = str(w.seat_event)

    def seat(i: int) -> str:
        return str((w.seats or [])[i])

    return [
        ("unit", Action.PUBLIC, "query($u: ID!) { unit(id: $u) { __typename } }", {"u": u}),
        ("bookableSlots", Action.PUBLIC, "query($u: ID!, $from: DateTime!, $to: DateTime!) { bookableSlots("
         "unitId: $u, from: $from, to: $to) { __typename } }", {"u": u, **day}),
        ("me", Action.PUBLIC, "{ me { kind } }", {}),
        ("availabilityGrid", Action.READ, "query($u: ID!, $from: DateTime!, $to: DateTime!) { availabilityGrid("
         "unitId: $u, from: $from, to: $to) { __typename } }", {"u": u, **day}),
        ("queue", Action.READ, "query($u: ID!) { queue(unitId: $u) { id } }", {"u": u}),
        ("waitlists", Action.READ, "query($u: ID!) { waitlists(unitId: $u) { __typename } }", {"u": u}),
        ("booking", Action.READ, "query($b: ID!) { booking(id: $b) { __typename } }", b_only),
        ("charges", Action.READ, "query($b: ID!) { charges(bookingId: $b) { id } }", b_only),
        ("slotWaitlistEntry", Action.READ, "query($i: ID!) { slotWaitlistEntry(id: $i) { __typename } }",
         {"i": str(w.slot_entry)}),
        ("capacityWaitlistEntry", Action.READ, "query($i: ID!) { capacityWaitlistEntry(id: $i) { __typename } }",
         {"i": str(w.capacity_entry)}),
        ("sandboxMessages", Action.READ, 'query { sandboxMessages(to: "+5511900000001") { text } }', {}),
        ("holdConversion", Action.READ, "query($u: ID!, $from: DateTime!, $to: DateTime!) { holdConversion("
         "unitId: $u, from: $from, to: $to) { __typename } }", {"u": u, **day}),
        ("auditPeriods", Action.READ, "query($u: ID!, $from: DateTime!, $to: DateTime!) { auditPeriods("
         "unitId: $u, from: $from, to: $to) { __typename } }", {"u": u, **day}),
        ("hold", Action.BOOK, HOLD, {"i": _hold_input(w.unit, w.fields[1], 10, cpf(900_002), w.customer_phone)}),
        ("counterBooking", Action.COUNTER, "mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!) { "
         "counterBooking(input: {unitId: $u, resourceIds: [$r], startsAt: $s, endsAt: $e}) { __typename } }",
         {"u": u, "r": f, "s": at(8, 11).isoformat(), "e": at(8, 12).isoformat()}),
        ("confirm", Action.BOOK, "mutation($b: ID!) { confirm(bookingId: $b) { __typename } }", b_only),
        ("swapHold", Action.BOOK, "mutation($b: ID!, $s: DateTime!, $e: DateTime!) { swapHold(bookingId: $b, "
         "input: {startsAt: $s, endsAt: $e}) { __typename } }",
         {"b": b, "s": at(8, 16).isoformat(), "e": at(8, 17).isoformat()}),
        ("claimPaid", Action.BOOK, "mutation($b: ID!) { claimPaid(bookingId: $b) { __typename } }", b_only),
        ("confirmPayment", Action.COUNTER, "mutation($b: ID!) { confirmPayment(bookingId: $b) { __typename } }",
         b_only),
        ("recordManualPayment", Action.RECORD_PAYMENT, "mutation($b: ID!) { recordManualPayment(bookingId: $b, "
         'input: {method: CASH, amountCents: 100, reason: "balcão"}) { __typename } }', b_only),
        ("paymentsSummary", Action.READ, "query($u: ID!, $from: DateTime!, $to: DateTime!) { paymentsSummary("
         "unitId: $u, from: $from, to: $to) { __typename } }", {"u": u, **day}),
        ("setWaitlistEnabled", Action.CONFIGURE, "mutation($r: ID!) { setWaitlistEnabled(resourceId: $r, "
         "enabled: true) { __typename } }", {"r": str(w.fields[3])}),
        ("checkout", Action.BOOK, "mutation($i: CheckoutInput!) { checkout(input: $i) { __typename } }",
         {"i": {**_hold_input(w.unit, w.fields[2], 13, cpf(900_004), w.customer_phone), "acceptTerms": True}}),
        ("linkPayment", Action.COUNTER, "mutation($b: ID!, $p: ID!) { linkPayment(bookingId: $b, paymentId: $p) "
         "{ __typename } }", {"b": b, "p": str(uuid4())}),
        ("denyPaymentClaim", Action.COUNTER, "mutation($b: ID!) { denyPaymentClaim(bookingId: $b) { __typename } }",
         b_only),
        ("sandboxPay", Action.PUBLIC, 'mutation { sandboxPay(txid: "nope") { __typename } }', {}),
        ("acknowledgeQueueItem", Action.COUNTER, "mutation($i: ID!) { acknowledgeQueueItem(itemId: $i) "
         "{ __typename } }", {"i": str(w.queue_item)}),
        ("resolveQueueItem", Action.COUNTER, "mutation($i: ID!) { resolveQueueItem(itemId: $i) { __typename } }",
         {"i": str(w.queue_item)}),
        ("publishServicePrice", Action.CONFIGURE, 'mutation($u: ID!, $s: ID!) { publishServicePrice(unitId: $u, '
         'serviceId: $s, priceCents: 1000, paymentRule: FULL) { __typename } }', {"u": u, "s": str(uuid4())}),
        ("publishCancellationPolicy", Action.CONFIGURE, "mutation($u: ID!) { publishCancellationPolicy(unitId: $u, "
         "tiers: [{minHours: 24, percent: 100}]) { __typename } }", {"u": u}),
        ("updateUnitParameters", Action.CONFIGURE, "mutation($u: ID!) { updateUnitParameters(unitId: $u, "
         "input: {holdCeilingPercent: 90}) { __typename } }", {"u": u}),
        ("setCustomerBlacklisted", Action.MANAGE, "mutation($u: ID!) { setCustomerBlacklisted(unitId: $u, "
         'customer: {phone: "+5511900000077"}, blacklisted: false) { __typename } }', {"u": u}),
        ("joinSlotWaitlist", Action.BOOK, "mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!, $p: String) { "
         "joinSlotWaitlist(unitId: $u, resourceId: $r, startsAt: $s, endsAt: $e, customer: {phone: $p}) "
         "{ __typename } }", {**slot, "p": w.customer_phone}),
        ("joinCapacityWaitlist", Action.BOOK, "mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!) { "
         'joinCapacityWaitlist(unitId: $u, resourceId: $r, startsAt: $s, endsAt: $e, partySize: 2, user: "u1") '
         "{ __typename } }", slot),
        ("claimWaitlistOffer", Action.BOOK, 'mutation($u: ID!) { claimWaitlistOffer(unitId: $u, token: "t", '
         'user: "u1") { __typename } }', {"u": u}),
        ("declineWaitlistOffer", Action.BOOK, 'mutation($u: ID!) { declineWaitlistOffer(unitId: $u, token: "t", '
         'user: "u1") { __typename } }', {"u": u}),
        ("addWalkIn", Action.COUNTER, 'mutation($u: ID!) { addWalkIn(unitId: $u, area: "bar", name: "Bia", '
         'phone: "+5511900000002") { __typename } }', {"u": u}),
        ("offerWalkIn", Action.COUNTER, "mutation($e: ID!) { offerWalkIn(entryId: $e) { __typename } }",
         {"e": str(w.walk_in)}),
        ("seatWalkIn", Action.COUNTER, "mutation($e: ID!) { seatWalkIn(entryId: $e) { __typename } }",
         {"e": str(w.walk_in)}),
        ("cancelWalkIn", Action.COUNTER, "mutation($e: ID!) { cancelWalkIn(entryId: $e) { __typename } }",
         {"e": str(w.walk_in)}),
        ("claimWalkIn", Action.PUBLIC, 'mutation($u: ID!) { claimWalkIn(unitId: $u, token: "t") { __typename } }',
         {"u": u}),
        ("requestLoginCode", Action.PUBLIC, 'mutation($u: ID!) { requestLoginCode(unitId: $u, phone: "12") '
         "{ __typename } }", {"u": u}),
        ("verifyLoginCode", Action.PUBLIC, 'mutation($u: ID!) { verifyLoginCode(unitId: $u, phone: "12", '
         'code: "1") { __typename } }', {"u": u}),
        ("checkIn", Action.COUNTER, "mutation($b: ID!) { checkIn(bookingId: $b) { __typename } }", b_only),
        ("complete", Action.COUNTER, "mutation($b: ID!) { complete(bookingId: $b) { __typename } }", b_only),
        ("markNoShow", Action.COUNTER, "mutation($b: ID!) { markNoShow(bookingId: $b) { __typename } }", b_only),
        ("reschedule", Action.BOOK, "mutation($b: ID!, $s: DateTime!, $e: DateTime!) { reschedule(bookingId: $b, "
         "input: {startsAt: $s, endsAt: $e}) { __typename } }",
         {"b": b, "s": at(8, 18).isoformat(), "e": at(8, 19).isoformat()}),
        ("cancel", Action.BOOK, "mutation($b: ID!) { cancel(bookingId: $b) { __typename } }", b_only),
        ("series", Action.READ, "query($s: ID!) { series(id: $s) { __typename } }", {"s": str(w.series)}),
        ("unitSeries", Action.READ, "query($u: ID!) { unitSeries(unitId: $u) { edges { node { id } } } }", {"u": u}),
        ("holdSeries", Action.BOOK, "mutation($i: SeriesInput!) { holdSeries(input: $i) { __typename } }",
         {"i": {"unitId": u, "resourceIds": [str(w.fields[1])], "startsAt": at(15, 10).isoformat(),
                "endsAt": at(15, 11).isoformat(), "occurrences": 2, "customer": {"phone": w.customer_phone}}}),
        ("counterSeries", Action.COUNTER, "mutation($i: CounterSeriesInput!) { counterSeries(input: $i) "
         "{ __typename } }", {"i": {"unitId": u, "resourceIds": [str(w.fields[1])], "startsAt": at(16, 10).isoformat(),
                                    "endsAt": at(16, 11).isoformat(), "occurrences": 2}}),
        ("confirmSeries", Action.BOOK, "mutation($s: ID!) { confirmSeries(seriesId: $s) { __typename } }",
         {"s": str(w.series)}),
        ("recordSeriesPeriodPayment", Action.RECORD_PAYMENT, "mutation($s: ID!) { recordSeriesPeriodPayment("
         'seriesId: $s, startsOn: "2026-12-01", method: CASH, reason: "balcão") { __typename } }',
         {"s": str(w.series)}),
        ("retimeSeries", Action.BOOK, 'mutation($s: ID!) { retimeSeries(seriesId: $s, localStart: "12:00") '
         "{ __typename } }", {"s": str(w.series)}),
        ("cancelSeriesFrom", Action.BOOK, "mutation($s: ID!, $f: DateTime!) { cancelSeriesFrom(seriesId: $s, "
         "from: $f) { __typename } }", {"s": str(w.series), "f": at(8, 0).isoformat()}),
        ("drop", Action.DROP, 'mutation($b: ID!) { drop(bookingId: $b, reason: "test") { __typename } }', b_only),
        ("webhooks", Action.WEBHOOKS, "query($u: ID!) { webhooks(unitId: $u) { id } }", {"u": u}),
        ("webhookDeliveries", Action.WEBHOOKS, "query($e: ID!) { webhookDeliveries(endpointId: $e) { id } }",
         {"e": str(w.webhook)}),
        ("registerWebhook", Action.WEBHOOKS, 'mutation($u: ID!) { registerWebhook(unitId: $u, url: '
         '"https://hooks.example.com/b", eventTypes: [BOOKING_HELD]) { __typename } }', {"u": u}),
        ("updateWebhook", Action.WEBHOOKS, 'mutation($e: ID!) { updateWebhook(endpointId: $e, eventTypes: '
         '[BOOKING_HELD, PAYMENT_PAID]) { __typename } }', {"e": str(w.webhook)}),
        ("rotateWebhookSecret", Action.WEBHOOKS, "mutation($e: ID!) { rotateWebhookSecret(endpointId: $e) "
         "{ __typename } }", {"e": str(w.webhook)}),
        ("replayWebhookDelivery", Action.WEBHOOKS, "mutation($d: ID!) { replayWebhookDelivery(deliveryId: $d) "
         "{ __typename } }", {"d": str(w.delivery)}),
        ("disableWebhook", Action.WEBHOOKS, "mutation($e: ID!) { disableWebhook(endpointId: $e) { __typename } }",
         {"e": str(w.webhook)}),
        ("holdTypes", Action.PUBLIC, "query($u: ID!) { holdTypes(unitId: $u) { __typename } }", {"u": u}),
        ("venueChanges", Action.MANAGE, "query($u: ID!) { venueChanges(unitId: $u) { id } }", {"u": u}),
        ("defineHoldType", Action.CONFIGURE, 'mutation($u: ID!) { defineHoldType(unitId: $u, scope: ORGANIZATION, '
         'name: "MATRIX", fields: {displayColor: "#112233"}) { __typename } }', {"u": u}),
        ("removeHoldType", Action.CONFIGURE, 'mutation($u: ID!) { removeHoldType(unitId: $u, scope: ORGANIZATION, '
         'name: "NOT_THERE") { __typename } }', {"u": u}),
        ("seatMap", Action.PUBLIC, "query($e: ID!) { seatMap(eventId: $e) { __typename } }", {"e": ev}),
        ("seatEvents", Action.PUBLIC, "query($u: ID!) { seatEvents(unitId: $u) { id } }", {"u": u}),
        ("createSeatMap", Action.CONFIGURE, 'mutation($u: ID!) { createSeatMap(input: {unitId: $u, name: "M2", '
         'sections: [{name: "P", rows: [{label: "A", seats: ["1"]}]}]}) { __typename } }', {"u": u}),
        ("createSeatEvent", Action.CONFIGURE, 'mutation($m: ID!, $s: DateTime!, $e: DateTime!) { createSeatEvent('
         'seatMapId: $m, name: "Extra", startsAt: $s, endsAt: $e) { __typename } }',
         {"m": str(w.seat_map), "s": at(11, 20).isoformat(), "e": at(11, 22).isoformat()}),
        ("lockSeats", Action.BOOK, "mutation($e: ID!, $s: [ID!]!) { lockSeats(input: {eventId: $e, seatIds: $s, "
         'customer: {phone: "' + w.customer_phone + '"}}) { __typename } }', {"e": ev, "s": [seat(1)]}),
        ("lockBestSeats", Action.BOOK, "mutation($e: ID!) { lockBestSeats(input: {eventId: $e, count: 1, "
         'customer: {phone: "' + w.customer_phone + '"}}) { __typename } }', {"e": ev}),
        ("sellSeats", Action.COUNTER, "mutation($e: ID!, $s: [ID!]!) { sellSeats(input: {eventId: $e, seatIds: $s})"
         " { __typename } }", {"e": ev, "s": [seat(2)]}),
        ("unlockSeats", Action.BOOK, "mutation($e: ID!, $s: [ID!]!) { unlockSeats(eventId: $e, seatIds: $s) "
         "{ __typename } }", {"e": ev, "s": [seat(0)]}),
        ("revertSeatSale", Action.DROP, "mutation($e: ID!, $s: [ID!]!) { revertSeatSale(eventId: $e, seatIds: $s) "
         "{ __typename } }", {"e": ev, "s": [seat(3)]}),
        ("blockSeats", Action.COUNTER, "mutation($e: ID!, $s: [ID!]!) { blockSeats(eventId: $e, seatIds: $s) "
         "{ __typename } }", {"e": ev, "s": [seat(4)]}),
        ("unblockSeats", Action.COUNTER, "mutation($e: ID!, $s: [ID!]!) { unblockSeats(eventId: $e, seatIds: $s) "
         "{ __typename } }", {"e": ev, "s": [seat(5)]}),
        ("notifications", Action.READ, "query($u: ID!) { notifications(unitId: $u) { id } }", {"u": u}),
        ("services", Action.PUBLIC, "query($u: ID!) { services(unitId: $u) { id } }", {"u": u}),
        ("createService", Action.CONFIGURE, 'mutation($u: ID!, $r: ID!) { createService(unitId: $u, input: {name: '
         '"Outro", durations: [1], resourceIds: [$r], priceCents: 1000}) { __typename } }', {"u": u, "r": f}),
        ("updateService", Action.CONFIGURE, 'mutation($s: ID!) { updateService(serviceId: $s, input: {durations: '
         "[1, 2]}) { __typename } }", {"s": str(w.service)}),
        ("deactivateService", Action.CONFIGURE, "mutation($s: ID!) { deactivateService(serviceId: $s) "
         "{ __typename } }", {"s": str(w.service)}),
        ("reactivateService", Action.CONFIGURE, "mutation($s: ID!) { reactivateService(serviceId: $s) "
         "{ __typename } }", {"s": str(w.service)}),
        ("setPriceBands", Action.CONFIGURE, "mutation($s: ID!) { setPriceBands(serviceId: $s, bands: []) "
         "{ __typename } }", {"s": str(w.service)}),
        ("markNotificationsRead", Action.READ, "mutation($u: ID!, $i: [ID!]!) { markNotificationsRead(unitId: $u, "
         "ids: $i) }", {"u": u, "i": [str(uuid4())]}),
        ("createTenant", Action.PLATFORM, 'mutation { createTenant(name: "T") { __typename } }', {}),
        ("createOrganization", Action.PLATFORM, 'mutation($t: ID!) { createOrganization(tenantId: $t, name: "O") '
         "{ __typename } }", {"t": str(uuid4())}),
        ("createUnit", Action.PLATFORM, 'mutation($o: ID!) { createUnit(input: {organizationId: $o, name: "U"}) '
         "{ __typename } }", {"o": str(uuid4())}),
        ("staffTokens", Action.CONFIGURE, "query($u: ID!) { staffTokens(unitId: $u) { id } }", {"u": u}),
        ("issueStaffToken", Action.CONFIGURE, 'mutation($u: ID!) { issueStaffToken(input: {unitId: $u, kind: STAFF, '
         'role: OPERATOR, name: "desk"}) { __typename } }', {"u": u}),
        ("revokeStaffToken", Action.CONFIGURE, "mutation($t: ID!) { revokeStaffToken(tokenId: $t) { __typename } }",
         {"t": str(w.staff_token)}),
        ("updateUnitContacts", Action.CONFIGURE, 'mutation($u: ID!) { updateUnitContacts(unitId: $u, input: '
         '{ownerEmail: "dono@example.com"}) { __typename } }', {"u": u}),
        ("orphanPayments", Action.COUNTER, "query($u: ID!) { orphanPayments(unitId: $u) { id } }", {"u": u}),
        ("allowedOrigins", Action.MANAGE, "query($u: ID!) { allowedOrigins(unitId: $u) { origin } }", {"u": u}),
        ("setAllowedOrigins", Action.CONFIGURE, 'mutation($u: ID!) { setAllowedOrigins(unitId: $u, origins: '
         '["https://matrix.example"]) { __typename } }', {"u": u}),
        ("createCalendarFeed", Action.MANAGE, "mutation($u: ID!) { createCalendarFeed(unitId: $u) { __typename } }",
         {"u": u}),
        ("calendarFeeds", Action.MANAGE, "query($u: ID!) { calendarFeeds(unitId: $u) { edges { cursor } } }",
         {"u": u}),
        ("revokeCalendarFeed", Action.MANAGE, "mutation($f: ID!) { revokeCalendarFeed(feedId: $f) { __typename } }",
         {"f": w.calendar_feed}),
        ("node", Action.READ, "query($i: ID!) { node(id: $i) { id } }", {"i": w.booking_node}),
        ("nodes", Action.READ, "query($i: [ID!]!) { nodes(ids: $i) { id } }", {"i": [w.booking_node, w.booking_node]}),
        *_connection_operations(w),
        *_layout_operations(w),
    ]


def _connection_operations(w: World) -> list[tuple[str, Action, str, dict[str, Any]]]:
    """Issue 19's cursor connections and the bookings search."""
    u, page = str(w.unit), "{ edges { cursor } pageInfo { hasNextPage } }"
    return [
        ("bookings", Action.READ, "query($u: ID!) { bookings(unitId: $u) " + page + " }", {"u": u}),
        ("customers", Action.COUNTER, 'query($u: ID!) { customers(unitId: $u, search: "ana") ' + page + " }",
         {"u": u}),
        ("auditEntries", Action.READ, "query($u: ID!) { auditEntries(unitId: $u) " + page + " }", {"u": u}),
        ("queueConnection", Action.READ, "query($u: ID!) { queueConnection(unitId: $u) " + page + " }", {"u": u}),
        ("chargesConnection", Action.READ, "query($b: ID!) { chargesConnection(bookingId: $b) " + page + " }",
         {"b": str(w.booking)}),
        ("notificationsConnection", Action.READ, "query($u: ID!) { notificationsConnection(unitId: $u) " + page
         + " }", {"u": u}),
        ("webhookDeliveriesConnection", Action.WEBHOOKS, "query($e: ID!) { webhookDeliveriesConnection("
         "endpointId: $e) " + page + " }", {"e": str(w.webhook)}),
    ]


def _layout_operations(w: World) -> list[tuple[str, Action, str, dict[str, Any]]]:
    """Issue 18's layout: owners configure resources and hours, managers block, staff read."""
    u, lay = str(w.unit), w.layout or {}
    r = {"r": lay.get("field")}
    return [
        ("venueResources", Action.READ, "query($u: ID!) { venueResources(unitId: $u) { id } }", {"u": u}),
        ("hoursExceptions", Action.READ, 'query($u: ID!) { hoursExceptions(unitId: $u, from: "2026-12-01", '
         'to: "2026-12-31") { id } }', {"u": u}),
        ("gridBlocks", Action.READ, "query($u: ID!, $f: DateTime!, $t: DateTime!) { gridBlocks(unitId: $u, from: $f, "
         "to: $t) { id } }", {"u": u, "f": at(12, 0).isoformat(), "t": at(13, 0).isoformat()}),
        ("createResource", Action.CONFIGURE, 'mutation($u: ID!) { createResource(unitId: $u, input: {name: "Campo M",'
         " kind: EXCLUSIVE}) { __typename } }", {"u": u}),
        ("updateResource", Action.CONFIGURE, "mutation($r: ID!) { updateResource(resourceId: $r, input: {sort: 9}) "
         "{ __typename } }", r),
        ("reorderResources", Action.CONFIGURE, "mutation($u: ID!, $r: ID!) { reorderResources(unitId: $u, "
         "resourceIds: [$r]) { __typename } }", {"u": u, **r}),
        ("createResourceGroup", Action.CONFIGURE, 'mutation($u: ID!) { createResourceGroup(unitId: $u, name: "G M") '
         "{ __typename } }", {"u": u}),
        ("renameResourceGroup", Action.CONFIGURE, 'mutation($g: ID!) { renameResourceGroup(groupId: $g, name: '
         '"Campos") { __typename } }', {"g": lay.get("group")}),
        ("setOpeningHours", Action.CONFIGURE, "mutation($u: ID!, $r: ID!) { setOpeningHours(unitId: $u, resourceId: "
         "$r, windows: []) { __typename } }", {"u": u, **r}),
        ("addClosedDay", Action.CONFIGURE, 'mutation($u: ID!) { addClosedDay(unitId: $u, date: "2026-12-29") '
         "{ __typename } }", {"u": u}),
        ("setSpecialHours", Action.CONFIGURE, 'mutation($u: ID!) { setSpecialHours(unitId: $u, date: "2026-12-30", '
         'windows: [{opens: "08:00", closes: "12:00"}]) { __typename } }', {"u": u}),
        ("removeHoursException", Action.CONFIGURE, "mutation($i: ID!) { removeHoursException(id: $i) "
         "{ __typename } }", {"i": lay.get("closed")}),
        ("blockResource", Action.MANAGE, "mutation($r: ID!, $f: DateTime!, $t: DateTime!) { blockResource("
         "resourceId: $r, from: $f, to: $t) { __typename } }", {**r, "f": at(13, 8).isoformat(),
                                                               "t": at(13, 9).isoformat()}),
        ("unblockResource", Action.MANAGE, "mutation($b: ID!) { unblockResource(blockId: $b) { __typename } }",
         {"b": lay.get("block")}),
        ("deactivateResource", Action.CONFIGURE, "mutation($r: ID!) { deactivateResource(resourceId: $r) "
         "{ __typename } }", r),
        ("reactivateResource", Action.CONFIGURE, "mutation($r: ID!) { reactivateResource(resourceId: $r) "
         "{ __typename } }", r),
    ]


async def test_every_operation_against_every_kind_of_caller(world: World) -> None:
    schema = (await world.gql("system", "{ __schema { queryType { fields(includeDeprecated: true) { name } } "
                                        "mutationType { fields(includeDeprecated: true) { name } } } }")
              )["data"]["__schema"]
    every = {f["name"] for t in ("queryType", "mutationType") for f in schema[t]["fields"]} - {"signOut"}
    table = _operations(world)
    assert {name for name, *_ in table} == every, "each query and mutation needs a row in this matrix"
    sandbox_readers = {"operator", "manager", "owner", "stranger"}  # staff (and the system), of their own units
    refused_codes = {"anonymous": "unauthenticated"}
    for name, action, query, variables in table:
        for caller in CALLERS:
            before = await _footprint(world.pool)
            body = await world.gql(caller, query, variables)
            errors = body.get("errors") or []
            codes = [e.get("extensions", {}).get("code") for e in errors]
            allowed = caller in (sandbox_readers if name == "sandboxMessages" else ALLOWED[action])
            if caller == "customer" and name in BOOKING_LEVEL | AS_SOMEONE_ELSE:
                allowed = False  # not their booking
            if caller == "customer" and name in CUSTOMER_OWN:
                allowed = True  # their own, none of the unit's others
            refused = refused_codes.get(caller, "forbidden")
            if name in HIDDEN and (caller == "stranger" or (caller == "customer" and name in BOOKING_LEVEL)):
                refused = "not_found"
            if name in NULL_WHEN_REFUSED:
                got = body["data"][name] if isinstance(body["data"][name], list) else [body["data"][name]]
                assert not errors and got and all((x is not None) == allowed for x in got), (name, caller, body)
            elif allowed:
                assert not {"unauthenticated", "forbidden"} & set(codes), (name, caller, body)
                assert body.get("data") and body["data"].get(name) is not None, (name, caller, body)
                if name == "sandboxMessages" and caller == "stranger":
                    assert body["data"][name] == []  # another tenant's messages are not theirs to read
            else:
                assert codes and codes[0] == refused, (name, caller, body)
                assert not (body.get("data") or {}).get(name), (name, caller, body)
                assert await _footprint(world.pool) == before, f"{name} refused for {caller} but wrote something"


@pytest.fixture
async def live(database_url: str, redis_url: str, pool: Any) -> AsyncIterator[tuple[int, dict[str, str], UUID]]:
    app = create_app(Settings(database_url=database_url, redis_url=redis_url, db_pool_max=10, log_level="WARNING"))
    async with serving(app) as port:
        access: PgAccess = app.state.slothold["access"]
        v, other = await arena(pool), await arena(pool)
        tokens = {"operator": (await access.issue_token(v.tenant_id, v.unit_id, "staff", "operator", [], "op"))[1],
                  "stranger": (await access.issue_token(other.tenant_id, None, "staff", "owner", [], "st"))[1]}
        yield port, tokens, v.unit_id


async def _ws(port: int, payload: dict[str, Any]) -> Any:
    ws = await websockets.connect(f"ws://127.0.0.1:{port}/graphql", subprotocols=["graphql-transport-ws"])
    await ws.send(json.dumps({"type": "connection_init", "payload": payload}))
    return ws


async def test_subscriptions_authenticate_in_connection_init_and_stay_in_their_tenant(
    live: tuple[int, dict[str, str], UUID], pool: Any
) -> None:
    port, tokens, unit = live
    resource = await pool.fetchval("SELECT id FROM resources WHERE unit_id = $1 LIMIT 1", unit)
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
        r = await http.post("/graphql", headers={"authorization": f"Bearer {tokens['operator']}"}, json={
            "query": "mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!) { counterBooking(input: {unitId: $u, "
                     "resourceIds: [$r], startsAt: $s, endsAt: $e}) { ... on BookingPayload { booking { id } } } }",
            "variables": {"u": str(unit), "r": str(resource), "s": at(20, 10).isoformat(),
                          "e": at(20, 11).isoformat()}})
    booking = r.json()["data"]["counterBooking"]["booking"]["id"]
    window = {"from": at(8, 0).isoformat(), "to": at(9, 0).isoformat()}
    subscriptions = [
        ("subscription($u: ID!) { queueChanged(unitId: $u) { seq } }", {"u": str(unit)}),
        ("subscription($u: ID!) { waitlistChanged(unitId: $u) { seq } }", {"u": str(unit)}),
        ("subscription($u: ID!) { venueChanged(unitId: $u) { seq } }", {"u": str(unit)}),
        ("subscription($u: ID!, $from: DateTime!, $to: DateTime!) { slotChanged(unitId: $u, from: $from, to: $to) "
         "{ seq } }", {"u": str(unit), **window}),
        ("subscription($b: ID!) { bookingChanged(bookingId: $b) { seq } }", {"b": booking}),
    ]
    for query, variables in subscriptions:
        sub = {"id": "1", "type": "subscribe", "payload": {"query": query, "variables": variables}}
        ws = await _ws(port, {"authorization": f"Bearer {tokens['operator']}"})
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        await ws.send(json.dumps(sub))
        with pytest.raises(TimeoutError):  # accepted: waiting for events
            await asyncio.wait_for(ws.recv(), 0.3)
        await ws.close()
        for payload, code in (({"authorization": f"Bearer {tokens['stranger']}"}, "forbidden"),
                              ({}, "unauthenticated")):
            ws = await _ws(port, payload)
            assert json.loads(await ws.recv())["type"] == "connection_ack"
            await ws.send(json.dumps(sub))
            msg = json.loads(await asyncio.wait_for(ws.recv(), 5))
            assert msg["type"] == "next" and msg["payload"]["errors"][0]["extensions"]["code"] == code, (query, msg)
            assert msg["payload"]["data"] is None
            await ws.close()
    ws = await _ws(port, {"authorization": "Bearer slh_s_not-a-token"})
    with pytest.raises(websockets.ConnectionClosed) as closed:
        await asyncio.wait_for(ws.recv(), 5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
