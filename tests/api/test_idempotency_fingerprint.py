"""The idempotency fingerprint covers every field of the request (issue 16): the same key with a request that
differs in any field — the channel included — is IdempotencyKeyReused, never a replay of the first result."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import Api
from tests.venues import arena, at, cpf

HOLD = """
mutation($input: HoldInput!, $key: String) {
  hold(input: $input, idempotencyKey: $key) {
    __typename
    ... on BookingPayload { replayed booking { id channel } }
    ... on Error { code }
  }
}
"""
CANCEL = """
mutation($id: ID!, $reason: String, $key: String) { cancel(bookingId: $id, reason: $reason, idempotencyKey: $key) {
  __typename ... on BookingPayload { replayed booking { id status } } ... on Error { code } } }
"""
CONFIRM = """
mutation($id: ID!, $key: String, $channel: BookingChannel!, $contact: String) {
  confirm(bookingId: $id, idempotencyKey: $key, channel: $channel, contact: $contact) {
    __typename ... on BookingPayload { replayed booking { id status } } ... on Error { code } } }
"""


def hold_input(unit: Any, resource: Any, day: int, hour: int, **extra: Any) -> dict[str, Any]:
    return {"unitId": str(unit), "resourceIds": [str(resource)], "startsAt": at(day, hour).isoformat(),
            "endsAt": at(day, hour + 1).isoformat(), "customer": {"cpf": cpf(310_001)}, **extra}


async def bookings_of(pool: Any, unit: Any) -> int:
    return int(await pool.fetchval("SELECT count(*) FROM bookings WHERE unit_id = $1", unit))


async def test_the_same_key_with_another_channel_is_key_reused_not_a_replay(api: Api, pool: Any) -> None:
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    first = (await api.gql(HOLD, {"input": hold_input(v.unit_id, c1, 8, 19), "key": "ch-1"}))["hold"]
    assert first["__typename"] == "BookingPayload" and first["booking"]["channel"] == "API", first
    again = (await api.gql(HOLD, {"input": hold_input(v.unit_id, c1, 8, 19, channel="API"), "key": "ch-1"}))["hold"]
    assert again["replayed"] is True and again["booking"]["id"] == first["booking"]["id"]  # the default, spelt out
    other = (await api.gql(HOLD, {"input": hold_input(v.unit_id, c1, 8, 19, channel="WHATSAPP"),
                                  "key": "ch-1"}))["hold"]
    assert other == {"__typename": "IdempotencyKeyReused", "code": "idempotency_key_reused"}
    assert await bookings_of(pool, v.unit_id) == 1


async def test_the_same_key_with_another_customer_name_is_key_reused(api: Api, pool: Any) -> None:
    v = await arena(pool)
    c1 = v.resource_ids["Campo 1"]
    named = {"cpf": cpf(310_002), "name": "Ana"}
    first = (await api.gql(HOLD, {"input": hold_input(v.unit_id, c1, 8, 20, customer=named), "key": "nm-1"}))["hold"]
    assert first["__typename"] == "BookingPayload", first
    renamed = {**named, "name": "Bia"}
    other = (await api.gql(HOLD, {"input": hold_input(v.unit_id, c1, 8, 20, customer=renamed),
                                  "key": "nm-1"}))["hold"]
    assert other["__typename"] == "IdempotencyKeyReused", other


async def test_confirm_and_cancel_fingerprint_their_whole_request(api: Api, pool: Any) -> None:
    v = await arena(pool)
    held = (await api.gql(HOLD, {"input": hold_input(v.unit_id, v.resource_ids["Campo 2"], 8, 19)}))["hold"]
    bid = held["booking"]["id"]
    first = (await api.gql(CONFIRM, {"id": bid, "key": "cf-1", "channel": "WHATSAPP", "contact": "+5511900000001"}))
    assert first["confirm"]["__typename"] == "BookingPayload", first
    replay = await api.gql(CONFIRM, {"id": bid, "key": "cf-1", "channel": "WHATSAPP", "contact": "+5511900000001"})
    assert replay["confirm"]["replayed"] is True
    for changed in ({"channel": "API", "contact": "+5511900000001"}, {"channel": "WHATSAPP", "contact": None}):
        other = await api.gql(CONFIRM, {"id": bid, "key": "cf-1", **changed})
        assert other["confirm"]["__typename"] == "IdempotencyKeyReused", (changed, other)

    cancelled = await api.gql(CANCEL, {"id": bid, "reason": "mudou de ideia", "key": "cn-1"})
    assert cancelled["cancel"]["__typename"] == "BookingPayload", cancelled
    other = await api.gql(CANCEL, {"id": bid, "reason": "outro motivo", "key": "cn-1"})
    assert other["cancel"]["__typename"] == "IdempotencyKeyReused", other
