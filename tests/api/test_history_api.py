"""Booking.history: a booking's audit trail through the GraphQL API (SPEC §15)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from schema.ids import global_id
from tests.api.conftest import Api
from tests.api.test_reschedule_api import RESCHEDULE, counter, slot
from tests.venues import arena, at

HISTORY = """
query($b: ID!) { booking(id: $b) { ... on Booking {
  history(first: FIRST) { at oldStatus newStatus holdType actor channel reason session
                           allocations { resourceId startsAt endsAt quantity } } } } }
"""

TOO_MANY = 'query($b: ID!) { booking(id: $b) { ... on Booking { history(first: 501) { actor } } } }'


async def test_history_lists_the_bookings_events_oldest_first(api: Api, pool: Any) -> None:
    v = await arena(pool)
    c1, c2 = v.resource_ids["Campo 1"], v.resource_ids["Campo 2"]
    old = (await counter(api, v.unit_id, c1, 14, 19))["booking"]
    r = (await api.gql(RESCHEDULE, {"b": old["id"], "i": slot(14, 21, c2)}))["reschedule"]
    assert r["__typename"] == "BookingPayload", r
    history = (await api.gql(HISTORY.replace("FIRST", "100"), {"b": old["id"]}))["booking"]["history"]
    assert [(h["oldStatus"], h["newStatus"]) for h in history] == [(None, "CONFIRMED"), ("CONFIRMED", "CANCELLED")]
    assert history[-1]["reason"] == "rescheduled"
    assert all(h["actor"] and h["channel"] for h in history)
    assert all(h["session"].startswith("system:") for h in history)  # the api fixture's system token
    first = history[0]
    assert [a["resourceId"] for a in first["allocations"]] == [global_id("Resource", c1)]
    assert datetime.fromisoformat(first["allocations"][0]["startsAt"]) == at(14, 19)
    assert datetime.fromisoformat(history[0]["at"]) <= datetime.fromisoformat(history[1]["at"])
    # Paged: the first row only.
    assert (await api.gql(HISTORY.replace("FIRST", "1"), {"b": old["id"]}))["booking"]["history"] == history[:1]
    # More than 500 is refused.
    body = (await api.http.post("/graphql", json={"query": TOO_MANY, "variables": {"b": old["id"]}},
                                headers={"accept": "application/graphql-response+json"})).json()
    assert body.get("errors") and "500" in str(body["errors"]), body
