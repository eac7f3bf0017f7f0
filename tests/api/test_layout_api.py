"""The venue's layout through GraphQL (issue 18): resources, opening hours with closed days and special hours, grid
blocks — each refusal typed and naming its field, each change in the venue log, tenants kept apart."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from uuid import UUID

import httpx
import pytest

from schema.ids import decode_id, global_id
from slothold.app import create_app
from slothold.settings import Settings
from tests.api.conftest import system_token
from tests.api.test_hold_api import GRID, HOLD, hold_input
from tests.conftest import MutableClock
from tests.venues import arena, at, cpf

BASE = "... on Error { code message } ... on InvalidInput { field } ... on NotFound { field }"
ERR = BASE + " ... on BookingsInTheWay { field bookingIds count at }"
RESOURCE = "__typename ... on VenueResource { id name kind capacity groupId groupName sort active } " + ERR
CREATE = ("mutation($u: ID!, $i: CreateResourceInput!) { createResource(unitId: $u, input: $i) { " + RESOURCE
          + " } }")
UPDATE = ("mutation($r: ID!, $i: UpdateResourceInput!) { updateResource(resourceId: $r, input: $i) { " + RESOURCE
          + " } }")
DEACTIVATE = "mutation($r: ID!) { deactivateResource(resourceId: $r) { " + RESOURCE + " } }"
REACTIVATE = "mutation($r: ID!) { reactivateResource(resourceId: $r) { " + RESOURCE + " } }"
REORDER = ("mutation($u: ID!, $ids: [ID!]!) { reorderResources(unitId: $u, resourceIds: $ids) { __typename "
           "... on ResourceOrder { resources { name sort } } " + BASE + " } }")
GROUP = ("mutation($u: ID!, $n: String!) { createResourceGroup(unitId: $u, name: $n) { __typename "
         "... on ResourceGroup { id name } " + BASE + " } }")
RENAME_GROUP = ("mutation($g: ID!, $n: String!) { renameResourceGroup(groupId: $g, name: $n) { __typename "
                "... on ResourceGroup { id name } " + BASE + " } }")
LIST = "query($u: ID!) { venueResources(unitId: $u) { name sort active groupName capacity } }"
HOURS = ("mutation($u: ID!, $r: ID, $w: [WeeklyWindowInput!]!) { setOpeningHours(unitId: $u, resourceId: $r, "
         "windows: $w) { __typename ... on OpeningHours { resourceId windows { weekday opens closes } } " + ERR
         + " } }")
CLOSE = ("mutation($u: ID!, $d: Date!, $r: ID, $why: String) { addClosedDay(unitId: $u, date: $d, resourceId: $r, "
         "reason: $why) { __typename ... on HoursException { id date closed reason resourceId } " + ERR + " } }")
SPECIAL = ("mutation($u: ID!, $d: Date!, $r: ID, $w: [TimeWindowInput!]!) { setSpecialHours(unitId: $u, date: $d, "
           "resourceId: $r, windows: $w) { __typename ... on HoursException { id date closed windows { opens closes }"
           " } " + ERR + " } }")
UNCLOSE = ("mutation($i: ID!) { removeHoursException(id: $i) { __typename ... on HoursException { id } " + ERR
           + " } }")
EXCEPTIONS = ("query($u: ID!, $f: Date!, $t: Date!) { hoursExceptions(unitId: $u, from: $f, to: $t) { id date "
              "closed resourceId windows { opens closes } } }")
BLOCK = ("mutation($r: ID!, $f: DateTime!, $t: DateTime!, $why: String) { blockResource(resourceId: $r, from: $f, "
         "to: $t, reason: $why) { __typename ... on GridBlock { id resourceId from to reason createdBy } " + ERR
         + " } }")
UNBLOCK = "mutation($b: ID!) { unblockResource(blockId: $b) { __typename ... on GridBlock { id } " + ERR + " } }"
BLOCKS = "query($u: ID!, $f: DateTime!, $t: DateTime!) { gridBlocks(unitId: $u, from: $f, to: $t) { id reason } }"
CHANGES = "query($u: ID!) { venueChanges(unitId: $u, first: 50) { entity entityId action before after session } }"
BOOKABLE = ("query($u: ID!, $f: DateTime!, $t: DateTime!, $r: ID) { bookableSlots(unitId: $u, from: $f, to: $t, "
            "resourceId: $r) { ... on BookableSlots { slots { resourceId startsAt } } } }")
JOIN = ("mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!) { joinSlotWaitlist(unitId: $u, resourceId: $r, "
        "startsAt: $s, endsAt: $e, customer: {cpf: \"" + cpf(700_001) + "\"}) { __typename " + BASE + " } }")


@dataclass
class Venue:
    client: httpx.AsyncClient
    pool: Any
    unit: UUID
    resources: dict[str, UUID]
    tokens: dict[str, str]
    token_ids: dict[str, UUID]

    async def post(self, who: str, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        r = await self.client.post("/graphql", json={"query": query, "variables": variables},
                                   headers={"authorization": f"Bearer {self.tokens[who]}"})
        return r.json()  # type: ignore[no-any-return]

    async def gql(self, who: str, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        body = await self.post(who, query, variables)
        assert "errors" not in body, body
        return body["data"]  # type: ignore[no-any-return]

    async def one(self, who: str, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        """The one field a mutation answers."""
        (value,) = (await self.gql(who, query, variables)).values()
        return value  # type: ignore[no-any-return]


@pytest.fixture
async def venue(database_url: str, redis_url: str, clock: MutableClock, pool: Any) -> AsyncIterator[Venue]:
    app = create_app(Settings(database_url=database_url, redis_url=redis_url, db_pool_max=10), clock=clock)
    async with app.router.lifespan_context(app):
        access = app.state.slothold["access"]
        v, other = await arena(pool, fields=3, pooled={"Aula": 10}), await arena(pool)
        tokens, ids = {"system": await system_token(access)}, {}
        for role in ("operator", "manager", "owner"):
            ids[role], tokens[role] = await access.issue_token(v.tenant_id, v.unit_id, "staff", role, [], role)
        ids["stranger"], tokens["stranger"] = await access.issue_token(other.tenant_id, None, "staff", "owner", [],
                                                                       "elsewhere")
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://slothold.test") as c:
            yield Venue(c, pool, v.unit_id, v.resource_ids, tokens, ids)


def _hold(v: Venue, resource: str, start: Any, hours: int = 1, n: int = 1, **extra: Any) -> dict[str, Any]:
    return {"input": hold_input(v.unit, [v.resources[resource]], start, start + timedelta(hours=hours), n, **extra)}


async def _held(v: Venue, resource: str, start: Any, n: int = 1, **extra: Any) -> str:
    made = await v.one("system", HOLD, _hold(v, resource, start, n=n, **extra))
    assert made["__typename"] == "BookingPayload", made
    return made["booking"]["id"]  # type: ignore[no-any-return]


async def test_owners_create_rename_group_reorder_and_resize_resources(venue: Venue) -> None:
    v, u = venue, str(venue.unit)
    made = await v.one("owner", CREATE, {"u": u, "i": {"name": " Campo 9 ", "kind": "EXCLUSIVE",
                                                       "group": {"name": "Society"}}})
    assert made["__typename"] == "VenueResource" and made["name"] == "Campo 9" and made["groupName"] == "Society"
    assert made["capacity"] == 1 and made["sort"] == 4 and made["active"] is True
    pool_made = await v.one("owner", CREATE, {"u": u, "i": {"name": "Piscina", "kind": "POOLED", "capacity": 20}})
    assert pool_made["kind"] == "POOLED" and pool_made["capacity"] == 20
    for bad, field, code in (
            ({"name": "Campo 1", "kind": "EXCLUSIVE"}, "input.name", "name_taken"),
            ({"name": "  ", "kind": "EXCLUSIVE"}, "input.name", "required"),
            ({"name": "x" * 121, "kind": "EXCLUSIVE"}, "input.name", "invalid_name"),
            ({"name": "X", "kind": "EXCLUSIVE", "capacity": 4}, "input.capacity", "not_pooled"),
            ({"name": "Y", "kind": "POOLED"}, "input.capacity", "invalid_capacity"),
            ({"name": "Z", "kind": "POOLED", "capacity": 0}, "input.capacity", "invalid_capacity"),
            ({"name": "W", "kind": "EXCLUSIVE", "group": {"id": str(v.unit)}}, "input.group.id", "not_found")):
        refused = await v.one("owner", CREATE, {"u": u, "i": bad})
        assert (refused["field"], refused["code"]) == (field, code), (bad, refused)
    # Rename, regroup into an existing group, ungroup; a taken name is refused by name.
    renamed = await v.one("owner", UPDATE, {"r": made["id"], "i": {"name": "Campo 5", "group": {"name": "Campos"}}})
    assert renamed["name"] == "Campo 5" and renamed["groupName"] == "Campos"
    assert (await v.one("owner", UPDATE, {"r": made["id"], "i": {"ungroup": True}}))["groupId"] is None
    taken = await v.one("owner", UPDATE, {"r": made["id"], "i": {"name": "Campo 2"}})
    assert (taken["code"], taken["field"]) == ("name_taken", "input.name")
    group = await v.one("owner", GROUP, {"u": u, "n": "Quadras"})
    assert (await v.one("owner", RENAME_GROUP, {"g": group["id"], "n": "Quadras cobertas"}))["name"] == \
        "Quadras cobertas"
    assert (await v.one("owner", GROUP, {"u": u, "n": "Campos"}))["code"] == "name_taken"
    # Reorder: the listed first, the rest after as they were.
    order = await v.one("owner", REORDER, {"u": u, "ids": [made["id"], str(v.resources["Campo 3"])]})
    assert [r["name"] for r in order["resources"]][:3] == ["Campo 5", "Campo 3", "Campo 1"]
    dup = await v.one("owner", REORDER, {"u": u, "ids": [made["id"], made["id"]]})
    assert (dup["code"], dup["field"]) == ("duplicate_resource", "resourceIds")
    listed = (await v.gql("operator", LIST, {"u": u}))["venueResources"]
    assert [r["name"] for r in listed][:2] == ["Campo 5", "Campo 3"]
    # Every change is in the venue log, with who.
    logged = (await v.gql("manager", CHANGES, {"u": u}))["venueChanges"]
    entities = [(c["entity"], c["action"]) for c in logged]
    assert ("RESOURCE", "CREATED") in entities and ("RESOURCE_GROUP", "CREATED") in entities
    assert ("RESOURCE_ORDER", "UPDATED") in entities and ("RESOURCE_GROUP", "UPDATED") in entities
    rename = next(c for c in logged if c["entity"] == "RESOURCE" and c["after"] and c["after"].get("name") == "Campo 5")
    assert rename["before"]["name"] == "Campo 9" and rename["session"] == f"staff:{v.token_ids['owner']}"


async def test_a_pooled_capacity_never_goes_below_what_live_bookings_use(venue: Venue) -> None:
    v = venue
    aula = str(v.resources["Aula"])
    first = await _held(v, "Aula", at(9, 19), n=1, quantity=4)
    second = await _held(v, "Aula", at(9, 19), n=2, quantity=3)
    await _held(v, "Aula", at(9, 20), n=3, quantity=2)
    refused = await v.one("owner", UPDATE, {"r": aula, "i": {"capacity": 6}})
    assert refused["__typename"] == "BookingsInTheWay" and refused["code"] == "bookings_in_the_way"
    assert refused["field"] == "input.capacity" and set(refused["bookingIds"]) == {first, second}
    assert refused["at"] == at(9, 19).isoformat()
    assert (await v.one("owner", UPDATE, {"r": aula, "i": {"capacity": 7}}))["capacity"] == 7
    # The counters follow: 7 places at 19:00 are all taken now.
    full = await v.one("system", HOLD, _hold(v, "Aula", at(9, 19), n=4, quantity=1))
    assert full["__typename"] == "SlotTaken"
    assert (await v.one("owner", UPDATE, {"r": aula, "i": {"capacity": 12}}))["capacity"] == 12
    assert (await v.one("system", HOLD, _hold(v, "Aula", at(9, 19), n=5, quantity=5)))["__typename"] == \
        "BookingPayload"
    # A block keeps the whole pool through a resize, and gives all of it back.
    block = await v.one("manager", BLOCK, {"r": aula, "f": at(18, 19).isoformat(), "t": at(18, 20).isoformat()})
    assert (await v.one("owner", UPDATE, {"r": aula, "i": {"capacity": 15}}))["capacity"] == 15
    assert (await v.one("system", HOLD, _hold(v, "Aula", at(18, 19), n=6, quantity=1)))["__typename"] == "SlotTaken"
    assert (await v.one("owner", UPDATE, {"r": aula, "i": {"capacity": 14}}))["capacity"] == 14
    assert (await v.one("manager", UNBLOCK, {"b": block["id"]}))["__typename"] == "GridBlock"
    await _held(v, "Aula", at(18, 19), n=7, quantity=14)


async def test_deactivating_a_resource_is_refused_while_it_has_future_bookings(venue: Venue) -> None:
    v, c2 = venue, str(venue.resources["Campo 2"])
    booking = await _held(v, "Campo 2", at(10, 19))
    refused = await v.one("owner", DEACTIVATE, {"r": c2})
    assert (refused["__typename"], refused["field"], refused["bookingIds"]) == ("BookingsInTheWay", "resourceId",
                                                                                [booking])
    cancel = "mutation($b: ID!) { cancel(bookingId: $b) { __typename } }"
    assert (await v.one("system", cancel, {"b": booking}))["__typename"] == "BookingPayload"
    assert (await v.one("owner", DEACTIVATE, {"r": c2}))["active"] is False
    grid = await v.one("operator", GRID, {"unit": str(v.unit), "from": at(10, 0).isoformat(),
                                          "to": at(11, 0).isoformat()})
    assert "Campo 2" not in [r["resource"]["name"] for r in grid["rows"]]
    gone = await v.one("system", HOLD, _hold(v, "Campo 2", at(10, 20), n=2))
    assert gone["__typename"] == "NotFound"
    assert (await v.one("owner", REACTIVATE, {"r": c2}))["active"] is True
    assert (await v.one("system", HOLD, _hold(v, "Campo 2", at(10, 20), n=2)))["__typename"] == "BookingPayload"


async def test_opening_hours_are_checked_and_refused_over_live_bookings(venue: Venue) -> None:
    v, u = venue, str(venue.unit)
    c1 = str(v.resources["Campo 1"])

    def week(opens: str, closes: str) -> list[dict[str, str]]:
        return [{"weekday": d, "opens": opens, "closes": closes} for d in
                ("MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY")]

    for windows, field, code in (
            ([{"weekday": "MONDAY", "opens": "8h", "closes": "12:00"}], "windows[0].opens", "invalid_time"),
            ([{"weekday": "MONDAY", "opens": "24:00", "closes": "24:00"}], "windows[0].opens", "invalid_time"),
            ([{"weekday": "MONDAY", "opens": "12:00", "closes": "08:00"}], "windows[0].closes", "invalid_range"),
            ([{"weekday": "MONDAY", "opens": "08:00", "closes": "08:30"}], "windows[0].closes", "off_grid"),
            ([{"weekday": "MONDAY", "opens": "08:00", "closes": "12:00"},
              {"weekday": "MONDAY", "opens": "11:00", "closes": "13:00"}], "windows[1]", "overlapping_windows")):
        refused = await v.one("owner", HOURS, {"u": u, "w": windows})
        assert (refused["field"], refused["code"]) == (field, code), (windows, refused)
    booking = await _held(v, "Campo 3", at(8, 21))  # Tuesday 21:00
    refused = await v.one("owner", HOURS, {"u": u, "w": week("08:00", "20:00")})
    assert (refused["__typename"], refused["field"], refused["bookingIds"]) == ("BookingsInTheWay", "windows",
                                                                                [booking])
    # Until midnight is fine (the booking stays inside); bookable slots follow at once. A pooled block up to
    # midnight takes the newly opened 23:00 slot too.
    aula = await v.one("manager", BLOCK, {"r": str(v.resources["Aula"]), "f": at(9, 22).isoformat(),
                                          "t": at(10, 0).isoformat()})
    assert aula["__typename"] == "GridBlock"
    done = await v.one("owner", HOURS, {"u": u, "w": week("10:00", "24:00")})
    late = await v.one("system", HOLD, _hold(v, "Aula", at(9, 23), n=9, quantity=1))
    assert late["__typename"] == "SlotTaken", late
    assert done["windows"][0] == {"weekday": "MONDAY", "opens": "10:00", "closes": "24:00"}
    slots = (await v.gql("owner", BOOKABLE, {"u": u, "f": at(9, 0).isoformat(), "t": at(10, 0).isoformat(),
                                             "r": c1}))["bookableSlots"]["slots"]
    assert slots[0]["startsAt"] == at(9, 10).isoformat() and slots[-1]["startsAt"] == at(9, 23).isoformat()
    # One resource with hours of its own; [] gives it the unit's again.
    own = await v.one("owner", HOURS, {"u": u, "r": c1, "w": [{"weekday": "WEDNESDAY", "opens": "18:00",
                                                              "closes": "20:00"}]})
    assert own["resourceId"] == global_id("Resource", c1)
    slots = (await v.gql("owner", BOOKABLE, {"u": u, "f": at(9, 0).isoformat(), "t": at(10, 0).isoformat(),
                                             "r": c1}))["bookableSlots"]["slots"]
    assert [s["startsAt"] for s in slots] == [at(9, 18).isoformat(), at(9, 19).isoformat()]
    assert (await v.one("owner", HOURS, {"u": u, "r": c1, "w": []}))["windows"] == []
    logged = [c for c in (await v.gql("owner", CHANGES, {"u": u}))["venueChanges"] if c["entity"] == "HOURS"]
    assert len(logged) == 3 and logged[-1]["entityId"] == global_id("Unit", u)
    assert logged[-1]["before"]["windows"][0] == {"weekday": "MONDAY", "opens": "08:00", "closes": "23:00"}


async def test_the_grid_and_bookable_slots_follow_a_holiday_special_hours_and_a_block(venue: Venue) -> None:
    v, u = venue, str(venue.unit)
    c1, c2 = str(v.resources["Campo 1"]), str(v.resources["Campo 2"])
    holiday = await v.one("owner", CLOSE, {"u": u, "d": "2026-12-25", "why": "Natal"})
    assert holiday["closed"] is True and holiday["reason"] == "Natal"
    special = await v.one("owner", SPECIAL, {"u": u, "d": "2026-12-24", "w": [{"opens": "08:00",
                                                                               "closes": "14:00"}]})
    assert special["windows"] == [{"opens": "08:00", "closes": "14:00"}]
    block = await v.one("manager", BLOCK, {"r": c2, "f": at(24, 10).isoformat(), "t": at(24, 12).isoformat(),
                                           "why": "manutenção"})
    assert block["__typename"] == "GridBlock" and block["createdBy"] == f"staff:{v.token_ids['manager']}"
    grid = await v.one("operator", GRID, {"unit": u, "from": at(24, 0).isoformat(), "to": at(26, 0).isoformat(),
                                          "rs": [c1, c2]})
    c1_row, c2_row = ([(s["startsAt"], s["endsAt"], s["state"]) for s in r["segments"]] for r in grid["rows"])
    assert c1_row == [(at(24, 8).isoformat(), at(24, 14).isoformat(), "FREE"),
                      (at(24, 14).isoformat(), at(24, 23).isoformat(), "CLOSED"),
                      (at(25, 8).isoformat(), at(25, 23).isoformat(), "CLOSED")]
    assert (at(24, 10).isoformat(), at(24, 12).isoformat(), "BLOCKED") in c2_row
    slots = (await v.gql("owner", BOOKABLE, {"u": u, "f": at(24, 0).isoformat(),
                                             "t": at(26, 0).isoformat()}))["bookableSlots"]["slots"]
    taken = {(str(decode_id(s["resourceId"])[1]), s["startsAt"]) for s in slots}
    assert (c1, at(24, 13).isoformat()) in taken and (c1, at(24, 14).isoformat()) not in taken
    assert (c2, at(24, 10).isoformat()) not in taken and (c2, at(24, 12).isoformat()) in taken
    assert not [s for s in slots if s["startsAt"] >= at(25, 0).isoformat()]
    # Holds and waitlists: outside hours on the holiday, blocked under the block.
    closed = await v.one("system", HOLD, _hold(v, "Campo 1", at(25, 19)))
    assert (closed["code"], closed["field"]) == ("off_grid", "startsAt")
    blocked = await v.one("system", HOLD, _hold(v, "Campo 2", at(24, 10)))
    assert blocked["__typename"] == "SlotTaken"
    joined = await v.one("system", JOIN, {"u": u, "r": c1, "s": at(25, 19).isoformat(), "e": at(25, 20).isoformat()})
    assert joined["code"] == "off_grid"
    joined = await v.one("system", JOIN, {"u": u, "r": c2, "s": at(24, 10).isoformat(), "e": at(24, 11).isoformat()})
    assert (joined["code"], joined["field"]) == ("slot_blocked", "startsAt")
    # Listed; removing the holiday reopens the day.
    listed = (await v.gql("operator", EXCEPTIONS, {"u": u, "f": "2026-12-01", "t": "2026-12-31"}))["hoursExceptions"]
    assert [(e["date"], e["closed"]) for e in listed] == [("2026-12-24", False), ("2026-12-25", True)]
    assert [b["reason"] for b in (await v.gql("operator", BLOCKS, {"u": u, "f": at(20, 0).isoformat(),
                                                                   "t": at(31, 0).isoformat()}))["gridBlocks"]] == \
        ["manutenção"]
    assert (await v.one("owner", UNCLOSE, {"i": holiday["id"]}))["__typename"] == "HoursException"
    assert (await v.one("system", HOLD, _hold(v, "Campo 1", at(25, 19))))["__typename"] == "BookingPayload"
    logged = {(c["entity"], c["action"]) for c in (await v.gql("owner", CHANGES, {"u": u}))["venueChanges"]}
    assert {("CLOSED_DAY", "CREATED"), ("CLOSED_DAY", "REMOVED"), ("SPECIAL_HOURS", "CREATED"),
            ("BLOCK", "CREATED")} <= logged


async def test_closing_a_day_over_a_booking_is_refused_and_a_day_replaces_its_exception(venue: Venue) -> None:
    v, u = venue, str(venue.unit)
    booking = await _held(v, "Campo 3", at(12, 19))
    refused = await v.one("owner", CLOSE, {"u": u, "d": "2026-12-12"})
    assert (refused["__typename"], refused["field"], refused["bookingIds"]) == ("BookingsInTheWay", "date", [booking])
    refused = await v.one("owner", SPECIAL, {"u": u, "d": "2026-12-12", "w": [{"opens": "08:00", "closes": "18:00"}]})
    assert refused["bookingIds"] == [booking]
    other = await v.one("owner", CLOSE, {"u": u, "d": "2026-12-12", "r": str(v.resources["Campo 1"])})
    assert other["resourceId"] == global_id("Resource", v.resources["Campo 1"])  # another field: nothing in the way
    special = await v.one("owner", SPECIAL, {"u": u, "d": "2026-12-12", "r": str(v.resources["Campo 1"]),
                                             "w": [{"opens": "09:00", "closes": "12:00"}]})
    assert special["id"] == other["id"] and special["closed"] is False  # the same day's exception, replaced
    for variables, field, code in (({"u": u, "d": "2026-12-01"}, "date", "in_the_past"),
                                   ({"u": u, "d": "2026-12-20", "r": str(v.unit)}, "resourceId", "not_found"),
                                   ({"u": u, "d": "2026-12-20", "why": "x" * 2001}, "reason", "too_long")):
        bad = await v.one("owner", CLOSE, variables)
        assert (bad["field"], bad["code"]) == (field, code)
    empty = await v.one("owner", SPECIAL, {"u": u, "d": "2026-12-20", "w": []})
    assert (empty["field"], empty["code"]) == ("windows", "required")


async def test_blocks_are_refused_over_bookings_and_other_blocks_and_take_a_pool_whole(venue: Venue) -> None:
    v = venue
    c1, aula = str(v.resources["Campo 1"]), str(v.resources["Aula"])
    booking = await _held(v, "Campo 1", at(14, 19))
    over = await v.one("manager", BLOCK, {"r": c1, "f": at(14, 18).isoformat(), "t": at(14, 22).isoformat()})
    assert (over["__typename"], over["field"], over["bookingIds"]) == ("BookingsInTheWay", "from", [booking])
    first = await v.one("manager", BLOCK, {"r": c1, "f": at(15, 8).isoformat(), "t": at(17, 12).isoformat(),
                                           "why": "torneio"})
    again = await v.one("manager", BLOCK, {"r": c1, "f": at(16, 10).isoformat(), "t": at(16, 11).isoformat()})
    assert (again["code"], again["field"]) == ("already_blocked", "from")
    for f, t, field, code in ((at(14, 10), at(14, 9), "to", "invalid_range"),
                              (at(1, 10), at(1, 11), "to", "in_the_past")):
        bad = await v.one("manager", BLOCK, {"r": c1, "f": f.isoformat(), "t": t.isoformat()})
        assert (bad["field"], bad["code"]) == (field, code)
    # A pooled resource: a block takes every place, so no hold fits, and giving it back frees them.
    pool_block = await v.one("manager", BLOCK, {"r": aula, "f": at(15, 19).isoformat(), "t": at(15, 21).isoformat()})
    assert (await v.one("system", HOLD, _hold(v, "Aula", at(15, 20), n=7, quantity=1)))["__typename"] == "SlotTaken"
    await _held(v, "Aula", at(15, 21), n=8, quantity=10)  # right after it: all ten places
    assert (await v.one("manager", UNBLOCK, {"b": pool_block["id"]}))["__typename"] == "GridBlock"
    await _held(v, "Aula", at(15, 20), n=2, quantity=10)
    assert (await v.one("manager", UNBLOCK, {"b": pool_block["id"]}))["code"] == "not_found"
    assert (await v.one("owner", UNBLOCK, {"b": first["id"]}))["__typename"] == "GridBlock"
    await _held(v, "Campo 1", at(16, 10), n=3)
    used = await v.pool.fetchval("SELECT max(used) FROM pool_usage WHERE resource_id = $1", v.resources["Aula"])
    assert used == 10


async def test_roles_and_tenants(venue: Venue) -> None:
    v, u = venue, str(venue.unit)
    c1 = str(v.resources["Campo 1"])
    block = await v.one("manager", BLOCK, {"r": c1, "f": at(20, 8).isoformat(), "t": at(20, 9).isoformat()})
    holiday = await v.one("owner", CLOSE, {"u": u, "d": "2026-12-30"})
    before = await v.pool.fetchval("SELECT count(*) FROM venue_changes WHERE unit_id = $1", v.unit)
    attempts = [
        ("operator", CREATE, {"u": u, "i": {"name": "Nope", "kind": "EXCLUSIVE"}}),
        ("manager", CREATE, {"u": u, "i": {"name": "Nope", "kind": "EXCLUSIVE"}}),
        ("manager", HOURS, {"u": u, "w": []}),
        ("operator", BLOCK, {"r": c1, "f": at(21, 8).isoformat(), "t": at(21, 9).isoformat()}),
        ("operator", UNBLOCK, {"b": block["id"]}),
        ("stranger", UPDATE, {"r": c1, "i": {"name": "Meu"}}),
        ("stranger", DEACTIVATE, {"r": c1}),
        ("stranger", BLOCK, {"r": c1, "f": at(21, 8).isoformat(), "t": at(21, 9).isoformat()}),
        ("stranger", UNBLOCK, {"b": block["id"]}),
        ("stranger", UNCLOSE, {"i": holiday["id"]}),
        ("stranger", CLOSE, {"u": u, "d": "2026-12-29"}),
        ("stranger", LIST, {"u": u}),
        ("stranger", BLOCKS, {"u": u, "f": at(20, 0).isoformat(), "t": at(21, 0).isoformat()}),
    ]
    for who, query, variables in attempts:
        body = await v.post(who, query, variables)
        assert body["errors"][0]["extensions"]["code"] == "forbidden", (who, query, body)
    assert await v.pool.fetchval("SELECT count(*) FROM venue_changes WHERE unit_id = $1", v.unit) == before
    assert await v.pool.fetchval("SELECT name FROM resources WHERE id = $1", v.resources["Campo 1"]) == "Campo 1"
