"""What the console's lists need from the API (issue 20): an operator sees who waits in a slot's line
(SlotWaitlistEntry.customer: name, phone, CPF masked — staff of the unit only, never a customer, not even for their
own entry, never another tenant), and books at the counter a customer found by CPF alone (counterBooking's
customerId: the record customers(unitId, search) found, whose CPF staff see masked)."""

from __future__ import annotations

import secrets
from typing import Any
from uuid import uuid4

from schema.ids import decode_id
from tests.api.test_access import HOLD, World, _hold_input, _sign_in, world  # noqa: F401 (fixtures)
from tests.venues import at, cpf

SLOTS = """query($u: ID!) { waitlists(unitId: $u) { slotsConnection(first: 20) { edges { node { id
  customer { name phone cpfMasked } } } } } }"""
ENTRY = """query($e: ID!) { slotWaitlistEntry(id: $e) { __typename ... on SlotWaitlistEntry { id
  customer { name phone cpfMasked } } ... on Error { code } } }"""
JOIN = """mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!, $c: CustomerInput!) { joinSlotWaitlist(unitId: $u,
  resourceId: $r, startsAt: $s, endsAt: $e, customer: $c) { __typename ... on SlotWaitlistEntry { id
  customer { name phone cpfMasked } } ... on Error { code message } } }"""
FIND = """query($u: ID!, $s: String!) { customers(unitId: $u, search: $s, first: 5) { edges { node { id name phone
  maskedCpf } } } }"""
COUNTER = """mutation($i: CounterBookingInput!) { counterBooking(input: $i) { __typename
  ... on BookingPayload { booking { id status customerId customer { name cpfMasked } } }
  ... on InvalidInput { field } ... on NotFound { field } ... on Error { code message } } }"""


def masked(full: str) -> str:
    return f"***.{full[3:6]}.{full[6:9]}-**"


def _entry_customer(r: dict[str, Any], entry: str) -> Any:
    edges = r["data"]["waitlists"]["slotsConnection"]["edges"]
    (node,) = [e["node"] for e in edges if decode_id(e["node"]["id"])[1] == decode_id(entry)[1]]
    return node["customer"]


async def test_staff_of_the_unit_see_who_waits_in_a_slot_line_with_the_cpf_masked(world: World) -> None:  # noqa: F811
    full = cpf(900_010)  # the world's slot waitlist entry
    for caller in ("operator", "manager", "owner", "read"):
        listed = await world.gql(caller, SLOTS, {"u": str(world.unit)})
        assert _entry_customer(listed, str(world.slot_entry))["cpfMasked"] == masked(full), listed
        one = await world.gql(caller, ENTRY, {"e": str(world.slot_entry)})
        assert one["data"]["slotWaitlistEntry"]["customer"]["cpfMasked"] == masked(full), one
        assert full not in str(listed) + str(one)


async def test_a_customer_never_sees_a_waiting_customer_not_another_nor_their_own(world: World) -> None:  # noqa: F811
    other = await world.gql("customer", ENTRY, {"e": str(world.slot_entry)})
    assert other["data"] is None and other["errors"][0]["extensions"]["code"] == "forbidden", other
    assert cpf(900_010)[3:9] not in str(other)
    # Customer B (another signed-in customer) joins a line: B's own answer names nobody; A cannot read B's entry.
    b_phone = f"+55119{secrets.randbelow(10**8):08d}"
    world.tokens["customer_b"] = await _sign_in(world.client, world.tokens["system"], world.unit, b_phone)  # type: ignore[arg-type]
    await world.gql("system", HOLD, {"i": _hold_input(world.unit, world.fields[1], 11, cpf(900_020))})
    joined = await world.gql("customer_b", JOIN, {"u": str(world.unit), "r": str(world.fields[1]),
                                                  "s": at(8, 11).isoformat(), "e": at(8, 12).isoformat(),
                                                  "c": {"cpf": cpf(900_021), "name": "Bia Espera"}})
    entry = joined["data"]["joinSlotWaitlist"]
    assert entry["__typename"] == "SlotWaitlistEntry" and entry["customer"] is None, joined
    mine = await world.gql("customer_b", ENTRY, {"e": entry["id"]})
    assert mine["data"]["slotWaitlistEntry"]["customer"] is None, mine
    theirs = await world.gql("customer", ENTRY, {"e": entry["id"]})
    assert theirs["data"] is None and theirs["errors"][0]["extensions"]["code"] == "forbidden", theirs
    assert "Bia Espera" not in str(theirs) and b_phone not in str(theirs)
    # The operator sees B by name.
    listed = await world.gql("operator", SLOTS, {"u": str(world.unit)})
    assert _entry_customer(listed, entry["id"]) == {"name": "Bia Espera", "phone": b_phone,
                                                    "cpfMasked": masked(cpf(900_021))}, listed


async def test_another_tenants_staff_and_anonymous_callers_see_no_waiting_customer(world: World) -> None:  # noqa: F811
    for caller in ("stranger", "anonymous"):
        for query, variables in ((SLOTS, {"u": str(world.unit)}), (ENTRY, {"e": str(world.slot_entry)})):
            r = await world.gql(caller, query, variables)
            assert r.get("errors"), r
            assert cpf(900_010)[3:9] not in str(r)


def _counter_input(w: World, hour: int, **who: Any) -> dict[str, Any]:
    return {"i": {"unitId": str(w.unit), "resourceIds": [str(w.fields[2])], "startsAt": at(8, hour).isoformat(),
                  "endsAt": at(8, hour + 1).isoformat(), **who}}


async def test_an_operator_books_at_the_counter_a_customer_found_by_cpf_alone(world: World) -> None:  # noqa: F811
    full = cpf(900_001)  # the world's booking: a customer known by CPF only (no phone)
    found = (await world.gql("operator", FIND, {"u": str(world.unit), "s": full}))["data"]["customers"]["edges"]
    (match,) = [e["node"] for e in found]
    assert match["phone"] is None and match["maskedCpf"] == masked(full), found
    r = await world.gql("operator", COUNTER, _counter_input(world, 15, customerId=match["id"]))
    booked = r["data"]["counterBooking"]
    assert booked["__typename"] == "BookingPayload", r
    assert decode_id(booked["booking"]["customerId"])[1] == decode_id(match["id"])[1]
    assert booked["booking"]["status"] == "CONFIRMED" and booked["booking"]["customer"]["cpfMasked"] == masked(full)
    owner_of = await world.pool.fetchval("SELECT customer_id FROM bookings WHERE id = $1",
                                         decode_id(booked["booking"]["id"])[1])
    assert owner_of == decode_id(match["id"])[1]


async def test_counter_customer_id_refusals_name_the_field_and_book_nothing(world: World) -> None:  # noqa: F811
    before = await world.pool.fetchval("SELECT count(*) FROM bookings")
    tenant = await world.pool.fetchval("SELECT o.tenant_id FROM units u JOIN organizations o ON o.id = "
                                       "u.organization_id WHERE u.id = $1", world.unit)
    elsewhere = await world.pool.fetchval("SELECT id FROM tenants WHERE id <> $1 LIMIT 1", tenant)
    stranger = uuid4()
    await world.pool.execute("INSERT INTO customers (id, tenant_id, cpf, name) VALUES ($1, $2, $3, 'Outra Casa')",
                             stranger, elsewhere, cpf(900_030))
    for customer_id in (str(stranger), str(uuid4())):  # another tenant's record, and no record at all
        r = await world.gql("operator", COUNTER, _counter_input(world, 16, customerId=customer_id))
        refused = r["data"]["counterBooking"]
        assert refused["__typename"] == "NotFound" and refused["field"] == "customerId", r
        assert "Outra Casa" not in str(r)
    both = await world.gql("operator", COUNTER, _counter_input(world, 16, customerId=str(stranger),
                                                               customer={"phone": "+5511900000009"}))
    assert both["data"]["counterBooking"]["__typename"] == "InvalidInput", both
    assert both["data"]["counterBooking"]["field"] == "customerId", both
    bad = await world.gql("operator", COUNTER, _counter_input(world, 16, customerId="not an id"))
    assert bad["data"]["counterBooking"]["__typename"] == "InvalidInput", bad
    for caller in ("customer", "book", "stranger"):  # the counter is for the unit's staff
        r = await world.gql(caller, COUNTER, _counter_input(world, 16, customerId=str(stranger)))
        assert r["data"] is None and r["errors"][0]["extensions"]["code"] in ("forbidden", "not_found"), r
    assert await world.pool.fetchval("SELECT count(*) FROM bookings") == before


COUNTER_SERIES = """mutation($i: CounterSeriesInput!) { counterSeries(input: $i) { __typename
  ... on SeriesPayload { bookings { customerId status } }
  ... on NotFound { field } ... on Error { code message } } }"""


async def test_a_counter_series_takes_the_customer_found_by_cpf_alone(world: World) -> None:  # noqa: F811
    """counterSeries takes the customerId counterBooking takes (the series UI found a CPF-only customer could not get
    a counter series): the series lands on that record; another tenant's record is NotFound, nothing written."""
    full = cpf(900_001)
    (match,) = [e["node"] for e in (await world.gql("operator", FIND, {"u": str(world.unit), "s": full})
                                    )["data"]["customers"]["edges"]]
    i = _counter_input(world, 18, customerId=match["id"])["i"]
    r = await world.gql("operator", COUNTER_SERIES, {"i": {**i, "occurrences": 2}})
    made = r["data"]["counterSeries"]
    assert made["__typename"] == "SeriesPayload", r
    assert {decode_id(b["customerId"])[1] for b in made["bookings"]} == {decode_id(match["id"])[1]}
    assert [b["status"] for b in made["bookings"]] == ["CONFIRMED", "CONFIRMED"]
    before = await world.pool.fetchval("SELECT count(*) FROM bookings")
    r = await world.gql("operator", COUNTER_SERIES, {"i": {**_counter_input(world, 20, customerId=str(uuid4()))["i"],
                                                          "occurrences": 2}})
    assert r["data"]["counterSeries"]["__typename"] == "NotFound", r
    assert r["data"]["counterSeries"]["field"] == "customerId", r
    assert await world.pool.fetchval("SELECT count(*) FROM bookings") == before
