"""What a hold sends to PostgreSQL (issue 22): with warm caches, a self-service hold on an exclusive resource is
BEGIN, RN-HLD-05's lock and pressure, the customer, their standing, one statement that locks the resource, checks
for lapsed holds and inserts, and COMMIT — and no reset query on release."""

from __future__ import annotations

import asyncio

import asyncpg

from domain.services import Deps, HoldCommand, hold
from store.db import create_pool
from store.uow import PgUnitOfWork
from tests.venues import arena, at, customer


async def test_a_hold_is_six_statements_with_warm_caches(database_url: str, pool: asyncpg.Pool, clock) -> None:
    v = await arena(pool)
    seen: list[str] = []
    traced = await create_pool(database_url, 2, 2)
    try:
        for conn in [await traced.acquire() for _ in range(2)]:
            conn.add_query_logger(lambda r: seen.append(" ".join(r.query.split())))
            await traced.release(conn)
        deps = Deps(uow=lambda: PgUnitOfWork(traced), clock=clock)
        await PgUnitOfWork(traced).units.resources(v.unit_id)  # as authorizing a request on the unit reads them
        for i, field in enumerate(("Campo 1", "Campo 2")):  # the first warms the other caches
            seen.clear()
            await hold(deps, HoldCommand(v.unit_id, at(8, 19), at(8, 20), (v.resource_ids[field],),
                                         customer=customer(40 + i)))
        await asyncio.sleep(0.05)  # query loggers run soon after each query
    finally:
        await traced.close()
    sent = [q for q in seen if not q.startswith(("WITH RECURSIVE typeinfo_tree", "SELECT current_setting('jit')"))]
    assert [q[:8] for q in sent] == ["BEGIN;", "WITH p A", "WITH old", "WITH ask", "WITH lk ", "COMMIT;"]
    assert not any("pg_advisory_unlock_all" in q for q in seen)
