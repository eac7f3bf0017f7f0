"""Metrics of real processes: an API server's /metrics and a worker's metrics port, with a token set."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx

from schema.ids import decode_id
from slothold.cli.embedded import free_port
from tests.api.test_metrics import Samples, parse, value
from tests.integration.cluster import WsClient, cluster, wait_until
from tests.integration.test_realtime import SLOTS, hold_on, quick_arena, window

TOKEN = "metrics-secret"
AUTH = {"authorization": f"Bearer {TOKEN}"}


async def scrape(url: str) -> Samples:
    async with httpx.AsyncClient(timeout=5) as http:
        r = await http.get(url, headers=AUTH)
    assert r.status_code == 200, r.text
    return parse(r.text)


async def test_an_api_and_a_worker_report_subscribers_deliveries_relay_expirations_and_jobs(
    database_url: str, redis_url: str, pool: Any, tmp_path: Path
) -> None:
    v = await quick_arena(pool)  # holds last 3 s
    worker_port = free_port()
    with cluster(database_url, redis_url, tmp_path, apis=1, workers=1, SLOTHOLD_METRICS_TOKEN=TOKEN,
                 SLOTHOLD_WORKER_METRICS_PORT=str(worker_port), SLOTHOLD_SWEEP_SECONDS="2") as c:
        port = c.apis[0][1]
        api_url, worker_url = f"http://127.0.0.1:{port}/metrics", f"http://127.0.0.1:{worker_port}/metrics"
        async with httpx.AsyncClient(timeout=5) as http:
            assert (await http.get(api_url)).status_code == 401
            assert (await http.get(api_url, headers={"authorization": "Bearer wrong"})).status_code == 401
            assert (await wait_until(lambda: _answers(http, worker_url), timeout=15)), c.logs()
            assert (await http.get(worker_url)).status_code == 401

        before = await scrape(api_url)
        assert value(before, "slothold_subscribers") == 0
        shared, alone = await WsClient.connect(port), await WsClient.connect(port)
        await shared.subscribe(SLOTS, window(v))
        await alone.subscribe(SLOTS, {**window(v), "since": 0})  # replays history: runs alone, not shared

        async def subscribers(n: int) -> bool:
            return value(await scrape(api_url), "slothold_subscribers") == n

        assert await wait_until(lambda: subscribers(2), timeout=5)
        booking = await hold_on(port, v, "Campo 1", 9, 900)
        got = [(await shared.collect(1))[0], (await alone.collect(1))[0]]
        assert {g["slotChanged"]["bookingId"] for g in got} == {booking["id"]}
        delivered = await scrape(api_url)
        assert value(delivered, "slothold_deliveries_total") - value(before, "slothold_deliveries_total") >= 2
        assert value(delivered, "slothold_holds_total", mutation="hold", outcome="placed") >= 1
        await shared.close()
        assert await wait_until(lambda: subscribers(1), timeout=5)
        await alone.close()
        assert await wait_until(lambda: subscribers(0), timeout=5)

        async def relayed_and_expired() -> bool:  # the worker's relay empties the outbox; the hold lapses
            s = await scrape(api_url)
            return (value(s, "slothold_outbox_backlog") == 0
                    and value(s, "slothold_expirations_total") > value(before, "slothold_expirations_total"))

        assert await wait_until(relayed_and_expired, timeout=20, every=0.5), c.logs()
        after = await scrape(api_url)
        status = await pool.fetchval("SELECT status FROM bookings WHERE id = $1", decode_id(booking["id"])[1])
        assert status == "expired"
        assert value(after, "slothold_relay_lag_seconds") == 0
        assert value(after, "slothold_lapsed_holds") == 0

        jobs = await scrape(worker_url)
        assert value(jobs, "slothold_jobs_total", function="sweep_expired_holds", outcome="ok") >= 1
        assert value(jobs, "slothold_job_duration_seconds_count", function="sweep_expired_holds") >= 1
        assert value(jobs, "process_resident_memory_bytes") > 0


async def _answers(http: httpx.AsyncClient, url: str) -> bool:
    try:
        await http.get(url, headers=AUTH)
        return True
    except httpx.HTTPError:
        await asyncio.sleep(0.1)
        return False
