"""Topology: the storm's traffic and checks on a scale-out topology, with its faults (issue 21).

    .venv/bin/python -m bench.topology                 # 60 s, 3 APIs, 2 workers, every fault; prints the report
    .venv/bin/python -m bench.topology --record        # ... and appends it to bench/RESULTS.md

Everything runs on this machine: a PostgreSQL primary and a streaming replica of it (the system's PostgreSQL:
initdb, pg_basebackup -R), PgBouncer in transaction mode in front of the primary, a Redis primary with a replica
and 3 sentinels, 3 API processes (pools through PgBouncer, public reads on the replica) and 2 workers (relays on a
direct session). The storm (bench/storm.py) plays its customers and staff for a bounded time while, at fixed
points, the replica is stopped and restarted, the Redis primary is SIGKILLed (a sentinel promotes its replica),
PgBouncer is restarted and an API process is SIGKILLed; then the storm's after-the-fact checks (invariants,
subscriber streams, idempotent retries, audit chains, every paid charge accounted) and figures, plus the failover
time, PgBouncer's downtime, the replica's lag and the PostgreSQL backends used.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from bench._storm_config import SECRET, Config, Stats
from bench._storm_system import System, wait_http
from bench.storm import render, run
from slothold.cli.embedded.pgbouncer import PgBouncer, start_pgbouncer
from slothold.cli.embedded.replica import PrimaryWithReplica
from slothold.cli.embedded.sentinel import RedisSentinelGroup
from slothold.settings import PROJECT_ROOT

MAX_LAG = 2.0
START_TIMEOUT = 150.0
"""Seconds an API process may take to answer /healthz (a loaded 2-core machine starts five at once)."""


@dataclass
class Figures:
    failover_seconds: list[float] = field(default_factory=list)
    pgbouncer_down_seconds: list[float] = field(default_factory=list)
    lag_peak: float = 0.0
    """The highest finite replica lag an API reported."""
    lag_samples: int = 0
    lag_unavailable: int = 0
    """Samples in which the replica could not be measured (stopped, or restarting)."""


class Topology(System):
    """The storm's System on the topology: same processes and interface, other surroundings."""

    start_timeout = START_TIMEOUT

    def __init__(self, cfg: Config, db_url: str, logs: Path, pair: PrimaryWithReplica, figures: Figures) -> None:
        self.cfg, self.db_url, self.logs, self.pair, self.figures = cfg, db_url, logs, pair, figures
        name = urlsplit(db_url).path.lstrip("/")
        replica_url = urlunsplit(urlsplit(pair.replica.url)._replace(path=f"/{name}"))
        self.bouncer: PgBouncer = start_pgbouncer(logs / "pgbouncer", db_url, pool_size=cfg.pgbouncer,
                                                  max_db_connections=cfg.pgbouncer)
        self.sentinels = RedisSentinelGroup(logs / "redis", replicas=1, sentinels=3).start()
        self.env = {**os.environ, "DATABASE_URL": self.bouncer.url_for(db_url), "DATABASE_DIRECT_URL": db_url,
                    "DATABASE_READ_URL": replica_url, "SLOTHOLD_REPLICA_MAX_LAG_SECONDS": str(MAX_LAG),
                    "REDIS_URL": "redis:///0", "REDIS_SENTINELS": self.sentinels.sentinel_spec,
                    "REDIS_SENTINEL_MASTER": self.sentinels.master,
                    "SLOTHOLD_LOG_LEVEL": "WARNING", "SLOTHOLD_SWEEP_SECONDS": "5",
                    "SLOTHOLD_PIX_PROVIDER": "sandbox", "SLOTHOLD_SANDBOX_WEBHOOK_SECRET": SECRET}
        self.processes(cfg, logs)

    def stop(self) -> None:
        for p in [*self.workers, *self.apis]:
            p.stop()
        self.sentinels.stop()
        self.bouncer.stop()


async def _sample_lag(system: Topology, stop: asyncio.Event) -> None:
    async with httpx.AsyncClient(timeout=2) as http:
        while not stop.is_set():
            for port in system.ports[:1]:
                try:
                    text = (await http.get(f"http://127.0.0.1:{port}/metrics")).text
                except httpx.HTTPError:
                    continue
                lags = [float(line.split()[-1]) for line in text.splitlines()
                        if line.startswith("slothold_replica_lag_seconds{")]
                if lags:
                    system.figures.lag_samples += 1
                    if any(math.isinf(x) for x in lags):
                        system.figures.lag_unavailable += 1
                    else:
                        system.figures.lag_peak = max(system.figures.lag_peak, *lags)
            try:
                await asyncio.wait_for(stop.wait(), 0.5)
            except TimeoutError:
                pass


async def _watch_connections(system: Topology, stop: asyncio.Event) -> None:
    """Every second, what the primary's backends and PgBouncer's pools are doing, into logs/connections.log — to
    tell, when the run stalls, who holds the server connections (a diagnosis log, not a figure)."""
    import asyncpg

    out = (system.logs / "connections.log").open("a")
    try:
        while not stop.is_set():
            stamp = time.strftime("%H:%M:%S")
            try:
                conn = await asyncpg.connect(system.db_url, timeout=2)
                try:
                    rows = await conn.fetch(
                        "SELECT pid, application_name AS app, state, wait_event_type AS wt, wait_event AS w, "
                        "round(extract(epoch FROM now() - xact_start)::numeric, 1) AS xact_s, "
                        "left(regexp_replace(query, '\\s+', ' ', 'g'), 100) AS q FROM pg_stat_activity "
                        "WHERE datname = current_database() AND pid <> pg_backend_pid() ORDER BY xact_start")
                finally:
                    await conn.close()
                out.write(f"{stamp} backends {len(rows)}\n" + "".join(f"  {dict(r)}\n" for r in rows))
            except Exception as e:  # a diagnosis: what failed is itself the news
                out.write(f"{stamp} primary: {e!r}\n")
            try:
                admin = await asyncpg.connect(system.bouncer.admin_url, timeout=2, statement_cache_size=0)
                try:
                    pools = await admin.fetch("SHOW POOLS")
                finally:
                    await admin.close()
                out.write("".join(f"  pool {dict(r)}\n" for r in pools))
            except Exception as e:
                out.write(f"{stamp} pgbouncer: {e!r}\n")
            out.flush()
            try:
                await asyncio.wait_for(stop.wait(), 1)
            except TimeoutError:
                pass
    finally:
        out.close()


async def topology_faults(cfg: Config, system: Topology, stop: asyncio.Event, stats: Stats, t0: float) -> None:
    """The topology's faults at fixed points of the storm (and the replica's lag sampled throughout)."""
    sampler = asyncio.create_task(_sample_lag(system, stop))
    watcher = asyncio.create_task(_watch_connections(system, stop))
    plan = [(0.2, "replica stopped, restarted 4 s later"), (0.4, "Redis primary SIGKILL"),
            (0.6, "PgBouncer restarted"), (0.8, "api1 SIGKILL, restarted")]
    for at, what in plan:
        delay = t0 + at * cfg.seconds - time.monotonic()
        if delay > 0:
            try:
                await asyncio.wait_for(stop.wait(), delay)
                break
            except TimeoutError:
                pass
        stats.faults.append((time.monotonic() - t0, what))
        if what.startswith("replica"):
            await asyncio.to_thread(system.pair.stop_replica)
            await asyncio.sleep(4)
            await asyncio.to_thread(system.pair.restart_replica)
        elif what.startswith("Redis"):
            started = time.monotonic()
            old = await asyncio.to_thread(system.sentinels.kill_master)
            await asyncio.to_thread(system.sentinels.wait_failover, old, 30)
            took = time.monotonic() - started
            system.figures.failover_seconds.append(took)
            stats.faults[-1] = (stats.faults[-1][0], f"{what}: replica promoted in {took:.1f} s")
            await asyncio.sleep(2)
            await asyncio.to_thread(system.sentinels.restart, old)  # it comes back as a replica
        elif what.startswith("PgBouncer"):
            started = time.monotonic()
            port = system.bouncer.port
            await asyncio.to_thread(system.bouncer.stop)
            system.bouncer = await asyncio.to_thread(
                start_pgbouncer, system.logs / "pgbouncer", system.db_url, cfg.pgbouncer, cfg.pgbouncer, port)
            took = time.monotonic() - started
            system.figures.pgbouncer_down_seconds.append(took)
            stats.faults[-1] = (stats.faults[-1][0], f"{what}: down {took:.1f} s")
        else:
            i = 1 % len(system.apis)
            system.apis[i].kill()
            system.apis[i].start()
            await asyncio.to_thread(wait_http, system.ports[i], system.apis[i], START_TIMEOUT)
    await sampler
    await watcher


async def run_topology(cfg: Config, logs: Path | None = None) -> tuple[dict[str, Any], Figures]:
    """Start the primary and its replica, then the storm on the topology; (the storm's report, the figures)."""
    logs = logs or Path(tempfile.mkdtemp(prefix="slothold-topology-"))
    pair = await asyncio.to_thread(PrimaryWithReplica(logs / "pg").start)
    figures = Figures()
    try:
        server = urlunsplit(urlsplit(pair.primary.url)._replace(path=""))
        cfg = replace(cfg, server_url=server, pgbouncer=cfg.pgbouncer or 8)
        report = await run(cfg, logs, make_system=lambda c, url, lg: Topology(c, url, lg, pair, figures),
                           inject=topology_faults)
        return report, figures
    finally:
        await asyncio.to_thread(pair.stop)


def render_topology(report: dict[str, Any], figures: Figures) -> str:
    cfg: Config = report["config"]
    text = render(report).replace("### Storm", "### Topology", 1)
    lag = (f"replica lag at most {figures.lag_peak:.2f} s (bound {MAX_LAG:.0f} s) over {figures.lag_samples} "
           f"samples, unmeasurable in {figures.lag_unavailable} (the replica stopped)")
    extra = ("Topology: PostgreSQL primary + streaming replica (pg_basebackup -R), PgBouncer in transaction mode "
             f"({cfg.pgbouncer} server connections), Redis primary + replica + 3 sentinels. Redis failover "
             + (", ".join(f"{s:.1f} s" for s in figures.failover_seconds) or "not reached")
             + "; PgBouncer restart " + (", ".join(f"{s:.1f} s" for s in figures.pgbouncer_down_seconds)
                                         or "not reached") + f"; {lag}.\n")
    return text + extra


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.topology", description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--customers", type=int, default=2000)
    p.add_argument("--concurrency", type=int, default=32)
    p.add_argument("--apis", type=int, default=3)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--pgbouncer", type=int, default=8, metavar="N", help="PgBouncer's server connections")
    p.add_argument("--record", action="store_true", help="append the report to bench/RESULTS.md")
    a = p.parse_args(argv)
    cfg = Config(seconds=a.seconds, customers=a.customers, concurrency=a.concurrency, apis=a.apis,
                 workers=a.workers, faults=True, database="slothold_topology", pgbouncer=a.pgbouncer)
    report, figures = asyncio.run(run_topology(cfg))
    text = render_topology(report, figures)
    print(text)
    if a.record:
        with (PROJECT_ROOT / "bench" / "RESULTS.md").open("a") as f:
            f.write("\n" + text)
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
