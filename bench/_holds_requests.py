"""One hold request of the holds bench (its body, and what came back), and loops that send them for a while."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any
from uuid import UUID

import asyncpg

from bench import _data
from bench._holds_config import CPF_BASE, HOLD
from bench._http import Connection, HttpError
from tests.venues import cpf


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
