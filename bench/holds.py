"""Hold throughput (API vs direct SQL), hot-slot contention, grid latency and API memory, in one run.

    .venv/bin/python -m bench.holds [--quick] [--only grid] [--record | --no-record]

See bench/README.md for what each figure means.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import gc
import itertools
import json
import signal
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast
from uuid import UUID, uuid4

import asyncpg
import uvloop

from bench import _data
from bench._http import Connection, HttpError
from bench._measure import CpuMeter, Report, Throughput, latency, pct
from bench._server import ApiServer, stop_all
from domain import queries
from domain.availability import grid_rows
from domain.bookings import Allocation, Booking, BookingStatus
from domain.customers import CustomerIdentity
from domain.errors import DomainError
from domain.holds import hold_deadline
from domain.ports import UnitOfWork
from domain.services import Deps
from domain.units import UnitParameters
from providers.clock import SystemClock
from store.bookings import _GRID_OCCUPANCY, _LAPSED, PgBookings
from store.customers import PgCustomers
from store.db import create_pool
from store.uow import PgUnitOfWork
from tests.venues import cpf

BENCH = Path(__file__).resolve().parent
CPF_BASE = 1_000_000  # customer n is cpf(CPF_BASE + n): distinct valid CPFs
HOLD = """
mutation($input: HoldInput!) {
  hold(input: $input) {
    __typename
    ... on BookingPayload { booking { id status holdExpiresAt startsAt endsAt allocations { resourceId } } }
    ... on SlotTaken { alternatives { resourceId startsAt endsAt } }
    ... on Error { code message }
  }
}
"""
GRID = """
query($unit: ID!, $from: DateTime!, $to: DateTime!) {
  availabilityGrid(unitId: $unit, from: $from, to: $to) {
    __typename
    ... on Grid { compact }
    ... on Error { code message }
  }
}
"""

GRID_SEGMENTS = """
query($unit: ID!, $from: DateTime!, $to: DateTime!) {
  availabilityGrid(unitId: $unit, from: $from, to: $to) {
    __typename
    ... on Grid { slotMinutes rows { resource { id name } segments {
                  startsAt endsAt state slots available holdType holdTypeName displayColor bookingId } } }
    ... on Error { code message }
  }
}
"""


@dataclass(frozen=True)
class Config:
    quick: bool
    resources: int  # exclusive resources of the unit the throughput phases hold on
    seconds: float  # measured time of each throughput phase
    warmup: float
    clients: int = 32
    hot_clients: int = 64
    hot_rounds: int = 30
    grid_resources: int = 50
    grid_days: int = 30
    grid_runs: int = 20
    port: int = 8765
    pg: str = "postgresql://postgres@127.0.0.1:5432"
    db: str = "slothold_bench"
    redis: str = "redis://127.0.0.1:6379/0"

    @classmethod
    def make(cls, quick: bool) -> Config:
        if quick:
            return cls(quick, resources=1_000, seconds=3, warmup=1, hot_rounds=5, grid_runs=5)
        return cls(quick, resources=10_000, seconds=10, warmup=2)


def hold_body(plan: _data.SlotPlan, rid: UUID, s: datetime, e: datetime, n: int) -> dict[str, Any]:
    return {"query": HOLD, "variables": {"input": {
        "unitId": str(plan.unit_id), "resourceIds": [str(rid)], "startsAt": s.isoformat(),
        "endsAt": e.isoformat(), "customer": {"cpf": cpf(CPF_BASE + n)}}}}


async def post_hold(conn: Connection, body: dict[str, Any]) -> tuple[str, str]:
    """(result __typename, or the kind of failure; detail) of one hold request."""
    try:
        status, data = await conn.post_json("/graphql", body)
    except HttpError as exc:
        return "connection_error", str(exc)
    if status != 200:
        return f"http_{status}", data.decode(errors="replace")
    doc = json.loads(data)
    if doc.get("errors"):
        return "graphql_errors", json.dumps(doc["errors"])
    hold = (doc.get("data") or {}).get("hold") or {}
    return hold.get("__typename", "no_data"), json.dumps(hold)


async def run_for(seconds: float, workers: list[Any], step: Callable[[Any], Awaitable[None]]) -> None:
    """One loop of `step(worker)` per worker until `seconds` have passed."""
    deadline = time.perf_counter() + seconds

    async def loop(worker: Any) -> None:
        while time.perf_counter() < deadline:
            await step(worker)

    await asyncio.gather(*(loop(w) for w in workers))


async def _same(conn: asyncpg.Connection) -> asyncpg.Connection:
    return conn


# -------------------------------------------------------------- 1. holds through the API


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
        stats.cpu = CpuMeter(server)
        with stats.cpu:
            await run_for(cfg.seconds, conns, step)
    finally:
        for c in conns:
            await c.close()
    return stats


# -------------------------------------------------------------- 2. the same transaction, directly


async def sql_holds(cfg: Config, url: str, plan: _data.SlotPlan, keys: itertools.count[int]) -> Throughput:
    """BEGIN; advisory lock; lapsed check; customer upsert; the CTE insert; COMMIT — on bare connections.

    The statements are store/'s own (_LOCK, _LAPSED, _BY_CPF, _ADD), run through its repository methods
    so that the parameters always match the SQL. Left out: HTTP, GraphQL, the use case, the pool.
    """
    stats = Throughput("Direct SQL holds/s")
    pool = await create_pool(url, cfg.clients, cfg.clients)
    params = UnitParameters()  # the bench units keep the default parameters
    record = False

    async def step(conn: asyncpg.Connection) -> None:
        k = next(keys)
        rid, s, e = plan.pair(k)
        get = functools.partial(_same, conn)
        bookings, customers = PgBookings(get), PgCustomers(get)
        t = time.perf_counter()
        now = datetime.now(UTC)
        allocations = [Allocation(rid, s, e, 1)]
        deadline = hold_deadline(params, now, s, payment_due=False)
        try:
            async with conn.transaction():
                await bookings.lock_resources(plan.unit_id, [rid])
                for stale in await bookings.lapsed_overlapping(plan.unit_id, allocations, now):
                    stale.expire(now)
                    await bookings.save(stale)
                customer = await customers.identify(plan.tenant_id, CustomerIdentity(cpf=cpf(CPF_BASE + k)))
                booking = Booking(id=uuid4(), unit_id=plan.unit_id, status=BookingStatus.HELD,
                                  allocations=allocations, created_at=now, customer_id=customer.id,
                                  hold_type="CART", channel="api", hold_expires_at=deadline,
                                  **_reminder(params, now, deadline))
                booking.record_creation(now, "customer")
                await bookings.add(booking, {})
        except (asyncpg.PostgresError, DomainError) as exc:
            if record:
                stats.fail(type(exc).__name__, str(exc))
            return
        if record:
            stats.latencies.append(time.perf_counter() - t)
            stats.ok += 1

    conns = [await pool.acquire() for _ in range(cfg.clients)]
    try:
        await run_for(cfg.warmup, conns, step)
        record = True
        with stats.cpu:
            await run_for(cfg.seconds, conns, step)
    finally:
        for c in conns:
            await pool.release(c)
        await pool.close()
    return stats


def _reminder(params: UnitParameters, now: datetime, deadline: datetime) -> dict[str, Any]:
    """remind_at as the hold use case sets it, where this version of the domain has reminders."""
    try:
        from domain.holds import reminder_at  # type: ignore[attr-defined, unused-ignore]
    except ImportError:
        return {}
    return {"remind_at": reminder_at(params, now, deadline)}


# -------------------------------------------------------------- 3. hot slot


@dataclass
class HotSlot:
    rounds: int = 0
    attempts: int = 0
    clean_rounds: int = 0  # exactly one BookingPayload and the rest SlotTaken
    kinds: Counter[str] = field(default_factory=Counter)
    samples: list[str] = field(default_factory=list)
    round_times: list[float] = field(default_factory=list)
    request_times: list[float] = field(default_factory=list)
    in_database: str = ""

    @property
    def rate(self) -> float:
        return self.attempts / sum(self.round_times) if self.round_times else 0.0


async def hot_slot(cfg: Config, server: ApiServer, plan: _data.SlotPlan, url: str, first: int) -> HotSlot:
    """Rounds of `hot_clients` simultaneous holds of one new slot of the same resource."""
    out = HotSlot()
    rid = plan.resource_ids[0]
    round_slots = plan.slots[20:20 + cfg.hot_rounds]
    conns = [Connection("127.0.0.1", server.port) for _ in range(cfg.hot_clients)]

    async def attempt(conn: Connection, body: dict[str, Any]) -> tuple[str, str]:
        t = time.perf_counter()
        result = await post_hold(conn, body)
        out.request_times.append(time.perf_counter() - t)
        return result

    try:
        s, e = plan.slots[-1]  # warm the connections on a slot outside the rounds
        await asyncio.gather(*(attempt(c, hold_body(plan, rid, s, e, first + j))
                               for j, c in enumerate(conns)))
        out.request_times.clear()
        for r, (s, e) in enumerate(round_slots):
            n0 = first + (r + 1) * cfg.hot_clients
            t = time.perf_counter()
            results = await asyncio.gather(*(attempt(c, hold_body(plan, rid, s, e, n0 + j))
                                             for j, c in enumerate(conns)))
            out.round_times.append(time.perf_counter() - t)
            kinds = Counter(k for k, _ in results)
            out.kinds.update(kinds)
            out.rounds += 1
            out.attempts += len(results)
            out.clean_rounds += kinds == Counter({"BookingPayload": 1, "SlotTaken": cfg.hot_clients - 1})
            out.samples += [f"round {r}: {k}: {d[:300]}" for k, d in results
                            if k not in ("BookingPayload", "SlotTaken")][: 5 - len(out.samples)]
    finally:
        for c in conns:
            await c.close()
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch("SELECT lower(during) AS s, count(*) AS n FROM allocations "
                                "WHERE resource_id = $1::uuid AND occupies GROUP BY 1", rid)
    finally:
        await conn.close()
    held = {r["s"]: r["n"] for r in rows}
    ones = sum(held.get(s) == 1 for s, _ in round_slots)
    out.in_database = (f"{ones}/{len(round_slots)} round slots have exactly one occupying allocation "
                       "in the database")
    return out


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


# -------------------------------------------------------------- 4. grid


@dataclass
class GridTimes:
    api: list[float] = field(default_factory=list)
    api_segments: list[float] = field(default_factory=list)
    segment_bytes: int = 0
    use_case: list[float] = field(default_factory=list)
    sql: list[float] = field(default_factory=list)
    domain: list[float] = field(default_factory=list)
    segments: int = 0
    occupancies: int = 0
    response_bytes: int = 0
    states: Counter[str] = field(default_factory=Counter)
    plan: str = ""
    problem: str = ""
    idle_before: float = 0.0  # cores busy with other work in the second before the phase
    cpu: CpuMeter = field(default_factory=CpuMeter)  # over the compact API runs


async def grid_latency(cfg: Config, server: ApiServer, url: str, g: _data.GridUnit) -> GridTimes:
    """availabilityGrid over the whole range through the API, then the use case and its parts in-process."""
    out = GridTimes()
    variables = {"unit": str(g.unit_id), "from": g.start.isoformat(), "to": g.end.isoformat()}
    conn = Connection("127.0.0.1", server.port)
    letters = {"F": "FREE", "H": "HELD", "V": "VERIFYING", "B": "BOOKED", "X": "BLOCKED"}
    with CpuMeter() as idle:  # e.g. autovacuum after the throughput phases
        await asyncio.sleep(1)
    out.idle_before = idle.machine

    async def runs(query: str, times: list[float]) -> dict[str, Any] | None:
        """Two warm-ups, then `grid_runs` timed requests; the last answer's availabilityGrid (None: a failure)."""
        data: dict[str, Any] = {}
        for i in range(cfg.grid_runs + 2):
            t = time.perf_counter()
            status, raw = await conn.post_json("/graphql", {"query": query, "variables": variables})
            dt = time.perf_counter() - t
            doc = json.loads(raw)
            data = (doc.get("data") or {}).get("availabilityGrid") or {}
            if status != 200 or doc.get("errors") or data.get("__typename") != "Grid":
                out.problem = f"HTTP {status}: {raw[:300]!r}"
                return None
            if i >= 2:
                times.append(dt)
        data["bytes"] = len(raw)
        return data

    try:
        with CpuMeter(server) as out.cpu:
            compact = await runs(GRID, out.api)
        if compact is None:
            return out
        out.response_bytes = compact["bytes"]
        for row in compact["compact"]["rows"]:
            for _start, states in row["windows"]:
                for letter in states:
                    out.states[letters[letter]] += 1
        typed = await runs(GRID_SEGMENTS, out.api_segments)
        if typed is None:
            return out
        out.segment_bytes = typed["bytes"]
        out.segments = sum(len(row["segments"]) for row in typed["rows"])
    finally:
        await conn.close()

    pool = await create_pool(url, 2, 4)
    thresholds = gc.get_threshold()
    try:
        # The garbage collector as the API process sets it up (slothold/app.py): what the use case pays there.
        gc.collect()
        gc.freeze()
        gc.set_threshold(20_000, 20, 50)
        deps = Deps(uow=lambda: cast(UnitOfWork, PgUnitOfWork(pool)), clock=SystemClock())
        for i in range(cfg.grid_runs + 1):
            t = time.perf_counter()
            await queries.availability_grid(deps, g.unit_id, g.start, g.end)
            if i:
                out.use_case.append(time.perf_counter() - t)
        unit, resources = await queries.unit_with_resources(deps, g.unit_id)
        async with pool.acquire() as c:
            repo = PgBookings(functools.partial(_same, c))
            for i in range(cfg.grid_runs + 1):
                t0 = time.perf_counter()
                occ = await repo.grid_occupancy(g.unit_id, None, g.start, g.end)
                t1 = time.perf_counter()
                grid_rows(unit, resources, occ, g.start, g.end, datetime.now(UTC))
                if i:
                    out.sql.append(t1 - t0)
                    out.domain.append(time.perf_counter() - t1)
            out.occupancies = sum(len(o) for o in occ.values())
            out.plan = await _prepared_plan(c, _GRID_OCCUPANCY, g.unit_id, g.start, g.end, None)
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
        await pool.close()
    return out


async def _prepared_plan(conn: asyncpg.Connection, sql: str, *args: Any) -> str:
    """The plan and time of `sql` as the API runs it: a prepared statement, which PostgreSQL plans for its
    parameters the first five times and may then switch to a generic plan (EXPLAIN ANALYZE of the 6th run)."""
    literals = ", ".join("NULL" if a is None else f"'{a.isoformat() if isinstance(a, datetime) else a}'"
                         for a in args)
    await conn.execute(f"PREPARE bench_plan AS {sql}")
    try:
        for _ in range(5):
            await conn.execute(f"EXECUTE bench_plan({literals})")
        doc = await conn.fetchval(f"EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE bench_plan({literals})")
    finally:
        await conn.execute("DEALLOCATE bench_plan")
    doc = json.loads(doc) if isinstance(doc, str) else doc
    return f"{_scans(doc)}, {doc[0]['Execution Time']:.1f} ms in PostgreSQL"


def _scans(plan: Any) -> str:
    """'Seq Scan on t' / 'Index Scan on t using i' for each scan of an EXPLAIN (FORMAT JSON) plan."""
    found: list[str] = []

    def walk(node: dict[str, Any]) -> None:
        if "Relation Name" in node:
            index = f" using {node['Index Name']}" if "Index Name" in node else ""
            found.append(f"{node['Node Type']} on {node['Relation Name']}{index}")
        elif "Index Name" in node:  # a Bitmap Index Scan under its Bitmap Heap Scan
            found.append(f"{node['Node Type']} using {node['Index Name']}")
        for child in node.get("Plans", []):
            walk(child)

    walk((json.loads(plan) if isinstance(plan, str) else plan)[0]["Plan"])
    return "; ".join(found)


async def lapsed_probe(url: str, plan: _data.SlotPlan) -> str:
    """Rows in allocations, and what the hold path's lapsed check costs at that size (EXPLAIN ANALYZE)."""
    conn = await asyncpg.connect(url, server_settings={"jit": "off"})
    try:
        rows = await conn.fetchval("SELECT count(*) FROM allocations")
        rid, s, e = plan.pair(0)
        doc = await conn.fetchval("EXPLAIN (ANALYZE, FORMAT JSON) " + _LAPSED, plan.unit_id, [rid], s, e,
                                  datetime.now(UTC))
        doc = json.loads(doc) if isinstance(doc, str) else doc
        return (f"{rows:,} rows in allocations; the lapsed check of every hold (store/bookings.py _LAPSED) "
                f"takes {doc[0]['Execution Time']:.1f} ms: {_scans(doc)}")
    finally:
        await conn.close()


# -------------------------------------------------------------- the run


@dataclass
class Results:
    api1: Throughput
    sql: Throughput
    api2: Throughput
    single: tuple[list[float], Counter[str]]
    hot: HotSlot
    big_loser: tuple[list[float], Counter[str]]
    grid: GridTimes
    rss: dict[str, list[tuple[str, float]]]
    server_errors: dict[str, list[str]]
    probes: list[str]


async def measure(cfg: Config) -> tuple[Results, _data.GridUnit]:
    print(f"setup: database {cfg.db}, {cfg.resources:,} resources…", flush=True)
    url = await _data.reset_database(cfg.pg, cfg.db)
    await asyncio.to_thread(_data.migrate, url)
    now = datetime.now(UTC)
    pool = await create_pool(url, 1, 4)
    try:
        plan = await _data.hold_unit(pool, cfg.resources, now)
        hot = await _data.hot_unit(pool, now)
        g = await _data.grid_unit(pool, cfg.grid_resources, cfg.grid_days, now)
    finally:
        await pool.close()
    print(f"  {plan.capacity:,} holdable (resource, slot) pairs; grid unit: {g.bookings:,} bookings "
          f"({g.held} held), {g.slots_booked / g.slots_total:.0%} of its slots", flush=True)
    keys = itertools.count()  # slot-pair indices and customer numbers, never reused in a run
    logs = BENCH / ".logs"
    logs.mkdir(exist_ok=True)
    with CpuMeter() as idle:  # anything else running on the machine skews every figure
        await asyncio.sleep(1)
    probes = [f"before the run the machine was busy {idle.machine:.2f} cores with other work",
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
        print("3. hot slot", flush=True)
        hs = await hot_slot(cfg, server, hot, url, next(keys) + 10_000_000)
        big_loser = await one_hold(server, plan, [0, 1, 2], 30_000_000)  # pairs 0-2 are held since 1a
        print("4. grid", flush=True)
        gt = await grid_latency(cfg, server, url, g)
        rss["2 workers"], errors["2 workers"] = server.rss_mib(), server.log_errors()
    finally:
        server.stop()
    probes.append(f"at the end: {await lapsed_probe(url, plan)}")
    return Results(api1, sql, api2, single, hs, big_loser, gt, rss, errors, probes), g


def verdict(ok: bool) -> str:
    return "met" if ok else "**missed**"


def report(cfg: Config, r: Results, g: _data.GridUnit, started: datetime) -> Report:
    rep = Report(f"`bench.holds{' --quick' if cfg.quick else ''}`",
                 f"Holds: {cfg.resources:,} resources × 30 days, {cfg.clients} clients, "
                 f"{cfg.seconds:.0f} s per phase; hot slot: {cfg.hot_clients} clients × {cfg.hot_rounds} "
                 "rounds; grid: "
                 f"{cfg.grid_resources} resources × {cfg.grid_days} days × 30 min.", started)
    print("\nresults", flush=True)
    for t in (r.api1, r.sql, r.api2):
        rep.add(t.name, f"{t.rate:,.0f}/s ({t.ok:,} in {t.cpu.wall:.1f} s), latency {latency(t.latencies)}")
        rep.note(f"{t.name}: {t.cpu.describe(t.rate)}")
        if t.failures:
            rep.note(f"{t.name}: FAILURES {dict(t.failures)}; e.g. {t.samples[:2]}")
    best = max(r.api1.rate, r.api2.rate)
    if r.sql.rate:
        ratio = best / r.sql.rate
        rep.add("API/SQL ratio", f"{ratio:.2f} (1 worker {r.api1.rate / r.sql.rate:.2f}, 2 workers "
                f"{r.api2.rate / r.sql.rate:.2f})",
                f"≥ 0.25 {verdict(ratio >= 0.25)}; 0.5 {verdict(ratio >= 0.5)}")
    times, kinds = r.single
    rep.add("One hold at a time (API, 2 workers)", f"{latency(times)} ({dict(kinds)})")

    hs = r.hot
    rep.add(f"Hot slot: attempts/s ({cfg.hot_clients} clients)", f"{hs.rate:,.0f}/s over {hs.rounds} rounds")
    rep.add("Hot slot: round latency", latency(hs.round_times))
    rep.add("Hot slot: request latency", latency(hs.request_times))
    clean = hs.clean_rounds == hs.rounds and set(hs.kinds) <= {"BookingPayload", "SlotTaken"}
    rep.add(f"Hot slot: 1 winner + {cfg.hot_clients - 1} SlotTaken", f"{hs.clean_rounds}/{hs.rounds} rounds; "
            f"{dict(hs.kinds)}", verdict(clean))
    rep.note(f"hot slot: {hs.in_database}")
    for s in hs.samples:
        rep.note(f"hot slot FAILURE {s}")
    times, kinds = r.big_loser
    rep.add(f"A losing hold on the {cfg.resources:,}-resource unit", f"{latency(times)} ({dict(kinds)})")

    report_grid(rep, r.grid, g)
    for name, procs in r.rss.items():
        rep.add(f"API RSS, {name} (at its end)", ", ".join(f"{role} {v:.0f} MiB" for role, v in procs)
                + f"; total {sum(v for _, v in procs):.0f} MiB")
    for p in r.probes:
        rep.note(p)
    for name, errs in r.server_errors.items():
        if errs:
            rep.note(f"server log ({name}): {len(errs)} error lines, e.g. {errs[0][:300]}")
    return rep


def report_grid(rep: Report, gt: GridTimes, g: _data.GridUnit) -> None:
    if gt.problem:
        rep.note(f"grid FAILURE: {gt.problem}")
    else:
        rep.add("Grid: availabilityGrid via API (compact)", latency(gt.api),
                f"< 100 ms {verdict(pct(gt.api, 99) < 0.1)}")
        rep.add("Grid: availabilityGrid via API (typed segments)", latency(gt.api_segments),
                f"{gt.segments:,} segments, {gt.segment_bytes / 1024:,.0f} KiB")
        rep.add("Grid: use case in-process", latency(gt.use_case),
                f"< 100 ms {verdict(pct(gt.use_case, 99) < 0.1)}")
        rep.add("Grid: occupancy SQL (+ rows → columns)", latency(gt.sql))
        rep.add("Grid: grid_rows() domain computation", latency(gt.domain))
        rep.note(f"grid: {gt.segments:,} segments, {gt.response_bytes / 1024:,.0f} KiB of JSON, "
                 f"{gt.occupancies:,} occupancies read; slot states {dict(gt.states)} (data: "
                 f"{g.slots_booked / g.slots_total:.0%} of slots booked, {g.held} held bookings)")
        rep.note(f"grid: occupancy query as the API runs it: {gt.plan}")
        rep.note(f"grid: the machine was busy {gt.idle_before:.2f} cores with other work just before; during the "
                 f"compact API runs {gt.cpu.describe(0)}")


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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="a few seconds per phase, smaller data (smoke test)")
    ap.add_argument("--only", choices=["grid"], help="run one phase alone (grid: phase 4, about 30 s)")
    ap.add_argument("--record", action=argparse.BooleanOptionalAction, default=None,
                    help="append to bench/RESULTS.md (default: yes for a full run, no with --quick or --only)")
    args = ap.parse_args()
    cfg = Config.make(args.quick)
    started = datetime.now(UTC)

    def on_sigterm(*_: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_sigterm)
    if args.only == "grid":
        try:
            gt, g, probes, errors = uvloop.run(measure_grid(cfg))
        finally:
            stop_all()
        rep = Report(f"`bench.holds --only grid{' --quick' if cfg.quick else ''}`",
                     f"Grid alone: {cfg.grid_resources} resources × {cfg.grid_days} days × 30 min, "
                     f"{GRID_ONLY_FILLER:,} filler allocations on another unit.", started)
        print("\nresults", flush=True)
        report_grid(rep, gt, g)
        for p in probes:
            rep.note(p)
        for name, errs in errors.items():
            if errs:
                rep.note(f"server log ({name}): {len(errs)} error lines, e.g. {errs[0][:300]}")
    else:
        try:
            results, g = uvloop.run(measure(cfg))
        finally:
            stop_all()
        rep = report(cfg, results, g, started)
    if args.record if args.record is not None else not (cfg.quick or args.only):
        path = BENCH / "RESULTS.md"
        old = path.read_text() if path.exists() else "# Benchmark results\n\nNewest last; see README.md.\n\n"
        path.write_text(old + rep.markdown(BENCH.parent))
        print(f"\nappended to {path}")


if __name__ == "__main__":
    main()
