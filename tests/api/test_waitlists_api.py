"""Waitlists through the API."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import Api
from tests.api.test_hold_api import HOLD, hold_input
from tests.venues import arena, at, cpf

JOIN = """
mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!, $cpf: String) {
  joinSlotWaitlist(unitId: $u, resourceId: $r, startsAt: $s, endsAt: $e, customer: {cpf: $cpf}) {
    __typename ... on SlotWaitlistEntry { id status place } ... on Error { code message } ... on InvalidInput { field }
  }
}
"""


async def test_customers_join_a_slot_line_and_staff_see_it_and_the_offer(api: Api, pool: Any) -> None:
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    taken = await api.gql(HOLD, {"input": hold_input(v.unit_id, [c1], at(8, 20), at(8, 21), 1)})
    args = {"u": str(v.unit_id), "r": str(c1), "s": at(8, 20).isoformat(), "e": at(8, 21).isoformat()}
    a = (await api.gql(JOIN, {**args, "cpf": cpf(700_001)}))["joinSlotWaitlist"]
    b = (await api.gql(JOIN, {**args, "cpf": cpf(700_002)}))["joinSlotWaitlist"]
    assert (a["status"], a["place"], b["place"]) == ("WAITING", 1, 2)
    again = (await api.gql(JOIN, {**args, "cpf": cpf(700_001)}))["joinSlotWaitlist"]
    assert again["code"] == "already_waiting"
    no_cpf = (await api.gql(JOIN, {**args, "cpf": None}))["joinSlotWaitlist"]
    assert no_cpf["__typename"] == "InvalidInput"
    await api.gql('mutation($id: ID!) { cancel(bookingId: $id) { __typename } }',
                  {"id": taken["hold"]["booking"]["id"]})
    entry = await api.gql('query($id: ID!) { slotWaitlistEntry(id: $id) { ... on SlotWaitlistEntry { status '
                          'offerBookingId } } }', {"id": a["id"]})
    assert entry["slotWaitlistEntry"]["status"] == "OFFERED"
    lists = await api.gql('query($u: ID!) { waitlists(unitId: $u) { slots { id status place } } }',
                          {"u": str(v.unit_id)})
    assert [(s["id"], s["status"], s["place"]) for s in lists["waitlists"]["slots"]] == [
        (a["id"], "OFFERED", None), (b["id"], "WAITING", 1)]


async def test_staff_run_the_walk_in_queue(api: Api, pool: Any) -> None:
    v = await arena(pool)
    added = await api.gql('mutation($u: ID!) { addWalkIn(unitId: $u, area: "Quadras", name: "Ana", '
                          'phone: "+5511977776666", partySize: 2) { __typename ... on WalkIn { id status } } }',
                          {"u": str(v.unit_id)})
    wid = added["addWalkIn"]["id"]
    bad = await api.gql('mutation($u: ID!) { addWalkIn(unitId: $u, area: "Quadras", name: "Bia", phone: "123") '
                        '{ __typename ... on InvalidInput { field code } } }', {"u": str(v.unit_id)})
    assert bad["addWalkIn"] == {"__typename": "InvalidInput", "field": "phone", "code": "invalid_phone"}
    offered = await api.gql('mutation($id: ID!) { offerWalkIn(entryId: $id) { ... on WalkIn { status } } }',
                            {"id": wid})
    assert offered["offerWalkIn"]["status"] == "OFFERED"
    seated = await api.gql('mutation($id: ID!) { seatWalkIn(entryId: $id) { ... on WalkIn { status } } }', {"id": wid})
    assert seated["seatWalkIn"]["status"] == "SEATED"
    cancel = ('mutation($id: ID!) { cancelWalkIn(entryId: $id) { __typename ... on WalkIn { status } '
              '... on Error { code } } }')
    refused = (await api.gql(cancel, {"id": wid}))["cancelWalkIn"]
    assert refused == {"__typename": "InvalidInput", "code": "not_waiting"}
    bia = (await api.gql('mutation($u: ID!) { addWalkIn(unitId: $u, area: "Quadras", name: "Bia", '
                         'phone: "+5511977775555") { ... on WalkIn { id } } }', {"u": str(v.unit_id)}))["addWalkIn"]
    left = (await api.gql(cancel, {"id": bia["id"]}))["cancelWalkIn"]
    assert left == {"__typename": "WalkIn", "status": "CANCELLED"}
    queue = await api.gql('query($u: ID!) { waitlists(unitId: $u) { walkInsConnection { edges { node { id } } } } }',
                          {"u": str(v.unit_id)})
    assert queue["waitlists"]["walkInsConnection"]["edges"] == []
