"""One flash sale on real API processes: set up, warm up, sell out, check in SQL, and what it measured."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import asyncpg

from bench import _flash_data
from bench._flash_buyers import MapView, Sale, load_map
from bench._flash_checks import Checks, check
from bench._flash_config import SEAT_MAP, Config, Stats
from bench._flash_probe import Activity, sample_activity, statements_ready, top_statements
from bench._http import Connection
from bench._measure import CpuMeter
from bench._rt_proc import start_profile, summarize, wait_profile
from bench._server import ApiServer
from schema.ids import Kind, ref

PROFILE_RATE = 100
MARKERS: list[tuple[str, str, str]] = [
    ("HTTP request (uvicorn → app)", "run_asgi", "uvicorn/protocols/http"),
    ("GraphQL execution", "execute", "graphql/execution"),
    ("  parse + validate", "validate", "graphql/validation"),
    ("resolver lockBestSeats", "lock_best_seats", "resolvers/seatmaps.py"),
    ("resolver lockSeats", "lock_seats", "resolvers/seatmaps.py"),
    ("resolver confirm", "confirm", "resolvers/checkout.py"),
    ("use case: seat views (the asked seats' occupants)", "_views", "domain/seatmaps.py"),
    ("  best available: choose_best", "choose_best", "store/seatmaps.py"),
    ("  customers.identify", "identify", "store/customers.py"),
    ("  the gated insert (lock_and_add)", "lock_and_add", "store/bookings.py"),
    ("  seat_resources (config pool)", "seat_resources", "store/units.py"),
    ("unit of work commit", "commit", "store/uow.py"),
    ("authentication (token → principal)", "principal", "api/auth.py"),
    ("use case: _book (the hold path)", "_book", "domain/services/holds.py"),
    ("use case: checkout.confirm", "confirm", "domain/checkout.py"),
    ("access: authorize", "authorize_unit", "resolvers/permissions.py"),
    ("asyncpg", "", "asyncpg/"),
    ("JSON encoding", "dumps", "json/"),
    ("garbage collection", "gc_collect_main", ""),
]


@dataclass
class Measured:
    cfg: Config
    stats: Stats
    wall: float
    cpu: CpuMeter
    idle: CpuMeter
    checks: Checks
    map_read: tuple[float, int]
    """(seconds, bytes) of the seatMap read that gave the buyers their first view."""
    activity: Activity
    statements: list[str]
    profiles: list[str] = field(default_factory=list)
    rss: list[tuple[str, float]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    commit: str = ""


async def _warm_up(cfg: Config, conns: list[Connection], event: str, sections: list[str]) -> None:
    """Every connection open, every worker's caches filled: a few purchases on another event of the map."""
    stats = Stats()
    view = await load_map(conns[0], stats, event)
    if cfg.warmup > 0:
        warm = Sale(replace(cfg, time_limit=cfg.warmup), event, sections, view, stats, itertools.count(10_000_000))
        await warm.run(conns[:16])


async def measure(cfg: Config, logs: Path) -> Measured:
    print(f"setup: database {cfg.db}, {cfg.seats:,} seats ({cfg.sections} sections × {cfg.rows} rows × "
          f"{cfg.per_row}), {cfg.buyers} buyers…", flush=True)
    if cfg.fresh:
        await _flash_data.reset(cfg)
    sale_data = await _flash_data.setup(cfg)
    with CpuMeter() as idle:  # anything else running on the machine skews every figure
        await asyncio.sleep(1)
    server = ApiServer(cfg.port, cfg.workers, cfg.url, cfg.redis, logs / "flash-api.log",
                       env={"SLOTHOLD_DB_POOL_MAX": str(cfg.pool_max)})
    conns = [Connection("127.0.0.1", cfg.port) for _ in range(cfg.buyers)]
    try:
        server.start()
        event = ref(Kind.SEAT_EVENT, sale_data.event.id)
        await _warm_up(cfg, conns, ref(Kind.SEAT_EVENT, sale_data.warmup.id), sale_data.sections)
        if cfg.analyze:  # the statistics autovacuum keeps of a live venue's tables (this server runs without it)
            db = await asyncpg.connect(cfg.url)
            try:
                await db.execute("ANALYZE")
            finally:
                await db.close()
        stats = Stats()
        t = time.perf_counter()
        _, body = await conns[0].post_json("/graphql", {"query": SEAT_MAP, "variables": {"e": event}})
        map_read = (time.perf_counter() - t, len(body))
        view = MapView(json.loads(body)["data"]["r"])
        sale = Sale(cfg, event, sale_data.sections, view, stats)
        for c in conns:  # uvicorn closes a connection idle for 5 s: every buyer's is fresh when the sale opens,
            await c.close()  # opened one at a time, which spreads them over the workers (a burst of 500 did not)
            await c.post_json("/graphql", {"query": "{ __typename }"})
        stop = asyncio.Event()
        pss = await statements_ready(cfg.url)
        sampler = asyncio.create_task(sample_activity(f"{cfg.server_url}/postgres", cfg.db, stop))
        pids = server.worker_pids() if cfg.profile else []
        raws = [logs / f"flash-{pid}.pyspy.txt" for pid in pids]
        profilers = [start_profile(pid, cfg.profile_seconds, raw, PROFILE_RATE) for pid, raw in zip(pids, raws,
                                                                                                    strict=True)]
        print(f"sale: {cfg.buyers} buyers on {cfg.seats:,} seats…", flush=True)
        with CpuMeter(server, cfg.db) as cpu:
            wall = await sale.run(conns)
        stop.set()
        activity = await sampler
        profiles: list[str] = []
        for p, raw in zip(profilers, raws, strict=True):
            err = wait_profile(p)
            busy = raw.with_suffix(".busy.txt")  # without the supervisor's ping thread, blocked in read() all along
            if raw.exists():
                busy.write_text("".join(ln for ln in raw.read_text(errors="replace").splitlines(keepends=True)
                                        if "always_pong" not in ln))
            lines = summarize(busy, cfg.profile_seconds, PROFILE_RATE, top=16, markers=MARKERS)
            profiles.append(f"py-spy of an API worker ({raw.name}){': ' + err if err else ''}: " + " · ".join(lines))
        statements = await top_statements(cfg.url) if pss else [
            "pg_stat_statements: not in this server's shared_preload_libraries (a shared server: not restarted for "
            "it), so the statements' shares come from the pg_stat_activity samples above"]
        after = await load_map(Connection("127.0.0.1", cfg.port), Stats(), event)  # the buyers' may have idled out
        db = await asyncpg.connect(cfg.url)
        try:
            checks = await check(db, sale_data.unit_id, sale_data.seat_map_id, sale_data.event.id, stats,
                                 after.counts)
        finally:
            await db.close()
        rss, errors = server.rss_mib(), server.log_errors()
    finally:
        for c in conns:
            await c.close()
        server.stop()
    return Measured(cfg, stats, wall, cpu, idle, checks, map_read, activity, statements, profiles, rss, errors)

