"""Storm: the whole system under a realistic load with faults injected, then SPEC §4 checked (issue 11).

    .venv/bin/python -m bench.storm                 # 90 s storm, 3 APIs, 2 workers, faults; prints the report
    .venv/bin/python -m bench.storm --record        # ... and appends it to bench/RESULTS.md
    .venv/bin/python -m bench.storm --seconds 20 --customers 300 --no-faults
    .venv/bin/python -m bench.storm --pgbouncer 8    # ... through PgBouncer (transaction mode), 8 server connections

It drops and recreates one database (`slothold_storm` on the server of DATABASE_URL, default the machine's
PostgreSQL), starts its own Redis (so it can stop and start it), 3 API processes and 2 workers, then lets simulated
customers and staff hold, confirm, pay (signed sandbox webhooks, some duplicated, some late), cancel, drop, swap,
reschedule and join waitlists, with websocket subscribers on every unit and deadlines expiring throughout. Faults
while it runs: a worker SIGKILLed and restarted, Redis stopped and started, an API process restarted, PostgreSQL
connections cut, the other worker SIGKILLed. Afterwards store/invariants.py checks the database and the audit trail,
the subscribers' streams are compared with the outbox (every event of its unit, in order, once), every idempotent
retry must have produced one booking, and the audit hash chains must verify. Exit status 1 when anything fails.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from bench._data import migrate, reset_database
from bench._storm_actors import Storm, setup_venues
from bench._storm_checks import caught_up, outbox_drained, slot_seqs
from bench._storm_client import Client
from bench._storm_config import HARNESS, SECRET, Config, Stats
from bench._storm_subscriber import Subscriber
from bench._storm_system import System, faults
from bench._storm_watch import WATCHED, sample_memory, scrape_metrics
from providers.sandbox import SandboxProvider
from slothold.settings import PROJECT_ROOT
from store.access import issue_system_token_blocking
from store.db import create_pool
from store.invariants import check, summary

# The pieces: _storm_config (settings, documents, counters), _storm_system (processes, faults), _storm_watch
# (/metrics, memory), _storm_client, _storm_actors (customers, staff, venues), _storm_subscriber, _storm_checks.


def pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] * 1000


async def run(cfg: Config, logs: Path | None = None, make_system: Any = None, inject: Any = None) -> dict[str, Any]:
    """One storm; returns the report (see `render`); report["ok"] says whether every check passed. `make_system`
    (cfg, database url, logs) → a System-like set of processes and `inject` (faults' signature) replace the storm's
    own (bench/topology.py)."""
    rng = random.Random(cfg.seed)
    logs = logs or Path(tempfile.mkdtemp(prefix="slothold-storm-"))
    db_url = await reset_database(cfg.server_url, cfg.database)
    await asyncio.to_thread(migrate, db_url)
    # The harness's own connections (its bank and its checks) are not the system's: the PostgreSQL fault spares them.
    pool = await create_pool(db_url, 2, 8, application_name=HARNESS)
    system: System | None = None
    stats = Stats()
    try:
        venues = await setup_venues(pool, cfg)
        token = await asyncio.to_thread(issue_system_token_blocking, db_url, "storm")
        system = (make_system or System)(cfg, db_url, logs)
        await asyncio.to_thread(system.start)
        client = Client(system.ports, token, stats, rng)
        storm = Storm(cfg, client, SandboxProvider(pool, SECRET), venues, stats, rng)
        subscribers = [Subscriber(v.unit_id, system.ports, token, random.Random(rng.random()))
                       for v in venues for _ in range(cfg.subscribers)]
        stop, sub_stop = asyncio.Event(), asyncio.Event()
        sub_tasks = [asyncio.create_task(s.run(sub_stop)) for s in subscribers]
        mem = asyncio.create_task(sample_memory(system, stats, sub_stop, pool))
        scraper = asyncio.create_task(scrape_metrics(system, stats, sub_stop))
        await asyncio.sleep(1.0)
        t0 = time.monotonic()
        actors = [asyncio.create_task(storm.actor(stop)) for _ in range(cfg.concurrency)]
        fault_task = asyncio.create_task((inject or faults)(cfg, system, stop, stats, t0)) if cfg.faults else None
        await asyncio.sleep(cfg.seconds)
        stop.set()
        elapsed = time.monotonic() - t0
        await asyncio.wait(actors, timeout=90)
        if fault_task:
            await fault_task
        # Settle: the relay publishes what is left, sweeps run, subscribers catch up. Deadlines keep passing (new
        # events), so each subscriber is then judged on every event up to the last one it saw, and must have reached
        # what the database had when it stopped.
        drained = await outbox_drained(pool, 60)
        await asyncio.sleep(cfg.settle_seconds)
        reached = await caught_up(pool, subscribers, 30)
        sub_stop.set()
        await asyncio.gather(*sub_tasks, mem, scraper)
        await client.close()

        violations = await check(pool, sweep_grace=timedelta(seconds=5 + 10))
        streams: list[str] = []
        for v in venues:
            every = await slot_seqs(pool, v.unit_id)
            for i, s in enumerate(s for s in subscribers if s.unit == v.unit_id):
                expected = [q for q in every if q <= (s.seqs[-1] if s.seqs else 0)]
                if s.unit not in reached:
                    streams.append(f"unit {v.unit_id} subscriber {i}: stalled at {s.seqs[-1] if s.seqs else None}")
                elif s.seqs != expected:
                    missing = sorted(set(expected) - set(s.seqs))
                    dupes = len(s.seqs) - len(set(s.seqs))
                    streams.append(f"unit {v.unit_id} subscriber {i}: {len(s.seqs)} of {len(expected)} events, "
                                   f"{len(missing)} missing (first {missing[:5]}), {dupes} duplicated, "
                                   f"ordered={s.seqs == sorted(s.seqs)}")
        idem = [f"key {k}: {sorted(ids)}" for k, ids in stats.keys.items() if len(ids) > 1]
        from slothold.cli.audit import verify
        _, breaks = await verify(pool, None)
        counts = {r["status"]: r["n"] for r in await pool.fetch(
            "SELECT status, count(*) AS n FROM bookings GROUP BY status ORDER BY status")}
        report = {
            "config": cfg, "elapsed": elapsed, "stats": stats, "violations": violations, "streams": streams,
            "idempotency": idem, "chain_breaks": breaks, "outbox_drained": drained, "bookings": counts,
            "events": sum(len(s.seqs) for s in subscribers), "reconnects": sum(s.reconnects for s in subscribers),
            "subscriber_errors": [e for s in subscribers for e in s.errors],
            "error_lines": system.error_lines(), "logs": str(logs),
        }
        report["ok"] = not violations and not streams and not idem and not breaks and drained
        return report
    finally:
        if system is not None:
            system.stop()
        await pool.close()


def render(r: dict[str, Any]) -> str:
    cfg: Config = r["config"]
    st: Stats = r["stats"]
    lines = [f"### Storm {datetime.now(UTC):%Y-%m-%d %H:%M} UTC — {'PASS' if r['ok'] else 'FAIL'}", "",
             f"{cfg.seconds:.0f} s, {cfg.apis} API processes, {cfg.workers} workers, {cfg.units} units × "
             f"{cfg.fields} fields + a class of 6, {cfg.customers} customers, {cfg.concurrency} concurrent actors, "
             f"{cfg.subscribers * cfg.units} subscribers, faults {'on' if cfg.faults else 'off'}"
             + (f", through PgBouncer (transaction mode, {cfg.pgbouncer} server connections)" if cfg.pgbouncer else "")
             + f"; at most {st.backends} PostgreSQL backends at once.", "",
             "| operation | requests/s | p50 ms | p99 ms | outcomes |", "|---|---|---|---|---|"]
    ops = sorted(st.latency)
    for op in ops:
        outs = ", ".join(f"{o} {n}" for (k, o), n in sorted(st.outcomes.items()) if k == op)
        lines.append(f"| {op} | {len(st.latency[op]) / r['elapsed']:.1f} | {pct(st.latency[op], 0.5):.0f} | "
                     f"{pct(st.latency[op], 0.99):.0f} | {outs} |")
    total = sum(len(v) for v in st.latency.values())
    lines += ["", f"Total {total} requests ({total / r['elapsed']:.0f}/s). Bookings by state at the end: "
              + ", ".join(f"{k} {v}" for k, v in r["bookings"].items()) + ".",
              "Errors by type (retried on another API where it makes sense): "
              + (", ".join(f"{op} {kind} {n}" for (op, kind), n in sorted(st.errors.items())) or "none") + ".",
              "Faults: " + ("; ".join(f"at {t:.0f} s {w}" for t, w in st.faults) or "none") + ".",
              "Peak memory (MiB): " + ", ".join(f"{k} {v:.0f}" for k, v in sorted(st.rss.items())) + ".",
              f"Subscribers received {r['events']} events with {r['reconnects']} reconnections"
              + (f" ({len(r['subscriber_errors'])} after an error answer, e.g. {r['subscriber_errors'][0][:200]})"
                 if r["subscriber_errors"] else "") + ".",
              f"/metrics read {st.scrapes} times while it ran ({st.scrape_failures} failed: a process restarting); "
              "peaks: " + (", ".join(f"{WATCHED[k]} {v:.0f}" for k, v in sorted(st.peaks.items())) or "none")
              + ".", "",
              "Checks: "
              + f"invariants {'OK' if not r['violations'] else summary(r['violations'])}; "
              + f"subscriber streams {'OK' if not r['streams'] else len(r['streams'])}; "
              + f"idempotent retries {'OK' if not r['idempotency'] else len(r['idempotency'])}; "
              + f"audit chains {'OK' if not r['chain_breaks'] else len(r['chain_breaks'])}; "
              + f"outbox drained {'yes' if r['outbox_drained'] else 'NO'}."]
    for v in r["violations"][:20]:
        lines.append(f"- {v.check}: {v.detail}")
    lines += [f"- {s}" for s in r["streams"][:10]] + [f"- idempotency {s}" for s in r["idempotency"][:10]]
    if r["error_lines"]:
        lines.append(f"Process logs had {len(r['error_lines'])} error lines (logs in {r['logs']}), e.g.: "
                     + r["error_lines"][0][:300])
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.storm", description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=90)
    p.add_argument("--customers", type=int, default=3000)
    p.add_argument("--concurrency", type=int, default=48)
    p.add_argument("--apis", type=int, default=3)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--no-faults", action="store_true")
    p.add_argument("--pgbouncer", type=int, default=0, metavar="N",
                   help="run through PgBouncer (transaction mode) with at most N server connections")
    p.add_argument("--record", action="store_true", help="append the report to bench/RESULTS.md")
    a = p.parse_args(argv)
    parts = urlsplit(os.environ.get("DATABASE_URL") or "postgresql://postgres@127.0.0.1:5432")
    server = urlunsplit(parts._replace(path="", query=""))
    cfg = Config(seconds=a.seconds, customers=a.customers, concurrency=a.concurrency, apis=a.apis,
                 workers=a.workers, faults=not a.no_faults, server_url=server, pgbouncer=a.pgbouncer)
    report = asyncio.run(run(cfg))
    text = render(report)
    print(text)
    if a.record:
        with (PROJECT_ROOT / "bench" / "RESULTS.md").open("a") as f:
            f.write("\n" + text)
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
