"""The venue's change log: a set-up change is kept with who made it and when, and arrives live (issue 18)."""

from __future__ import annotations

from typing import Any

import pytest

from schema.ids import global_id
from tests.live import live_api
from tests.venues import arena

PARAMS = ("mutation($u: ID!, $i: UnitParametersInput!) { updateUnitParameters(unitId: $u, input: $i) { __typename "
          "... on InvalidInput { field code } } }")
CHANGES = ("query($u: ID!, $b: ID) { venueChanges(unitId: $u, before: $b, first: 10) { id entity entityId action "
           "before after session at } }")
LIVE = "subscription($u: ID!) { venueChanged(unitId: $u) { seq entity entityId action session } }"


@pytest.fixture
async def live(database_url: str, redis_url: str) -> Any:
    async with live_api(database_url, redis_url) as server:
        yield server


async def test_a_parameter_change_is_logged_with_who_and_arrives_live(live: Any, pool: Any) -> None:
    v, other = await arena(pool), await arena(pool)
    token_id, owner = await live.access.issue_token(v.tenant_id, v.unit_id, "staff", "owner", [], "owner")
    _, manager = await live.access.issue_token(v.tenant_id, v.unit_id, "staff", "manager", [], "manager")
    _, operator = await live.access.issue_token(v.tenant_id, v.unit_id, "staff", "operator", [], "desk")
    _, stranger = await live.access.issue_token(other.tenant_id, None, "staff", "owner", [], "elsewhere")
    u = str(v.unit_id)
    async with live.subscribe(operator, LIVE, {"u": u}) as feed:
        done = await live.gql(owner, PARAMS, {"u": u, "i": {"holdTtlSeconds": 900, "minAdvanceMinutes": 30}})
        assert done["updateUnitParameters"]["__typename"] == "Unit"
        event = (await feed.next())["venueChanged"]
        assert (event["entity"], event["entityId"], event["action"]) == ("PARAMETERS", global_id("Unit", u), "UPDATED")
        assert event["session"] == f"staff:{token_id}"
        # Setting a value it already has changes nothing and logs nothing.
        assert (await live.gql(owner, PARAMS, {"u": u, "i": {"holdTtlSeconds": 900}}))["updateUnitParameters"][
            "__typename"] == "Unit"
        await feed.nothing()
    logged = (await live.gql(manager, CHANGES, {"u": u}))["venueChanges"]
    assert len(logged) == 1
    assert logged[0]["before"] == {"holdTtlSeconds": 600, "minAdvanceMinutes": 60}
    assert logged[0]["after"] == {"holdTtlSeconds": 900, "minAdvanceMinutes": 30}
    assert logged[0]["session"] == f"staff:{token_id}" and logged[0]["at"]
    assert (await live.gql(manager, CHANGES, {"u": u, "b": logged[0]["id"]}))["venueChanges"] == []
    # A refused change is not logged; the log is the managers' and only of their own unit.
    refused = await live.gql(owner, PARAMS, {"u": u, "i": {"holdTtlSeconds": 1}})
    assert refused["updateUnitParameters"] == {"__typename": "InvalidInput", "field": "holdTtlSeconds",
                                               "code": "invalid_parameter"}
    assert len((await live.gql(manager, CHANGES, {"u": u}))["venueChanges"]) == 1
    for caller in (operator, stranger):
        body = await live.post(caller, CHANGES, {"u": u})
        assert body["errors"][0]["extensions"]["code"] == "forbidden", body
    # The table keeps what it was given: no update, no delete.
    with pytest.raises(Exception, match="append-only"):
        await pool.execute("DELETE FROM venue_changes WHERE unit_id = $1", v.unit_id)
