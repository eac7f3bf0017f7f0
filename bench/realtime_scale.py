"""Realtime at scale (issue 22, points 4 and 5): 10,000 websocket subscribers of slotChanged over 100 units on 2 API
processes at 1 event/s per unit, then a reconnect storm of 1,000 dashboards resuming with `since`.

    .venv/bin/python -m bench.realtime_scale [--quick] [--record | --no-record] [--before REV] [--profile]

Each variant (`before`: the API run from REV's tree, exported with `git archive`; `after`: this working tree) gets
two fresh API processes; one worker (the relay) serves the whole run. See bench/README.md ("Realtime at scale").
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import multiprocessing as mp
import re
import shutil
import signal
import subprocess
import tarfile
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any
from uuid import UUID

import asyncpg
import httpx
import psutil
import uvloop

from bench import _data, _rt_ws, _rts_client
from bench._measure import Report, ms, pct
from bench._rt_config import BENCH, HOLD_TTL, INSERT_EVENT, LOGS
from bench._rt_drivers import event_payload
from bench._rt_proc import WorkerProcess, start_profile, stop_profilers, stop_workers, summarize, wait_profile
from bench._rt_redis import ChannelObserver
from bench._rt_run import cleanup
from bench._server import ApiServer, stop_all
from domain.units import UnitParameters
from schema.ids import decode_id
from store.db import create_pool

SLOTS = """
subscription($unit: ID!, $from: DateTime!, $to: DateTime!, $since: Int) {
  slotChanged(unitId: $unit, from: $from, to: $to, since: $since) {
    seq event bookingId status state holdType displayColor slots { resourceId startsAt endsAt }
  }
}
"""


@dataclass(frozen=True)
class Config:
    quick: bool
    units: int = 100
    subscribers: int = 10_000
    apis: int = 2
    clients: int = 4
    seconds: float = 10.0  # of the 1 event/s per unit phase
    rate: float = 1.0  # events/s per unit
    dashboards: int = 1_000  # of the reconnect storm, on one more unit
    missed: int = 100  # events they miss
    live_after: int = 10  # events after the storm (at 2/s)
    catch_up_limit: float = 60.0
    resources: int = 4
    pg: str = "postgresql://postgres@127.0.0.1:5432"
    db: str = "slothold_bench_rts"
    redis: str = "redis://127.0.0.1:6379/13"
    port: int = 8767
    profile: bool = False

    @classmethod
    def make(cls, quick: bool, profile: bool) -> Config:
        if quick:
            return cls(quick, units=10, subscribers=500, clients=2, seconds=3.0, dashboards=100, missed=20,
                       live_after=4, profile=profile)
        return cls(quick, profile=profile)


# ------------------------------------------------------------------------------------------------ processes


class Clients:
    """The client processes (bench/_rts_client.py) and the subscribers they hold, by set name."""

    def __init__(self, n: int) -> None:
        ctx = mp.get_context("spawn")
        self.pipes: list[Connection] = []
        self.procs: list[Any] = []
        for _ in range(n):
            here, there = ctx.Pipe()
            p = ctx.Process(target=_rts_client.main, args=(there, _rt_ws.TOKEN), daemon=True)
            p.start()
            self.pipes.append(here)
            self.procs.append(p)
        self.layout: dict[str, list[list[int]]] = {}  # set → per client, the global indices it holds

    async def _all(self, *cmds: tuple[Any, ...]) -> list[Any]:
        for pipe, cmd in zip(self.pipes, cmds, strict=True):
            pipe.send(cmd)
        out = await asyncio.gather(*(asyncio.to_thread(p.recv) for p in self.pipes))
        for r in out:
            if isinstance(r, Exception):
                raise r
        return out

    async def connect(self, name: str, specs: list[tuple[int, dict[str, Any]]], batch: int) -> tuple[int, float]:
        n = len(self.pipes)
        share = [list(range(i, len(specs), n)) for i in range(n)]
        self.layout[name] = share
        t = time.monotonic()
        got = await self._all(*(("connect", name, SLOTS, [specs[j] for j in idx], batch) for idx in share))
        return sum(g[1] for g in got), time.monotonic() - t

    async def status(self, name: str) -> tuple[int, int, list[int]]:
        got = await self._all(*(("status", name),) * len(self.pipes))
        counts = [0] * sum(len(x) for x in self.layout[name])
        for idx, (_, _, per) in zip(self.layout[name], got, strict=True):
            for j, c in zip(idx, per, strict=True):
                counts[j] = c
        return sum(g[0] for g in got), sum(g[1] for g in got), counts

    async def collect(self, name: str) -> list[list[tuple[float, int | None, str | None, str]]]:
        got = await self._all(*(("collect", name),) * len(self.pipes))
        out: list[list[Any]] = [[] for _ in range(sum(len(x) for x in self.layout[name]))]
        for idx, per in zip(self.layout[name], got, strict=True):
            for j, msgs in zip(idx, per, strict=True):
                out[j] = msgs
        return out

    async def close(self, name: str) -> None:
        await self._all(*(("close", name),) * len(self.pipes))

    def cpu_seconds(self) -> float:
        total = 0.0
        for p in self.procs:
            with contextlib.suppress(psutil.Error):
                t = psutil.Process(p.pid).cpu_times()
                total += t.user + t.system
        return total

    def stop(self) -> None:
        for pipe in self.pipes:
            with contextlib.suppress(Exception):
                pipe.send(("quit",))
        for p in self.procs:
            p.join(10)
            if p.is_alive():
                p.kill()


class Cores:
    """Cores busy over a span: the API processes, the client processes, the worker, the whole machine."""

    def __init__(self, apis: list[ApiServer], clients: Clients, worker: WorkerProcess) -> None:
        self.apis, self.clients, self.worker = apis, clients, worker

    def _now(self) -> tuple[float, float, float, float, float]:
        c = psutil.cpu_times()
        busy = c.user + c.nice + c.system + c.irq + c.softirq + c.steal
        return (time.monotonic(), sum(a.cpu_seconds() for a in self.apis), self.clients.cpu_seconds(),
                self.worker.cpu_seconds(), busy)

    def __enter__(self) -> Cores:
        self._t0 = self._now()
        return self

    def __exit__(self, *exc: object) -> None:
        t1 = self._now()
        wall = t1[0] - self._t0[0]
        self.wall = wall
        self.api, self.client, self.worker_cores, self.machine = ((b - a) / wall for a, b in
                                                                  zip(self._t0[1:], t1[1:], strict=True))

    def describe(self) -> str:
        return (f"cores busy: API processes {self.api:.2f}, client processes {self.client:.2f}, worker "
                f"{self.worker_cores:.2f}, machine {self.machine:.2f} of {psutil.cpu_count()}")


# ------------------------------------------------------------------------------------------------ data


@dataclass
class Unit:
    plan: _data.SlotPlan
    keys: itertools.count[int] = field(default_factory=itertools.count)

    @property
    def id(self) -> UUID:
        return self.plan.unit_id


@dataclass
class Sent:
    unit: int
    booking: str
    t_commit: float


class Events:
    """Outbox inserts (what a hold's transaction adds): commit time = when the statement returned."""

    def __init__(self, pool: asyncpg.Pool, units: list[Unit], params: UnitParameters) -> None:
        self.pool, self.units, self.params = pool, units, params
        self.sent: dict[str, Sent] = {}

    async def fire(self, u: int) -> Sent:
        unit = self.units[u]
        payload = event_payload(unit.plan, self.params, next(unit.keys), datetime.now(UTC))
        async with self.pool.acquire() as conn:
            await conn.execute(INSERT_EVENT, unit.id, payload)
            s = Sent(u, payload["booking_id"], time.monotonic())
        self.sent[s.booking] = s
        return s


async def setup(cfg: Config) -> tuple[str, list[Unit], UnitParameters]:
    url = await _data.reset_database(cfg.pg, cfg.db)
    await asyncio.to_thread(_data.migrate, url)
    now = datetime.now(UTC)
    pool = await create_pool(url, 1, 2)
    units: list[Unit] = []
    try:
        for i in range(cfg.units + 1):  # the last one: the storm's
            unit_id, tenant_id, ids = await _data._venue(pool, f"Bench live {i:03d}", cfg.resources)
            slots = [(s, e) for s, e in _data.holdable_slots(now) if s >= now + timedelta(hours=3)]
            units.append(Unit(_data.SlotPlan(unit_id, tenant_id, ids, slots)))
        async with pool.acquire() as conn:
            await conn.execute("UPDATE units SET hold_ttl_seconds = $1", int(HOLD_TTL.total_seconds()))
    finally:
        await pool.close()
    return url, units, UnitParameters(hold_ttl=HOLD_TTL)


def export_tree(rev: str) -> Path:
    """REV's tracked files in a temporary directory (the `before` API runs from there)."""
    out = Path(tempfile.mkdtemp(prefix="slothold-before-"))
    archive = subprocess.run(["git", "archive", rev], cwd=BENCH.parent, capture_output=True, check=True).stdout
    with tempfile.TemporaryFile() as f:
        f.write(archive)
        f.seek(0)
        with tarfile.open(fileobj=f) as tar:
            tar.extractall(out, filter="data")
    return out


def feeds(api: ApiServer) -> float | None:
    """The API's slothold_event_feeds gauge (None when its code has none)."""
    try:
        text = httpx.get(api.base_url + "/metrics", timeout=5).text
    except httpx.HTTPError:
        return None
    m = re.search(r"^slothold_event_feeds (\S+)$", text, re.M)
    return float(m.group(1)) if m else None


def rss(api: ApiServer) -> float:
    return sum(v for role, v in api.rss_mib() if role == "worker")


# ------------------------------------------------------------------------------------------------ measuring


@dataclass
class Variant:
    name: str
    code: str
    subscribers: int = 0
    connect_seconds: float = 0.0
    warmup_seconds: float = 0.0
    rss_idle: list[float] = field(default_factory=list)
    rss_connected: list[float] = field(default_factory=list)
    rss_end: list[float] = field(default_factory=list)
    per_api: list[int] = field(default_factory=list)
    live: dict[str, Any] = field(default_factory=dict)
    storm: dict[str, Any] = field(default_factory=dict)
    check: Counter[str] = field(default_factory=Counter)
    storm_check: Counter[str] = field(default_factory=Counter)
    profile: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


async def wait_frames(clients: Clients, name: str, limit: float, *, each: list[int] | None = None,
                      total: int | None = None) -> bool:
    """Until subscriber j of the set has each[j] frames, or the set `total` frames (False: `limit` s passed without
    progress)."""
    last, since = -1, time.monotonic()
    while True:
        got, _, counts = await clients.status(name)
        if (each is not None and all(c >= w for c, w in zip(counts, each, strict=True))) or (
                total is not None and got >= total):
            return True
        if got != last:
            last, since = got, time.monotonic()
        elif time.monotonic() - since > limit:
            return False
        await asyncio.sleep(0.05)


async def warm(clients: Clients, name: str, events: Events, units: list[int]) -> None:
    """Events on the set's units until every subscriber got one (its subscription is live)."""
    deadline = time.monotonic() + 300
    while True:
        _, empty, _ = await clients.status(name)
        if not empty:
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"{empty} subscribers of {name} received nothing in 300 s")
        await asyncio.gather(*(events.fire(u) for u in units))
        await asyncio.sleep(0.5)


def check(received: list[list[tuple[float, int | None, str | None, str]]], unit_of: list[int],
          seqs_of: dict[int, list[int]], until: dict[int, int], after: list[int] | None = None) -> Counter[str]:
    """Every subscriber got every slot event of its unit from its first one (or after `after`) to `until`, once
    each, in order."""
    c: Counter[str] = Counter()
    for j, msgs in enumerate(received):
        nexts = [m for m in msgs if m[3] == "next"]
        if len(nexts) != len(msgs):
            c["subscribers with non-next messages"] += 1
        got = [m[1] or 0 for m in nexts]
        if not got:
            c["subscribers that received nothing"] += 1
            continue
        lo = after[j] + 1 if after is not None else got[0]
        want = [s for s in seqs_of[unit_of[j]] if lo <= s <= until[unit_of[j]]]
        c["deliveries"] += len(got)
        c["expected"] += len(want)
        c["duplicates"] += len(got) - len(set(got))
        c["missing"] += len(set(want) - set(got))
        c["out of order"] += sum(b <= a for a, b in itertools.pairwise(got))
    return c


async def unit_seqs(pool: asyncpg.Pool, units: list[Unit]) -> dict[int, list[int]]:
    rows = await pool.fetch("SELECT unit_id, seq FROM outbox WHERE topic = 'slot_changed' AND seq IS NOT NULL "
                            "ORDER BY seq")
    index = {u.id: i for i, u in enumerate(units)}
    out: dict[int, list[int]] = {i: [] for i in range(len(units))}
    for r in rows:
        out[index[r["unit_id"]]].append(r["seq"])
    return out


async def wait_published(pool: asyncpg.Pool, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while await pool.fetchval("SELECT count(*) FROM outbox WHERE published_at IS NULL"):
        if time.monotonic() > deadline:
            raise TimeoutError("the relay left events unpublished")
        await asyncio.sleep(0.05)


def window(unit: Unit) -> dict[str, Any]:
    start, end = unit.plan.slots[0][0] - timedelta(hours=1), unit.plan.slots[-1][1] + timedelta(days=1)
    return {"unit": str(unit.id), "from": start.isoformat(), "to": end.isoformat()}


async def run_variant(cfg: Config, name: str, code: Path | None, url: str, units: list[Unit], events: Events,
                      worker: WorkerProcess, head: str, obs: ChannelObserver) -> Variant:
    v = Variant(name, head)
    apis = [ApiServer(cfg.port + i, 1, url, cfg.redis, LOGS / f"realtime-scale-{name}-api{i}.log", code=code,
                      env={"SLOTHOLD_DB_POOL_MIN": "6", "SLOTHOLD_DB_POOL_MAX": "6"}) for i in range(cfg.apis)]
    clients: Clients | None = None
    try:
        for a in apis:
            await start_api(a)
        for u in range(len(units)):  # warm each API's caches, connections and prepared statements
            await events.fire(u)
        await wait_published(events.pool)
        await asyncio.sleep(1)
        v.rss_idle = [rss(a) for a in apis]
        clients = Clients(cfg.clients)
        cores = Cores(apis, clients, worker)
        n, U = cfg.subscribers, cfg.units
        unit_of = [j % U for j in range(n)]
        api_of = [(j // U) % cfg.apis for j in range(n)]
        v.per_api = [api_of.count(i) for i in range(cfg.apis)]
        specs = [(apis[api_of[j]].port, window(units[unit_of[j]])) for j in range(n)]
        print(f"  [{name}] connecting {n:,} subscribers over {U} units on {cfg.apis} API processes", flush=True)
        failed, v.connect_seconds = await clients.connect("live", specs, 25)
        if failed:
            raise RuntimeError(f"{failed} subscribers could not connect")
        t = time.monotonic()
        await warm(clients, "live", events, list(range(U)))
        v.warmup_seconds = time.monotonic() - t
        await wait_published(events.pool)
        await asyncio.sleep(1.5)
        await clients.collect("live")  # the warm-up's messages
        v.rss_connected = [rss(a) for a in apis]
        v.subscribers = n
        print(f"  [{name}] live after {v.connect_seconds:.0f} s + {v.warmup_seconds:.0f} s; RSS "
              f"{', '.join(f'{x:.0f}' for x in v.rss_idle)} → {', '.join(f'{x:.0f}' for x in v.rss_connected)} MiB",
              flush=True)

        # ---- 1 event/s per unit, spread evenly over the second
        k = round(cfg.seconds * cfg.rate)
        base_total, _, _ = await clients.status("live")
        events.sent.clear()
        per_unit = Counter(unit_of)
        with cores:
            await fire_per_unit(cfg, events, U, k)
            drained = await wait_frames(clients, "live", 20, total=base_total + sum(per_unit[u] * k for u in range(U)))
        received = await clients.collect("live")
        lat: list[float] = []
        last: dict[str, float] = {}
        for msgs in received:
            for t_arr, _, booking, kind in msgs:
                s = events.sent.get(_db(booking)) if kind == "next" else None
                if s is None:
                    continue
                d = t_arr - s.t_commit
                lat.append(d)
                last[s.booking] = max(last.get(s.booking, 0.0), d)
        # commit → on the Redis channel (PostgreSQL, NOTIFY, the relay), and from there to the last subscriber (API)
        relay, api_last = [], []
        for booking, d in last.items():
            seen = obs.seen.get(booking)
            if seen is not None:
                r = seen[0] - events.sent[booking].t_commit
                relay.append(r)
                api_last.append(d - r)
        expected = sum(per_unit[u] * k for u in range(U))
        v.live = {"events": len(events.sent), "deliveries": len(lat), "expected": expected,
                  "lat": lat, "last": list(last.values()), "cores": cores.describe(), "drained": drained,
                  "relay": relay, "api_last": api_last,
                  "cpu_per_delivery_us": cores.api * cores.wall / max(1, len(lat)) * 1e6}
        seqs = await unit_seqs(events.pool, units)
        v.check = check(received, unit_of, seqs, {u: (seqs[u] or [0])[-1] for u in range(U)})
        print(f"  [{name}] {len(events.sent)} events at {cfg.rate:g}/s per unit: {len(lat):,} deliveries, p99 "
              f"{ms(pct(lat, 99))}, last subscriber p99 {ms(pct(list(last.values()), 99))}; {cores.describe()}",
              flush=True)

        if cfg.profile and name == "after":  # one more such phase under py-spy (its pauses would skew the figures)
            out = LOGS / f"realtime-scale-api0-{name}.pyspy.txt"
            prof = start_profile(apis[0].worker_pids()[0], cfg.seconds, out)
            total0, _, _ = await clients.status("live")
            await fire_per_unit(cfg, events, U, k)
            await wait_frames(clients, "live", 20, total=total0 + sum(per_unit[u] * k for u in range(U)))
            err = wait_profile(prof)
            v.profile += ([f"py-spy failed: {err}"] if err else
                          [f"1 event/s per unit (an extra phase): {line}" for line in summarize(out, cfg.seconds)])
            await clients.collect("live")

        # ---- the reconnect storm, on one more unit
        S = U
        d = cfg.dashboards
        sspecs = [(apis[j % cfg.apis].port, {**window(units[S]), "since": None}) for j in range(d)]
        print(f"  [{name}] storm: {d:,} dashboards on one unit", flush=True)
        await clients.connect("storm", sspecs, 25)
        await warm(clients, "storm", events, [S])
        await wait_published(events.pool)
        await asyncio.sleep(1.0)
        first = await clients.collect("storm")
        last_seen = [max((m[1] or 0) for m in msgs) for msgs in first]
        await clients.close("storm")
        await asyncio.sleep(1.0)
        events.sent.clear()
        for _ in range(cfg.missed):
            await events.fire(S)
        await wait_published(events.pool)
        feeds_before = [feeds(a) for a in apis]
        rspecs = [(apis[j % cfg.apis].port, {**window(units[S]), "since": last_seen[j]}) for j in range(d)]
        with Cores(apis, clients, worker) as storm_cores:
            t0 = time.monotonic()
            failed, connect_s = await clients.connect("storm", rspecs, 0)  # all at once
            caught = await wait_frames(clients, "storm", cfg.catch_up_limit, each=[cfg.missed] * d)
        replayed = await clients.collect("storm")
        done_at = []
        for msgs in replayed:
            nexts = [m for m in msgs if m[3] == "next"]
            if len(nexts) >= cfg.missed:
                done_at.append(nexts[cfg.missed - 1][0] - t0)
        await asyncio.sleep(1.0)
        feeds_after = [feeds(a) for a in apis]
        # ---- live events after the storm: are the dashboards sharing one stream per API?
        events.sent.clear()
        total0, _, _ = await clients.status("storm")
        with Cores(apis, clients, worker) as after_cores:
            for _ in range(cfg.live_after):
                await events.fire(S)
                await asyncio.sleep(0.5)
            await wait_frames(clients, "storm", 20, total=total0 + d * cfg.live_after)
        live_after = await clients.collect("storm")
        after_lat: list[float] = []
        for msgs in live_after:
            for t_arr, _, booking, kind in msgs:
                s = events.sent.get(_db(booking)) if kind == "next" else None
                if s is not None:
                    after_lat.append(t_arr - s.t_commit)
        seqs = await unit_seqs(events.pool, units)
        resumed = [a + b for a, b in zip(replayed, live_after, strict=True)]
        v.storm_check = check(resumed, [S] * d, seqs, {S: seqs[S][-1]}, after=last_seen)
        v.storm = {"dashboards": d, "connect_failed": failed, "connect_s": connect_s, "caught": caught,
                   "done_at": done_at, "feeds_before": feeds_before, "feeds_after": feeds_after,
                   "cores": storm_cores.describe(), "wall": storm_cores.wall,
                   "api_cpu_s": storm_cores.api * storm_cores.wall,
                   "after_lat": after_lat, "after_cores": after_cores.describe(),
                   "after_api_ms_per_event": after_cores.api * after_cores.wall / max(1, cfg.live_after) * 1e3}
        p99 = pct(done_at, 99) if done_at else float("nan")
        print(f"  [{name}] storm: {len(done_at)}/{d} caught up, p99 {p99:.2f} s, "
              f"max {max(done_at, default=float('nan')):.2f} s; feeds {feeds_before} → {feeds_after}; "
              f"after: API {v.storm['after_api_ms_per_event']:.1f} ms CPU per event", flush=True)
        v.rss_end = [rss(a) for a in apis]
    finally:
        if clients is not None:
            clients.stop()
        for a in apis:
            a.stop()
            v.errors += a.log_errors()
    return v


async def fire_per_unit(cfg: Config, events: Events, units: int, k: int) -> None:
    """k events per unit at cfg.rate per unit, the units' events spread evenly over each period (open loop)."""
    t0 = time.monotonic()
    tasks = []
    for i in range(k * units):
        at = t0 + (i // units) / cfg.rate + (i % units) / (units * cfg.rate)
        delay = at - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(events.fire(i % units)))
    await asyncio.gather(*tasks)


async def start_api(api: ApiServer, tries: int = 6) -> None:
    """Start an API process; retried when PostgreSQL, shared with others, refuses new connections for a while."""
    for i in range(tries):
        try:
            await asyncio.to_thread(api.start)
            return
        except (RuntimeError, TimeoutError):
            api.stop()
            if i == tries - 1:
                raise
            print(f"    API on port {api.port} did not start (see its log); retrying in 10 s", flush=True)
            await asyncio.sleep(10)


def _db(booking: str | None) -> str:
    return "" if booking is None else str(decode_id(booking)[1])


async def measure(cfg: Config, before: str | None) -> tuple[list[Variant], list[str]]:
    notes: list[str] = []
    c = psutil.cpu_times_percent(interval=1.0)
    notes.append(f"before the run the machine was busy {(100 - c.idle - c.iowait) / 100 * psutil.cpu_count():.2f} "
                 f"cores with other work (load average {', '.join(f'{x:.1f}' for x in psutil.getloadavg())})")
    print(f"setup: database {cfg.db}, {cfg.units + 1} units", flush=True)
    for attempt in range(20):  # PostgreSQL is shared: wait for room when it is full
        try:
            url, units, params = await setup(cfg)
            break
        except asyncpg.TooManyConnectionsError:
            if attempt == 19:
                raise
            print("    PostgreSQL is full (others' work); retrying in 15 s", flush=True)
            await asyncio.sleep(15)
    LOGS.mkdir(exist_ok=True)
    head = await asyncio.to_thread(lambda: subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=BENCH.parent,
                                                          capture_output=True, text=True).stdout.strip())
    worker = WorkerProcess(url, cfg.redis, LOGS / "realtime-scale-worker.log")
    pool = await create_pool(url, 4, 4)
    events = Events(pool, units, params)
    variants: list[Variant] = []
    trees: list[Path] = []
    obs = ChannelObserver(cfg.redis, None)
    try:
        worker.start()
        await obs.start()
        plan: list[tuple[str, Path | None, str]] = []
        if before:
            tree = await asyncio.to_thread(export_tree, before)
            trees.append(tree)
            plan.append(("before", tree, before))
        plan.append(("after", None, head))
        for name, code, rev in plan:
            print(f"{name}: the API from {rev}", flush=True)
            try:
                variants.append(await run_variant(cfg, name, code, url, units, events, worker, rev, obs))
            except (RuntimeError, TimeoutError, OSError, asyncpg.PostgresError) as e:
                notes.append(f"{name} ({rev}) FAILED: {type(e).__name__}: {str(e)[:300]}")
                print(f"  [{name}] FAILED: {e}", flush=True)
    finally:
        await obs.stop()
        await pool.close()
        worker.stop()
        for t in trees:
            shutil.rmtree(t, ignore_errors=True)
    notes += [f"worker log: {line[:300]}" for line in worker.log_errors()[:3]]
    return variants, notes


# ------------------------------------------------------------------------------------------------ report


def lat(values: list[float]) -> str:
    if not values:
        return "no data"
    return f"p50 {ms(pct(values, 50))}, p99 {ms(pct(values, 99))}, max {ms(max(values))}"


def checked(c: Counter[str]) -> tuple[str, str]:
    """A delivery check's figure and verdict."""
    clean = not any(c.get(k) for k in ("duplicates", "missing", "out of order", "subscribers with non-next messages",
                                       "subscribers that received nothing"))
    return (f"{c.get('deliveries', 0):,} of {c.get('expected', 0):,}; duplicates {c.get('duplicates', 0)}, missing "
            f"{c.get('missing', 0)}, out of order {c.get('out of order', 0)}, subscribers with other messages "
            f"{c.get('subscribers with non-next messages', 0)} / with none "
            f"{c.get('subscribers that received nothing', 0)}",
            "met" if clean else "**missed**")


def report(cfg: Config, variants: list[Variant], notes: list[str], started: datetime) -> Report:
    rep = Report("`bench.realtime_scale" + (" --quick`" if cfg.quick else "`"),
                 f"{cfg.subscribers:,} slotChanged subscribers over {cfg.units} units on {cfg.apis} API processes "
                 f"(1 uvicorn worker each) + 1 worker; {cfg.clients} client processes of raw websockets; "
                 f"{cfg.rate:g} event/s per unit for {cfg.seconds:.0f} s (SQL outbox inserts); then a reconnect "
                 f"storm of {cfg.dashboards:,} dashboards on one more unit that missed {cfg.missed} events.",
                 started)
    for v in variants:
        tag = f"{v.name} ({v.code})"
        live = v.live
        if live:
            p99_last = pct(live["last"], 99)
            rep.add(f"{tag}: commit → last subscriber, per event", lat(live["last"]),
                    f"p99 < 100 ms: {'met' if p99_last < 0.1 else '**missed**'}")
            rep.add(f"{tag}: commit → each subscriber", f"{lat(live['lat'])}; {live['deliveries']:,} of "
                    f"{live['expected']:,} deliveries")
            rep.add(f"{tag}: of which commit → Redis channel (PostgreSQL, NOTIFY, relay), per event",
                    lat(live["relay"]))
            rep.add(f"{tag}: of which Redis channel → last subscriber (API), per event", lat(live["api_last"]))
            per = [(c - i) * 1024 / max(1, n) for c, i, n in zip(v.rss_connected, v.rss_idle, v.per_api, strict=True)]
            growth = ", ".join(f"{i:.0f} → {c:.0f}" for i, c in zip(v.rss_idle, v.rss_connected, strict=True))
            rep.add(f"{tag}: API memory per subscriber (RSS growth / subscribers)",
                    ", ".join(f"{p:.1f} KiB" for p in per) + f" (RSS {growth} MiB "
                    f"for {', '.join(f'{n:,}' for n in v.per_api)} subscribers)",
                    f"≤ 40 KiB: {'met' if max(per) <= 40 else '**missed**'}")
            rep.add(f"{tag}: every event once, in order (per subscriber)", *checked(v.check))
        s = v.storm
        if s:
            done = s["done_at"]
            all_in = len(done) == s["dashboards"] and done and max(done) < 5
            rep.add(f"{tag}: storm, {s['dashboards']:,} resume with since: time to catch up on {cfg.missed} events",
                    (f"{len(done):,} of {s['dashboards']:,} caught up; p50 {pct(done, 50):.2f} s, p99 "
                     f"{pct(done, 99):.2f} s, max {max(done):.2f} s") if done else "none caught up",
                    f"all within 5 s: {'met' if all_in else '**missed**'}")
            rep.add(f"{tag}: storm, event feeds per API (executions per event)",
                    f"{s['feeds_before']} before the storm, {s['feeds_after']} after it ({cfg.units + 1} units' "
                    "groups per API when shared)")
            rep.add(f"{tag}: after the storm, API CPU per event to {s['dashboards']:,} dashboards",
                    f"{s['after_api_ms_per_event']:.1f} ms; commit → each dashboard {lat(s['after_lat'])}")
            rep.add(f"{tag}: storm, every event after each dashboard's since once, in order", *checked(v.storm_check))
    for v in variants:
        tag = f"{v.name} ({v.code})"
        rep.note(f"{tag}: connecting {v.subscribers:,} took {v.connect_seconds:.1f} s, all live after "
                 f"{v.warmup_seconds:.1f} s of warm-up events; RSS at the end "
                 f"{', '.join(f'{x:.0f}' for x in v.rss_end)} MiB")
        if v.live:
            rep.note(f"{tag}: 1 event/s per unit: {v.live['cores']}; API CPU per delivery "
                     f"{v.live['cpu_per_delivery_us']:.1f} µs" + ("" if v.live["drained"] else
                                                                   " (GAVE UP waiting for deliveries)"))
        if v.storm:
            rep.note(f"{tag}: storm: the {v.storm['dashboards']:,} reconnects took {v.storm['connect_s']:.2f} s "
                     f"({v.storm['connect_failed']} failed); API CPU for the storm {v.storm['api_cpu_s']:.1f} s; "
                     f"{v.storm['cores']}; after the storm: {v.storm['after_cores']}")
        for line in v.profile:
            rep.note(f"{tag}: profile of API 0: {line}")
        rep.note(f"{tag}: API logs: {len(v.errors)} error lines" + (f", e.g. {v.errors[0][:300]}" if v.errors else ""))
    for n in notes:
        rep.note(n)
    return rep


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="500 subscribers over 10 units, a storm of 100")
    ap.add_argument("--record", action=argparse.BooleanOptionalAction, default=None,
                    help="append to bench/RESULTS.md (default: yes for a full run)")
    ap.add_argument("--before", metavar="REV", help="also run the API of REV first (e.g. main)")
    ap.add_argument("--profile", action="store_true", help="py-spy the first API process of the `after` variant")
    args = ap.parse_args()
    cfg = Config.make(args.quick, args.profile)
    started = datetime.now(UTC)

    def on_sigterm(*_: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_sigterm)
    try:
        variants, notes = uvloop.run(measure(cfg, args.before))
    finally:
        stop_profilers()
        stop_workers()
        stop_all()
        with contextlib.suppress(Exception):  # the run's deadline jobs in arq's queue, and the database
            uvloop.run(cleanup(cfg, keep_db=False))  # type: ignore[arg-type]  # the same fields
    rep = report(cfg, variants, notes, started)
    if args.record if args.record is not None else not cfg.quick:
        path = BENCH / "RESULTS.md"
        path.write_text(path.read_text() + rep.markdown(BENCH.parent))
        print(f"\nappended to {path}")


if __name__ == "__main__":
    main()
