"""Phase 2 of the holds bench: the hold's own transaction done directly on bare connections — the statements an API
hold runs, from store/'s repositories (never a copy of their SQL) — and a trace that proves they are the same.

Left out against the API: HTTP, GraphQL, the use case's Python, the pool (a connection is kept for the whole
phase), the cached configuration reads (units, resources) and the hold rate limiter.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from uuid import uuid4

import asyncpg

from bench import _data
from bench._holds_config import CPF_BASE, Config
from bench._holds_requests import _same, run_for
from bench._measure import CpuMeter, Throughput
from domain import fraud
from domain.bookings import Allocation, Booking
from domain.customers import CustomerIdentity
from domain.errors import DomainError
from domain.holds import hold_deadline, reminder_at
from domain.services import Deps
from domain.services.holds import HoldCommand, hold
from domain.units import Unit
from providers.clock import SystemClock
from store.antifraud import PgAntifraud
from store.bookings import PgBookings
from store.customers import PgCustomers
from store.db import create_pool
from store.units import PgUnits
from store.uow import PgUnitOfWork
from tests.venues import cpf

Step = Callable[[asyncpg.Connection, int], Awaitable[None]]


def sql_step(unit: Unit, plan: _data.SlotPlan) -> Step:
    """One hold as the API's transaction runs it (a self-service CART hold of a new customer on an exclusive
    resource: RN-HLD-05's lock and pressure, the customer, their standing; then `placing.place`)."""

    async def step(conn: asyncpg.Connection, k: int) -> None:
        rid, s, e = plan.pair(k)
        get = functools.partial(_same, conn)
        bookings, customers, antifraud = PgBookings(get), PgCustomers(get), PgAntifraud(get)
        identity = CustomerIdentity(cpf=cpf(CPF_BASE + k))
        now = datetime.now(UTC)
        allocations = [Allocation(rid, s, e, 1)]
        deadline = hold_deadline(unit.params, now, s, payment_due=False)
        async with conn.transaction():
            await antifraud.lock_customer(unit.tenant_id, identity, day=fraud.day_window(unit, s, now))
            customer = await customers.identify(unit.tenant_id, identity, now)
            await antifraud.standing(unit.tenant_id, identity, now, fraud.counting_since(unit, now), None)
            booking = Booking.held(uuid4(), unit.id, allocations, now, "customer", deadline,
                                   remind_at=reminder_at(unit.params, now, deadline), customer_id=customer.id,
                                   hold_type="CART", channel="api")
            in_the_way = await bookings.lock_and_add(booking, {}, now)  # lock, lapsed check, insert (placing.place)
            for stale in in_the_way:
                stale.expire(now)
                await bookings.save(stale)
            if in_the_way:
                await bookings.add(booking, {})

    return step


async def sql_holds(cfg: Config, url: str, plan: _data.SlotPlan, keys: itertools.count[int]) -> Throughput:
    """`cfg.clients` bare connections, each looping `sql_step` on never-used slots."""
    stats = Throughput("Direct SQL holds/s")
    stats.cpu = CpuMeter(db=cfg.db)  # the bench database's backends alone: others' work on the machine left out
    pool = await create_pool(url, cfg.clients, cfg.clients)
    unit = await PgUnits(pool).get(plan.unit_id)
    one = sql_step(unit, plan)
    record = False

    async def step(conn: asyncpg.Connection) -> None:
        t = time.perf_counter()
        try:
            await one(conn, next(keys))
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


_INTERNAL = ("WITH RECURSIVE typeinfo_tree", "SELECT current_setting('jit')")  # asyncpg's type introspection


def _shape(query: str) -> str:
    return " ".join(query.split())


async def trace(url: str, plan: _data.SlotPlan, keys: itertools.count[int]) -> str:
    """The statements of one hold through the use case (`services.hold`, on the unit of work the API uses) against
    those of one `sql_step`: a note saying how many each sends and whether the transactions' are the same."""
    seen: list[str] = []

    def log(record: asyncpg.connection.LoggedQuery) -> None:
        if not record.query.startswith(_INTERNAL):
            seen.append(_shape(record.query))

    pool = await create_pool(url, 2, 2)
    try:
        held = [await pool.acquire() for _ in range(2)]
        for c in held:
            c.add_query_logger(log)
            await pool.release(c)
        deps = Deps(uow=lambda: PgUnitOfWork(pool), clock=SystemClock())
        for _ in range(3):  # the last one with warm caches, as in the bench's measured phases
            seen.clear()
            rid, s, e = plan.pair(next(keys))
            await hold(deps, HoldCommand(unit_id=plan.unit_id, starts_at=s, ends_at=e, resource_ids=(rid,),
                                         customer=CustomerIdentity(cpf=cpf(CPF_BASE + next(keys)))))
        await asyncio.sleep(0.01)
        api = list(seen)
        unit = await PgUnits(pool).get(plan.unit_id)
        seen.clear()
        async with pool.acquire() as conn:
            await sql_step(unit, plan)(conn, next(keys))
            await asyncio.sleep(0.01)  # query loggers are called soon after, not at once
            sql = list(seen)  # before the release (and its reset query, if any)
    finally:
        await pool.close()
    begin, commit = api.index("BEGIN;"), len(api) - 1 - api[::-1].index("COMMIT;")
    in_tx = api[begin:commit + 1]
    outside = [q[:60] for q in api[:begin] + api[commit + 1:]]
    same = "the same statements in the same order" if in_tx == sql else (
        f"DIFFERENT statements: API {[q[:50] for q in in_tx]}, SQL {[q[:50] for q in sql]}")
    return (f"statements per hold: API use case {len(in_tx)} in its transaction (BEGIN and COMMIT included) + "
            f"{len(outside)} outside it {outside}; direct SQL {len(sql)}: {same}")
