"""Phase 3b of the holds bench: many customers over the 4 fields of one evening, each trying until it holds one
(field, hour) or knows all are taken; and a sampler of what the bench database's backends wait on."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from uuid import UUID

import asyncpg

from bench import _data
from bench._holds_config import CPF_BASE, HOLD, Config
from bench._holds_requests import post_hold
from bench._http import Connection
from bench._measure import CpuMeter
from bench._server import ApiServer
from schema.ids import decode_id
from tests.venues import cpf

CONFLICTS = ("SlotTaken", "SlotHeld")
"""The refusals that are real conflicts; any other refusal (Busy, an internal error, …) should not happen."""
EVENING_HOURS = range(18, 23)
"""Local start hours of an evening's slots: 18:00 to 23:00 on 4 fields, 20 (field, hour) pairs."""
TRIES = 3
"""Holds a customer sends at most: what it asked for, then what it was offered (or another pair)."""


@dataclass
class Evening:
    rounds: int = 0
    attempts: int = 0
    holds: int = 0
    pairs: int = 0  # (field, hour) pairs over all rounds
    kinds: Counter[str] = field(default_factory=Counter)
    samples: list[str] = field(default_factory=list)
    round_times: list[float] = field(default_factory=list)
    request_times: list[float] = field(default_factory=list)
    in_database: str = ""
    refused_free: int = 0  # (field, hour) pairs refused as taken that nobody held at the end of their round
    waits: str = ""
    cpu: CpuMeter = field(default_factory=CpuMeter)

    @property
    def rate(self) -> float:
        return self.holds / sum(self.round_times) if self.round_times else 0.0

    @property
    def attempt_rate(self) -> float:
        return self.attempts / sum(self.round_times) if self.round_times else 0.0

    @property
    def refusals(self) -> int:
        return self.attempts - self.kinds["BookingPayload"]

    @property
    def not_conflicts(self) -> int:
        return self.refusals - sum(self.kinds[k] for k in CONFLICTS)


def evenings(plan: _data.SlotPlan) -> list[list[tuple[datetime, datetime]]]:
    """The holdable evenings of the plan's slots (every one of EVENING_HOURS holdable), in date order."""
    tz = _data._unit(60).tz
    by_day: dict[Any, list[tuple[datetime, datetime]]] = {}
    for s, e in plan.slots:
        local = s.astimezone(tz)
        if local.hour in EVENING_HOURS:
            by_day.setdefault(local.date(), []).append((s, e))
    return [v for _, v in sorted(by_day.items()) if len(v) == len(EVENING_HOURS)]


def _body(plan: _data.SlotPlan, rid: UUID | None, s: datetime, e: datetime, n: int) -> dict[str, Any]:
    ask: dict[str, Any] = {"unitId": str(plan.unit_id), "startsAt": s.isoformat(), "endsAt": e.isoformat(),
                           "customer": {"cpf": cpf(CPF_BASE + n)}}
    if rid is not None:
        ask["resourceIds"] = [str(rid)]
    return {"query": HOLD, "variables": {"input": ask}}


async def evening(cfg: Config, server: ApiServer, plan: _data.SlotPlan, url: str, first: int) -> Evening:
    """Rounds of `evening_clients` customers, each on its own keep-alive connection, over one new evening each:
    a customer asks for a random (field, hour) — one in four for any field at a random hour — and after a
    SlotTaken tries the first alternative offered in the evening, else a random pair it has not seen taken; it
    stops once it holds one, has seen every pair taken or has sent TRIES holds. Nothing is released during a
    round, so a pair refused as taken must be held at the end of it (else a free slot was refused)."""
    out = Evening()
    days = evenings(plan)[1: 1 + cfg.evening_rounds]  # tomorrow on (today's evening may be partly past)
    rnd = random.Random(11)
    conns = [Connection("127.0.0.1", server.port) for _ in range(cfg.evening_clients)]
    fields = plan.resource_ids

    async def customer(conn: Connection, slots: list[tuple[datetime, datetime]], n: int,
                       refused: set[tuple[UUID, datetime]]) -> None:
        pairs = [(r, s, e) for s, e in slots for r in fields]
        taken: set[tuple[UUID, datetime]] = set()
        r0, s0, e0 = rnd.choice(pairs)
        ask: tuple[UUID | None, datetime, datetime] = (None if rnd.random() < 0.25 else r0, s0, e0)
        for _ in range(TRIES):
            rid, s, e = ask
            t = time.perf_counter()
            kind, detail = await post_hold(conn, _body(plan, rid, s, e, n))
            if kind == "connection_error":  # the server closed a connection idle since the last round: reopened
                t = time.perf_counter()
                kind, detail = await post_hold(conn, _body(plan, rid, s, e, n))
            out.request_times.append(time.perf_counter() - t)
            out.kinds[kind] += 1
            out.attempts += 1
            if kind == "BookingPayload":
                out.holds += 1
                return
            if kind not in CONFLICTS:
                if len(out.samples) < 5:
                    out.samples.append(f"{kind}: {detail[:300]}")
                return
            taken.update((r, s) for r in (fields if rid is None else [rid]))
            refused.update((r, s) for r in (fields if rid is None else [rid]))
            offered = [(decode_id(a["resourceId"])[1], datetime.fromisoformat(a["startsAt"]))
                       for a in (json.loads(detail).get("alternatives") or [])]
            nxt = next(((r, s2, e2) for r, s2, e2 in pairs if (r, s2) in offered and (r, s2) not in taken), None)
            if nxt is None:
                free = [p for p in pairs if (p[0], p[1]) not in taken]
                if not free:
                    return
                nxt = rnd.choice(free)
            ask = nxt

    try:
        s, e = plan.slots[-1]  # warm the connections on a slot outside the rounds
        await asyncio.gather(*(post_hold(c, _body(plan, fields[j % len(fields)], s, e, first + j))
                               for j, c in enumerate(conns)))
        refused: set[tuple[UUID, datetime]] = set()
        out.cpu = CpuMeter(server, cfg.db)
        out.cpu.__enter__()
        for r, slots in enumerate(days):
            n0 = first + (r + 1) * cfg.evening_clients
            t = time.perf_counter()
            await asyncio.gather(*(customer(c, slots, n0 + j, refused) for j, c in enumerate(conns)))
            out.round_times.append(time.perf_counter() - t)
            out.rounds += 1
            out.pairs += len(slots) * len(fields)
        out.cpu.__exit__()
    finally:
        for c in conns:
            await c.close()
    rows = await _data.fetch(url, "SELECT resource_id AS r, lower(during) AS s, count(*) AS n FROM allocations "
                             "WHERE unit_id = $1::uuid AND occupies GROUP BY 1, 2", plan.unit_id)
    held = {(x["r"], x["s"]): x["n"] for x in rows}
    wanted = [(rid, s) for slots in days for s, _ in slots for rid in fields]
    ones = sum(held.get(p) == 1 for p in wanted)
    more = sum(held.get(p, 0) > 1 for p in wanted)
    out.refused_free = sum(p not in held for p in refused)
    out.in_database = (f"{ones}/{len(wanted)} (field, hour) pairs of the evenings are held by exactly one "
                       f"occupying allocation in the database, {more} by more; {out.holds} holds answered; "
                       f"{out.refused_free} of the {len(refused)} pairs refused as taken were free at the end")
    return out


class WaitSampler:
    """Samples pg_stat_activity every `every` s while it runs: what the bench database's active backends wait on
    (wait_event_type:wait_event, or `CPU` when running), as shares of the samples of a backend."""

    def __init__(self, url: str, db: str, every: float = 0.02) -> None:
        self.url, self.db, self.every = url, db, every
        self.counts: Counter[str] = Counter()
        self.samples = 0
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        conn = await asyncpg.connect(self.url)
        try:
            while True:
                rows = await conn.fetch(
                    "SELECT state, wait_event_type AS t, wait_event AS w FROM pg_stat_activity "
                    "WHERE datname = $1 AND pid <> pg_backend_pid() AND backend_type = 'client backend'", self.db)
                self.samples += 1
                for x in rows:
                    if x["state"] == "active":
                        self.counts[f"{x['t']}:{x['w']}" if x["t"] else "CPU"] += 1
                    elif x["state"] == "idle in transaction":
                        self.counts["idle in transaction"] += 1
                await asyncio.sleep(self.every)
        finally:
            await conn.close()

    async def __aenter__(self) -> WaitSampler:
        self._task = asyncio.create_task(self._run())
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        try:
            await self._task
        except (asyncio.CancelledError, asyncpg.PostgresError, OSError):
            pass

    def describe(self) -> str:
        if not self.samples:
            return "no samples"
        top = ", ".join(f"{k} {v / self.samples:.1f}" for k, v in self.counts.most_common(6))
        return f"backends (mean over {self.samples} samples) {top}"
