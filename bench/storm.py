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
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit
from uuid import UUID, uuid4
from zoneinfo import ZoneInfo

import asyncpg
import httpx
import psutil
import websockets

from bench._data import migrate, reset_database
from bench._server import error_lines, stop_group
from domain.customers import complete_cpf
from providers.sandbox import SandboxProvider
from slothold.cli.embedded import EmbeddedServer, free_port, start_redis
from slothold.cli.embedded.pgbouncer import PgBouncer, start_pgbouncer
from slothold.settings import PROJECT_ROOT
from store.access import issue_system_token_blocking
from store.db import create_pool
from store.invariants import check, summary
from store.venues import ResourceSpec, VenueSpec, create_venue, every_day

TZ = ZoneInfo("America/Sao_Paulo")
SECRET = "storm-sandbox-secret"
HARNESS = "slothold-storm-harness"
UNIT_PARAMS = {"min_advance_minutes": 0, "hold_min_seconds": 5, "hold_ttl_seconds": 20,
               "hold_ttl_payment_seconds": 45, "charge_margin_seconds": 5, "verification_wait_seconds": 20,
               "hold_ceiling_percent": 100, "cooldown_expirations": 50, "hold_reminder_seconds": 0,
               "sweep_interval_seconds": 5, "waitlist_hold_seconds": 30}

HOLD = """mutation($i: HoldInput!, $k: String) { hold(input: $i, idempotencyKey: $k) { __typename
  ... on BookingPayload { booking { id status holdExpiresAt } } ... on Error { code } } }"""
CONFIRM = """mutation($b: ID!, $k: String) { confirm(bookingId: $b, idempotencyKey: $k) { __typename
  ... on BookingPayload { booking { id status } charge { txid } } ... on Error { code } } }"""
CANCEL = """mutation($b: ID!) { cancel(bookingId: $b) { __typename ... on Error { code } } }"""
DROP = """mutation($b: ID!) { drop(bookingId: $b, reason: "storm") { __typename ... on Error { code } } }"""
SWAP = """mutation($b: ID!, $i: SwapInput!) { swapHold(bookingId: $b, input: $i) { __typename
  ... on BookingPayload { booking { id } } ... on Error { code } } }"""
RESCHEDULE = """mutation($b: ID!, $i: RescheduleInput!) { reschedule(bookingId: $b, input: $i) { __typename
  ... on BookingPayload { booking { id } } ... on Error { code } } }"""
COUNTER = """mutation($i: CounterBookingInput!) { counterBooking(input: $i) { __typename ... on Error { code } } }"""
WAITLIST = """mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!, $c: String!) { joinSlotWaitlist(unitId: $u,
  resourceId: $r, startsAt: $s, endsAt: $e, customer: {cpf: $c}) { __typename ... on Error { code } } }"""
CAPACITY = """mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!, $user: String!) { joinCapacityWaitlist(
  unitId: $u, resourceId: $r, startsAt: $s, endsAt: $e, partySize: 2, user: $user) { __typename
  ... on CapacityWaitlistEntry { id } ... on Error { code } } }"""
ENTRY = """query($i: ID!) { capacityWaitlistEntry(id: $i) { __typename
  ... on CapacityWaitlistEntry { status offerToken } ... on Error { code } } }"""
CLAIM = """mutation($u: ID!, $t: String!, $user: String!) { claimWaitlistOffer(unitId: $u, token: $t, user: $user) {
  __typename ... on Booking { id } ... on Error { code } } }"""
SLOTS = """subscription($u: ID!, $from: DateTime!, $to: DateTime!, $since: Int) {
  slotChanged(unitId: $u, from: $from, to: $to, since: $since) { seq } }"""


@dataclass
class Config:
    seconds: float = 90.0
    customers: int = 3000
    concurrency: int = 48
    apis: int = 3
    workers: int = 2
    units: int = 3
    fields: int = 8
    subscribers: int = 4
    """Websocket subscribers per unit."""
    faults: bool = True
    server_url: str = "postgresql://postgres@127.0.0.1:5432"
    database: str = "slothold_storm"
    seed: int = 7
    settle_seconds: float = 12.0
    late_after: float = 50.0
    """A late payment arrives this long after the charge (the hold's payment TTL is 45 s)."""
    late_share: float = 0.1
    duplicate_share: float = 0.2
    pgbouncer: int = 0
    """Through PgBouncer in transaction mode with at most this many server connections (0: straight to PostgreSQL);
    the relays' sessions stay direct (DATABASE_DIRECT_URL)."""


@dataclass
class Stats:
    latency: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    outcomes: Counter[tuple[str, str]] = field(default_factory=Counter)
    errors: Counter[tuple[str, str]] = field(default_factory=Counter)
    keys: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    """Idempotency key → every booking id an answer to it named."""
    faults: list[tuple[float, str]] = field(default_factory=list)
    rss: dict[str, float] = field(default_factory=dict)
    """Peak resident memory (MiB) per process name."""
    peaks: dict[str, float] = field(default_factory=dict)
    """The highest value of each watched /metrics figure seen while the storm ran."""
    scrapes: int = 0
    scrape_failures: int = 0
    backends: int = 0
    """The most PostgreSQL backends the system's processes held at once (the harness's own aside)."""


class Proc:
    """A child process in its own session, restartable."""

    def __init__(self, name: str, args: list[str], env: dict[str, str], logs: Path) -> None:
        self.name, self.args, self.env, self.log = name, args, env, logs / f"{name}.log"
        self.popen: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.popen = subprocess.Popen([sys.executable, *self.args], cwd=PROJECT_ROOT, env=self.env, stdout=out,
                                          stderr=subprocess.STDOUT, start_new_session=True)

    def kill(self) -> None:
        if self.popen is not None and self.popen.poll() is None:
            os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait(5)

    def stop(self) -> None:
        stop_group(self.popen)

    def rss_mib(self) -> float:
        if self.popen is None or self.popen.poll() is not None:
            return 0.0
        try:
            root = psutil.Process(self.popen.pid)
            return sum(p.memory_info().rss for p in [root, *root.children(recursive=True)]) / 2**20
        except psutil.Error:
            return 0.0


class System:
    """The processes of the storm: APIs, workers, and the Redis it owns."""

    def __init__(self, cfg: Config, db_url: str, logs: Path) -> None:
        self.cfg, self.db_url, self.logs = cfg, db_url, logs
        self.redis_dir = logs / "redis"
        self.redis: EmbeddedServer = start_redis(self.redis_dir, free_port())
        self.bouncer: PgBouncer | None = None
        pooled = db_url
        if cfg.pgbouncer:
            self.bouncer = start_pgbouncer(logs / "pgbouncer", db_url, pool_size=cfg.pgbouncer,
                                           max_db_connections=cfg.pgbouncer)
            pooled = self.bouncer.url_for(db_url)
        self.env = {**os.environ, "DATABASE_URL": pooled, "DATABASE_DIRECT_URL": db_url, "REDIS_URL": self.redis.url,
                    "SLOTHOLD_LOG_LEVEL": "WARNING", "SLOTHOLD_SWEEP_SECONDS": "5",
                    "SLOTHOLD_PIX_PROVIDER": "sandbox", "SLOTHOLD_SANDBOX_WEBHOOK_SECRET": SECRET}
        self.ports = [free_port() for _ in range(cfg.apis)]
        self.apis = [Proc(f"api{i}", ["-m", "uvicorn", "slothold.app:create_app", "--factory", "--port", str(p),
                                      "--no-access-log", "--log-level", "warning"], self.env, logs)
                     for i, p in enumerate(self.ports)]
        self.workers = [Proc(f"worker{i}", ["-m", "slothold.cli", "worker"], self.env, logs)
                        for i in range(cfg.workers)]

    def start(self) -> None:
        for p in [*self.apis, *self.workers]:
            p.start()
        for port, p in zip(self.ports, self.apis, strict=True):
            wait_http(port, p)

    def stop(self) -> None:
        for p in [*self.workers, *self.apis]:
            p.stop()
        self.redis.stop()
        if self.bouncer is not None:
            self.bouncer.stop()

    def procs(self) -> list[Proc]:
        return [*self.apis, *self.workers]

    def error_lines(self) -> list[str]:
        return [f"{p.name}: {line}" for p in self.procs() for line in error_lines(p.log)]


def wait_http(port: int, proc: Proc, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.popen is not None and proc.popen.poll() is not None:
            raise RuntimeError(f"{proc.name} exited; see {proc.log}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{proc.name} did not come up; see {proc.log}")


class Client:
    """GraphQL over HTTP to a random API process; a dropped connection or a 5xx is retried on another one with the
    same request (and idempotency key), as an integrator would."""

    def __init__(self, ports: list[int], token: str, stats: Stats, rng: random.Random) -> None:
        self.ports, self.stats, self.rng = ports, stats, rng
        self.http = {p: httpx.AsyncClient(base_url=f"http://127.0.0.1:{p}", timeout=15,
                                          headers={"authorization": f"Bearer {token}"},
                                          limits=httpx.Limits(max_connections=64)) for p in ports}

    async def close(self) -> None:
        for c in self.http.values():
            await c.aclose()

    async def gql(self, op: str, query: str, variables: dict[str, Any], tries: int = 4) -> dict[str, Any] | None:
        for attempt in range(tries):
            port = self.rng.choice(self.ports)
            t0 = time.perf_counter()
            try:
                r = await self.http[port].post("/graphql", json={"query": query, "variables": variables})
            except httpx.HTTPError as e:
                self.stats.errors[(op, type(e).__name__)] += 1
                await asyncio.sleep(0.2 * (attempt + 1))
                continue
            self.stats.latency[op].append(time.perf_counter() - t0)
            if r.status_code >= 500:
                self.stats.errors[(op, f"http_{r.status_code}")] += 1
                await asyncio.sleep(0.2 * (attempt + 1))
                continue
            body = r.json()
            if body.get("errors"):
                code = (body["errors"][0].get("extensions") or {}).get("code", "error")
                self.stats.errors[(op, str(code))] += 1
                return None
            data: dict[str, Any] = body["data"]
            result = next(iter(data.values()))
            outcome = result.get("__typename", "?") if isinstance(result, dict) else "ok"
            if isinstance(result, dict) and result.get("code"):
                outcome = f"{outcome}:{result['code']}"
            self.stats.outcomes[(op, outcome)] += 1
            return result if isinstance(result, dict) else data
        self.stats.outcomes[(op, "gave_up")] += 1
        return None

    async def webhook(self, headers: dict[str, str], body: bytes) -> None:
        for attempt in range(6):
            port = self.rng.choice(self.ports)
            t0 = time.perf_counter()
            try:
                r = await self.http[port].post("/webhooks/sandbox", content=body, headers=headers)
            except httpx.HTTPError as e:
                self.stats.errors[("webhook", type(e).__name__)] += 1
                await asyncio.sleep(0.3 * (attempt + 1))
                continue
            self.stats.latency["webhook"].append(time.perf_counter() - t0)
            if r.status_code == 200:
                self.stats.outcomes[("webhook", "accepted")] += 1
                return
            self.stats.errors[("webhook", f"http_{r.status_code}")] += 1
            await asyncio.sleep(0.3 * (attempt + 1))
        self.stats.outcomes[("webhook", "gave_up")] += 1


@dataclass
class Venue:
    unit_id: UUID
    fields: list[UUID]
    pooled: UUID
    service: UUID


class Storm:
    def __init__(self, cfg: Config, client: Client, bank: SandboxProvider, venues: list[Venue], stats: Stats,
                 rng: random.Random) -> None:
        self.cfg, self.c, self.bank, self.venues, self.stats, self.rng = cfg, client, bank, venues, stats, rng
        self.next_customer = 0
        self.open_holds: list[str] = []
        base = datetime.now(TZ).replace(minute=0, second=0, microsecond=0) + timedelta(hours=2)
        self.slots = [base + timedelta(hours=h) for h in range(48) if 8 <= (base + timedelta(hours=h)).hour <= 21]

    def customer(self) -> str:
        self.next_customer = (self.next_customer + 1) % self.cfg.customers
        return complete_cpf(f"{7_000_000 + self.next_customer:09d}")

    def slot(self, v: Venue) -> dict[str, Any]:
        start = self.rng.choice(self.slots)
        return {"unitId": str(v.unit_id), "resourceIds": [str(self.rng.choice(v.fields))],
                "startsAt": start.isoformat(), "endsAt": (start + timedelta(hours=1)).isoformat()}

    async def hold(self, v: Venue, who: str) -> dict[str, Any] | None:
        key = f"storm-{uuid4().hex}"
        i = {**self.slot(v), "customer": {"cpf": who}, "serviceId": str(v.service)}
        if self.rng.random() < 0.15:  # a client that retries at once (or sends twice): one booking
            rs = await asyncio.gather(self.c.gql("hold", HOLD, {"i": i, "k": key}),
                                      self.c.gql("hold", HOLD, {"i": i, "k": key}))
        else:
            rs = (await self.c.gql("hold", HOLD, {"i": i, "k": key}),)
        for r in rs:
            if r and r.get("__typename") == "BookingPayload":
                self.stats.keys[key].add(r["booking"]["id"])
        r = next((x for x in rs if x and x.get("__typename") == "BookingPayload"), rs[0])
        if r is not None and r.get("__typename") == "SlotTaken" and self.rng.random() < 0.3:
            await self.c.gql("joinSlotWaitlist", WAITLIST, {"u": i["unitId"], "r": i["resourceIds"][0],
                                                            "s": i["startsAt"], "e": i["endsAt"], "c": who})
        return r if r and r.get("__typename") == "BookingPayload" else None

    async def pay(self, booking: str) -> None:
        r = await self.c.gql("confirm", CONFIRM, {"b": booking, "k": f"c-{booking}"})
        if not r or not r.get("charge"):
            return
        txid = r["charge"]["txid"]
        late = self.rng.random() < self.cfg.late_share
        await asyncio.sleep(self.cfg.late_after if late else self.rng.uniform(0.2, 3))  # late: past the deadline
        try:
            headers, body = await self.bank.pay(txid)
        except ValueError:
            return
        await self.c.webhook(headers, body)
        if self.rng.random() < self.cfg.duplicate_share:  # the bank sends it again
            await asyncio.sleep(self.rng.uniform(0, 1))
            await self.c.webhook(headers, body)

    async def customer_flow(self) -> None:
        v = self.rng.choice(self.venues)
        who = self.customer()
        if self.rng.random() < 0.08:
            await self.class_flow(v, who)
            return
        held = await self.hold(v, who)
        if held is None:
            return
        b = held["booking"]["id"]
        roll = self.rng.random()
        if roll < 0.45:
            await self.pay(b)
        elif roll < 0.60:
            await asyncio.sleep(self.rng.uniform(0, 3))
            await self.c.gql("cancel", CANCEL, {"b": b})
        elif roll < 0.72:
            self.open_holds.append(b)  # abandoned: it expires (or staff drop it)
        elif roll < 0.84:
            moved = await self.c.gql("swapHold", SWAP, {"b": b, "i": {**_range(self.slot(v)),
                                                                      "customer": {"cpf": who}}})
            if moved and moved.get("__typename") == "BookingPayload" and self.rng.random() < 0.5:
                await self.pay(moved["booking"]["id"])
        else:
            await self.pay(b)
            await asyncio.sleep(self.rng.uniform(1, 4))
            await self.c.gql("reschedule", RESCHEDULE, {"b": b, "i": _range(self.slot(v))})

    async def class_flow(self, v: Venue, who: str) -> None:
        start = self.rng.choice(self.slots[:3])  # a few popular classes: they fill up and people wait in line
        i = {"unitId": str(v.unit_id), "resourceIds": [str(v.pooled)], "startsAt": start.isoformat(),
             "endsAt": (start + timedelta(hours=1)).isoformat(), "quantity": 2, "customer": {"cpf": who}}
        r = await self.c.gql("hold", HOLD, {"i": i, "k": None})
        if r and r.get("__typename") == "SlotTaken":
            user = f"storm-{who}"
            entry = await self.c.gql("joinCapacityWaitlist", CAPACITY, {
                "u": i["unitId"], "r": i["resourceIds"][0], "s": i["startsAt"], "e": i["endsAt"], "user": user})
            if not entry or entry.get("__typename") != "CapacityWaitlistEntry":
                return
            for _ in range(8):  # wait a while for places to free up and an offer to come
                await asyncio.sleep(2)
                seen = await self.c.gql("capacityWaitlistEntry", ENTRY, {"i": entry["id"]})
                if seen and seen.get("offerToken"):
                    claimed = await self.c.gql("claimWaitlistOffer", CLAIM, {
                        "u": i["unitId"], "t": seen["offerToken"], "user": user})
                    if claimed and claimed.get("__typename") == "Booking" and self.rng.random() < 0.5:
                        await self.c.gql("cancel", CANCEL, {"b": claimed["id"]})
                    return
        elif r and r.get("__typename") == "BookingPayload" and self.rng.random() < 0.5:
            await self.c.gql("cancel", CANCEL, {"b": r["booking"]["id"]})

    async def staff_flow(self) -> None:
        v = self.rng.choice(self.venues)
        if self.open_holds and self.rng.random() < 0.5:
            await self.c.gql("drop", DROP, {"b": self.open_holds.pop(self.rng.randrange(len(self.open_holds)))})
        else:
            await self.c.gql("counterBooking", COUNTER, {"i": self.slot(v)})

    async def actor(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                if self.rng.random() < 0.1:
                    await self.staff_flow()
                else:
                    await self.customer_flow()
            except Exception as e:  # a harness bug must not stop the storm; it is counted
                self.stats.errors[("harness", type(e).__name__)] += 1


def _range(i: dict[str, Any]) -> dict[str, Any]:
    return {"startsAt": i["startsAt"], "endsAt": i["endsAt"], "resourceIds": i["resourceIds"]}


class Subscriber:
    """One dashboard: slotChanged of one unit, reconnecting with `since` after any disconnection."""

    def __init__(self, unit: UUID, ports: list[int], token: str, rng: random.Random) -> None:
        self.unit, self.ports, self.token, self.rng = unit, ports, token, rng
        self.seqs: list[int] = []
        self.reconnects = 0
        self.errors: list[str] = []
        """Error answers received (each followed by a resubscription with since)."""

    async def run(self, stop: asyncio.Event) -> None:
        now = datetime.now(UTC)
        window = {"u": str(self.unit), "from": (now - timedelta(days=1)).isoformat(),
                  "to": (now + timedelta(days=4)).isoformat()}
        while not stop.is_set():
            port = self.rng.choice(self.ports)
            try:
                async with websockets.connect(f"ws://127.0.0.1:{port}/graphql", subprotocols=["graphql-transport-ws"],
                                              open_timeout=5, max_size=None) as ws:
                    await ws.send(json.dumps({"type": "connection_init",
                                              "payload": {"authorization": f"Bearer {self.token}"}}))
                    await ws.recv()
                    since = self.seqs[-1] if self.seqs else None
                    await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": {
                        "query": SLOTS, "variables": {**window, "since": since if since is not None else 0}}}))
                    while not stop.is_set():
                        try:
                            raw = await asyncio.wait_for(ws.recv(), 0.5)
                        except TimeoutError:
                            continue
                        msg = json.loads(raw)
                        data = (msg.get("payload") or {}).get("data") if msg.get("type") == "next" else None
                        if data and data.get("slotChanged"):
                            self.seqs.append(data["slotChanged"]["seq"])
                        elif msg.get("type") in ("next", "error", "complete"):
                            # An error (e.g. the database went away mid-replay): resubscribe with since, as a
                            # dashboard does.
                            self.errors.append(json.dumps(msg)[:300])
                            break
            except (OSError, websockets.WebSocketException, TimeoutError):
                pass
            except Exception as e:  # a harness bug must not silently end a subscriber: count it, carry on
                self.errors.append(f"{type(e).__name__}: {e}")
            if not stop.is_set():
                self.reconnects += 1
                await asyncio.sleep(0.5)


async def faults(cfg: Config, system: System, stop: asyncio.Event, stats: Stats, t0: float) -> None:
    """Inject the faults at fixed points of the storm."""
    plan = [(0.2, "worker0 SIGKILL, restarted 3 s later"), (0.35, "Redis stopped for 5 s"),
            (0.5, "api1 restarted (SIGTERM)"), (0.65, "PostgreSQL connections cut"),
            (0.8, "worker1 SIGKILL, restarted 3 s later")]
    for at, what in plan:
        delay = t0 + at * cfg.seconds - time.monotonic()
        if delay > 0:
            try:
                await asyncio.wait_for(stop.wait(), delay)
                return
            except TimeoutError:
                pass
        stats.faults.append((time.monotonic() - t0, what))
        if what.startswith("worker"):
            w = system.workers[int(what[6]) % len(system.workers)]
            w.kill()
            await asyncio.sleep(3)
            w.start()
        elif what.startswith("Redis"):
            port = system.redis.port
            system.redis.stop()
            await asyncio.sleep(5)
            system.redis = await asyncio.to_thread(start_redis, system.redis_dir, port)
        elif what.startswith("api"):
            i = 1 % len(system.apis)
            system.apis[i].stop()
            system.apis[i].start()
            await asyncio.to_thread(wait_http, system.ports[i], system.apis[i])
        else:
            conn = await asyncpg.connect(system.db_url)
            try:
                cut = await conn.fetchval(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() "
                    "AND pid <> pg_backend_pid() AND application_name <> $1", HARNESS)
            finally:
                await conn.close()
            stats.faults[-1] = (stats.faults[-1][0], f"{what}: {cut} backends terminated")


WATCHED = {"slothold_outbox_backlog": "outbox backlog", "slothold_relay_lag_seconds": "relay lag (s)",
           "slothold_job_lag_seconds": "job lag (s)", "slothold_lapsed_holds": "lapsed holds not yet expired",
           "slothold_lapsed_hold_max_age_seconds": "oldest lapsed hold (s)", "slothold_subscribers": "subscribers",
           "slothold_expirations_total": "expirations", "slothold_holds_total": "holds (all outcomes)",
           "slothold_conflicts_total": "conflicts"}


async def scrape_metrics(system: System, stats: Stats, stop: asyncio.Event) -> None:
    """Read every API's /metrics every 2 s while the storm runs; keep the peak of each watched figure (summed over
    processes for per-process ones, the cluster-wide ones are the same in every process)."""
    from prometheus_client.parser import text_string_to_metric_families

    cluster_wide = {"slothold_outbox_backlog", "slothold_relay_lag_seconds", "slothold_job_lag_seconds",
                    "slothold_lapsed_holds", "slothold_lapsed_hold_max_age_seconds", "slothold_expirations_total"}
    async with httpx.AsyncClient(timeout=3) as http:
        while not stop.is_set():
            totals: dict[str, float] = defaultdict(float)
            for port in system.ports:
                try:
                    r = await http.get(f"http://127.0.0.1:{port}/metrics")
                except httpx.HTTPError:
                    stats.scrape_failures += 1
                    continue
                if r.status_code != 200:
                    stats.scrape_failures += 1
                    continue
                stats.scrapes += 1
                for family in text_string_to_metric_families(r.text):
                    for sample in family.samples:
                        if sample.name in WATCHED:
                            if sample.name in cluster_wide:
                                totals[sample.name] = max(totals[sample.name], sample.value)
                            else:
                                totals[sample.name] += sample.value
            for name, value in totals.items():
                stats.peaks[name] = max(stats.peaks.get(name, 0.0), value)
            try:
                await asyncio.wait_for(stop.wait(), 2.0)
            except TimeoutError:
                pass


async def sample_memory(system: System, stats: Stats, stop: asyncio.Event, pool: asyncpg.Pool) -> None:
    while not stop.is_set():
        for p in system.procs():
            stats.rss[p.name] = max(stats.rss.get(p.name, 0.0), p.rss_mib())
        try:
            stats.backends = max(stats.backends, await pool.fetchval(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name <> $1",
                HARNESS))
        except (OSError, asyncpg.PostgresError):
            pass
        try:
            await asyncio.wait_for(stop.wait(), 1.0)
        except TimeoutError:
            pass


async def setup_venues(pool: asyncpg.Pool, cfg: Config) -> list[Venue]:
    out = []
    for n in range(cfg.units):
        resources = [ResourceSpec(name=f"Campo {i}", group="Campos") for i in range(1, cfg.fields + 1)]
        resources.append(ResourceSpec(name="Aula", kind="pooled", capacity=6))
        v = await create_venue(pool, VenueSpec(
            unit_name=f"Storm arena {n}", hours=every_day(0, 24), resources=resources, params=UNIT_PARAMS,
            services=[{"name": "Campo 1h", "duration_minutes": 60, "price_cents": 5000}]))
        out.append(Venue(v.unit_id, [v.resource_ids[f"Campo {i}"] for i in range(1, cfg.fields + 1)],
                         v.resource_ids["Aula"], v.service_ids["Campo 1h"]))
    return out


async def slot_seqs(pool: asyncpg.Pool, unit_id: UUID) -> list[int]:
    """The unit's numbered grid events (what slotChanged streams), in order."""
    return [r["seq"] for r in await pool.fetch(
        "SELECT seq FROM outbox WHERE unit_id = $1 AND topic IN ('slot_changed', 'block_changed') "
        "AND seq IS NOT NULL ORDER BY seq", unit_id)]


async def caught_up(pool: asyncpg.Pool, subscribers: list[Subscriber], timeout: float) -> set[UUID]:
    """Wait until every subscriber has seen its unit's latest event; the units whose subscribers all did."""
    deadline = time.monotonic() + timeout
    while True:
        done = set()
        for unit in {s.unit for s in subscribers}:
            every = await slot_seqs(pool, unit)
            last = every[-1] if every else 0
            if all((s.seqs[-1] if s.seqs else 0) >= last for s in subscribers if s.unit == unit):
                done.add(unit)
        if len(done) == len({s.unit for s in subscribers}) or time.monotonic() > deadline:
            return done
        await asyncio.sleep(0.5)


async def outbox_drained(pool: asyncpg.Pool, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not await pool.fetchval("SELECT count(*) FROM outbox WHERE seq IS NULL OR published_at IS NULL"):
            return True
        await asyncio.sleep(0.5)
    return False


def pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] * 1000


async def run(cfg: Config, logs: Path | None = None) -> dict[str, Any]:
    """One storm; returns the report (see `render`); report["ok"] says whether every check passed."""
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
        system = System(cfg, db_url, logs)
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
        fault_task = asyncio.create_task(faults(cfg, system, stop, stats, t0)) if cfg.faults else None
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
