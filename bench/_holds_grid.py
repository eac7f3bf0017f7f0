"""Phase 4 of the holds bench: availabilityGrid over a month through the API (compact and typed segments), then
the use case, the occupancy SQL and grid_rows() in-process."""

from __future__ import annotations

import asyncio
import functools
import gc
import json
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, cast

from bench import _data
from bench._holds_config import GRID, GRID_SEGMENTS, Config
from bench._holds_plans import _prepared_plan
from bench._holds_requests import _same
from bench._http import Connection
from bench._measure import CpuMeter
from bench._server import ApiServer
from domain import queries
from domain.availability import grid_rows
from domain.availability.states import CODES
from domain.ports import UnitOfWork
from domain.services import Deps
from providers.clock import SystemClock
from store.bookings import _GRID_OCCUPANCY, PgBookings
from store.db import create_pool
from store.uow import PgUnitOfWork


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
    letters = {code: state.name for state, code in CODES.items()}  # the compact grid's letters, from the domain
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
