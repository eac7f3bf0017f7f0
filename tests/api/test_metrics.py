"""GET /metrics of an API process, in process, on real PostgreSQL and Redis (no worker runs here)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest
import redis.asyncio as aioredis
from arq.constants import default_queue_name, in_progress_key_prefix
from prometheus_client.parser import text_string_to_metric_families

from slothold.app import create_app
from slothold.settings import Settings
from telemetry import metrics
from tests.api.conftest import Api
from tests.api.test_hold_api import HOLD, hold_input
from tests.conftest import MutableClock
from tests.venues import arena, at, cpf

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def parse(text: str) -> Samples:
    """Every sample of an exposition, keyed by (name, sorted labels)."""
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


async def scrape(http: httpx.AsyncClient, fresh: bool = True, **headers: str) -> Samples:
    if fresh:
        metrics.CLUSTER.read_at = 0.0  # don't wait out the cache
    r = await http.get("/metrics", headers=headers)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain; version=0.0.4")
    return parse(r.text)


async def test_metrics_answer_in_the_text_exposition_format_without_a_graphql_token(api: Api) -> None:
    await api.http.get("/healthz")
    r = await api.http.get("/metrics", headers={"authorization": ""})
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/plain; version=0.0.4")
    names = {f.name for f in text_string_to_metric_families(r.text)}
    assert {"slothold_http_request_duration_seconds", "slothold_outbox_backlog", "slothold_relay_lag_seconds",
            "slothold_open_holds", "slothold_lapsed_holds", "slothold_expirations", "slothold_queue_jobs",
            "slothold_job_lag_seconds", "slothold_subscribers", "process_resident_memory_bytes"} <= names
    samples = parse(r.text)
    assert value(samples, "slothold_http_request_duration_seconds_count",
                 method="GET", route="/healthz", status="2xx") >= 1


async def test_a_hold_and_a_conflicting_hold_move_the_hold_and_conflict_counters(api: Api, pool: Any) -> None:
    v = await arena(pool)
    field = v.resource_ids["Campo 1"]
    before = await scrape(api.http)
    first = await api.gql(HOLD, {"input": hold_input(v.unit_id, [field], at(9, 19), at(9, 20), 1)})
    second = await api.gql(HOLD, {"input": hold_input(v.unit_id, [field], at(9, 19), at(9, 20), 2)})
    assert first["hold"]["__typename"] == "BookingPayload" and second["hold"]["__typename"] == "SlotTaken"
    after = await scrape(api.http)

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("slothold_holds_total", mutation="hold", outcome="placed") == 1
    assert moved("slothold_holds_total", mutation="hold", outcome="slot_taken") == 1
    assert moved("slothold_conflicts_total", mutation="hold", code="slot_taken") == 1
    assert moved("slothold_graphql_operation_duration_seconds_count", operation="mutation:hold") == 2
    assert moved("slothold_http_request_duration_seconds_count", method="POST", route="/graphql", status="2xx") == 2
    # a refusal that is not a conflict is named by its code; the selection need not ask for __typename
    r = await api.gql("mutation($i: HoldInput!) { hold(input: $i) { ... on Error { code } } }",
                      {"i": hold_input(v.unit_id, [field], at(9, 21), at(9, 20), 3)})
    code = r["hold"]["code"]
    last = await scrape(api.http)
    assert value(last, "slothold_holds_total", mutation="hold", outcome=f"refused_{code}") \
        - value(after, "slothold_holds_total", mutation="hold", outcome=f"refused_{code}") == 1


async def test_outbox_backlog_and_relay_lag_grow_while_no_relay_runs(api: Api, pool: Any) -> None:
    v = await arena(pool)
    before = await scrape(api.http)
    for n in range(3):
        await api.gql(HOLD, {"input": hold_input(v.unit_id, [v.resource_ids["Campo 2"]], at(9, 8 + n),
                                                 at(9, 9 + n), 10 + n)})
    await asyncio.sleep(0.2)
    after = await scrape(api.http)
    async with pool.acquire() as conn:
        unrelayed = await conn.fetchval("SELECT count(*) FROM outbox WHERE published_at IS NULL")
    assert value(after, "slothold_outbox_backlog") == unrelayed
    assert value(after, "slothold_outbox_backlog") >= value(before, "slothold_outbox_backlog") + 3
    assert value(after, "slothold_relay_lag_seconds") >= 0.2
    assert value(after, "slothold_open_holds", status="held") >= 3


async def test_figures_are_cached_between_scrapes(api: Api, pool: Any) -> None:
    first = await scrape(api.http)
    v = await arena(pool)
    await api.gql(HOLD, {"input": hold_input(v.unit_id, [v.resource_ids["Campo 3"]], at(9, 8), at(9, 9), 20)})
    cached = await scrape(api.http, fresh=False)
    assert value(cached, "slothold_outbox_backlog") == value(first, "slothold_outbox_backlog")
    assert value(cached, "slothold_metrics_figures_age_seconds") >= 0


async def test_lapsed_holds_and_expirations_are_read_from_the_database(
    api: Api, pool: Any, clock: MutableClock
) -> None:
    v = await arena(pool)
    await api.gql(HOLD, {"input": hold_input(v.unit_id, [v.resource_ids["Campo 4"]], at(9, 8), at(9, 9), 30)})
    before = await scrape(api.http)
    clock.advance(hours=2)  # past every hold's deadline; no worker runs to expire them
    lapsed = await scrape(api.http)
    assert value(lapsed, "slothold_lapsed_holds") >= value(before, "slothold_lapsed_holds") + 1
    assert value(lapsed, "slothold_lapsed_hold_max_age_seconds") > 3600
    async with pool.acquire() as conn:
        expired = await conn.fetchval("SELECT count(*) FROM booking_events WHERE new_status = 'expired'")
    assert value(lapsed, "slothold_expirations_total") == expired


async def test_the_metrics_token_is_enforced_when_set(database_url: str, redis_url: str) -> None:
    app = create_app(Settings(database_url=database_url, redis_url=redis_url, metrics_token="s3cret"))
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as http:
            assert (await http.get("/metrics")).status_code == 401
            wrong = await http.get("/metrics", headers={"authorization": "Bearer nope"})
            assert wrong.status_code == 401 and wrong.headers["www-authenticate"] == "Bearer"
            assert "slothold" not in wrong.text
            ok = await http.get("/metrics", headers={"authorization": "Bearer s3cret"})
            assert ok.status_code == 200 and "slothold_outbox_backlog" in ok.text


def _other_db(url: str, db: int) -> str:
    return urlunsplit(urlsplit(url)._replace(path=f"/{db}"))


@pytest.fixture
async def queue_redis(redis_url: str) -> AsyncIterator[tuple[str, aioredis.Redis]]:
    """A Redis database of this test's own (other tests' workers poll arq's queue in database 0)."""
    url = _other_db(redis_url, 13)
    r = aioredis.Redis.from_url(url)
    await r.delete(default_queue_name)
    yield url, r
    await r.delete(default_queue_name, in_progress_key_prefix + "m-running")
    await r.aclose()


async def test_queue_depth_and_job_lag_read_arqs_queue(
    database_url: str, queue_redis: tuple[str, aioredis.Redis]
) -> None:
    url, r = queue_redis
    now_ms = time.time() * 1000
    await r.zadd(default_queue_name, {"m-running": now_ms - 60_000, "m-late": now_ms - 30_000,
                                      "m-due": now_ms - 1_000, "m-later": now_ms + 3_600_000})
    await r.set(in_progress_key_prefix + "m-running", b"1", px=60_000)  # a worker has it: not waiting
    app = create_app(Settings(database_url=database_url, redis_url=url))
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as http:
            samples = await scrape(http)
    assert value(samples, "slothold_queue_jobs", state="due") == 3
    assert value(samples, "slothold_queue_jobs", state="scheduled") == 1
    assert 30 <= value(samples, "slothold_job_lag_seconds") < 40


COUNTER = """mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!) {
  counterBooking(input: {unitId: $u, resourceIds: [$r], startsAt: $s, endsAt: $e}) { __typename ... on Error { code } }
}"""


async def test_counter_bookings_and_seat_locks_are_counted_too(api: Api, pool: Any) -> None:
    from tests.integration.test_seatmaps_live import EVENT, LOCK, MAP, VIEW

    v = await arena(pool)
    field = v.resource_ids["Campo 1"]
    before = await scrape(api.http)
    args = {"u": str(v.unit_id), "r": str(field), "s": at(10, 19).isoformat(), "e": at(10, 20).isoformat()}
    assert (await api.gql(COUNTER, args))["counterBooking"]["__typename"] == "BookingPayload"
    taken = (await api.gql(COUNTER, args))["counterBooking"]
    assert taken["__typename"] == "SlotTaken"
    seat_map = (await api.gql(MAP, {"u": str(v.unit_id)}))["createSeatMap"]
    event = (await api.gql(EVENT, {"m": seat_map["id"], "s": at(10, 20).isoformat(),
                                   "e": at(10, 22).isoformat()}))["createSeatEvent"]
    seat = (await api.gql(VIEW, {"e": event["id"]}))["seatMap"]["sections"][0]["rows"][0]["seats"][0]["id"]
    kinds = [(await api.gql(LOCK, {"e": event["id"], "s": [seat], "c": cpf(620_000 + n)}))["lockSeats"]["__typename"]
             for n in range(2)]
    assert kinds == ["BookingPayload", "SeatsUnavailable"]
    after = await scrape(api.http)

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("slothold_holds_total", mutation="counterBooking", outcome="placed") == 1
    assert moved("slothold_holds_total", mutation="counterBooking", outcome=taken["code"]) == 1
    assert moved("slothold_conflicts_total", mutation="counterBooking", code=taken["code"]) == 1
    assert moved("slothold_holds_total", mutation="lockSeats", outcome="placed") == 1
    assert moved("slothold_holds_total", mutation="lockSeats", outcome="seats_unavailable") == 1
    assert moved("slothold_conflicts_total", mutation="lockSeats", code="seats_unavailable") == 1
