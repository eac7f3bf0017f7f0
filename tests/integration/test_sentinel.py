"""A Redis failover under Sentinel (a primary, a replica, three sentinels; the primary SIGKILLed, the replica promoted)
with two APIs and two workers finding Redis only through REDIS_SENTINELS: holds go on during the failover, a
subscriber that stayed connected and one that comes back with `since` miss nothing, and the deadline jobs scheduled
before the failover (and after) still run — the sweeps are off, so only the jobs can expire the holds."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from slothold.cli.embedded.sentinel import RedisSentinelGroup, system_redis
from tests.integration.cluster import WsClient, cluster, wait_until
from tests.integration.test_realtime import SLOTS, hold_on, slot_seqs, window
from tests.venues import arena

TTL = 6
"""Seconds a hold lasts here: deadlines fall after the failover."""


@pytest.fixture
def sentinels(tmp_path: Path) -> Iterator[RedisSentinelGroup]:
    if system_redis() is None:
        pytest.skip("the system's redis-server (which runs sentinels) is not installed: apt-get install redis-server")
    group = RedisSentinelGroup(tmp_path / "redis", replicas=1, sentinels=3).start()
    try:
        yield group
    finally:
        group.stop()


async def collect_until(ws: WsClient, n: int, timeout: float) -> list[int]:
    """The seqs of the slot events `ws` receives until it has `n` (or `timeout` passes)."""
    got: list[int] = []
    deadline = time.monotonic() + timeout
    while len(got) < n and time.monotonic() < deadline:
        try:
            msg = await ws.next(max(0.05, deadline - time.monotonic()))
        except TimeoutError:
            break
        assert msg["type"] == "next", msg
        got.append(msg["payload"]["data"]["slotChanged"]["seq"])
    return got


async def test_a_redis_failover_keeps_holds_subscribers_and_deadline_jobs_going(
    database_url: str, pool: Any, sentinels: RedisSentinelGroup, tmp_path: Path
) -> None:
    v = await arena(pool, fields=4, min_advance_minutes=0, hold_min_seconds=1, hold_ttl_seconds=TTL,
                    hold_reminder_seconds=0, hold_ceiling_percent=100)
    # REDIS_URL names no server: only the database number; every client asks the sentinels for the primary.
    with cluster(database_url, "redis:///0", tmp_path, apis=2, workers=2, REDIS_SENTINELS=sentinels.sentinel_spec,
                 REDIS_SENTINEL_MASTER=sentinels.master, SLOTHOLD_SWEEP_SECONDS="0") as c:
        ports = [port for _, port in c.apis]
        stays, leaves = await WsClient.connect(ports[0]), await WsClient.connect(ports[1])
        for ws in (stays, leaves):
            await ws.subscribe(SLOTS, window(v))
        await asyncio.sleep(0.5)
        made = [await hold_on(ports[n % 2], v, f"Campo {1 + n % 4}", 9 + n // 4, n) for n in range(4)]
        seen = await collect_until(leaves, 4, 40)  # (the workers may still be starting)
        assert len(seen) == 4, c.logs()
        await leaves.close()
        # The four expiry jobs reached the replica before its primary dies.
        old = sentinels.master_port()
        assert old is not None
        replica = next(n.port for n in sentinels.nodes if n.port != old)
        async with aioredis.Redis(port=replica) as r:
            async def replicated() -> bool:
                return int(await r.zcard("arq:queue")) >= 4
            assert await wait_until(replicated, timeout=5), "the expiry jobs never reached the replica"

        started = time.monotonic()
        sentinels.kill_master()
        failover = asyncio.create_task(asyncio.to_thread(sentinels.wait_failover, old, 30))
        during = 0
        while not failover.done() or during < 6:  # holds go on while Redis has no primary, and just after
            n = 4 + during
            made.append(await hold_on(ports[n % 2], v, f"Campo {1 + n % 4}", 9 + n // 4, n))
            during += 1
            await asyncio.sleep(0.2)
        new = await failover
        failover_seconds = time.monotonic() - started
        assert new != old

        back = await WsClient.connect(ports[1])  # the one that left comes back with `since`
        await back.subscribe(SLOTS, {**window(v), "since": seen[-1]})

        async def all_expired() -> bool:  # by their jobs alone: the sweeps are off
            return bool(await pool.fetchval(
                "SELECT bool_and(status = 'expired') FROM bookings WHERE unit_id = $1", v.unit_id))
        assert await wait_until(all_expired, timeout=TTL + 20, every=0.5), c.logs()
        expired_at = time.monotonic()
        async def numbered() -> bool:  # the relay numbered every event: each hold's held and expired
            return len(await slot_seqs(pool, v.unit_id)) == 2 * len(made)
        assert await wait_until(numbered, timeout=15), c.logs()
        every = await slot_seqs(pool, v.unit_id)
        assert await collect_until(stays, len(every), 15) == every, c.logs()  # no gap, no duplicate, in order
        missed = [s for s in every if s > seen[-1]]
        assert await collect_until(back, len(missed), 15) == missed, c.logs()
        async with httpx.AsyncClient(timeout=5) as http:
            for port in ports:
                ready = (await http.get(f"http://127.0.0.1:{port}/readyz")).json()
                assert ready["redis"] == "ok", ready
        for ws in (stays, back):
            await ws.close()
        lateness = await pool.fetchval(
            "SELECT extract(epoch FROM max(x.at - h.at)) - $2 FROM bookings b "
            "JOIN booking_events h ON h.booking_id = b.id AND h.new_status = 'held' "
            "JOIN booking_events x ON x.booking_id = b.id AND x.new_status = 'expired' WHERE b.unit_id = $1",
            v.unit_id, TTL)
        print(f"\nfailover {failover_seconds:.1f} s ({old} → {new}); {during} holds during it, all accepted; "
              f"{len(made)} holds expired by their jobs (latest {float(lateness):.1f} s past its deadline), "
              f"{expired_at - started:.1f} s after the kill")
        assert "Traceback" not in c.logs(), c.logs()
