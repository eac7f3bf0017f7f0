"""Realtime: commit-to-delivery latency and delivered events/s of slotChanged with 1, 100 and 1,000 websocket
subscribers on one unit (1 API process + 1 worker), against raw Redis pub/sub, and the API's memory.

    .venv/bin/python -m bench.realtime [--quick] [--record | --no-record] [--profile | --no-profile] [--keep-db]

See bench/README.md ("Realtime") for what each figure means.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import itertools
import json
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

import asyncpg
import psutil
import redis.asyncio as aioredis
import uvloop

from bench import _data
from bench._http import Connection
from bench._measure import CpuMeter, Report, ms, pct
from bench._rt_proc import WorkerProcess, start_profile, stop_profilers, stop_workers, summarize, wait_profile
from bench._rt_redis import ChannelObserver, RawResult, raw_pubsub
from bench._rt_ws import Received, WsSubscriber, parse, subscribe
from bench._server import ApiServer, stop_all
from bench.holds import hold_body, post_hold
from domain.bookings import Allocation, Booking, BookingStatus
from domain.holds import hold_deadline, reminder_at
from domain.units import UnitParameters
from store.bookings import _event_rows
from store.db import create_pool

BENCH = Path(__file__).resolve().parent
LOGS = BENCH / ".logs"
CUSTOMER_BASE = 40_000_000  # hold n uses customer cpf(CPF_BASE + CUSTOMER_BASE + n): never reused
HOLD_TTL = timedelta(hours=1)  # no hold expires or is reminded during a run: no events but ours
SLOTS = """
subscription($unit: ID!, $from: DateTime!, $to: DateTime!) {
  slotChanged(unitId: $unit, from: $from, to: $to) {
    seq event bookingId status state holdType displayColor slots { resourceId startsAt endsAt }
  }
}
"""
INSERT_EVENT = "INSERT INTO outbox (unit_id, topic, payload) VALUES ($1::uuid, 'slot_changed', $2::jsonb)"


@dataclass(frozen=True)
class Config:
    quick: bool
    counts: tuple[int, ...]  # subscribers per step
    seconds: float  # length of each fixed-rate phase
    rate: float = 20.0  # events/s of the fixed-rate phases
    resources: int = 20
    mutation_connections: int = 8
    sql_connections: int = 4
    connect_batch: int = 50
    isolated: int = 10  # events of the 1/s phase: one fan-out at a time, no backlog
    idle_timeout: float = 20.0  # give up waiting for deliveries after this long without one
    profile: bool = False
    port: int = 8766
    pg: str = "postgresql://postgres@127.0.0.1:5432"
    db: str = "slothold_bench_rt"
    # A database of its own for arq's queue (the worker's deadline jobs); pub/sub channels ignore it.
    redis: str = "redis://127.0.0.1:6379/13"

    @classmethod
    def make(cls, quick: bool, profile: bool | None) -> Config:
        if quick:
            return cls(quick, counts=(1, 50), seconds=2.0, isolated=3, profile=bool(profile))
        return cls(quick, counts=(1, 100, 1000), seconds=10.0, profile=profile if profile is not None else True)

    def burst(self, subscribers: int) -> int:
        """Events of the throughput burst: about 200,000 deliveries, 200-2,000 events."""
        if self.quick:
            return 100
        return max(200, min(2000, 200_000 // subscribers))


# ------------------------------------------------------------------------------------------ event sources


@dataclass
class Sent:
    """One event the bench caused: when its commit was sent and when the commit was known on the client."""

    booking_id: str
    t_send: float
    t_commit: float


class Driver:
    """Causes slot_changed events on the unit: `fire(k)` → Sent (or a failure kind and detail)."""

    name: str

    async def fire(self, k: int) -> Sent | tuple[str, str]:
        raise NotImplementedError

    async def close(self) -> None:
        pass


class MutationDriver(Driver):
    """`hold` mutations over keep-alive HTTP connections; commit time = the response's arrival."""

    name = "hold mutations"

    def __init__(self, port: int, plan: _data.SlotPlan, keys: itertools.count[int], connections: int) -> None:
        self.plan, self.keys = plan, keys
        self.conns: asyncio.Queue[Connection] = asyncio.Queue()
        for _ in range(connections):
            self.conns.put_nowait(Connection("127.0.0.1", port))
        self.request_times: list[float] = []

    async def fire(self, k: int) -> Sent | tuple[str, str]:
        n = next(self.keys)
        rid, s, e = self.plan.pair(n)
        body = hold_body(self.plan, rid, s, e, CUSTOMER_BASE + n)
        conn = await self.conns.get()
        try:
            t0 = time.monotonic()
            kind, detail = await post_hold(conn, body)
            t1 = time.monotonic()
        finally:
            self.conns.put_nowait(conn)
        if kind != "BookingPayload":
            return kind, detail
        self.request_times.append(t1 - t0)
        return Sent(json.loads(detail)["booking"]["id"], t0, t1)

    async def close(self) -> None:
        """Close the connections (they reopen on the next request: uvicorn drops idle ones after 5 s)."""
        conns = [self.conns.get_nowait() for _ in range(self.conns.qsize())]
        for c in conns:
            await c.close()
            self.conns.put_nowait(c)


def event_payload(plan: _data.SlotPlan, params: UnitParameters, k: int, now: datetime) -> dict[str, Any]:
    """The outbox payload a hold writes (store/bookings.py `_event_rows`), for a made-up held booking."""
    rid, s, e = plan.pair(k % plan.capacity)
    deadline = hold_deadline(params, now, s, payment_due=False)
    b = Booking(id=uuid4(), unit_id=plan.unit_id, status=BookingStatus.HELD, allocations=[Allocation(rid, s, e, 1)],
                created_at=now, customer_id=uuid4(), hold_type="CART", channel="api", hold_expires_at=deadline,
                remind_at=reminder_at(params, now, deadline))
    b.record_creation(now, "customer")
    _, outbox = _event_rows(b, b.pull_events())
    return outbox[0]  # type: ignore[no-any-return]


class SqlDriver(Driver):
    """One committed INSERT of an outbox row per event (what a hold's transaction adds, without the hold);
    commit time = when the statement (an implicit transaction) returned."""

    name = "SQL outbox inserts"

    def __init__(self, pool: asyncpg.Pool, plan: _data.SlotPlan, params: UnitParameters) -> None:
        self.pool, self.plan, self.params = pool, plan, params
        self.keys = itertools.count()
        self._ready: list[tuple[str, dict[str, Any]]] = []

    def prepare(self, n: int) -> None:
        """Build payloads ahead, so that the phase spends no client CPU on them."""
        now = datetime.now(UTC)
        for _ in range(n):
            p = event_payload(self.plan, self.params, next(self.keys), now)
            self._ready.append((p["booking_id"], p))  # the pool's jsonb codec encodes it

    async def fire(self, k: int) -> Sent | tuple[str, str]:
        if not self._ready:
            self.prepare(1)
        booking, payload = self._ready.pop()
        async with self.pool.acquire() as conn:
            t0 = time.monotonic()
            try:
                await conn.execute(INSERT_EVENT, self.plan.unit_id, payload)
            except asyncpg.PostgresError as e:
                return type(e).__name__, str(e)
            t1 = time.monotonic()
        return Sent(booking, t0, t1)


async def at_rate(n: int, rate: float, fire: Callable[[int], Coroutine[Any, Any, Any]]) -> list[Any]:
    """Open loop: event i is fired at start + i/rate whether or not earlier ones have finished."""
    t0 = time.monotonic()
    tasks: list[asyncio.Task[Any]] = []
    for i in range(n):
        delay = t0 + i / rate - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(fire(i)))
    return list(await asyncio.gather(*tasks))


async def flat_out(n: int, concurrency: int, fire: Callable[[int], Awaitable[Any]]) -> list[Any]:
    """`concurrency` loops firing events back to back until n have been fired."""
    counter = itertools.count()
    out: list[Any] = []

    async def loop() -> None:
        while (i := next(counter)) < n:
            out.append(await fire(i))

    await asyncio.gather(*(loop() for _ in range(concurrency)))
    return out


# ------------------------------------------------------------------------------------------ phases


@dataclass
class Phase:
    name: str
    subscribers: int
    driver: str
    mode: str  # "20/s" or "burst"
    sent: dict[str, Sent] = field(default_factory=dict)
    failures: Counter[str] = field(default_factory=Counter)
    samples: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)  # every (event, subscriber): commit → ws message
    first: list[float] = field(default_factory=list)  # per event: the first subscriber's latency
    last: list[float] = field(default_factory=list)  # per event: the last subscriber's latency
    relay: list[float] = field(default_factory=list)  # per event: commit → on the Redis channel
    api: list[float] = field(default_factory=list)  # every (event, subscriber): Redis channel → ws message
    deliveries: int = 0
    t_start: float = 0.0
    t_end: float = 0.0  # the last delivery of the phase's events
    t_relayed: float = 0.0  # the last of the phase's events on the Redis channel
    cpu: CpuMeter = field(default_factory=CpuMeter)
    worker_cores: float = 0.0
    drained: bool = True
    request_times: list[float] = field(default_factory=list)

    @property
    def expected(self) -> int:
        return len(self.sent) * self.subscribers

    @property
    def span(self) -> float:
        return self.t_end - self.t_start

    @property
    def deliveries_per_s(self) -> float:
        return self.deliveries / self.span if self.span > 0 else 0.0

    @property
    def events_per_s(self) -> float:
        return len(self.sent) / self.span if self.span > 0 else 0.0


@dataclass
class Step:
    """Everything measured with one number of subscribers."""

    subscribers: int
    connect_seconds: float = 0.0
    warmup_seconds: float = 0.0
    phases: list[Phase] = field(default_factory=list)
    code: tuple[str, list[str]] = ("", [])  # HEAD and changed files when its API process started
    rss_idle: float = 0.0  # the fresh API process after 5 warm-up holds
    rss_connected: float = 0.0
    rss_max: float = 0.0
    received: list[list[Received]] = field(default_factory=list)  # per subscriber, the whole step
    check: dict[str, int] = field(default_factory=dict)
    check_samples: list[str] = field(default_factory=list)
    profile: list[str] = field(default_factory=list)


class Subscribers:
    """N raw websocket subscribers on one API process, each with one slotChanged subscription."""

    def __init__(self, port: int, variables: dict[str, Any]) -> None:
        self.port, self.variables = port, variables
        self.subs: list[WsSubscriber] = []
        self.received: list[list[Received]] = []

    async def connect(self, n: int, batch: int) -> None:
        while len(self.subs) < n:
            k = min(batch, n - len(self.subs))
            self.subs += await asyncio.gather(*(subscribe("127.0.0.1", self.port, "/graphql", SLOTS, self.variables)
                                                for _ in range(k)))
        self.received = [[] for _ in self.subs]

    def frames(self) -> int:
        return sum(len(s.frames) for s in self.subs)

    def collect(self) -> None:
        """Parse what arrived since the last call (after a phase: no parsing while measuring)."""
        for sub, out in zip(self.subs, self.received, strict=True):
            out += parse(sub.take())

    async def close(self) -> None:
        await asyncio.gather(*(s.close() for s in self.subs), return_exceptions=True)
        self.subs = []


class RssSampler:
    """The API process's peak RSS while running."""

    def __init__(self, pid: int) -> None:
        self.proc = psutil.Process(pid)
        self.max = 0.0
        self._task: asyncio.Task[None] | None = None

    def now(self) -> float:
        try:
            v = float(self.proc.memory_info().rss) / 2**20
        except psutil.Error:
            return float("nan")
        self.max = max(self.max, v)
        return v

    async def _run(self) -> None:
        while True:
            self.now()
            await asyncio.sleep(0.25)

    def __enter__(self) -> RssSampler:
        self._task = asyncio.create_task(self._run())
        return self

    def __exit__(self, *exc: object) -> None:
        if self._task is not None:
            self._task.cancel()


async def run_phase(cfg: Config, step: Step, subs: Subscribers, obs: ChannelObserver, driver: Driver,
                    server: ApiServer, worker: WorkerProcess, name: str, n: int, rate: float | None) -> Phase:
    """Fire n events (at `rate`/s, or as fast as possible), wait until every subscriber has them, measure."""
    ph = Phase(name, step.subscribers, driver.name, f"{rate:.0f}/s" if rate else "burst")
    if isinstance(driver, SqlDriver):
        driver.prepare(n)
    if isinstance(driver, MutationDriver):
        driver.request_times.clear()
        await driver.close()
    subs.collect()
    base = subs.frames()
    ph.cpu = CpuMeter(server)
    w0 = worker.cpu_seconds()
    with ph.cpu:
        ph.t_start = time.monotonic()
        fire = driver.fire
        results = await (at_rate(n, rate, fire) if rate else flat_out(n, cfg.sql_connections, fire))
        for r in results:
            if isinstance(r, Sent):
                ph.sent[r.booking_id] = r
            else:
                ph.failures[r[0]] += 1
                if len(ph.samples) < 3:
                    ph.samples.append(f"{r[0]}: {r[1][:300]}")
        want = base + len(ph.sent) * len(subs.subs)
        seen, last_change = subs.frames(), time.monotonic()
        while seen < want:
            await asyncio.sleep(0.02)
            now_seen = subs.frames()
            if now_seen != seen:
                seen, last_change = now_seen, time.monotonic()
            elif time.monotonic() - last_change > cfg.idle_timeout:
                ph.drained = False
                break
            check_alive(server, worker)
    ph.worker_cores = (worker.cpu_seconds() - w0) / ph.cpu.wall if ph.cpu.wall else 0.0
    if isinstance(driver, MutationDriver):
        ph.request_times = list(driver.request_times)
    subs.collect()
    # Latencies of this phase's events, per delivery and per event.
    per_event: dict[str, list[float]] = {}
    for got in subs.received:
        for m in got:
            s = ph.sent.get(m.booking_id or "")
            if s is None or m.kind != "next":
                continue
            per_event.setdefault(m.booking_id or "", []).append(m.t)
    for booking, times in per_event.items():
        s = ph.sent[booking]
        lat = [t - s.t_commit for t in times]
        ph.latencies += lat
        ph.first.append(min(lat))
        ph.last.append(max(lat))
        ph.deliveries += len(times)
        ph.t_end = max(ph.t_end, max(times))
        seen_at = obs.seen.get(booking)
        if seen_at is not None:
            ph.relay.append(seen_at[0] - s.t_commit)
            ph.api += [t - seen_at[0] for t in times]
            ph.t_relayed = max(ph.t_relayed, seen_at[0])
    step.phases.append(ph)
    tail = "" if ph.drained else f"; gave up after {cfg.idle_timeout:.0f} s without a delivery"
    print(f"    {name}: {len(ph.sent)} events, {ph.deliveries:,}/{ph.expected:,} deliveries, "
          f"p50 {ms(pct(ph.latencies, 50))}, p99 {ms(pct(ph.latencies, 99))}, "
          f"{ph.deliveries_per_s:,.0f} deliveries/s{tail}", flush=True)
    return ph


def check_alive(server: ApiServer, worker: WorkerProcess) -> None:
    if server.proc is None or server.proc.poll() is not None:
        raise RuntimeError(f"the API process exited; see {server.log_path}")
    if not worker.alive():
        raise RuntimeError(f"the worker process exited; see {worker.log_path}")


async def wait_all_subscribed(cfg: Config, subs: Subscribers, driver: SqlDriver, server: ApiServer,
                              worker: WorkerProcess) -> None:
    """Warm-up events until every subscriber has received one (its subscription is live), then drain."""
    deadline = time.monotonic() + 120
    while any(not s.frames for s in subs.subs):
        check_alive(server, worker)
        if time.monotonic() > deadline:
            missing = sum(not s.frames for s in subs.subs)
            raise TimeoutError(f"{missing} subscribers received nothing in 120 s")
        await driver.fire(0)
        await asyncio.sleep(0.25)
    await asyncio.sleep(1.0)


async def check_step(step: Step, url: str, unit_id: UUID, last_seq: int) -> None:
    """Every subscriber got every slot_changed event from its first one to the step's last, once each,
    in order, with the sequence number and booking the relay gave it (outbox)."""
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch("SELECT seq, payload->>'booking_id' AS b FROM outbox WHERE unit_id = $1 "
                                "AND topic = 'slot_changed' AND seq IS NOT NULL ORDER BY seq", unit_id)
    finally:
        await conn.close()
    booking_of = {r["seq"]: r["b"] for r in rows}
    c: Counter[str] = Counter()
    for i, got in enumerate(step.received):
        nexts = [m for m in got if m.kind == "next"]
        others = [m for m in got if m.kind != "next"]
        if others:
            c["subscribers with non-next messages"] += 1
            if len(step.check_samples) < 3:
                step.check_samples.append(f"subscriber {i}: {others[0].kind} {others[0].raw!r}")
        if not nexts:
            c["subscribers that received nothing"] += 1
            continue
        seqs = [m.seq or 0 for m in nexts]
        want = [s for s in sorted(booking_of) if seqs[0] <= s <= last_seq]
        c["deliveries"] += len(seqs)
        c["expected"] += len(want)
        c["duplicates"] += len(seqs) - len(set(seqs))
        c["missing"] += len(set(want) - set(seqs))
        c["out of order"] += sum(b <= a for a, b in itertools.pairwise(seqs))
        c["wrong booking for seq"] += sum(booking_of.get(m.seq or 0) != m.booking_id for m in nexts)
        if (seqs != want) and len(step.check_samples) < 3:
            step.check_samples.append(f"subscriber {i}: got seqs {seqs[:5]}…{seqs[-3:]} ({len(seqs)}), "
                                      f"expected {want[:5]}…{want[-3:]} ({len(want)})")
    step.check = dict(c)


# ------------------------------------------------------------------------------------------ the run


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


# ------------------------------------------------------------------------------------------ the report


def verdict(ok: bool) -> str:
    return "met" if ok else "**missed**"


def lat(values: list[float]) -> str:
    if not values:
        return "no data"
    return f"p50 {ms(pct(values, 50))}, p99 {ms(pct(values, 99))}, max {ms(max(values))}"


def report(cfg: Config, r: Results, started: datetime) -> Report:
    rep = Report(f"`bench.realtime{' --quick' if cfg.quick else ''}`",
                 f"slotChanged on one unit ({cfg.resources} resources), 1 API process (uvicorn, 1 worker) + "
                 f"1 worker process; {', '.join(f'{n:,}' for n in cfg.counts)} websocket subscribers in the "
                 f"bench process; fixed-rate phases {cfg.rate:.0f} events/s × {cfg.seconds:.0f} s; bursts "
                 f"{', '.join(f'{cfg.burst(n):,}' for n in cfg.counts)} events.", started)
    print("\nresults", flush=True)
    raw = {x.subscribers: x for x in r.raw}
    for step in r.steps:
        n = step.subscribers
        for ph in step.phases:
            label = f"{n:,} subs: {ph.driver}, {ph.mode}"
            if ph.mode == "burst":
                rep.add(label, f"{ph.deliveries_per_s:,.0f} deliveries/s = {ph.events_per_s:,.0f} events/s fully "
                        f"delivered ({len(ph.sent):,} events in {ph.span:.2f} s); latency {lat(ph.latencies)}")
            else:
                rep.add(label, f"latency {lat(ph.latencies)}; last subscriber p50 {ms(pct(ph.last, 50))}, "
                        f"p99 {ms(pct(ph.last, 99))}")
        base = raw.get(n)
        if base:
            rep.add(f"{n:,} subs: raw Redis pub/sub (same rate, burst)",
                    f"latency {lat(base.latencies)}; burst {base.deliveries_per_s:,.0f} deliveries/s")
            rated = [p for p in step.phases if p.mode == f"{cfg.rate:.0f}/s"]
            burst = [p for p in step.phases if p.mode == "burst"]
            parts = [f"{p.driver}: p50 ×{pct(p.latencies, 50) / pct(base.latencies, 50):,.0f}, "
                     f"p99 ×{pct(p.latencies, 99) / pct(base.latencies, 99):,.0f}" for p in rated if p.latencies]
            if burst and base.deliveries_per_s:
                parts.append(f"throughput ×{burst[0].deliveries_per_s / base.deliveries_per_s:.3f}")
            rep.add(f"{n:,} subs: app/raw ratio", "; ".join(parts))
    big = [s for s in r.steps if s.subscribers == 1000]
    for s in big:
        for ph in s.phases:
            if ph.mode != "burst":
                p99 = pct(ph.latencies, 99)
                rep.add(f"Target: p99 < 100 ms at 1,000 subscribers ({ph.driver}, {ph.mode})", ms(p99),
                        verdict(p99 < 0.1))
    for s in r.steps:
        rep.add(f"API RSS with {s.subscribers:,} subscribers",
                f"{s.rss_connected:.0f} MiB connected, {s.rss_max:.0f} MiB peak during the phases (fresh process "
                f"{s.rss_idle:.0f} MiB: +{(s.rss_connected - s.rss_idle) * 1024 / s.subscribers:,.0f} KiB per "
                "subscriber connected)")
    for s in r.steps:
        c = s.check
        clean = all(not c.get(k) for k in ("duplicates", "missing", "out of order", "wrong booking for seq",
                                           "subscribers with non-next messages",
                                           "subscribers that received nothing"))
        rep.add(f"{s.subscribers:,} subs: every event once, in seq order",
                f"{c.get('deliveries', 0):,} deliveries of {c.get('expected', 0):,} expected; duplicates "
                f"{c.get('duplicates', 0)}, missing {c.get('missing', 0)}, out of order {c.get('out of order', 0)}, "
                f"wrong seq→booking {c.get('wrong booking for seq', 0)}", verdict(clean))
        for sample in s.check_samples:
            rep.note(f"{s.subscribers:,} subs: delivery check: {sample}")
    # notes: where the time goes, CPU, setup
    for s in r.steps:
        rep.note(f"{s.subscribers:,} subs: connecting took {s.connect_seconds:.1f} s, all live after "
                 f"{s.warmup_seconds:.1f} s of warm-up events")
        for ph in s.phases:
            split = (f"commit → Redis channel (database, NOTIFY, relay) {lat(ph.relay)}; Redis channel → "
                     f"websocket (API) {lat(ph.api)}")
            extra = ""
            if ph.request_times:
                extra = f"; hold request time {lat(ph.request_times)}"
            if ph.mode == "burst" and ph.t_relayed:
                extra += (f"; the relay put all {len(ph.sent):,} on Redis in {ph.t_relayed - ph.t_start:.2f} s "
                          f"({len(ph.sent) / (ph.t_relayed - ph.t_start):,.0f} events/s)")
            rep.note(f"{s.subscribers:,} subs, {ph.driver} {ph.mode}: {split}{extra}; first subscriber "
                     f"p50 {ms(pct(ph.first, 50))}; cores busy: bench client {ph.cpu.client:.2f}, API "
                     f"{ph.cpu.api:.2f}, worker {ph.worker_cores:.2f}, machine {ph.cpu.machine:.2f} of "
                     f"{psutil.cpu_count()}; {ph.deliveries:,}/{ph.expected:,} delivered"
                     + ("" if ph.drained else f" (GAVE UP after {cfg.idle_timeout:.0f} s without a delivery)"))
            if ph.failures:
                rep.note(f"{s.subscribers:,} subs, {ph.driver} {ph.mode}: FAILURES {dict(ph.failures)}; "
                         f"e.g. {ph.samples[:2]}")
        for line in s.profile:
            rep.note(f"profile, {s.subscribers:,} subs: {line.strip()}")
    for x in r.raw:
        if x.lost or x.out_of_order:
            rep.note(f"raw Redis, {x.subscribers} subs: lost {x.lost}, out of order {x.out_of_order}")
    rep.note(f"worker RSS at the end {r.worker_rss:.0f} MiB; websocket pings answered by the client "
             f"{r.client_pings}; duplicate events on the Redis channel {r.observer_duplicates}")
    for p in r.probes:
        rep.note(p)
    heads = {(s.code[0], tuple(s.code[1])) for s in r.steps} | {(r.code_at_end[0], tuple(r.code_at_end[1]))}
    first = r.steps[0].code if r.steps else r.code_at_end
    rep.note(f"code under test: HEAD {first[0]}"
             + (f" + uncommitted changes to {', '.join(first[1])}" if first[1] else " (clean working tree)"))
    if len(heads) > 1:
        per_step = "; ".join(f"{s.subscribers:,} subs: {s.code[0]}"
                             + (f" + {len(s.code[1])} changed files" if s.code[1] else "") for s in r.steps)
        rep.note("WARNING: the code changed during the run (others were committing); each step's API process "
                 f"ran the code of its start: {per_step}; at the end: {r.code_at_end[0]}")
    for name, errs in r.errors.items():
        if errs:
            rep.note(f"{name} log: {len(errs)} error lines, e.g. {errs[0][:300]}")
        else:
            rep.note(f"{name} log: no error lines")
    return rep


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="1 and 50 subscribers, 2 s phases (smoke test)")
    ap.add_argument("--record", action=argparse.BooleanOptionalAction, default=None,
                    help="append to bench/RESULTS.md (default: yes for a full run, no with --quick)")
    ap.add_argument("--profile", action=argparse.BooleanOptionalAction, default=None,
                    help="py-spy the API and worker in an extra phase at the most subscribers (default: full run)")
    ap.add_argument("--keep-db", action="store_true", help=f"keep the database {Config.db} afterwards")
    args = ap.parse_args()
    cfg = Config.make(args.quick, args.profile)
    started = datetime.now(UTC)
    # The client keeps every frame it receives (300,000+ tuples at 1,000 subscribers); CPython's cyclic
    # collector then pauses this process for 100-400 ms now and then, and the arrival stamps taken after a
    # pause show up as delivery latency that the API never caused (measured: with the collector off in the
    # client only, the one-event-at-a-time outliers of 150-430 ms at 1,000 subscribers disappear). Reference
    # counting still frees everything; nothing here lives in cycles for long.
    gc.disable()

    def on_sigterm(*_: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_sigterm)
    try:
        results = uvloop.run(measure(cfg))
    finally:
        stop_profilers()
        stop_workers()
        stop_all()
        with contextlib.suppress(Exception):
            uvloop.run(cleanup(cfg, args.keep_db))
    rep = report(cfg, results, started)
    if args.record if args.record is not None else not cfg.quick:
        path = BENCH / "RESULTS.md"
        old = path.read_text() if path.exists() else "# Benchmark results\n\nNewest last; see README.md.\n\n"
        path.write_text(old + rep.markdown(BENCH.parent))
        print(f"\nappended to {path}")


if __name__ == "__main__":
    main()
