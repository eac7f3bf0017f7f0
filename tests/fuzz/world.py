"""The venue the fuzzer aims at: real ids of every kind (unit, resources, bookings in several states, charges, seat
events, seats, waitlist entries, walk-ins, queue items, webhooks), and one client per kind of caller.

Built through the API with a system token, as tests/api/test_access.py builds its world, plus a few rows written
directly where no operation makes them (a queue item, a capacity entry, a failed webhook delivery).
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID, uuid4

import httpx

from domain import seatmaps
from domain.services import Deps
from store.uow import PgUnitOfWork
from store.venues import CreatedVenue, ResourceSpec, VenueSpec, create_venue, every_day
from tests.conftest import MutableClock
from tests.venues import at, cpf, customer

CALLERS = ("system", "owner", "customer", "anonymous")
"""Who the fuzzer sends requests as: the platform, the venue's owner, a signed-in customer, nobody."""


@dataclass
class World:
    """Everything a request may name, by kind, and the tokens of the callers."""

    tokens: dict[str, str | None]
    ids: dict[str, list[str]] = field(default_factory=dict)
    strings: dict[str, list[str]] = field(default_factory=dict)

    def headers(self, caller: str) -> dict[str, str]:
        token = self.tokens.get(caller)
        return {"authorization": f"Bearer {token}"} if token else {}


async def _gql(client: httpx.AsyncClient, token: str | None, query: str, variables: dict[str, Any]) -> Any:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    r = await client.post("/graphql", json={"query": query, "variables": variables}, headers=headers)
    body = r.json()
    assert r.status_code == 200 and "errors" not in body, (query, body)
    return body["data"]


async def paid_arena(pool: Any) -> CreatedVenue:
    """A São Paulo arena (4 fields, a class of 12 places, a seat map later) with a service paid by a Pix deposit."""
    resources = [ResourceSpec(name=f"Campo {i}", group="Campos") for i in range(1, 5)]
    resources.append(ResourceSpec(name="Aula", kind="pooled", capacity=12))
    return await create_venue(pool, VenueSpec(
        unit_name=f"Fuzz arena {uuid4().hex[:8]}", tenant_name=f"Fuzz tenant {uuid4().hex[:6]}",
        hours=every_day(8, 23), resources=resources,
        services=[{"name": "Campo 1h", "duration_minutes": 60, "price_cents": 20000,
                   "payment_rule": "deposit_percent", "deposit_percent": 50}]))


async def sign_in(client: httpx.AsyncClient, system: str, unit: UUID, phone: str) -> str:
    """A customer session for `phone`, through requestLoginCode → sandboxMessages → verifyLoginCode."""
    await _gql(client, None, "mutation($u: ID!, $p: String) { requestLoginCode(unitId: $u, phone: $p) "
                             "{ __typename } }", {"u": str(unit), "p": phone})
    messages = (await _gql(client, system, "query($t: String!) { sandboxMessages(to: $t) { kind text } }",
                           {"t": phone}))["sandboxMessages"]
    code = re.search(r"\b(\d{6})\b", messages[0]["text"]).group(1)  # type: ignore[union-attr]
    session = (await _gql(client, None, "mutation($u: ID!, $p: String, $c: String!) { verifyLoginCode(unitId: $u, "
                                        "phone: $p, code: $c) { __typename ... on CustomerSession { token } } }",
                          {"u": str(unit), "p": phone, "c": code}))["verifyLoginCode"]
    return str(session["token"])


HOLD = ("mutation($i: HoldInput!) { hold(input: $i) { __typename ... on BookingPayload { booking { id } } "
        "... on Error { code message } } }")
CONFIRM = ("mutation($b: ID!) { confirm(bookingId: $b) { __typename ... on BookingPayload { booking { id } "
           "charge { txid } } ... on Error { code message } } }")


async def build_world(client: httpx.AsyncClient, pool: Any, access: Any, clock: MutableClock) -> World:
    """Two venues of two tenants, the first full of things to name; tokens for every caller of CALLERS."""
    v, other = await paid_arena(pool), await paid_arena(pool)
    _, system = await access.issue_token(None, None, "system", None, [], "fuzz")
    _, owner = await access.issue_token(v.tenant_id, v.unit_id, "staff", "owner", [], "fuzz owner")
    phone = f"+55119{secrets.randbelow(10**8):08d}"
    session = await sign_in(client, system, v.unit_id, phone)
    w = World(tokens={"system": system, "owner": owner, "customer": session, "anonymous": None})
    u, fields, service = str(v.unit_id), [v.resource_ids[f"Campo {i}"] for i in range(1, 5)], v.service_ids["Campo 1h"]

    def hold_input(resource: UUID, day: int, hour: int, who: dict[str, str], paid: bool = False) -> dict[str, Any]:
        return {"unitId": u, "resourceIds": [str(resource)], "startsAt": at(day, hour).isoformat(),
                "endsAt": at(day, hour + 1).isoformat(), "customer": who,
                **({"serviceId": str(service)} if paid else {})}

    bookings, txids = [], []
    held = (await _gql(client, system, HOLD, {"i": hold_input(fields[0], 8, 9, {"cpf": cpf(910_001)})}))["hold"]
    bookings.append(held["booking"]["id"])
    paying = (await _gql(client, system, HOLD, {"i": hold_input(fields[1], 8, 10, {"cpf": cpf(910_002)}, True)}))
    paying_id = paying["hold"]["booking"]["id"]
    confirmed = (await _gql(client, system, CONFIRM, {"b": paying_id}))["confirm"]
    bookings.append(paying_id)
    if confirmed.get("charge"):
        txids.append(confirmed["charge"]["txid"])
    mine = (await _gql(client, session, HOLD, {"i": hold_input(fields[2], 9, 11, {"phone": phone})}))["hold"]
    bookings.append(mine["booking"]["id"])
    counter = await _gql(client, system, "mutation($i: CounterBookingInput!) { counterBooking(input: $i) { "
                                         "... on BookingPayload { booking { id } } } }",
                         {"i": {"unitId": u, "resourceIds": [str(fields[3])], "startsAt": at(8, 12).isoformat(),
                                "endsAt": at(8, 13).isoformat(), "customer": {"cpf": cpf(910_003)}}})
    bookings.append(counter["counterBooking"]["booking"]["id"])
    walk_in = (await _gql(client, system, 'mutation($u: ID!) { addWalkIn(unitId: $u, area: "bar", name: "Ana", '
                                          'phone: "+5511900000001") { ... on WalkIn { id } } }', {"u": u}))
    slot_entry = await _gql(client, system, "mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!) { "
                                            "joinSlotWaitlist(unitId: $u, resourceId: $r, startsAt: $s, endsAt: $e, "
                                            'customer: {cpf: "' + cpf(910_010) + '"}) { ... on SlotWaitlistEntry '
                                            "{ id } } }",
                            {"u": u, "r": str(fields[0]), "s": at(8, 9).isoformat(), "e": at(8, 10).isoformat()})
    item, capacity_entry, endpoint, delivery = uuid4(), uuid4(), uuid4(), uuid4()
    await pool.execute("INSERT INTO queue_items (id, unit_id, type, priority) VALUES ($1, $2, 'pix_failing', "
                       "'critical')", item, v.unit_id)
    await pool.execute("INSERT INTO capacity_waitlist (id, unit_id, resource_id, during, party_size, user_ref, "
                       "joined_at) VALUES ($1, $2, $3, tstzrange($4, $5), 2, 'u9', now())", capacity_entry,
                       v.unit_id, v.resource_ids["Aula"], at(8, 9), at(8, 10))
    await pool.execute("INSERT INTO webhook_endpoints (id, unit_id, url, event_types, secret, created_by, created_at, "
                       "updated_at) VALUES ($1, $2, 'https://hooks.example.com/a', '{booking.held}', 'whsec_x', 't', "
                       "now(), now())", endpoint, v.unit_id)
    await pool.execute("INSERT INTO webhook_deliveries (id, endpoint_id, unit_id, outbox_id, event_id, event_type, "
                       "seq, body, status, attempts, created_at) VALUES ($1, $2, $3, 1, $1, 'booking.held', 1, '{}', "
                       "'failed', 6, now())", delivery, endpoint, v.unit_id)
    deps = Deps(uow=lambda: PgUnitOfWork(pool), clock=clock)
    seat_map = await seatmaps.create_seat_map(deps, v.unit_id, "Palco", [seatmaps.SectionSpec("P", (
        seatmaps.RowSpec("A", tuple(str(i) for i in range(1, 13))),))])
    event = await seatmaps.create_event(deps, seat_map.id, "Show", at(10, 20), at(10, 22))
    seats = [str(s.id) for s in seat_map.seats]
    await seatmaps.lock_seats(deps, seatmaps.SeatCommand(event.id, (seat_map.seats[0].id,), customer=customer(77)))
    notifications = [str(r["id"]) for r in await pool.fetch("SELECT id FROM notifications LIMIT 5")] \
        if await pool.fetchval("SELECT to_regclass('notifications') IS NOT NULL") else []
    w.ids = {
        "unit": [u], "other_unit": [str(other.unit_id)], "resource": [str(r) for r in v.resource_ids.values()],
        "other_resource": [str(r) for r in other.resource_ids.values()], "service": [str(service)],
        "booking": bookings, "walk_in": [walk_in["addWalkIn"]["id"]],
        "slot_entry": [slot_entry["joinSlotWaitlist"]["id"]], "capacity_entry": [str(capacity_entry)],
        "queue_item": [str(item)], "webhook": [str(endpoint)], "delivery": [str(delivery)],
        "seat_map": [str(seat_map.id)], "seat_event": [str(event.id)], "seat": seats,
        "notification": notifications,
    }
    w.strings = {"phone": [phone, "+5511900000001"], "txid": txids,
                 "cpf": [cpf(910_001), cpf(910_002), cpf(910_003)]}
    return w
