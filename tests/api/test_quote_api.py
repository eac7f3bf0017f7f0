"""Booking.quote: the summary a customer reads before accepting (RN-ATD-09), the same terms confirm records."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import Api
from tests.services.test_payments import paid_arena
from tests.venues import at, cpf

HOLD = """mutation($i: HoldInput!) { hold(input: $i) { ... on BookingPayload { booking { id } } } }"""
QUOTE = """query($b: ID!) { booking(id: $b) { ... on Booking { status quote { totalCents dueNowCents atVenueCents
  paymentRule priceVersion policyVersion policySummary } } } }"""
CONFIRM = """mutation($b: ID!) { confirm(bookingId: $b) { ... on BookingPayload { booking { acceptance {
  totalCents dueNowCents atVenueCents paymentRule priceVersion policyVersion policySummary } } } } }"""


async def test_the_quote_is_what_accepting_records_and_only_while_held(api: Api, pool: Any) -> None:
    v = await paid_arena(pool)
    b = (await api.gql(HOLD, {"i": {"unitId": str(v.unit_id), "resourceIds": [str(v.resource_ids["Campo 1"])],
                                    "startsAt": at(12, 19).isoformat(), "endsAt": at(12, 20).isoformat(),
                                    "customer": {"cpf": cpf(5151)}, "serviceId": str(v.service_ids["Campo 1h"])}}
                       ))["hold"]["booking"]["id"]
    quoted = (await api.gql(QUOTE, {"b": b}))["booking"]["quote"]
    assert (quoted["totalCents"], quoted["dueNowCents"], quoted["atVenueCents"]) == (20000, 10000, 10000)
    assert quoted["paymentRule"] == "DEPOSIT_PERCENT" and "Campo 1" in quoted["policySummary"]
    accepted = (await api.gql(CONFIRM, {"b": b}))["confirm"]["booking"]["acceptance"]
    assert accepted == quoted
    assert (await api.gql(QUOTE, {"b": b}))["booking"]["quote"] is None  # accepted: nothing left to quote
