"""The realtime bench's run: a fresh database, raw Redis pub/sub first, then one API process per number of
subscribers against one worker; and the cleanup of its queue and database."""

from __future__ import annotations

import asyncio
import itertools
import subprocess
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from uuid import UUID, uuid4

import asyncpg
import redis.asyncio as aioredis

from bench import _data
from bench._measure import CpuMeter, ms, pct
from bench._rt_clients import RssSampler, Subscribers
from bench._rt_config import BENCH, HOLD_TTL, LOGS, Config
from bench._rt_drivers import MutationDriver, SqlDriver, event_payload
from bench._rt_phases import Step, check_step, run_phase, wait_all_subscribed
from bench._rt_proc import WorkerProcess, start_profile, summarize, wait_profile
from bench._rt_redis import ChannelObserver, RawResult, raw_pubsub
from bench._server import ApiServer
from domain.units import UnitParameters
from store.db import create_pool


@dataclass
class Results:
    raw: list[RawResult]
    steps: list[Step]
    worker_rss: float
    probes: list[str]
    errors: dict[str, list[str]]
    observer_duplicates: int
    client_pings: int
    code_at_end: tuple[str, list[str]]


async def setup(cfg: Config) -> tuple[str, _data.SlotPlan, UnitParameters]:
    url = await _data.reset_database(cfg.pg, cfg.db)
    await asyncio.to_thread(_data.migrate, url)
    now = datetime.now(UTC)
    pool = await create_pool(url, 1, 2)
    try:
        plan = await _data.hold_unit(pool, cfg.resources, now)
        async with pool.acquire() as conn:  # holds last an hour: nothing expires or is reminded meanwhile
            await conn.execute("UPDATE units SET hold_ttl_seconds = $2 WHERE id = $1", plan.unit_id,
                               int(HOLD_TTL.total_seconds()))
    finally:
        await pool.close()
    # Slots starting 3 h+ ahead: every hold gets the full TTL (the deadline is capped at start − min_advance).
    slots = [(s, e) for s, e in plan.slots if s >= now + timedelta(hours=3)]
    return url, _data.SlotPlan(plan.unit_id, plan.tenant_id, plan.resource_ids, slots), UnitParameters(
        hold_ttl=HOLD_TTL)


async def wait_relay(url: str, unit_id: UUID, timeout: float = 60) -> None:
    """Until the worker's relay publishes: an event of a topic no subscription serves gets published_at.

    (It must be a real unit: unit_sequences references units, and the relay retries a batch with an
    unknown unit forever.)"""
    conn = await asyncpg.connect(url)
    try:
        oid = await conn.fetchval("INSERT INTO outbox (unit_id, topic, payload) VALUES ($1, 'probe', '{}') "
                                  "RETURNING id", unit_id)
        deadline = time.monotonic() + timeout
        while not await conn.fetchval("SELECT published_at IS NOT NULL FROM outbox WHERE id = $1", oid):
            if time.monotonic() > deadline:
                raise TimeoutError("the worker's relay published nothing in 60 s")
            await asyncio.sleep(0.1)
    finally:
        await conn.close()


def code_state() -> tuple[str, list[str]]:
    """HEAD and the tracked files changed in the working tree (the code the processes load)."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], capture_output=True, text=True, cwd=BENCH.parent).stdout

    changed = [ln[3:] for ln in git("status", "--porcelain", "--untracked-files=no").splitlines() if ln]
    return git("rev-parse", "--short", "HEAD").strip(), [f for f in changed if not f.startswith("bench/")]


async def measure(cfg: Config) -> Results:
    print(f"setup: database {cfg.db}, Redis {cfg.redis}", flush=True)
    url, plan, params = await setup(cfg)
    LOGS.mkdir(exist_ok=True)
    with CpuMeter() as idle:
        await asyncio.sleep(1)
    probes = [f"before the run the machine was busy {idle.machine:.2f} cores with other work"]

    # -------- raw Redis first, on a quiet machine
    message = {"unit_id": str(plan.unit_id), "topic": "slot_changed",
               "payload": event_payload(plan, params, 0, datetime.now(UTC))}
    raw: list[RawResult] = []
    for n in cfg.counts:
        print(f"raw Redis pub/sub, {n} subscriber{'s' if n > 1 else ''}", flush=True)
        r = await raw_pubsub(cfg.redis, f"slothold:bench:raw:{uuid4().hex[:8]}", n, cfg.rate, cfg.seconds,
                             cfg.burst(n), message)
        raw.append(r)
        print(f"    p50 {ms(pct(r.latencies, 50))}, p99 {ms(pct(r.latencies, 99))}, "
              f"{r.deliveries_per_s:,.0f} deliveries/s, lost {r.lost}", flush=True)

    # -------- the app: 1 worker process for the whole run; a fresh API process (1 uvicorn worker) per step,
    # so that each step's memory and speed owe nothing to the previous ones.
    worker = WorkerProcess(url, cfg.redis, LOGS / "realtime-worker.log")
    obs = ChannelObserver(cfg.redis, str(plan.unit_id))
    pool = await create_pool(url, cfg.sql_connections, cfg.sql_connections)
    mutations = MutationDriver(cfg.port, plan, itertools.count(), cfg.mutation_connections)
    sql = SqlDriver(pool, plan, params)
    steps: list[Step] = []
    errors: dict[str, list[str]] = {}
    pings = 0
    start, end = plan.slots[0][0] - timedelta(hours=1), plan.slots[-1][1] + timedelta(days=1)
    variables = {"unit": str(plan.unit_id), "from": start.isoformat(), "to": end.isoformat()}
    servers: list[ApiServer] = []
    try:
        worker.start()
        await wait_relay(url, plan.unit_id)
        await obs.start()
        for n in cfg.counts:
            step = Step(n)
            print(f"{n} subscriber{'s' if n > 1 else ''}", flush=True)
            server = ApiServer(cfg.port, 1, url, cfg.redis, LOGS / f"realtime-api-{n}.log")
            servers.append(server)
            server.start()
            step.code = code_state()
            await mutations.close()
            for _ in range(5):  # warm the API's connections, caches and prepared statements
                await mutations.fire(0)
            api_pid = server.worker_pids()[0]
            sampler = RssSampler(api_pid)
            step.rss_idle = sampler.now()
            subs = Subscribers(cfg.port, variables)
            try:
                t = time.monotonic()
                await subs.connect(n, cfg.connect_batch)
                step.connect_seconds = time.monotonic() - t
                t = time.monotonic()
                await wait_all_subscribed(cfg, subs, sql, server, worker)
                step.warmup_seconds = time.monotonic() - t
                step.rss_connected = sampler.now()
                sampler.max = 0.0
                with sampler:
                    k = max(1, round(cfg.rate * cfg.seconds))
                    await run_phase(cfg, step, subs, obs, mutations, server, worker, "hold mutations at "
                                    f"{cfg.rate:.0f}/s", k, cfg.rate)
                    await run_phase(cfg, step, subs, obs, sql, server, worker, "SQL inserts at "
                                    f"{cfg.rate:.0f}/s", k, cfg.rate)
                    await run_phase(cfg, step, subs, obs, sql, server, worker, "SQL burst", cfg.burst(n), None)
                    await run_phase(cfg, step, subs, obs, sql, server, worker, "SQL inserts at 1/s (one event "
                                    "at a time)", cfg.isolated, 1.0)
                    if cfg.profile and n == max(cfg.counts):
                        print("    profiling (py-spy) the API and the worker during one more SQL phase at "
                              f"{cfg.rate:.0f}/s", flush=True)
                        secs = cfg.seconds + 2
                        outs = {w: LOGS / f"realtime-{w}-{n}.pyspy.txt" for w in ("api", "worker")}
                        profs = {"api": start_profile(api_pid, secs, outs["api"]),
                                 "worker": start_profile(worker.pid, secs, outs["worker"])}
                        ph = await run_phase(cfg, step, subs, obs, sql, server, worker, "SQL inserts at "
                                             f"{cfg.rate:.0f}/s, profiled (not in the table)", k, cfg.rate)
                        step.phases.remove(ph)
                        for who, p in profs.items():
                            err = wait_profile(p)
                            step.profile.append(f"{who} ({outs[who].name})"
                                                + (f": py-spy failed: {err}" if err else ""))
                            step.profile += [f"  {line}" for line in summarize(outs[who], secs)]
                step.rss_max = sampler.max
                last_seq = await asyncpg_last_seq(url, plan.unit_id)
                await asyncio.sleep(0.5)
                subs.collect()
                step.received = subs.received
                pings += sum(s.pings for s in subs.subs)
            finally:
                await subs.close()
                await mutations.close()
                server.stop()
            errors[f"API ({n} subscribers)"] = server.log_errors()
            await check_step(step, url, plan.unit_id, last_seq)
            print(f"    check: {step.check}", flush=True)
            steps.append(step)
        worker_rss = worker.rss_mib()
    finally:
        await obs.stop()
        await mutations.close()
        await pool.close()
        worker.stop()
        for server in servers:
            server.stop()
    errors["worker"] = worker.log_errors()
    return Results(raw, steps, worker_rss, probes, errors, obs.duplicates, pings, code_state())


async def asyncpg_last_seq(url: str, unit_id: UUID) -> int:
    conn = await asyncpg.connect(url)
    try:
        return int(await conn.fetchval("SELECT coalesce(max(seq), 0) FROM outbox WHERE unit_id = $1", unit_id))
    finally:
        await conn.close()


async def cleanup(cfg: Config, keep_db: bool) -> None:
    """Unschedule the deadline jobs of this run's holds and the worker's crons (arq's queue in the bench's
    Redis database), drop the database unless asked to keep it."""
    url = f"{cfg.pg}/{cfg.db}"
    try:
        conn = await asyncpg.connect(url)
    except (OSError, asyncpg.PostgresError):
        return
    try:
        ours = {r["b"] for r in await conn.fetch("SELECT DISTINCT payload->>'booking_id' AS b FROM outbox")}
    finally:
        await conn.close()
    r = aioredis.Redis.from_url(cfg.redis)
    try:
        for member in await r.zrange("arq:queue", 0, -1):
            job = member.decode()
            kind, _, rest = job.partition(":")
            # Deadline jobs of this run's holds, and the worker's next cron runs (database 13 is the bench's).
            if (kind in ("expire", "remind") and rest.split(":", 1)[0] in ours) or kind == "cron":
                await r.zrem("arq:queue", member)
                await r.delete(f"arq:job:{job}")
    finally:
        await r.aclose()
    if not keep_db:
        admin = await asyncpg.connect(f"{cfg.pg}/postgres")
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{cfg.db}" WITH (FORCE)')
        finally:
            await admin.close()
