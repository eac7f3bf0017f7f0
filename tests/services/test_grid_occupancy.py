"""The grid's read of occupancy as columns gives the same occupancies as the row-by-row read, to the microsecond,
and the same grid."""

from __future__ import annotations

import functools
from collections import Counter
from datetime import timedelta
from uuid import uuid4

import asyncpg

from domain import queries
from domain.availability import Occupancy, grid_rows
from domain.services import Deps
from store.bookings import PgBookings
from tests.unit import _grid_reference as ref
from tests.venues import arena, at


async def _add(conn: asyncpg.Connection, unit_id: object, resource_id: object, s: object, e: object, *,
               status: str | None = "confirmed", deadline: object = None, quantity: int = 1, pooled: bool = False,
               block: bool = False) -> None:
    during = asyncpg.Range(s, e)
    if block:
        bid = uuid4()
        await conn.execute("INSERT INTO blocks (id, unit_id, resource_id, during) VALUES ($1, $2, $3, $4)",
                           bid, unit_id, resource_id, during)
        await conn.execute("INSERT INTO allocations (unit_id, block_id, resource_id, during, quantity, pooled) "
                           "VALUES ($1, $2, $3, $4, $5, $6)", unit_id, bid, resource_id, during, quantity, pooled)
        return
    bid = uuid4()
    await conn.execute("INSERT INTO bookings (id, unit_id, status, hold_type, channel, created_by, during, "
                       "hold_expires_at) VALUES ($1, $2, $3, $4, 'api', 'test', $5, $6)",
                       bid, unit_id, status, "CART" if deadline else None, during, deadline)
    await conn.execute("INSERT INTO allocations (unit_id, booking_id, resource_id, during, quantity, pooled, "
                       "hold_expires_at, status, hold_type) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                       unit_id, bid, resource_id, during, quantity, pooled, deadline, status,
                       "CART" if deadline else None)


async def test_grid_occupancy_reads_what_occupancy_reads_and_the_grid_is_unchanged(deps: Deps, pool) -> None:
    v = await arena(pool, pooled={"Aula": 6})
    c1, c2, aula = v.resource_ids["Campo 1"], v.resource_ids["Campo 2"], v.resource_ids["Aula"]
    now = deps.clock.now()
    odd = timedelta(microseconds=123_457)
    async with pool.acquire() as conn:
        await _add(conn, v.unit_id, c1, at(8, 19), at(8, 21))
        await _add(conn, v.unit_id, c1, at(8, 9), at(8, 10), status="held", deadline=now + timedelta(minutes=7) + odd)
        await _add(conn, v.unit_id, c1, at(8, 11), at(8, 12), status="held", deadline=now - odd)  # lapsed
        await _add(conn, v.unit_id, c1, at(8, 13), at(8, 14), status="verifying", deadline=now + odd)
        await _add(conn, v.unit_id, c2, at(8, 8) + odd, at(8, 9, 15), block=True)  # part of two slots
        await _add(conn, v.unit_id, c2, at(9, 22), at(10, 9))  # across the night: two windows
        for q, status in ((2, "confirmed"), (3, "held"), (1, "pending_payment")):
            await _add(conn, v.unit_id, aula, at(8, 18), at(8, 19), status=status, quantity=q, pooled=True,
                       deadline=now + timedelta(hours=1) if status != "confirmed" else None)
        await _add(conn, v.unit_id, aula, at(8, 20), at(8, 21), block=True, pooled=True)
        repo = PgBookings(functools.partial(_same, conn))
        start, end = at(8, 0), at(11, 0)
        rows = await repo.occupancy(v.unit_id, None, start, end)
        columns = await repo.grid_occupancy(v.unit_id, None, start, end)
        just_c1 = await repo.grid_occupancy(v.unit_id, [c1], start, end)

    assert len(rows) == 10
    by_columns: list[Occupancy] = [c[i] for c in columns.values() for i in range(len(c))]
    assert Counter(by_columns) == Counter(rows)
    assert all(o.starts_at.tzinfo is not None and o.ends_at.tzinfo is not None for o in by_columns)
    assert list(just_c1) == [c1]
    assert Counter(just_c1[c1]) == Counter(o for o in rows if o.resource_id == c1)

    unit, resources = await queries.unit_with_resources(deps, v.unit_id)
    new = grid_rows(unit, resources, columns, start, end, now)
    old = ref.grid_rows(unit, resources, rows, start, end, now)
    for r in resources:
        assert [(w.first, bytes(w.codes), w.available, [w.owner(i) for i in range(len(w))]) for w in new[r.id]] == \
            [(w.first, bytes(w.codes), w.available, [w.owner(i) for i in range(len(w))]) for w in old[r.id]]
    assert b"".join(w.codes for w in new[c1]).count(b"H") == 1  # the live hold; the lapsed one shows free
    assert b"X" in b"".join(w.codes for w in new[aula])

    _, use_case = await queries.availability_grid(deps, v.unit_id, start, end)
    assert [(r, [bytes(w.codes) for w in rows_]) for r, rows_ in use_case] == \
        [(r, [bytes(w.codes) for w in new[r.id]]) for r in resources]


async def _same(conn: asyncpg.Connection) -> asyncpg.Connection:
    return conn
