"""Phases 1 and 2 of the holds bench: holds per second through the API and of the same transaction done directly
in SQL; and holds sent one at a time, the latency floor of a request."""

from __future__ import annotations

import functools
import itertools
import time
from collections import Counter
from datetime import UTC, datetime
from typing import Any
from uuid import uuid4

import asyncpg

from bench import _data
from bench._holds_config import CPF_BASE, Config
from bench._holds_requests import _same, hold_body, post_hold, run_for
from bench._http import Connection
from bench._measure import CpuMeter, Throughput
from bench._server import ApiServer
from domain.bookings import Allocation, Booking, BookingStatus
from domain.customers import CustomerIdentity
from domain.errors import DomainError
from domain.holds import hold_deadline
from domain.units import UnitParameters
from store.bookings import PgBookings
from store.customers import PgCustomers
from store.db import create_pool
from tests.venues import cpf


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
                customer = await customers.identify(plan.tenant_id, CustomerIdentity(cpf=cpf(CPF_BASE + k)), now)
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
