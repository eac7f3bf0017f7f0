"""RN-HLD-05's refusals as typed GraphQL results, and the blacklist mutation, on real PostgreSQL."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import Api
from tests.venues import arena, at, customer

HOLD = """
mutation($input: HoldInput!) {
  hold(input: $input) {
    __typename
    ... on BookingPayload { booking { id status } }
    ... on Error { code message }
    ... on HoldLimitReached { messagePt bookingId swapAvailable }
    ... on CooldownActive { messagePt until }
    ... on HoldCeilingReached { messagePt }
    ... on CustomerBlacklisted { messagePt }
  }
}
"""

SWAP = """
mutation($id: ID!, $input: SwapInput!) {
  swapHold(bookingId: $id, input: $input) {
    __typename
    ... on BookingPayload { booking { id status } }
    ... on Error { code message }
  }
}
"""

COUNTER = """
mutation($input: CounterBookingInput!) {
  counterBooking(input: $input) { __typename ... on BookingPayload { booking { status } } ... on Error { code } }
}
"""

JOIN = """
mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!, $c: CustomerInput!) {
  joinSlotWaitlist(unitId: $u, resourceId: $r, startsAt: $s, endsAt: $e, customer: $c) {
    __typename ... on Error { code } ... on CooldownActive { until }
  }
}
"""

BLACKLIST = """
mutation($u: ID!, $c: CustomerInput!, $b: Boolean!, $why: String) {
  setCustomerBlacklisted(unitId: $u, customer: $c, blacklisted: $b, reason: $why) {
    __typename
    ... on CustomerBlacklistPayload { customers { id cpf phone blacklisted blacklistReason } }
    ... on Error { code message }
  }
}
"""

QUEUE = "query($u: ID!) { queue(unitId: $u) { type title priority payload } }"


def who(n: int) -> dict[str, str]:
    c = customer(n)
    return {"cpf": str(c.cpf), "phone": str(c.phone)}


def hold_input(v: Any, n: int, day: int = 10, hour: int = 19, field: str = "Campo 1") -> dict[str, Any]:
    return {"unitId": str(v.unit_id), "resourceIds": [str(v.resource_ids[field])],
            "startsAt": at(day, hour).isoformat(), "endsAt": at(day, hour + 1).isoformat(), "customer": who(n),
            "channel": "WHATSAPP"}


async def test_a_second_hold_answers_open_hold_exists_with_the_swap_and_the_swap_works(api: Api, pool: Any) -> None:
    v = await arena(pool)
    first = (await api.gql(HOLD, {"input": hold_input(v, 1)}))["hold"]
    assert first["__typename"] == "BookingPayload"
    second = (await api.gql(HOLD, {"input": hold_input(v, 1, hour=20, field="Campo 2")}))["hold"]
    assert second["__typename"] == "HoldLimitReached" and second["code"] == "open_hold_exists"
    assert second["bookingId"] == first["booking"]["id"] and second["swapAvailable"] is True
    assert "trocar" in second["messagePt"]
    moved = (await api.gql(SWAP, {"id": first["booking"]["id"], "input": {
        "startsAt": at(10, 20).isoformat(), "endsAt": at(10, 21).isoformat(),
        "resourceIds": [str(v.resource_ids["Campo 2"])]}}))["swapHold"]
    assert moved["__typename"] == "BookingPayload" and moved["booking"]["status"] == "HELD"


async def test_cooldown_refuses_holds_and_waitlists_but_not_the_counter(api: Api, pool: Any, clock: Any) -> None:
    v = await arena(pool)
    for _ in range(3):  # three holds left to lapse
        assert (await api.gql(HOLD, {"input": hold_input(v, 1, day=20)}))["hold"]["__typename"] == "BookingPayload"
        clock.advance(minutes=11)
    refused = (await api.gql(HOLD, {"input": hold_input(v, 1, day=21)}))["hold"]
    assert refused["__typename"] == "CooldownActive" and refused["code"] == "cooldown"
    assert "balcão" in refused["messagePt"] and refused["until"]
    booked = (await api.gql(COUNTER, {"input": {
        "unitId": str(v.unit_id), "resourceIds": [str(v.resource_ids["Campo 1"])], "startsAt": at(21, 19).isoformat(),
        "endsAt": at(21, 20).isoformat(), "customer": who(1)}}))["counterBooking"]
    assert booked == {"__typename": "BookingPayload", "booking": {"status": "CONFIRMED"}}
    joined = (await api.gql(JOIN, {"u": str(v.unit_id), "r": str(v.resource_ids["Campo 1"]),
                                   "s": at(21, 19).isoformat(), "e": at(21, 20).isoformat(), "c": who(1)}))
    assert joined["joinSlotWaitlist"] == {"__typename": "CooldownActive", "code": "cooldown",
                                          "until": refused["until"]}


async def test_the_ceiling_answers_hold_ceiling_and_raises_one_alert(api: Api, pool: Any) -> None:
    v = await arena(pool, hold_ceiling_percent=10)  # 60 free slots on the 10th: 6 open holds
    for n in range(6):
        assert (await api.gql(HOLD, {"input": hold_input(v, n, hour=8 + n)}))["hold"]["__typename"] == "BookingPayload"
    for n in (6, 7):
        refused = (await api.gql(HOLD, {"input": hold_input(v, n, hour=8, field="Campo 2")}))["hold"]
        assert refused["__typename"] == "HoldCeilingReached" and refused["code"] == "hold_ceiling"
        assert "try again in a few minutes" in refused["message"] and "alguns minutos" in refused["messagePt"]
    items = (await api.gql(QUEUE, {"u": str(v.unit_id)}))["queue"]
    alerts = [i for i in items if i["type"] == "HOLD_CEILING"]
    assert len(alerts) == 1 and alerts[0]["title"] == "Teto de holds atingido" and alerts[0]["priority"] == "CRITICAL"
    assert alerts[0]["payload"]["day"] == "2026-12-10"


async def test_set_customer_blacklisted_blocks_and_unblocks_holds(api: Api, pool: Any) -> None:
    v = await arena(pool)
    on = (await api.gql(BLACKLIST, {"u": str(v.unit_id), "c": who(1), "b": True, "why": "chargeback"}))
    records = on["setCustomerBlacklisted"]["customers"]
    assert [(r["cpf"], r["blacklisted"], r["blacklistReason"]) for r in records] == \
        [(who(1)["cpf"], True, "chargeback")]
    refused = (await api.gql(HOLD, {"input": hold_input(v, 1)}))["hold"]
    assert refused["__typename"] == "CustomerBlacklisted" and refused["code"] == "blacklisted"
    off = await api.gql(BLACKLIST, {"u": str(v.unit_id), "c": {"phone": who(1)["phone"]}, "b": False})
    assert [r["blacklisted"] for r in off["setCustomerBlacklisted"]["customers"]] == [False]
    assert (await api.gql(HOLD, {"input": hold_input(v, 1)}))["hold"]["__typename"] == "BookingPayload"
    bad = await api.gql(BLACKLIST, {"u": str(v.unit_id), "c": {"cpf": "111.111.111-11"}, "b": True})
    assert bad["setCustomerBlacklisted"]["code"] == "invalid_cpf"
