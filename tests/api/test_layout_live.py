"""Layout changes arrive live (issue 18): a grid block on slotChanged (resource.blocked / resource.unblocked), a
closed day too (hours.closed), and every change on venueChanged, with who made it."""

from __future__ import annotations

from typing import Any

import pytest

from schema.ids import global_id
from tests.api.test_layout_api import BLOCK, CLOSE, UNBLOCK
from tests.live import live_api
from tests.venues import arena, at

SLOTS = ("subscription($u: ID!, $f: DateTime!, $t: DateTime!) { slotChanged(unitId: $u, from: $f, to: $t) { "
         "event state bookingId slots { resourceId startsAt endsAt } } }")
VENUE = "subscription($u: ID!) { venueChanged(unitId: $u) { entity entityId action session } }"


@pytest.fixture
async def live(database_url: str, redis_url: str) -> Any:
    async with live_api(database_url, redis_url) as server:
        yield server


async def test_a_block_arrives_on_slot_changed_and_every_change_on_venue_changed(live: Any, pool: Any) -> None:
    v = await arena(pool, fields=2)
    manager_id, manager = await live.access.issue_token(v.tenant_id, v.unit_id, "staff", "manager", [], "gerente")
    owner_id, owner = await live.access.issue_token(v.tenant_id, v.unit_id, "staff", "owner", [], "dono")
    _, operator = await live.access.issue_token(v.tenant_id, v.unit_id, "staff", "operator", [], "balcão")
    u, c2 = str(v.unit_id), str(v.resource_ids["Campo 2"])
    window = {"u": u, "f": at(20, 0).isoformat(), "t": at(21, 0).isoformat()}
    xmas = {"u": u, "f": at(25, 0).isoformat(), "t": at(26, 0).isoformat()}
    async with live.subscribe(operator, SLOTS, window) as slots, live.subscribe(operator, VENUE, {"u": u}) as venue, \
            live.subscribe(operator, SLOTS, xmas) as christmas:
        made = (await live.gql(manager, BLOCK, {"r": c2, "f": at(20, 14).isoformat(), "t": at(20, 16).isoformat(),
                                                "why": "rede nova"}))["blockResource"]
        assert made["__typename"] == "GridBlock", made
        change = (await slots.next())["slotChanged"]
        assert change == {"event": "RESOURCE_BLOCKED", "state": "BLOCKED", "bookingId": None, "slots": [
            {"resourceId": global_id("Resource", c2), "startsAt": at(20, 14).isoformat(),
             "endsAt": at(20, 16).isoformat()}]}
        logged = (await venue.next())["venueChanged"]
        assert logged == {"entity": "BLOCK", "entityId": made["id"], "action": "CREATED",
                          "session": f"staff:{manager_id}"}
        assert (await live.gql(manager, UNBLOCK, {"b": made["id"]}))["unblockResource"]["__typename"] == "GridBlock"
        change = (await slots.next())["slotChanged"]
        assert (change["event"], change["state"]) == ("RESOURCE_UNBLOCKED", "FREE")
        assert (await venue.next())["venueChanged"]["entity"] == "BLOCK"
        closed = (await live.gql(owner, CLOSE, {"u": u, "d": "2026-12-25", "why": "Natal"}))["addClosedDay"]
        logged = (await venue.next())["venueChanged"]
        assert (logged["entity"], logged["entityId"], logged["session"]) == ("CLOSED_DAY", closed["id"],
                                                                              f"staff:{owner_id}")
        await slots.nothing()  # a closed day outside the window says nothing there
        change = (await christmas.next())["slotChanged"]
        assert (change["event"], change["state"], change["bookingId"]) == ("HOURS_CLOSED", "CLOSED", None)
        assert sorted(s["resourceId"] for s in change["slots"]) == sorted(global_id("Resource", r)
                                                                        for r in v.resource_ids.values())
        assert {(s["startsAt"], s["endsAt"]) for s in change["slots"]} == {(at(25, 8).isoformat(),
                                                                            at(25, 23).isoformat())}
