"""What the seeds' examples showed differently (issue 18), each found by trying the product: lockSeats resent
with its idempotency key replays, orphan Pix are findable by staff, walk-in and capacity offers carry a claim
link that claims them."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from uuid import uuid4

import httpx
import pytest

from domain import notifications
from domain.events import parse_event
from providers.sandbox import SIGNATURE_HEADER, sign
from schema.ids import global_id
from slothold.app import create_app
from slothold.settings import Settings
from store.access import PgAccess
from store.venues import ResourceSpec, VenueSpec, create_venue, every_day
from tests.api.conftest import Api, system_token
from tests.api.test_payments_api import CONFIRM, held, paid_venue
from tests.conftest import MutableClock
from tests.venues import arena, at, cpf

PUBLIC = "https://arena.example"
"""The public base URL the claim links of these tests are built from (a trailing slash is dropped)."""


@dataclass
class World:
    """The API in process, with its token issuer, to call it as several principals."""

    http: httpx.AsyncClient
    access: PgAccess
    system: str

    async def post(self, token: str | None, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        auth = {"authorization": f"Bearer {token}"} if token else {}
        r = await self.http.post("/graphql", json={"query": query, "variables": variables or {}}, headers=auth)
        return r.json()  # type: ignore[no-any-return]

    async def gql(self, token: str | None, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        body = await self.post(token, query, variables)
        assert "errors" not in body, body["errors"]
        return body["data"]  # type: ignore[no-any-return]

    async def staff(self, v: Any, role: str = "operator") -> str:
        return (await self.access.issue_token(v.tenant_id, v.unit_id, "staff", role, [], role))[1]


@pytest.fixture
async def world(database_url: str, redis_url: str, clock: MutableClock) -> AsyncIterator[World]:
    app = create_app(Settings(database_url=database_url, redis_url=redis_url, db_pool_max=25,
                              public_base_url=PUBLIC + "/"), clock=clock)
    async with app.router.lifespan_context(app):
        access = app.state.slothold["access"]
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://slothold.test") as c:
            yield World(c, access, await system_token(access))

SEAT_MAP = """mutation($i: SeatMapInput!) { createSeatMap(input: $i) { __typename ... on SeatMap { id }
  ... on Error { code message } } }"""
SEAT_EVENT = """mutation($m: ID!, $s: DateTime!, $e: DateTime!) { createSeatEvent(seatMapId: $m, name: "Hamlet",
  startsAt: $s, endsAt: $e) { __typename ... on SeatEvent { id } ... on Error { code message } } }"""
LOCK = """mutation($i: LockSeatsInput!, $key: String) { lockSeats(input: $i, idempotencyKey: $key) { __typename
  ... on BookingPayload { replayed booking { id status } } ... on Error { code } } }"""


async def seat_event(api: Api, pool: Any) -> tuple[Any, str]:
    v = await arena(pool)
    rows = [{"label": "A", "seats": ["1", "2", "3", "4"]}]
    m = (await api.gql(SEAT_MAP, {"i": {"unitId": str(v.unit_id), "name": "Teatro",
                                        "sections": [{"name": "Plateia", "rows": rows}]}}))["createSeatMap"]
    e = (await api.gql(SEAT_EVENT, {"m": m["id"], "s": at(10, 20).isoformat(), "e": at(10, 23).isoformat()}
                       ))["createSeatEvent"]
    return v, e["id"]


async def seat_ids(pool: Any, unit_id: Any) -> list[str]:
    rows = await pool.fetch("SELECT resource_id FROM seats WHERE unit_id = $1 ORDER BY sort", unit_id)
    return [str(r["resource_id"]) for r in rows]


async def test_lock_seats_resent_with_its_key_replays_and_another_request_under_it_is_refused(
        api: Api, pool: Any) -> None:
    v, event = await seat_event(api, pool)
    seats = await seat_ids(pool, v.unit_id)
    ask = {"eventId": event, "seatIds": seats[:2], "customer": {"cpf": cpf(410_001)}}
    first = (await api.gql(LOCK, {"i": ask, "key": "seats-1"}))["lockSeats"]
    assert first["__typename"] == "BookingPayload" and first["replayed"] is False, first
    again = (await api.gql(LOCK, {"i": ask, "key": "seats-1"}))["lockSeats"]
    assert again == {"__typename": "BookingPayload", "replayed": True, "booking": first["booking"]}
    other = (await api.gql(LOCK, {"i": {**ask, "seatIds": seats[2:]}, "key": "seats-1"}))["lockSeats"]
    assert other == {"__typename": "IdempotencyKeyReused", "code": "idempotency_key_reused"}
    taken = (await api.gql(LOCK, {"i": {**ask, "customer": {"cpf": cpf(410_002)}}, "key": "seats-2"}))["lockSeats"]
    assert taken["__typename"] == "SeatsUnavailable", taken  # a new key on locked seats: still refused
    assert await pool.fetchval("SELECT count(*) FROM bookings WHERE unit_id = $1", v.unit_id) == 1


SELL = """mutation($i: SellSeatsInput!, $key: String) { sellSeats(input: $i, idempotencyKey: $key) { __typename
  ... on SeatBookingsPayload { bookings { id status } } ... on Error { code } } }"""


async def test_sell_seats_resent_with_its_key_answers_the_same_sale(api: Api, pool: Any) -> None:
    v, event = await seat_event(api, pool)
    seats = await seat_ids(pool, v.unit_id)
    ask = {"eventId": event, "seatIds": seats[:2]}
    first = (await api.gql(SELL, {"i": ask, "key": "sale-1"}))["sellSeats"]
    assert first["__typename"] == "SeatBookingsPayload", first
    assert (await api.gql(SELL, {"i": ask, "key": "sale-1"}))["sellSeats"] == first
    other = (await api.gql(SELL, {"i": {**ask, "seatIds": seats[2:]}, "key": "sale-1"}))["sellSeats"]
    assert other == {"__typename": "IdempotencyKeyReused", "code": "idempotency_key_reused"}
    assert await pool.fetchval("SELECT count(*) FROM bookings WHERE unit_id = $1", v.unit_id) == 1


ORPHANS = """query($u: ID!) { orphanPayments(unitId: $u, first: 20) { id amountCents payerName payerDocument txid
  endToEndId receivedAt } }"""
LINK = """mutation($b: ID!, $p: ID!) { linkPayment(bookingId: $b, paymentId: $p) { __typename
  ... on PaymentOutcome { outcome } ... on Error { code } } }"""
PAGUEI = """mutation($b: ID!) { claimPaid(bookingId: $b) { __typename
  ... on BookingPayload { booking { status } } } }"""


async def webhook(world: World, *pix: dict[str, Any]) -> list[str]:
    body = json.dumps({"pix": list(pix)}).encode()
    r = await world.http.post("/webhooks/sandbox", content=body, headers={
        "content-type": "application/json", SIGNATURE_HEADER: sign("sandbox-secret", body)})
    assert r.status_code == 200, r.text
    return r.json()["outcomes"]  # type: ignore[no-any-return]


async def test_an_orphan_pix_is_listed_for_its_units_staff_until_linked(world: World, pool: Any) -> None:
    """RN-HLD-06 "Vincular pagamento": a Pix without our txid, paid by the customer who says "paguei", is the
    unit's orphan; its staff find it, link it, and it is gone; another tenant's staff never see it."""
    api = Api(world.http)
    world.http.headers["authorization"] = f"Bearer {world.system}"
    v, elsewhere = await paid_venue(pool), await paid_venue(pool)
    bid = await held(api, v, n=31)  # the customer's CPF is cpf(400_031)
    charge = (await api.gql(CONFIRM, {"id": bid}))["confirm"]["charge"]
    assert (await api.gql(PAGUEI, {"b": bid}))["claimPaid"]["booking"]["status"] == "VERIFYING"
    del world.http.headers["authorization"]
    by_hand = {"endToEndId": "E12345678202612071205orphanpix001", "valor": "100.00",
               "horario": "2026-12-07T12:05:00Z", "pagador": {"cpf": cpf(400_031), "nome": "Ana Souza"}}
    stranger = {"endToEndId": "E12345678202612071206orphanpix002", "valor": "37.00",
                "horario": "2026-12-07T12:06:00Z"}  # nobody's: no payer, no claim of that amount
    assert await webhook(world, by_hand, stranger) == ["orphan", "orphan"]
    operator, outsider = await world.staff(v), await world.staff(elsewhere, "owner")
    listed = (await world.gql(operator, ORPHANS, {"u": str(v.unit_id)}))["orphanPayments"]
    assert [(o["amountCents"], o["payerName"], o["payerDocument"], o["txid"], o["endToEndId"], o["receivedAt"])
            for o in listed] == [(10000, "Ana Souza", cpf(400_031), None, by_hand["endToEndId"],
                                  "2026-12-07T12:05:00+00:00")]
    assert charge["amountCents"] == 10000
    # Another tenant's owner: nothing of theirs, and no access to this unit's list or to linking it.
    assert (await world.gql(outsider, ORPHANS, {"u": str(elsewhere.unit_id)}))["orphanPayments"] == []
    refused = await world.post(outsider, ORPHANS, {"u": str(v.unit_id)})
    assert refused["errors"][0]["extensions"]["code"] == "forbidden", refused
    linked = (await world.gql(operator, LINK, {"b": bid, "p": listed[0]["id"]}))["linkPayment"]
    assert linked == {"__typename": "PaymentOutcome", "outcome": "CONFIRMED"}
    assert (await world.gql(operator, ORPHANS, {"u": str(v.unit_id)}))["orphanPayments"] == []


async def test_an_orphan_of_one_unit_cannot_be_linked_to_another_units_booking(world: World, pool: Any) -> None:
    api = Api(world.http)
    world.http.headers["authorization"] = f"Bearer {world.system}"
    v, elsewhere = await paid_venue(pool), await paid_venue(pool)
    bid = await held(api, v, n=33)
    await api.gql(CONFIRM, {"id": bid})
    await api.gql(PAGUEI, {"b": bid})
    other = await held(api, elsewhere, n=34)
    await api.gql(CONFIRM, {"id": other})
    del world.http.headers["authorization"]
    assert await webhook(world, {"endToEndId": "E12345678202612071207orphanpix003", "valor": "100.00",
                                 "horario": "2026-12-07T12:07:00Z", "pagador": {"cpf": cpf(400_033)}}) == ["orphan"]
    mine = (await world.gql(await world.staff(v), ORPHANS, {"u": str(v.unit_id)}))["orphanPayments"]
    assert len(mine) == 1
    thief = await world.staff(elsewhere, "owner")
    taken = (await world.gql(thief, LINK, {"b": other, "p": mine[0]["id"]}))["linkPayment"]
    assert taken["__typename"] == "NotFound", taken
    assert len((await world.gql(await world.staff(v), ORPHANS, {"u": str(v.unit_id)}))["orphanPayments"]) == 1


async def test_an_orphan_without_a_payer_is_the_units_whose_customer_claims_that_amount(
        world: World, pool: Any) -> None:
    """No payer named: the one unit with a "paguei" of exactly that amount owns it; no claim, nobody's."""
    api = Api(world.http)
    world.http.headers["authorization"] = f"Bearer {world.system}"
    v = await create_venue(pool, VenueSpec(
        unit_name=f"Arena orphan {cpf(9)}-{id(world)}", hours=every_day(8, 23), resources=[ResourceSpec("Campo 1")],
        services=[{"name": "Campo 1h", "duration_minutes": 60, "price_cents": 13_337}]))
    bid = await held(api, v, n=35)
    await api.gql(CONFIRM, {"id": bid})
    del world.http.headers["authorization"]
    pix = {"endToEndId": "E12345678202612071208orphanpix004", "valor": "133.37", "horario": "2026-12-07T12:08:00Z"}
    assert await webhook(world, pix) == ["orphan"]  # no "paguei" yet: nobody's
    operator = await world.staff(v)
    assert (await world.gql(operator, ORPHANS, {"u": str(v.unit_id)}))["orphanPayments"] == []
    world.http.headers["authorization"] = f"Bearer {world.system}"
    await api.gql(PAGUEI, {"b": bid})
    del world.http.headers["authorization"]
    again = {**pix, "endToEndId": "E12345678202612071209orphanpix005", "horario": "2026-12-07T12:09:00Z"}
    assert await webhook(world, again) == ["orphan"]
    listed = (await world.gql(operator, ORPHANS, {"u": str(v.unit_id)}))["orphanPayments"]
    assert [(o["endToEndId"], o["amountCents"], o["payerName"]) for o in listed] == [
        (again["endToEndId"], 13_337, None)]


# Payments always belong to a unit (issue 21, migration 0022p): an orphan Pix no unit can be told for waits in
# `unattributed_payments`, each bank payment id is claimed once in `received_pix`, and linking an unattributed Pix
# makes it the linking unit's payment — or, refused, leaves it where it was.

async def test_an_unattributed_pix_is_nobodys_until_a_unit_links_it(world: World, pool: Any) -> None:
    api = Api(world.http)
    world.http.headers["authorization"] = f"Bearer {world.system}"
    v = await paid_venue(pool)
    bid = await held(api, v, n=41)
    await api.gql(CONFIRM, {"id": bid})
    del world.http.headers["authorization"]
    loose = {"endToEndId": "E12345678202612071210looseipix0001", "valor": "100.01",
             "horario": "2026-12-07T12:10:00Z"}  # no payer, no "paguei" of that amount: nobody's
    assert await webhook(world, loose) == ["orphan"]
    row = await pool.fetchrow("SELECT id, amount_cents FROM unattributed_payments WHERE provider_payment_id = $1",
                              loose["endToEndId"])
    assert row is not None and row["amount_cents"] == 10001
    assert await pool.fetchval("SELECT count(*) FROM payments WHERE provider_payment_id = $1",
                               loose["endToEndId"]) == 0
    assert await webhook(world, loose) == ["duplicate"]  # claimed once, whichever table holds it
    operator = await world.staff(v)
    assert (await world.gql(operator, ORPHANS, {"u": str(v.unit_id)}))["orphanPayments"] == []

    # A refused link (a booking without a charge of its own) leaves it unattributed: nothing half-moved.
    world.http.headers["authorization"] = f"Bearer {world.system}"
    bare = await held(api, v, field="Campo 2", n=42)
    del world.http.headers["authorization"]
    refused = (await world.gql(operator, LINK, {"b": bare, "p": str(row["id"])}))["linkPayment"]
    assert refused["__typename"] == "NotFound", refused
    assert await pool.fetchval("SELECT count(*) FROM unattributed_payments WHERE id = $1", row["id"]) == 1

    linked = (await world.gql(operator, LINK, {"b": bid, "p": str(row["id"])}))["linkPayment"]
    assert linked == {"__typename": "PaymentOutcome", "outcome": "CONFIRMED"}
    moved = await pool.fetchrow("SELECT unit_id, outcome FROM payments WHERE id = $1", row["id"])
    assert moved is not None and (moved["unit_id"], moved["outcome"]) == (v.unit_id, "confirmed")
    assert await pool.fetchval("SELECT count(*) FROM unattributed_payments WHERE id = $1", row["id"]) == 0


async def test_the_same_pix_delivered_at_once_many_times_is_recorded_once(world: World, pool: Any) -> None:
    """Eight concurrent deliveries of one Pix of a known charge: one applies it, the others are duplicates."""
    api = Api(world.http)
    world.http.headers["authorization"] = f"Bearer {world.system}"
    v = await paid_venue(pool)
    bid = await held(api, v, n=43)
    charge = (await api.gql(CONFIRM, {"id": bid}))["confirm"]["charge"]
    del world.http.headers["authorization"]
    pix = {"endToEndId": "E12345678202612071211concurrent001", "valor": "100.00", "txid": charge["txid"],
           "horario": "2026-12-07T12:11:00Z"}
    body = json.dumps({"pix": [pix]}).encode()
    headers = {"content-type": "application/json", SIGNATURE_HEADER: sign("sandbox-secret", body)}
    answers = await asyncio.gather(*(world.http.post("/webhooks/sandbox", content=body, headers=headers)
                                     for _ in range(8)))
    outcomes = sorted(o for r in answers for o in r.json()["outcomes"])
    assert outcomes == ["confirmed"] + ["duplicate"] * 7, outcomes
    assert await pool.fetchval("SELECT count(*) FROM payments WHERE provider_payment_id = $1",
                               pix["endToEndId"]) == 1
    assert await pool.fetchval("SELECT count(*) FROM received_pix WHERE provider_payment_id = $1",
                               pix["endToEndId"]) == 1


# --- claim links: the token of a message claims its offer (seed 003) -------------------------------------------

WALK_IN = """mutation($u: ID!, $phone: String!) { addWalkIn(unitId: $u, area: "Salão", name: "Bia", phone: $phone,
  partySize: 3) { ... on WalkIn { id } } }"""
OFFER_WALK_IN = "mutation($id: ID!) { offerWalkIn(entryId: $id) { ... on WalkIn { status } } }"
SENT = "query($to: String!) { sandboxMessages(to: $to) { kind text } }"
CLAIM_WALK_IN = """mutation($u: ID!, $t: String!) { claimWalkIn(unitId: $u, token: $t) { __typename
  ... on WalkIn { name status } ... on Error { code } } }"""
LINK_IN_TEXT = re.compile(r"https?://\S+")


async def open_link(world: World, text: str) -> tuple[str, str, str]:
    """The claim link of a message: (its page's HTML, the unit id the page claims on, the token in the link)."""
    (link,) = LINK_IN_TEXT.findall(text)
    assert link.startswith(PUBLIC + "/"), link
    page = await world.http.get(link.removeprefix(PUBLIC))
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html"), page.text
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page.text  # phone width
    unit = re.search(r'data-unit="([0-9a-f-]{36})"', page.text)
    assert unit is not None, page.text
    return page.text, unit.group(1), link.rsplit("/", 1)[1]


async def test_a_walk_in_claims_its_turn_from_the_link_in_its_message(world: World, pool: Any) -> None:
    v = await arena(pool)
    phone = "+5511987659901"
    staff = await world.staff(v)
    wid = (await world.gql(staff, WALK_IN, {"u": str(v.unit_id), "phone": phone}))["addWalkIn"]["id"]
    assert (await world.gql(staff, OFFER_WALK_IN, {"id": wid}))["offerWalkIn"]["status"] == "OFFERED"
    (sent,) = (await world.gql(world.system, SENT, {"to": phone}))["sandboxMessages"]
    assert sent["kind"] == "WALK_IN_OFFER" and len(sent["text"]) <= 160, sent  # one short WhatsApp message
    page, unit, token = await open_link(world, sent["text"])
    assert unit == str(v.unit_id) and len(token) == 64
    assert "Bia" in page and "Salão" in page and "claimWalkIn" in page
    claimed = (await world.gql(None, CLAIM_WALK_IN, {"u": unit, "t": token}))["claimWalkIn"]
    assert claimed == {"__typename": "WalkIn", "name": "Bia", "status": "CLAIMED"}
    again = (await world.gql(None, CLAIM_WALK_IN, {"u": unit, "t": token}))["claimWalkIn"]
    assert again["__typename"] == "NotFound"  # once only
    assert (await world.http.get(f"/walk-in/claim/{token}")).status_code == 200  # the page says it was claimed
    assert (await world.http.get("/walk-in/claim/" + "0" * 64)).status_code == 404
    assert (await world.http.get("/walk-in/claim/not-a-token")).status_code == 404


JOIN_CLASS = """mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!) { joinCapacityWaitlist(unitId: $u,
  resourceId: $r, startsAt: $s, endsAt: $e, partySize: 2) { __typename ... on CapacityWaitlistEntry { id status }
  ... on Error { code message } } }"""
CLAIM_OFFER = """mutation($u: ID!, $t: String!) { claimWaitlistOffer(unitId: $u, token: $t) { __typename
  ... on Booking { id status customerId } ... on Error { code } } }"""
HOLD_PLACES = """mutation($i: HoldInput!) { hold(input: $i) { __typename ... on BookingPayload { booking { id } }
  ... on Error { code message } } }"""


async def test_a_capacity_offer_is_claimed_from_the_link_in_its_message(
        world: World, pool: Any, clock: MutableClock) -> None:
    v = await arena(pool, pooled={"Aula de spinning": 2})
    aula = v.resource_ids["Aula de spinning"]
    when = {"s": at(9, 18).isoformat(), "e": at(9, 19).isoformat()}
    full = (await world.gql(world.system, HOLD_PLACES, {"i": {
        "unitId": str(v.unit_id), "resourceIds": [str(aula)], "startsAt": when["s"], "endsAt": when["e"],
        "quantity": 2, "customer": {"cpf": cpf(420_001)}}}))["hold"]
    assert full["__typename"] == "BookingPayload", full
    customer = uuid4()
    await pool.execute("INSERT INTO customers (id, tenant_id, phone, name) VALUES ($1, $2, '+5511987650002', "
                       "'Caio')", customer, v.tenant_id)
    _, session = await world.access.open_session(v.unit_id, v.tenant_id, customer, clock.now(), timedelta(days=1))
    joined = (await world.gql(session, JOIN_CLASS, {"u": str(v.unit_id), "r": str(aula), **when})
              )["joinCapacityWaitlist"]
    assert joined["status"] == "WAITING", joined
    await world.gql(world.system, "mutation($b: ID!) { cancel(bookingId: $b) { __typename } }",
                    {"b": full["booking"]["id"]})  # two places free: the line's first party is offered them
    row = await pool.fetchrow("SELECT topic, payload FROM outbox WHERE unit_id = $1 AND topic = 'notification' "
                              "AND payload->>'kind' = 'capacity_offer'", v.unit_id)
    planned = notifications.plan(notifications.intent(parse_event(row["topic"], row["payload"])),  # as the relay
                                 notifications.Context(phone="+5511987650002"))                   # words it
    (whatsapp,) = [p for p in planned if p.channel == "whatsapp"]
    assert len(whatsapp.body) <= 200, whatsapp.body
    page, unit, token = await open_link(world, whatsapp.body)
    assert unit == str(v.unit_id) and "Aula de spinning" in page and "claimWaitlistOffer" in page
    claimed = (await world.gql(session, CLAIM_OFFER, {"u": unit, "t": token}))["claimWaitlistOffer"]
    assert claimed["__typename"] == "Booking" and claimed["status"] == "HELD" and claimed["customerId"] == global_id(
        "Customer", customer), claimed
    assert (await world.http.get("/waitlist/claim/" + "f" * 64)).status_code == 404
