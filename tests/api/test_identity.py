"""Customer identity (issue 16): a customer's session acts on its own record, never on what a request claims.

Customer A (a real session) names customer B by CPF, phone and e-mail on every mutation that takes a customer;
B was made at the counter, by the WhatsApp bot, by B's own session, or lives in another tenant. Each time B's
record, bookings and entries are unchanged row for row, and no answer names B's data.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import httpx
import pytest

from api.auth import CACHE_SECONDS
from domain import services
from domain.customers import CustomerIdentity, Proof
from domain.services import Deps, HoldCommand
from schema.ids import decode_id, global_id
from slothold.app import create_app
from slothold.settings import Settings
from store.uow import PgUnitOfWork
from tests.api.conftest import system_token
from tests.api.test_access import _seat_map, _sign_in
from tests.conftest import MutableClock
from tests.venues import arena, at, cpf

HOLD = """mutation($i: HoldInput!) { hold(input: $i) { __typename
  ... on BookingPayload { booking { id customerId } }
  ... on HoldLimitReached { bookingId } ... on InvalidInput { field } ... on Error { code message } } }"""
COUNTER = """mutation($i: CounterBookingInput!) { counterBooking(input: $i) { __typename
  ... on BookingPayload { booking { id customerId } } ... on Error { code message } } }"""
BOOKING = ("query($b: ID!) { booking(id: $b) { __typename ... on Booking { id customerId } "
           "... on Error { code } } }")


@dataclass
class Party:
    """B: the customer under attack."""

    cpf: str
    phone: str
    email: str
    name: str
    customer_id: UUID | None = None
    bookings: list[UUID] = field(default_factory=list)
    token: str | None = None


@dataclass
class World:
    client: httpx.AsyncClient
    pool: Any
    clock: MutableClock
    system: str
    unit: UUID
    tenant: UUID
    fields: list[UUID]
    aula: UUID
    other_unit: UUID
    seat_event: UUID
    seats: list[UUID]
    deps: Deps

    async def gql(self, token: str | None, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        headers = {"authorization": f"Bearer {token}"} if token else {}
        r = await self.client.post("/graphql", json={"query": query, "variables": variables or {}}, headers=headers)
        assert r.status_code in (200, 400, 401, 403), r.text
        return r.json()  # type: ignore[no-any-return]

    async def sign_in(self, phone: str, unit: UUID | None = None) -> str:
        return await _sign_in(self.client, self.system, unit or self.unit, phone)


def _phone() -> str:
    return f"+55119{secrets.randbelow(10**8):08d}"


def _slot(w: World, hour: int, field_no: int = 0, day: int = 8) -> dict[str, Any]:
    return {"unitId": str(w.unit), "resourceIds": [str(w.fields[field_no])], "startsAt": at(day, hour).isoformat(),
            "endsAt": at(day, hour + 1).isoformat()}


@pytest.fixture
async def world(database_url: str, redis_url: str, clock: MutableClock, pool: Any) -> AsyncIterator[World]:
    app = create_app(Settings(database_url=database_url, redis_url=redis_url, db_pool_max=10), clock=clock)
    async with app.router.lifespan_context(app):
        v, other = await arena(pool, pooled={"Aula": 12}), await arena(pool)
        tenant = await pool.fetchval("SELECT o.tenant_id FROM units u JOIN organizations o ON o.id = "
                                     "u.organization_id WHERE u.id = $1", v.unit_id)
        _, event, seats = await _seat_map(pool, clock, v.unit_id)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://slothold.test") as client:
            fields = [r for n, r in v.resource_ids.items() if n.startswith("Campo")]
            yield World(client, pool, clock, await system_token(app.state.slothold["access"]), v.unit_id, tenant,
                        fields, v.resource_ids["Aula"], other.unit_id, event, seats,
                        Deps(uow=lambda: PgUnitOfWork(pool), clock=clock))


async def _make_b(w: World, kind: str, n: int) -> Party:
    """B, with one booking and, for the capacity line, an offer of its own."""
    b = Party(cpf=cpf(700_000 + n), phone=_phone(), email=f"b{n}-{secrets.token_hex(3)}@example.com",
              name=f"Bea Vitima {n}")
    who = {"cpf": b.cpf, "phone": b.phone, "email": b.email, "name": b.name}
    if kind in ("counter", "other_tenant"):
        unit = w.other_unit if kind == "other_tenant" else w.unit
        slot = {**_slot(w, 10), "unitId": str(unit)}
        if kind == "other_tenant":
            res = await w.pool.fetchval("SELECT id FROM resources WHERE unit_id = $1 ORDER BY name LIMIT 1", unit)
            slot["resourceIds"] = [str(res)]
        r = await w.gql(w.system, COUNTER, {"i": {**slot, "customer": who}})
        booking = r["data"]["counterBooking"]["booking"]
    elif kind == "bot":  # the WhatsApp conversation books as the phone it talks to (domain/conversation/bot.py)
        made = await services.hold(w.deps, HoldCommand(
            unit_id=w.unit, starts_at=at(8, 10), ends_at=at(8, 11), resource_ids=(w.fields[0],),
            customer=CustomerIdentity(cpf=b.cpf, phone=b.phone, name=b.name, email=b.email,
                                      proof=Proof(phone=b.phone)), channel="whatsapp"))
        booking = {"id": str(made.booking.id), "customerId": str(made.booking.customer_id)}
    else:
        b.token = await w.sign_in(b.phone)
        r = await w.gql(b.token, HOLD, {"i": {**_slot(w, 10), "customer": {"cpf": b.cpf, "email": b.email,
                                                                           "name": b.name}}})
        booking = r["data"]["hold"]["booking"]
    assert booking, r
    b.customer_id, b.bookings = decode_id(booking["customerId"])[1], [decode_id(booking["id"])[1]]
    if kind != "other_tenant":
        offered = (await w.gql(w.system, COUNTER, {"i": {**_slot(w, 12), "resourceIds": [str(w.aula)],
                                                         "customer": {"cpf": b.cpf}}}))["data"]["counterBooking"]
        await w.pool.execute(
            "INSERT INTO capacity_waitlist (id, unit_id, resource_id, during, party_size, user_ref, customer_id, "
            "status, token, booking_id, offer_expires_at, joined_at) VALUES (gen_random_uuid(), $1, $2, "
            "tstzrange($3, $4), 1, $5, $6, 'offered', $7, $8, $9, now())", w.unit, w.aula, at(8, 12), at(8, 13),
            f"b-user-{n}", b.customer_id, f"offer-{b.cpf}", decode_id(offered["booking"]["id"])[1], at(8, 11))
        b.bookings.append(decode_id(offered["booking"]["id"])[1])
    return b


async def _rows_of(w: World, b: Party) -> str:
    """Everything stored about B: the record, its bookings (with allocations), its waitlist entries."""
    rows = await w.pool.fetch(
        "SELECT 'c' AS t, to_jsonb(c) - 'blacklist_changed_at' AS r FROM customers c WHERE c.id = $1 "
        "UNION ALL SELECT 'b', to_jsonb(b) FROM bookings b WHERE b.customer_id = $1 "
        "UNION ALL SELECT 'a', to_jsonb(a) FROM allocations a JOIN bookings b ON b.id = a.booking_id "
        "WHERE b.customer_id = $1 "
        "UNION ALL SELECT 's', to_jsonb(s) FROM slot_waitlist s WHERE s.customer_id = $1 "
        "UNION ALL SELECT 'w', to_jsonb(x) FROM capacity_waitlist x WHERE x.customer_id = $1 "
        "UNION ALL SELECT 'x', to_jsonb(h) FROM customer_changes h WHERE h.customer_id = $1 "
        "ORDER BY 1, 2", b.customer_id)
    return json.dumps([(r["t"], r["r"]) for r in rows], sort_keys=True, default=str)


def _attacks(w: World, a_hold: str, b: Party, claim: dict[str, str]) -> list[tuple[str, str, dict[str, Any]]]:
    """Every mutation that takes a customer or acts on one, as A would send it naming B."""
    b_booking = str(b.bookings[0])
    slot = _slot(w, 15, 1)
    return [
        ("hold", HOLD, {"i": {**slot, "customer": claim}}),
        ("swapHold", "mutation($b: ID!, $i: SwapInput!) { swapHold(bookingId: $b, input: $i) { __typename "
                     "... on HoldLimitReached { bookingId } ... on Error { code message } "
                     "... on BookingPayload { booking { id customerId } } } }",
         {"b": a_hold, "i": {"startsAt": at(8, 16).isoformat(), "endsAt": at(8, 17).isoformat(), "customer": claim}}),
        ("lockSeats", "mutation($i: LockSeatsInput!) { lockSeats(input: $i) { __typename "
                      "... on BookingPayload { booking { id customerId } } ... on Error { code message } } }",
         {"i": {"eventId": str(w.seat_event), "seatIds": [str(w.seats[3])], "customer": claim}}),
        ("lockBestSeats", "mutation($i: LockBestSeatsInput!) { lockBestSeats(input: $i) { __typename "
                          "... on BookingPayload { booking { id customerId } } ... on Error { code message } } }",
         {"i": {"eventId": str(w.seat_event), "count": 1, "customer": claim}}),
        ("joinSlotWaitlist", "mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!, $c: CustomerInput!) { "
                             "joinSlotWaitlist(unitId: $u, resourceId: $r, startsAt: $s, endsAt: $e, customer: $c) { "
                             "__typename ... on SlotWaitlistEntry { id } ... on Error { code message } } }",
         {"u": str(w.unit), "r": str(w.fields[0]), "s": at(8, 10).isoformat(), "e": at(8, 11).isoformat(),
          "c": claim}),
        ("joinCapacityWaitlist", "mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!, $c: CustomerInput) { "
                                 "joinCapacityWaitlist(unitId: $u, resourceId: $r, startsAt: $s, endsAt: $e, "
                                 "partySize: 1, customer: $c) { __typename ... on CapacityWaitlistEntry { id } "
                                 "... on Error { code message } } }",
         {"u": str(w.unit), "r": str(w.aula), "s": at(8, 12).isoformat(), "e": at(8, 13).isoformat(), "c": claim}),
        ("claimWaitlistOffer", "mutation($u: ID!, $t: String!) { claimWaitlistOffer(unitId: $u, token: $t) { "
                               "__typename ... on Booking { id } ... on Error { code message } } }",
         {"u": str(w.unit), "t": f"offer-{b.cpf}"}),
        ("cancel", "mutation($b: ID!) { cancel(bookingId: $b) { __typename ... on Error { code } } }",
         {"b": b_booking}),
        ("reschedule", "mutation($b: ID!, $i: RescheduleInput!) { reschedule(bookingId: $b, input: $i) { "
                       "__typename ... on Error { code } } }",
         {"b": b_booking, "i": {"startsAt": at(8, 18).isoformat(), "endsAt": at(8, 19).isoformat()}}),
        ("booking", BOOKING, {"b": b_booking}),
    ]


CLAIMS = {"cpf": ("cpf",), "phone": ("phone",), "email": ("email",), "cpf+email": ("cpf", "email"),
          "everything": ("cpf", "phone", "email", "name")}


@pytest.mark.parametrize("kind", ["counter", "bot", "session", "other_tenant"])
async def test_a_customer_naming_another_changes_nothing_of_theirs_and_learns_nothing(world: World,
                                                                                     kind: str) -> None:
    w = world
    b = await _make_b(w, kind, {"counter": 1, "bot": 2, "session": 3, "other_tenant": 4}[kind])
    a_phone = _phone()
    a = await w.sign_in(a_phone)
    own = (await w.gql(a, HOLD, {"i": {**_slot(w, 20, 2), "customer": {"name": "Atacante"}}}))["data"]["hold"]
    assert own["__typename"] == "BookingPayload", own
    a_hold, a_customer = own["booking"]["id"], own["booking"]["customerId"]
    secret = [str(b.customer_id), b.name, b.email, *map(str, b.bookings)]
    before = await _rows_of(w, b)
    outcomes: dict[tuple[str, str], str] = {}
    for claim_name, keys in CLAIMS.items():
        claim = {k: getattr(b, k) for k in keys}
        if "cpf" not in claim and "phone" not in claim:
            claim["phone"] = a_phone  # CustomerInput needs a CPF or a phone: A's own
        for name, query, variables in _attacks(w, a_hold, b, claim):
            answer = await w.gql(a, query, variables)
            text = json.dumps(answer)
            leaked = [s for s in secret if s in text]
            assert not leaked, (claim_name, name, leaked, answer)
            data = (answer.get("data") or {}).get(name)
            got = (data or {}).get("__typename") or answer["errors"][0]["extensions"]["code"]
            if isinstance(data, dict) and "code" in data:
                got = data["code"]
            outcomes[(claim_name, name)] = got
            if data and "booking" in data and data["booking"]:
                assert data["booking"]["customerId"] == a_customer, (claim_name, name, answer)
            assert await _rows_of(w, b) == before, (claim_name, name, answer)
    # What A met, by what B is: in the same tenant a CPF, phone or e-mail of B is never A's to use.
    for (claim_name, name), got in outcomes.items():
        if name in ("cancel", "reschedule", "booking"):
            assert got in ("forbidden", "not_found"), (claim_name, name, got)
        elif name == "claimWaitlistOffer":
            assert got in ("offer_of_another_user", "not_found"), (claim_name, name, got)
        elif kind != "other_tenant":  # another phone than the proved one is refused before anything else
            expected = {"forbidden" if "phone" in CLAIMS[claim_name] else "identity_conflict"}
            if name == "joinSlotWaitlist" and "cpf" not in CLAIMS[claim_name]:
                expected.add("cpf_required")  # the slot's line is joined by CPF (RN-ATD-08): A has none
            assert got in expected, (claim_name, name, got, outcomes)
    # B still reaches their own: signing in with B's phone opens B's record, which reads B's booking.
    if kind != "other_tenant":
        b_token = b.token or await w.sign_in(b.phone)
        mine = await w.gql(b_token, BOOKING, {"b": str(b.bookings[0])})
        assert mine["data"]["booking"]["customerId"] == global_id("Customer", b.customer_id), mine


async def test_the_takeover_of_issue_16_is_refused_at_each_step(world: World) -> None:
    w = world
    v = Party(cpf=cpf(710_001), phone=_phone(), email="v@example.com", name="Vera")
    r = await w.gql(w.system, COUNTER, {"i": {**_slot(w, 10), "customer": {"cpf": v.cpf, "phone": v.phone}}})
    v_booking = r["data"]["counterBooking"]["booking"]
    attacker = await w.sign_in(_phone())
    # 3. a hold naming V's CPF: refused, saying nothing of V
    r = await w.gql(attacker, HOLD, {"i": {**_slot(w, 14, 1), "customer": {"cpf": v.cpf}}})
    assert r["data"]["hold"]["__typename"] == "InvalidInput"
    assert (r["data"]["hold"]["code"], r["data"]["hold"]["field"]) == ("identity_conflict", "input.customer.cpf") \
        or r["data"]["hold"]["code"] == "identity_conflict", r
    assert v_booking["id"] not in json.dumps(r) and v_booking["customerId"] not in json.dumps(r)
    # 4. V's record keeps V's phone; the attacker can neither read nor cancel V's booking
    assert await w.pool.fetchval("SELECT phone FROM customers WHERE id = $1",
                                 decode_id(v_booking["customerId"])[1]) == v.phone
    assert (await w.gql(attacker, BOOKING, {"b": v_booking["id"]}))["errors"][0]["extensions"]["code"] == "forbidden"
    r = await w.gql(attacker, "mutation($b: ID!) { cancel(bookingId: $b) { __typename } }", {"b": v_booking["id"]})
    assert r["errors"][0]["extensions"]["code"] == "forbidden"
    # ... and V, signing in with V's phone, gets V's record and reads V's booking
    v_token = await w.sign_in(v.phone)
    assert (await w.gql(v_token, BOOKING, {"b": v_booking["id"]}))["data"]["booking"]["customerId"] == \
        v_booking["customerId"]
    # 5. with another CPF and the attacker's e-mail: refused; signing in by that e-mail opens nothing of V2
    v2 = cpf(710_002)
    await w.gql(w.system, COUNTER, {"i": {**_slot(w, 11), "customer": {"cpf": v2, "phone": _phone()}}})
    r = await w.gql(attacker, HOLD, {"i": {**_slot(w, 15, 1), "customer": {"cpf": v2,
                                                                            "email": "attacker@example.com"}}})
    assert r["data"]["hold"]["code"] == "identity_conflict", r
    assert await w.pool.fetchval("SELECT email FROM customers WHERE tenant_id = $1 AND cpf = $2", w.tenant,
                                 v2) is None
    # 6. V has an open hold (placed by an integrator for V): the attacker's hold naming V does not learn its id
    open_hold = (await w.gql(w.system, HOLD, {"i": {**_slot(w, 12), "customer": {"cpf": v.cpf}}}))["data"]["hold"]
    r = await w.gql(attacker, HOLD, {"i": {**_slot(w, 16, 1), "customer": {"cpf": v.cpf}}})
    assert r["data"]["hold"]["code"] == "identity_conflict" and open_hold["booking"]["id"] not in json.dumps(r)


async def test_a_signed_in_customer_giving_their_cpf_and_email_keeps_one_record(world: World) -> None:
    w = world
    phone = _phone()
    token = await w.sign_in(phone)
    me = cpf(720_001)
    r = await w.gql(token, HOLD, {"i": {**_slot(w, 10), "customer": {"cpf": me, "email": "Ana@Example.com",
                                                                    "name": "Ana"}}})
    booking = r["data"]["hold"]["booking"]
    rows = await w.pool.fetch("SELECT id, cpf::text AS cpf, phone, email, phone_proved_at IS NOT NULL AS proved "
                              "FROM customers WHERE tenant_id = $1 AND (phone = $2 OR cpf = $3)", w.tenant, phone, me)
    assert [(global_id("Customer", x["id"]), x["cpf"], x["email"], x["proved"]) for x in rows] == \
        [(booking["customerId"], me, "ana@example.com", True)]
    # the booking is the session's own record: its in-app notifications (by customer) and e-mails (the record's
    # address) reach the person who signed in
    me_now = (await w.gql(token, "query { me { customerId } }"))["data"]["me"]["customerId"]
    assert me_now == booking["customerId"]
    again = await w.gql(token, HOLD, {"i": {**_slot(w, 11), "customer": {"cpf": me}}})
    assert again["data"]["hold"]["__typename"] == "HoldLimitReached"
    assert again["data"]["hold"]["bookingId"] == booking["id"]  # their own open hold is named to them


async def test_a_linked_record_s_open_hold_counts_but_is_not_named_to_a_customer(world: World) -> None:
    """An e-mail session whose record has a phone staff typed; another record with that phone (a family member
    the receptionist booked) has an open hold: it counts for RN-HLD-05, but its id is not the session's to see."""
    w = world
    shared = _phone()
    me, family = cpf(730_001), cpf(730_002)
    await w.gql(w.system, COUNTER, {"i": {**_slot(w, 9), "customer": {"cpf": me, "phone": shared,
                                                                     "email": "joana@example.com"}}})
    theirs = (await w.gql(w.system, HOLD, {"i": {**_slot(w, 10), "customer": {"cpf": family, "phone": shared}},
                                           }))["data"]["hold"]["booking"]
    r = await w.client.post("/graphql", json={"query": "mutation($u: ID!) { requestLoginCode(unitId: $u, email: "
                                                       "\"joana@example.com\") { __typename } }",
                                              "variables": {"u": str(w.unit)}})
    assert r.status_code == 200
    msgs = (await w.gql(w.system, "query { sandboxMessages(to: \"joana@example.com\") { text } }"))["data"]
    code = next(t for m in msgs["sandboxMessages"] for t in m["text"].split() if t.rstrip(".").isdigit())
    s = await w.gql(None, "mutation($u: ID!, $c: String!) { verifyLoginCode(unitId: $u, email: \"joana@example.com\", "
                          "code: $c) { ... on CustomerSession { token } ... on Error { code } } }",
                    {"u": str(w.unit), "c": code.rstrip(".")})
    token = s["data"]["verifyLoginCode"]["token"]
    r = await w.gql(token, HOLD, {"i": {**_slot(w, 14, 1), "customer": {"cpf": me}}})
    assert r["data"]["hold"]["__typename"] == "HoldLimitReached", r
    assert r["data"]["hold"]["bookingId"] is None and theirs["id"] not in json.dumps(r)
    # a phone somebody only typed links nothing: the session cannot read the family member's booking
    assert (await w.gql(token, BOOKING, {"b": theirs["id"]}))["errors"][0]["extensions"]["code"] == "forbidden"


async def test_staff_corrections_are_kept_with_who_made_them_and_whether_the_contact_was_proved(world: World) -> None:
    w = world
    phone, new_phone = _phone(), _phone()
    token = await w.sign_in(phone)
    me = cpf(740_001)
    await w.gql(token, HOLD, {"i": {**_slot(w, 10), "customer": {"cpf": me}}})
    await w.gql(w.system, COUNTER, {"i": {**_slot(w, 12), "customer": {"cpf": me, "phone": new_phone,
                                                                      "name": "Novo Nome"}}})
    changes = await w.pool.fetch(
        "SELECT h.field, h.old_value, h.new_value, h.was_proved, h.session FROM customer_changes h "
        "JOIN customers c ON c.id = h.customer_id WHERE c.tenant_id = $1 AND c.cpf = $2 ORDER BY h.id", w.tenant, me)
    got = [(c["field"], c["old_value"], c["new_value"], c["was_proved"], c["session"].split(":")[0]) for c in changes]
    assert got == [("cpf", None, me, False, "customer"), ("phone", phone, new_phone, True, "system"),
                   ("name", None, "Novo Nome", False, "system")], got
    row = await w.pool.fetchrow("SELECT phone, phone_proved_at FROM customers WHERE cpf = $1 AND tenant_id = $2",
                                me, w.tenant)
    assert row["phone"] == new_phone and row["phone_proved_at"] is None  # the new phone is only typed
    with pytest.raises(Exception, match="append-only"):
        await w.pool.execute("DELETE FROM customer_changes WHERE id = (SELECT min(id) FROM customer_changes)")


async def test_an_integrator_naming_a_customer_by_cpf_cannot_move_their_phone_and_take_the_account_over(
        world: World) -> None:
    """An integrator (`book` scope) holds for B's CPF giving the attacker's phone: the booking is B's, but B's proved
    phone, e-mail and name stay, so a sign-in code to the attacker's phone opens no session on B's record. What B's
    record lacks, the integrator may fill; staff may still correct (the test above)."""
    w = world
    b_phone, attacker_phone = _phone(), _phone()
    b_token = await w.sign_in(b_phone)
    me = cpf(740_101)
    first = (await w.gql(b_token, HOLD, {"i": {**_slot(w, 10), "customer": {"cpf": me, "name": "Bea"}}})
             )["data"]["hold"]
    assert first["__typename"] == "BookingPayload"
    cancelled = await w.gql(b_token, 'mutation($b: ID!) { cancel(bookingId: $b) { __typename } }',
                            {"b": first["booking"]["id"]})  # one open hold at a time: B lets it go
    assert cancelled["data"]["cancel"]["__typename"] == "BookingPayload", cancelled
    before = dict(await w.pool.fetchrow("SELECT id, phone, phone_proved_at, name, email FROM customers "
                                        "WHERE tenant_id = $1 AND cpf = $2", w.tenant, me))
    access = w.client._transport.app.state.slothold["access"]  # type: ignore[attr-defined]
    integrator = (await access.issue_token(w.tenant, None, "client", None, ["book"], "parceiro"))[1]
    r = await w.gql(integrator, HOLD, {"i": {**_slot(w, 12), "customer": {
        "cpf": me, "phone": attacker_phone, "name": "Outro Nome", "email": "novo@example.com"}}})
    assert r["data"]["hold"]["__typename"] == "BookingPayload", r
    assert decode_id(r["data"]["hold"]["booking"]["customerId"])[1] == before["id"]  # B's booking, as named
    after = dict(await w.pool.fetchrow("SELECT id, phone, phone_proved_at, name, email FROM customers "
                                       "WHERE tenant_id = $1 AND cpf = $2", w.tenant, me))
    assert (after["phone"], after["phone_proved_at"], after["name"]) == (
        before["phone"], before["phone_proved_at"], before["name"])
    assert after["email"] == "novo@example.com"  # B had none: filled, not replaced
    attacker = await w.sign_in(attacker_phone)  # the code reaches the attacker's phone: a record of its own
    mine = await w.gql(attacker, BOOKING, {"b": r["data"]["hold"]["booking"]["id"]})
    seen = (mine.get("data") or {}).get("booking") or {}
    assert seen.get("__typename") != "Booking", mine  # not found for the attacker


async def test_staff_replacing_a_proved_phone_ends_the_sessions_it_opened(world: World) -> None:
    """The phone a session was opened with is replaced by staff (the customer lost it; the number went to someone
    else): that session no longer acts for the record. A correction of an unproved contact ends nothing."""
    w = world
    old_phone, new_phone = _phone(), _phone()
    token = await w.sign_in(old_phone)
    me = cpf(740_201)
    first = await w.gql(token, HOLD, {"i": {**_slot(w, 10), "customer": {"cpf": me}}})
    assert first["data"]["hold"]["__typename"] == "BookingPayload"
    mine = {"b": first["data"]["hold"]["booking"]["id"]}
    assert (await w.gql(token, BOOKING, mine))["data"]["booking"]["__typename"] == "Booking"
    await w.gql(w.system, COUNTER, {"i": {**_slot(w, 12), "customer": {"cpf": me, "name": "Só o nome"}}})
    assert (await w.gql(token, BOOKING, mine))["data"]["booking"]["__typename"] == "Booking"  # nothing proved moved
    moved = await w.gql(w.system, COUNTER, {"i": {**_slot(w, 14), "customer": {"cpf": me, "phone": new_phone}}})
    assert moved["data"]["counterBooking"]["__typename"] == "BookingPayload", moved
    await asyncio.sleep(CACHE_SECONDS + 0.1)  # every process forgets a principal within its cache's 2 s
    after = await w.gql(token, BOOKING, mine)
    assert ((after.get("data") or {}).get("booking") or {}).get("__typename") != "Booking", after
    fresh = await w.sign_in(new_phone)  # the new phone, proved by its own code, opens the record again
    assert (await w.gql(fresh, BOOKING, mine))["data"]["booking"]["__typename"] == "Booking"
