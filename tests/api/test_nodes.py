"""Global object identification (issue 19): every Node type answers node(id) with its own id, link fields name
nodes, and a forbidden node is the same null as a missing one — across tenants, customer against customer,
anonymous against staff-only objects."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID, uuid4

import httpx
import pytest

from resolvers.node_loaders import LOADERS
from schema.ids import Kind, decode_id, global_id
from slothold.app import create_app
from slothold.settings import Settings
from store.access import PgAccess
from tests.api.conftest import system_token
from tests.api.test_access import _sign_in, _webhook_rows
from tests.api.test_payments_api import paid_venue
from tests.conftest import MutableClock
from tests.venues import arena, at, cpf

NODE = "query($i: ID!) { node(id: $i) { __typename id } }"
NODES = "query($i: [ID!]!) { nodes(ids: $i) { __typename id } }"


@dataclass
class Nodes:
    client: httpx.AsyncClient
    tokens: dict[str, str | None]
    ids: dict[str, str] = field(default_factory=dict)
    """An id of each Node type, as the API answered it (type name → id)."""
    links: dict[str, str] = field(default_factory=dict)
    """Link fields as answered (where → id)."""
    mine: str = ""
    """Customer A's own booking."""

    async def post(self, caller: str, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        token = self.tokens[caller]
        r = await self.client.post("/graphql", json={"query": query, "variables": variables or {}},
                                   headers={"authorization": f"Bearer {token}"} if token else {})
        return r.json()  # type: ignore[no-any-return]

    async def gql(self, caller: str, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        body = await self.post(caller, query, variables)
        assert not body.get("errors"), body
        return body["data"]  # type: ignore[no-any-return]

    async def node(self, caller: str, gid: str) -> dict[str, Any] | None:
        return (await self.gql(caller, NODE, {"i": gid}))["node"]  # type: ignore[no-any-return]


def _ok(found: dict[str, Any], typename: str) -> dict[str, Any]:
    assert found.get("__typename") == typename, found
    return found


async def _bookings(w: Nodes, v: Any) -> None:
    """A booking paid by Pix then cancelled (its charge and refund), one paid at the counter by hand."""
    unit, field1 = str(v.unit_id), str(v.resource_ids["Campo 1"])
    hold = ("mutation($i: HoldInput!) { hold(input: $i) { __typename ... on BookingPayload { booking { id unitId "
            "customerId allocations { resourceId } } } ... on Error { code message } } }")
    found = []
    for hour, who in ((19, cpf(400_001)), (20, cpf(400_002))):
        r = _ok((await w.gql("system", hold, {"i": {
            "unitId": unit, "resourceIds": [field1], "startsAt": at(12, hour).isoformat(),
            "endsAt": at(12, hour + 1).isoformat(), "customer": {"cpf": who},
            "serviceId": str(v.service_ids["Campo 1h"])}}))["hold"], "BookingPayload")["booking"]
        found.append(r)
    paid, by_hand = found[0]["id"], found[1]["id"]
    w.ids["Booking"], w.ids["Unit"], w.ids["Customer"] = paid, found[0]["unitId"], found[0]["customerId"]
    w.links["Booking.allocations.resourceId"] = found[0]["allocations"][0]["resourceId"]
    confirm = ("mutation($b: ID!) { confirm(bookingId: $b) { ... on BookingPayload { charge { id txid } } "
               "... on Error { code message } } }")
    charge = (await w.gql("system", confirm, {"b": paid}))["confirm"]["charge"]
    w.ids["Charge"] = charge["id"]
    await w.gql("system", 'mutation($t: String!) { sandboxPay(txid: $t) { __typename } }', {"t": charge["txid"]})
    r = (await w.gql("system", 'mutation($b: ID!) { cancel(bookingId: $b) { ... on BookingPayload { booking { '
                               'refunds { id } } } } }', {"b": paid}))["cancel"]
    w.ids["Refund"] = r["booking"]["refunds"][0]["id"]
    await w.gql("system", confirm, {"b": by_hand})
    r = (await w.gql("system", "mutation($b: ID!) { recordManualPayment(bookingId: $b, input: {method: CASH, "
                               'amountCents: 10000, reason: "balcão"}) { __typename ... on ManualPaymentPayload { '
                               "payment { id bookingId } } ... on Error { code message } } }", {"b": by_hand}))
    payment = _ok(r["recordManualPayment"], "ManualPaymentPayload")["payment"]
    w.ids["ManualPayment"], w.links["ManualPayment.bookingId"] = payment["id"], payment["bookingId"]


async def _rows(w: Nodes, pool: Any, v: Any) -> None:
    """Rows the engine makes on its own (a queue item, an orphan Pix, a notification, a webhook delivery), and
    capacity-waitlist entries, read back through their typed queries."""
    unit = v.unit_id
    await pool.execute("INSERT INTO queue_items (id, unit_id, type, priority) VALUES ($1, $2, 'pix_failing', "
                       "'critical')", uuid4(), unit)
    bank_id = uuid4().hex
    await pool.execute("INSERT INTO received_pix (provider, provider_payment_id) VALUES ('sandbox', $1)", bank_id)
    await pool.execute("INSERT INTO payments (id, unit_id, provider, provider_payment_id, amount_cents, paid_at, "
                       "outcome) VALUES ($1, $2, 'sandbox', $3, 500, now(), 'orphan')", uuid4(), unit, bank_id)
    await pool.execute("INSERT INTO notifications (id, unit_id, audience, kind, title, body, created_at) VALUES "
                       "($1, $2, 'staff', 'owner_alert', 't', 'b', now())", uuid4(), unit)
    endpoint, _ = await _webhook_rows(pool, unit)
    entry = uuid4()
    await pool.execute("INSERT INTO capacity_waitlist (id, unit_id, resource_id, during, party_size, user_ref, "
                       "joined_at) VALUES ($1, $2, $3, tstzrange($4, $5), 2, 'u9', now())", entry, unit,
                       v.resource_ids["Campo 2"], at(12, 9), at(12, 10))
    u = str(unit)
    d = await w.gql("system", "query($u: ID!, $c: ID!, $e: ID!) { queue(unitId: $u) { id unitId } "
                              "orphanPayments(unitId: $u) { id } notifications(unitId: $u) { id } "
                              "webhooks(unitId: $u) { id unitId } webhookDeliveries(endpointId: $e) { id endpointId } "
                              "capacityWaitlistEntry(id: $c) { ... on CapacityWaitlistEntry { id resourceId } } "
                              "services(unitId: $u) { id } }",
                    {"u": u, "c": str(entry), "e": str(endpoint)})
    for typename, key in (("QueueItem", "queue"), ("OrphanPayment", "orphanPayments"),
                          ("Notification", "notifications"), ("WebhookEndpoint", "webhooks"),
                          ("WebhookDelivery", "webhookDeliveries"), ("Service", "services")):
        w.ids[typename] = d[key][0]["id"]
    w.ids["CapacityWaitlistEntry"] = d["capacityWaitlistEntry"]["id"]
    w.links["QueueItem.unitId"] = d["queue"][0]["unitId"]
    w.links["WebhookDelivery.endpointId"] = d["webhookDeliveries"][0]["endpointId"]
    w.links["CapacityWaitlistEntry.resourceId"] = d["capacityWaitlistEntry"]["resourceId"]


async def _setup(w: Nodes, v: Any) -> None:
    """What owners and the platform set up: waitlists, walk-ins, layout, seat maps, tokens, a tenant."""
    u, field2 = str(v.unit_id), str(v.resource_ids["Campo 2"])
    slot = {"u": u, "r": str(v.resource_ids["Campo 1"]), "s": at(12, 20).isoformat(), "e": at(12, 21).isoformat()}
    d = await w.gql("system", "mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!, $f: ID!, $bs: DateTime!, "
                              "$be: DateTime!) { joinSlotWaitlist(unitId: $u, resourceId: $r, startsAt: $s, "
                              'endsAt: $e, customer: {cpf: "' + cpf(400_009) + '"}) { ... on SlotWaitlistEntry { id '
                              "resourceId } ... on Error { code message } } "
                              'addWalkIn(unitId: $u, area: "bar", name: "Ana", phone: "+5511900000001") { ... on '
                              "WalkIn { id } } "
                              'createResourceGroup(unitId: $u, name: "Quadras") { ... on ResourceGroup { id } } '
                              'addClosedDay(unitId: $u, date: "2026-12-28") { ... on HoursException { id } } '
                              "blockResource(resourceId: $f, from: $bs, to: $be) { ... on GridBlock { id resourceId } "
                              "... on Error { code message } } "
                              'issueStaffToken(input: {unitId: $u, kind: STAFF, role: OPERATOR, name: "desk"}) { ... '
                              "on IssuedStaffToken { token { id unitId } } } "
                              'createSeatMap(input: {unitId: $u, name: "Palco", sections: [{name: "P", rows: [{label: '
                              '"A", seats: ["1", "2"]}]}]}) { ... on SeatMap { id } } '
                              'createTenant(name: "Outra") { ... on Tenant { id } } }',
                    {**slot, "f": field2, "bs": at(13, 8).isoformat(), "be": at(13, 9).isoformat()})
    w.ids["SlotWaitlistEntry"] = d["joinSlotWaitlist"]["id"]
    w.ids["WalkIn"], w.ids["ResourceGroup"] = d["addWalkIn"]["id"], d["createResourceGroup"]["id"]
    w.ids["HoursException"], w.ids["GridBlock"] = d["addClosedDay"]["id"], d["blockResource"]["id"]
    w.ids["StaffToken"], w.ids["SeatMap"] = d["issueStaffToken"]["token"]["id"], d["createSeatMap"]["id"]
    w.links["GridBlock.resourceId"] = d["blockResource"]["resourceId"]
    w.links["SlotWaitlistEntry.resourceId"] = d["joinSlotWaitlist"]["resourceId"]
    w.links["StaffToken.unitId"] = d["issueStaffToken"]["token"]["unitId"]
    org = (await w.gql("system", 'mutation($t: ID!) { createOrganization(tenantId: $t, name: "Org") { ... on '
                                 "Organization { id tenantId } } }", {"t": d["createTenant"]["id"]}))
    w.ids["Organization"] = org["createOrganization"]["id"]
    w.links["Organization.tenantId"] = org["createOrganization"]["tenantId"]
    ev = (await w.gql("system", 'mutation($m: ID!, $s: DateTime!, $e: DateTime!) { createSeatEvent(seatMapId: $m, '
                                'name: "Show", startsAt: $s, endsAt: $e) { ... on SeatEvent { id seatMapId } } }',
                      {"m": w.ids["SeatMap"], "s": at(20, 20).isoformat(), "e": at(20, 22).isoformat()}))
    w.ids["SeatEvent"], w.links["SeatEvent.seatMapId"] = ev["createSeatEvent"]["id"], ev["createSeatEvent"]["seatMapId"]
    view = (await w.gql("anonymous", "query($e: ID!) { seatMap(eventId: $e) { ... on SeatMapView { sections { rows "
                                     "{ seats { id } } } } } }", {"e": w.ids["SeatEvent"]}))["seatMap"]
    w.links["Seat.id"] = view["sections"][0]["rows"][0]["seats"][0]["id"]
    me = await w.gql("owner", "{ me { tenantId unitId } unit(id: \"" + u + "\") { ... on Unit { resources { id "
                              "groupId } } } }")
    w.ids["Tenant"], w.links["Me.unitId"] = me["me"]["tenantId"], me["me"]["unitId"]
    w.ids["Resource"] = me["unit"]["resources"][0]["id"]
    feed = await w.gql("owner", "mutation($u: ID!) { createCalendarFeed(unitId: $u) { ... on CreatedCalendarFeed { "
                                "feed { id unitId } } } }", {"u": u})
    w.ids["CalendarFeed"] = feed["createCalendarFeed"]["feed"]["id"]
    w.links["CalendarFeed.unitId"] = feed["createCalendarFeed"]["feed"]["unitId"]


@pytest.fixture
async def nodes(database_url: str, redis_url: str, clock: MutableClock, pool: Any) -> AsyncIterator[Nodes]:
    app = create_app(Settings(database_url=database_url, redis_url=redis_url, db_pool_max=10), clock=clock)
    async with app.router.lifespan_context(app):
        access: PgAccess = app.state.slothold["access"]
        v, other = await paid_venue(pool), await arena(pool)
        tokens: dict[str, str | None] = {"anonymous": None, "system": await system_token(access)}
        tokens["owner"] = (await access.issue_token(v.tenant_id, v.unit_id, "staff", "owner", [], "owner"))[1]
        tokens["operator"] = (await access.issue_token(v.tenant_id, v.unit_id, "staff", "operator", [], "op"))[1]
        tokens["stranger"] = (await access.issue_token(other.tenant_id, None, "staff", "owner", [], "other"))[1]
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://slothold.test") as client:
            w = Nodes(client, tokens)
            for who in ("customer_a", "customer_b"):
                phone = f"+55119{secrets.randbelow(10**8):08d}"
                tokens[who] = await _sign_in(client, tokens["system"], v.unit_id, phone)  # type: ignore[arg-type]
            r = await w.gql("customer_a", "mutation($i: HoldInput!) { hold(input: $i) { ... on BookingPayload { "
                                          "booking { id customerId } } ... on Error { code message } } }", {"i": {
                "unitId": str(v.unit_id), "resourceIds": [str(v.resource_ids["Campo 2"])],
                "startsAt": at(12, 10).isoformat(), "endsAt": at(12, 11).isoformat(), "customer": {"name": "A"}}})
            w.mine, w.links["mine.customerId"] = r["hold"]["booking"]["id"], r["hold"]["booking"]["customerId"]
            await _bookings(w, v)
            await _rows(w, pool, v)
            await _setup(w, v)
            s = await w.gql("system", "mutation($i: CounterSeriesInput!) { counterSeries(input: $i) { ... on "
                                      "SeriesPayload { series { id } } ... on Error { code message } } }", {"i": {
                "unitId": str(v.unit_id), "resourceIds": [str(v.resource_ids["Campo 2"])],
                "startsAt": at(14, 10).isoformat(), "endsAt": at(14, 11).isoformat(), "occurrences": 2}})
            w.ids["Series"] = s["counterSeries"]["series"]["id"]
            yield w


async def test_every_node_type_round_trips_through_node_and_nodes(nodes: Nodes) -> None:
    kinds = (await nodes.gql("system", '{ __type(name: "Node") { possibleTypes { name } } }'))["__type"]
    every = {t["name"] for t in kinds["possibleTypes"]}
    assert every == set(nodes.ids) == {k.value for k in LOADERS} == {k.value for k in Kind}
    for typename, gid in nodes.ids.items():
        assert decode_id(gid)[0] == typename and str(decode_id(gid)[1]) not in gid  # typed and opaque
        assert await nodes.node("system", gid) == {"__typename": typename, "id": gid}, typename
    asked = list(nodes.ids.values())
    got = (await nodes.gql("system", NODES, {"i": asked}))["nodes"]
    assert [n["id"] for n in got] == asked and [n["__typename"] for n in got] == list(nodes.ids)


async def test_link_fields_name_the_linked_node(nodes: Nodes) -> None:
    expected = {"Booking.allocations.resourceId": "Resource", "ManualPayment.bookingId": "Booking",
                "QueueItem.unitId": "Unit", "WebhookDelivery.endpointId": "WebhookEndpoint",
                "CapacityWaitlistEntry.resourceId": "Resource",
                "GridBlock.resourceId": "Resource", "SlotWaitlistEntry.resourceId": "Resource",
                "StaffToken.unitId": "Unit", "Organization.tenantId": "Tenant", "SeatEvent.seatMapId": "SeatMap",
                "Seat.id": "Resource", "Me.unitId": "Unit", "mine.customerId": "Customer",
                "CalendarFeed.unitId": "Unit"}
    assert set(nodes.links) == set(expected)
    for where, typename in expected.items():
        gid = nodes.links[where]
        assert await nodes.node("system", gid) == {"__typename": typename, "id": gid}, where
    # The same booking's links, as a client would follow them.
    b = (await nodes.gql("system", "query($i: ID!) { node(id: $i) { ... on Booking { unitId customerId "
                                   "allocations { resourceId } } } }", {"i": nodes.ids["Booking"]}))["node"]
    assert b["unitId"] == nodes.ids["Unit"] and b["customerId"] == nodes.ids["Customer"]
    assert (await nodes.node("system", b["allocations"][0]["resourceId"]))["__typename"] == "Resource"  # type: ignore[index]


async def test_a_forbidden_node_is_the_same_null_as_a_missing_one(nodes: Nodes) -> None:
    missing = global_id("Booking", uuid4())
    staff_only = ["QueueItem", "WalkIn", "Notification", "WebhookEndpoint", "WebhookDelivery", "StaffToken",
                  "HoursException", "GridBlock", "ResourceGroup", "OrphanPayment", "ManualPayment", "Customer",
                  "Booking", "Charge", "Refund", "SlotWaitlistEntry", "CapacityWaitlistEntry", "CalendarFeed",
                  "Series"]
    for caller in ("stranger", "anonymous", "customer_b"):
        for typename in staff_only:
            body = await nodes.post(caller, NODE, {"i": nodes.ids[typename]})
            assert body == {"data": {"node": None}}, (caller, typename, body)
        assert await nodes.post(caller, NODE, {"i": missing}) == {"data": {"node": None}}
    # Tenant B's staff see none of tenant A's objects, not even its organization or tenant.
    assert await nodes.node("stranger", nodes.ids["Tenant"]) is None
    # Customer against customer: B sees neither A's booking nor A's record; A sees both.
    for gid in (nodes.mine, nodes.links["mine.customerId"]):
        assert await nodes.node("customer_b", gid) is None
        assert (await nodes.node("customer_a", gid) or {}).get("id") == gid
    # An operator reads the unit's bookings but not its webhooks or tokens (owners' objects): null too.
    assert (await nodes.node("operator", nodes.ids["Booking"]) or {}).get("id") == nodes.ids["Booking"]
    for typename in ("WebhookEndpoint", "StaffToken", "Customer", "CalendarFeed"):
        assert await nodes.node("operator", nodes.ids[typename]) is None, typename
        assert (await nodes.node("owner", nodes.ids[typename]) or {}).get("id") == nodes.ids[typename]
    # Public objects answer everyone, as unit(id), services and seatMap do.
    for typename in ("Unit", "Resource", "Service", "SeatMap", "SeatEvent"):
        assert (await nodes.node("anonymous", nodes.ids[typename]) or {}).get("id") == nodes.ids[typename]


async def test_ids_of_the_wrong_type_and_malformed_ids_are_typed_errors(nodes: Nodes) -> None:
    unit = nodes.ids["Unit"]
    r = (await nodes.gql("system", "mutation($b: ID!) { cancel(bookingId: $b) { __typename ... on InvalidInput { "
                                   "code field message } } }", {"b": unit}))["cancel"]
    assert r["__typename"] == "InvalidInput" and r["code"] == "invalid_id" and r["field"] == "bookingId", r
    assert "Unit" in r["message"]
    r = (await nodes.gql("system", "query($b: ID!) { booking(id: $b) { __typename ... on InvalidInput { code } } }",
                         {"b": unit}))["booking"]
    assert r == {"__typename": "InvalidInput", "code": "invalid_id"}
    for bad in ("not-an-id", str(UUID(int=7)), global_id("Nothing", uuid4())):
        body = await nodes.post("system", NODE, {"i": bad})
        assert body["data"] == {"node": None} and body["errors"][0]["extensions"]["code"] == "invalid_id", (bad, body)
    body = await nodes.post("system", NODES, {"i": [nodes.ids["Booking"], "x"]})
    assert body["errors"][0]["extensions"]["code"] == "invalid_id"


async def test_nodes_keeps_the_order_asked_and_is_bounded(nodes: Nodes) -> None:
    b, u = nodes.ids["Booking"], nodes.ids["Unit"]
    missing = global_id("Unit", uuid4())
    got = (await nodes.gql("operator", NODES, {"i": [missing, b, u, b, nodes.ids["StaffToken"]]}))["nodes"]
    assert got == [None, {"__typename": "Booking", "id": b}, {"__typename": "Unit", "id": u},
                   {"__typename": "Booking", "id": b}, None]
    assert (await nodes.gql("system", NODES, {"i": [u] * 100}))["nodes"] == [{"__typename": "Unit", "id": u}] * 100
    body = await nodes.post("system", NODES, {"i": [u] * 101})
    assert body["errors"][0]["extensions"]["code"] == "too_many_ids" and body["data"] is None
