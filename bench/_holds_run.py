"""The holds bench's runs: every phase on a fresh database (with the API at 1 then 2 workers), or the grid alone."""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import asyncpg

from bench import _data
from bench._holds_config import BENCH, Config
from bench._holds_evening import Evening, WaitSampler, evening
from bench._holds_grid import GridTimes, grid_latency
from bench._holds_hot import HotSlot, hot_slot
from bench._holds_plans import lapsed_probe
from bench._holds_sql import sql_holds, trace
from bench._holds_throughput import api_holds, one_hold
from bench._measure import CpuMeter, Throughput
from bench._server import ApiServer
from store.audit_chain import chain_all_pending
from store.db import create_pool


@dataclass
class Results:
    api1: Throughput
    sql: Throughput
    api2: Throughput
    single: tuple[list[float], Counter[str]]
    hot: HotSlot
    evening: Evening
    big_loser: tuple[list[float], Counter[str]]
    grid: GridTimes
    rss: dict[str, list[tuple[str, float]]]
    server_errors: dict[str, list[str]]
    probes: list[str]


async def _fresh(cfg: Config) -> str:
    """The bench database dropped, recreated and migrated; its URL."""
    url = await _data.reset_database(cfg.pg, cfg.db)
    await asyncio.to_thread(_data.migrate, url)
    return url


async def _busy_before() -> float:
    """Cores the machine spends on other work over a second, before a run (it skews every figure)."""
    (BENCH / ".logs").mkdir(exist_ok=True)
    with CpuMeter() as idle:
        await asyncio.sleep(1)
    return idle.machine


async def measure(cfg: Config) -> tuple[Results, _data.GridUnit]:
    print(f"setup: database {cfg.db}, {cfg.resources:,} resources…", flush=True)
    url = await _fresh(cfg)
    now = datetime.now(UTC)
    pool = await create_pool(url, 1, 4)
    try:
        plan = await _data.hold_unit(pool, cfg.resources, now)
        if cfg.history:
            await _data.history(pool, plan, cfg.history)
        hot = await _data.hot_unit(pool, now)
        eve = await _data.evening_unit(pool, now)
        g = await _data.grid_unit(pool, cfg.grid_resources, cfg.grid_days, now)
    finally:
        await pool.close()
    print(f"  {plan.capacity:,} holdable (resource, slot) pairs; grid unit: {g.bookings:,} bookings "
          f"({g.held} held), {g.slots_booked / g.slots_total:.0%} of its slots", flush=True)
    keys = itertools.count()  # slot-pair indices and customer numbers, never reused in a run
    logs = BENCH / ".logs"
    probes = [f"before the run the machine was busy {await _busy_before():.2f} cores with other work",
              f"before 1a: {await lapsed_probe(url, plan)}"]
    rss: dict[str, list[tuple[str, float]]] = {}
    errors: dict[str, list[str]] = {}

    print("1a. holds through the API, 1 worker", flush=True)
    server = ApiServer(cfg.port, 1, url, cfg.redis, logs / "uvicorn-1-worker.log")
    try:
        server.start()
        api1 = await api_holds(cfg, server, plan, keys)
        rss["1 worker"], errors["1 worker"] = server.rss_mib(), server.log_errors()
    finally:
        server.stop()

    probes.append(f"before 2: {await lapsed_probe(url, plan)}")
    print("2. the same transaction in SQL", flush=True)
    sql = await sql_holds(cfg, url, plan, keys)

    probes.append(f"before 1b: {await lapsed_probe(url, plan)}")
    print("1b. holds through the API, 2 workers", flush=True)
    server = ApiServer(cfg.port, 2, url, cfg.redis, logs / "uvicorn-2-workers.log")
    try:
        server.start()
        api2 = await api_holds(cfg, server, plan, keys)
        single = await one_hold(server, plan, [next(keys) for _ in range(20)], next(keys) + 20_000_000)
        hs, ev = await contention(cfg, server, hot, eve, url, next(keys))
        big_loser = await one_hold(server, plan, [0, 1, 2], 30_000_000)  # pairs 0-2 are held since 1a
        print("4. grid", flush=True)
        gt = await grid_latency(cfg, server, url, g)
        rss["2 workers"], errors["2 workers"] = server.rss_mib(), server.log_errors()
    finally:
        server.stop()
    probes.append(f"at the end: {await lapsed_probe(url, plan)}")
    return Results(api1, sql, api2, single, hs, ev, big_loser, gt, rss, errors, probes), g


async def contention(cfg: Config, server: ApiServer, hot: _data.SlotPlan, eve: _data.SlotPlan, url: str, k: int
                     ) -> tuple[HotSlot, Evening]:
    """Phase 3: the hot slot, then the evening, each with what the database's backends waited on."""
    print("3. hot slot", flush=True)
    async with WaitSampler(url, cfg.db) as waits:
        hs = await hot_slot(cfg, server, hot, url, k + 10_000_000)
    hs.waits = waits.describe()
    print("3b. evening", flush=True)
    async with WaitSampler(url, cfg.db) as waits:
        ev = await evening(cfg, server, eve, url, k + 40_000_000)
    ev.waits = waits.describe()
    return hs, ev


@dataclass
class ContentionRuns:
    hot: HotSlot
    evening: Evening
    probes: list[str]
    errors: list[str]


async def measure_contention(cfg: Config, profile: str | None = None) -> ContentionRuns:
    """Phase 3 alone (hot slot and evening) on a fresh database, with a 2-worker API; `profile`: py-spy raw profiles
    of both workers over the hot slot go to FILE.0 and FILE.1."""
    print(f"setup: database {cfg.db}, hot and evening units…", flush=True)
    url = await _fresh(cfg)
    pool = await create_pool(url, 1, 4)
    try:
        hot = await _data.hot_unit(pool, datetime.now(UTC))
        eve = await _data.evening_unit(pool, datetime.now(UTC))
    finally:
        await pool.close()
    probes = [f"before the run the machine was busy {await _busy_before():.2f} cores with other work; load "
              f"average {_loadavg()}"]
    server = ApiServer(cfg.port, 2, url, cfg.redis, BENCH / ".logs" / "uvicorn-contention.log")
    try:
        server.start()
        spies = ([_spy(pid, f"{profile}.{i}", 8, 0) for i, pid in enumerate(server.worker_pids())]
                 if profile else [])
        hs, ev = await contention(cfg, server, hot, eve, url, 0)
        for spy in spies:
            spy.wait(30)
        errors = server.log_errors()
    finally:
        server.stop()
    probes.append(f"at the end: load average {_loadavg()}")
    return ContentionRuns(hs, ev, probes, errors)


# Rows the throughput phases leave in allocations by the time the grid runs (notes of the full runs: 15-32 k,
# 5 k of them the grid unit's): a grid run alone adds them on another unit.
GRID_ONLY_FILLER = 25_000


async def measure_grid(cfg: Config) -> tuple[GridTimes, _data.GridUnit, list[str], dict[str, list[str]]]:
    """Phase 4 alone, on a fresh database holding the grid unit and filler rows, with a 2-worker API."""
    print(f"setup: database {cfg.db}, grid unit and {GRID_ONLY_FILLER:,} filler allocations…", flush=True)
    url = await _data.reset_database(cfg.pg, cfg.db)
    await asyncio.to_thread(_data.migrate, url)
    now = datetime.now(UTC)
    pool = await create_pool(url, 1, 4)
    try:
        plan = await _data.hold_unit(pool, 1_000, now)
        g = await _data.grid_unit(pool, cfg.grid_resources, cfg.grid_days, now)
        await _data.filler(pool, plan, GRID_ONLY_FILLER)
    finally:
        await pool.close()
    logs = BENCH / ".logs"
    logs.mkdir(exist_ok=True)
    with CpuMeter() as idle:
        await asyncio.sleep(1)
    probes = [f"before the run the machine was busy {idle.machine:.2f} cores with other work"]
    print("4. grid", flush=True)
    server = ApiServer(cfg.port, 2, url, cfg.redis, logs / "uvicorn-grid.log")
    try:
        server.start()
        gt = await grid_latency(cfg, server, url, g)
        errors = {"2 workers": server.log_errors()}
    finally:
        server.stop()
    return gt, g, probes, errors


@dataclass
class HoldRuns:
    api: list[Throughput]
    sql: Throughput
    probes: list[str]
    errors: list[str]


async def measure_holds(cfg: Config, profile: str | None = None) -> HoldRuns:
    """Phases 1a and 2 alone, on a fresh database: the API (1 worker), the direct-SQL baseline, the API again, with
    a trace of the statements each hold sends. `profile`: a py-spy raw profile of the first API phase goes there."""
    print(f"setup: database {cfg.db}, {cfg.resources:,} resources…", flush=True)
    url = await _data.reset_database(cfg.pg, cfg.db)
    await asyncio.to_thread(_data.migrate, url)
    pool = await create_pool(url, 1, 4)
    try:
        plan = await _data.hold_unit(pool, cfg.resources, datetime.now(UTC))
        if cfg.history:
            await _data.history(pool, plan, cfg.history)
    finally:
        await pool.close()
    keys = itertools.count()
    logs = BENCH / ".logs"
    logs.mkdir(exist_ok=True)
    with CpuMeter() as idle:
        await asyncio.sleep(1)
    probes = [f"before the run the machine was busy {idle.machine:.2f} cores with other work; load average "
              f"{_loadavg()}", await trace(url, plan, keys)]
    await chain_probe(url, "")  # the setup's and the trace's events: each phase's own are measured after it
    runs: list[Throughput] = []
    errors: list[str] = []
    sql = None
    for i in range(2):
        print(f"1. holds through the API, 1 worker (run {i + 1})", flush=True)
        server = ApiServer(cfg.port, 1, url, cfg.redis, logs / "uvicorn-holds.log")
        try:
            server.start()
            spy = _py_spy(server, cfg, profile) if profile and i == 0 else None
            runs.append(await api_holds(cfg, server, plan, keys))
            if spy is not None:
                spy.wait(30)
            errors += server.log_errors()
        finally:
            server.stop()
        probes.append(await chain_probe(url, f"the API's run {i + 1}", runs[-1].ok))
        if sql is None:
            print("2. the same transaction in SQL", flush=True)
            sql = await sql_holds(cfg, url, plan, keys)
            probes.append(await chain_probe(url, "the direct-SQL run", sql.ok))
    assert sql is not None
    probes.append(f"at the end: {await lapsed_probe(url, plan)}; load average {_loadavg()}")
    return HoldRuns(runs, sql, probes, errors)


async def chain_probe(url: str, phase: str, holds: int = 0) -> str:
    """Chain the audit events a phase left (what the worker's relay does after commits, off the holds' path: no relay
    runs in this bench) and say what it took, per hold of the phase."""
    conn = await asyncpg.connect(url)
    try:
        t = time.perf_counter()
        n = await chain_all_pending(conn)
        took = time.perf_counter() - t
    finally:
        await conn.close()
    per = f", {took * 1000 / holds:.2f} ms a hold" if holds else ""
    return (f"the relay's chaining of the {n:,} audit events {phase} wrote (migration 0032a, done after the phase "
            f"on one connection): {took * 1000:.0f} ms{per}")


def _loadavg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _py_spy(server: ApiServer, cfg: Config, out: str) -> subprocess.Popen[bytes]:
    """py-spy recording the API worker over the measured seconds of a phase (it starts after the warm-up)."""
    return _spy(server.worker_pids()[0], out, cfg.seconds, cfg.warmup)


def _spy(pid: int, out: str, seconds: float, after: float) -> subprocess.Popen[bytes]:
    """py-spy recording process `pid` for `seconds`, `after` seconds from now (raw stacks to `out`)."""
    local = Path(sys.executable).with_name("py-spy")
    spy = local if local.exists() else Path(shutil.which("py-spy") or "py-spy")
    cmd = [str(spy), "record", "--pid", str(pid), "--duration", str(int(seconds)),
           "--rate", "200", "--format", "raw", "--nonblocking", "-o", out]
    with open(out + ".log", "wb") as log:
        return subprocess.Popen(["sh", "-c", f"sleep {after}; exec " + " ".join(cmd)],
                                stdout=log, stderr=subprocess.STDOUT)
