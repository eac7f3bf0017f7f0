"""One realtime step (a number of subscribers) and its phases: fire events, wait until every subscriber has them,
measure latencies per delivery and per event; then check every delivery against the outbox."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import Counter
from dataclasses import dataclass, field
from uuid import UUID

import asyncpg

from bench._measure import CpuMeter, ms, pct
from bench._rt_clients import Subscribers
from bench._rt_config import Config
from bench._rt_drivers import Driver, MutationDriver, Sent, SqlDriver, at_rate, flat_out
from bench._rt_proc import WorkerProcess
from bench._rt_redis import ChannelObserver
from bench._rt_ws import Received
from bench._server import ApiServer
from schema.ids import decode_id


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


def _db(booking_id: str | None) -> str | None:
    """The database id of a booking id as the API answered it (a global id), as the outbox payload has it."""
    return None if booking_id is None else str(decode_id(booking_id)[1])


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
        c["wrong booking for seq"] += sum(booking_of.get(m.seq or 0) != _db(m.booking_id) for m in nexts)
        if (seqs != want) and len(step.check_samples) < 3:
            step.check_samples.append(f"subscriber {i}: got seqs {seqs[:5]}…{seqs[-3:]} ({len(seqs)}), "
                                      f"expected {want[:5]}…{want[-3:]} ({len(want)})")
    step.check = dict(c)
