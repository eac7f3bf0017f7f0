"""Outgoing webhooks across real processes: API → outbox → relay → deliver_webhook job → a real receiver, signed;
a replay by hand goes the same way and carries the same delivery id."""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from domain import webhooks_out as wh
from schema.ids import decode_id
from store.venues import ResourceSpec, VenueSpec, create_venue, every_day
from tests.integration.cluster import cluster, gql, wait_until
from tests.venues import cpf
from tests.webhook_receiver import Receiver

SP = ZoneInfo("America/Sao_Paulo")


def tomorrow(hour: int) -> str:
    day = (datetime.now(SP) + timedelta(days=1)).date()
    return datetime(day.year, day.month, day.day, hour, tzinfo=SP).isoformat()


async def test_the_worker_delivers_signed_webhooks_and_replays(
        database_url: str, redis_url: str, pool: Any, tmp_path: Path) -> None:
    v = await create_venue(pool, VenueSpec(unit_name=f"Arena webhooks {tmp_path.name}", hours=every_day(8, 23),
                                           resources=[ResourceSpec(name="Campo 1")]))
    async with Receiver() as rx:
        with cluster(database_url, redis_url, tmp_path, apis=1, workers=1) as c:
            port = c.apis[0][1]
            made = (await gql(port, """mutation($u: ID!, $url: String!) { registerWebhook(unitId: $u, url: $url,
                eventTypes: [BOOKING_HELD, BOOKING_CANCELLED]) { ... on WebhookSecret { secret endpoint { id } } }
                }""", {"u": str(v.unit_id), "url": rx.url}))["registerWebhook"]
            held = await gql(port, """mutation($i: HoldInput!) { hold(input: $i) { ... on BookingPayload {
                booking { id } } } }""", {"i": {
                "unitId": str(v.unit_id), "resourceIds": [str(v.resource_ids["Campo 1"])], "startsAt": tomorrow(18),
                "endsAt": tomorrow(19), "customer": {"cpf": cpf(610_001)}}})
            booking = held["hold"]["booking"]["id"]

            def arrived(n: int) -> Any:
                async def check() -> bool:
                    return len(rx.requests) >= n
                return check

            assert await wait_until(arrived(1), timeout=10), c.logs()
            (req,) = rx.requests
            assert wh.verify(made["secret"], req.headers["x-slothold-signature"], req.body, int(time.time()))
            body = json.loads(req.body)
            assert body["type"] == "booking.held"
            assert body["data"]["booking_id"] == str(decode_id(booking)[1])  # webhook bodies carry database UUIDs

            log = (await gql(port, "query($e: ID!) { webhookDeliveries(endpointId: $e) { id status attempts "
                                   "responseCode } }", {"e": made["endpoint"]["id"]}))["webhookDeliveries"]

            async def delivered() -> bool:
                rows = (await gql(port, "query($e: ID!) { webhookDeliveries(endpointId: $e) { status } }",
                                  {"e": made["endpoint"]["id"]}))["webhookDeliveries"]
                return [r["status"] for r in rows] == ["DELIVERED"]

            assert await wait_until(delivered, timeout=5), log
            delivery = log[0]["id"]
            assert req.headers["x-slothold-delivery"] == str(decode_id(delivery)[1])

            replay = await gql(port, "mutation($d: ID!) { replayWebhookDelivery(deliveryId: $d) { __typename } }",
                               {"d": delivery})
            assert replay["replayWebhookDelivery"]["__typename"] == "WebhookDelivery"
            assert await wait_until(arrived(2), timeout=10), c.logs()
            assert rx.requests[1].headers["x-slothold-delivery"] == str(decode_id(delivery)[1])
            assert rx.requests[1].body == req.body
            assert len(rx.requests) == 2
