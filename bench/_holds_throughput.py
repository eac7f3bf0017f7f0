"""Phases 1 and 2 of the holds bench: holds per second through the API and of the same transaction done directly
in SQL; and holds sent one at a time, the latency floor of a request."""

from __future__ import annotations

import itertools
import time
from collections import Counter

from bench import _data
from bench._holds_config import Config
from bench._holds_requests import hold_body, post_hold, run_for
from bench._http import Connection
from bench._measure import CpuMeter, Throughput
from bench._server import ApiServer


async def api_holds(cfg: Config, server: ApiServer, plan: _data.SlotPlan, keys: itertools.count[int]
                    ) -> Throughput:
    """`cfg.clients` keep-alive connections, each sending hold mutations on never-used slots."""
    stats = Throughput(f"API holds/s, {server.workers} worker{'s' if server.workers > 1 else ''}")
    conns = [Connection("127.0.0.1", server.port) for _ in range(cfg.clients)]
    record = False

    async def step(conn: Connection) -> None:
        k = next(keys)
        rid, s, e = plan.pair(k)
        t = time.perf_counter()
        kind, detail = await post_hold(conn, hold_body(plan, rid, s, e, k))
        if record:
            stats.latencies.append(time.perf_counter() - t)
            if kind == "BookingPayload":
                stats.ok += 1
            else:
                stats.fail(kind, detail)

    try:
        await run_for(cfg.warmup, conns, step)  # connections, unit cache, prepared statements
        record = True
        stats.cpu = CpuMeter(server, cfg.db)
        with stats.cpu:
            await run_for(cfg.seconds, conns, step)
    finally:
        for c in conns:
            await c.close()
    return stats


async def one_hold(server: ApiServer, plan: _data.SlotPlan, pairs: list[int], n: int) -> tuple[list[float],
                                                                                                Counter[str]]:
    """Holds sent one at a time (no concurrency): the latency floor of a request."""
    conn = Connection("127.0.0.1", server.port)
    times: list[float] = []
    kinds: Counter[str] = Counter()
    try:
        for i, k in enumerate(pairs):
            rid, s, e = plan.pair(k)
            t = time.perf_counter()
            kind, _ = await post_hold(conn, hold_body(plan, rid, s, e, n + i))
            times.append(time.perf_counter() - t)
            kinds[kind] += 1
    finally:
        await conn.close()
    return times, kinds
