"""The venue's layout (domain/layout/) in PostgreSQL: resources and groups, weekly hours and dated exceptions,
grid blocks. Every write forgets the unit's cached configuration (store/units.py) at once and, through the unit
of work, again after commit, so this process never keeps a copy read in between."""

from __future__ import annotations

import json
from datetime import date, datetime
from typing import Any
from uuid import UUID

import asyncpg

from domain.layout.ports import GroupRow, LayoutRow, LiveAllocation, NameTaken, ResourceRow
from domain.units import HoursException, OpeningWindow, ResourceKind, Unit
from store.grid_blocks import GridBlockRows
from store.units import UNIT_SQL, unit_of

_ROWS = """
SELECT r.id, r.unit_id, r.name, r.kind, r.capacity, r.group_id, g.name AS group_name, r.sort, r.active,
       coalesce((SELECT json_agg(json_build_array(h.weekday, h.opens_minute, h.closes_minute))
                 FROM opening_hours h WHERE h.unit_id = r.unit_id AND h.resource_id = r.id), '[]') AS hours
FROM resources r LEFT JOIN resource_groups g ON g.unit_id = r.unit_id AND g.id = r.group_id
WHERE r.on_grid AND {where}
"""
_GROUPS = """
SELECT g.id, g.unit_id, g.name, g.sort FROM resource_groups g
WHERE NOT EXISTS (SELECT 1 FROM seat_maps m WHERE m.unit_id = g.unit_id AND m.group_id = g.id) AND {where}
"""
_LIVE = """
SELECT a.booking_id, a.resource_id, lower(a.during) AS s, upper(a.during) AS e, a.quantity, a.status
FROM allocations a
WHERE a.unit_id = $1::uuid AND a.occupies AND a.booking_id IS NOT NULL
  AND ($2::uuid[] IS NULL OR a.resource_id = ANY($2::uuid[]))
  AND a.during && tstzrange($3::timestamptz, $4::timestamptz)
ORDER BY lower(a.during), a.booking_id LIMIT 5000
"""
_BLOCKED = """(SELECT coalesce(sum(a.quantity), 0) FROM blocks b JOIN allocations a ON a.block_id = b.id
  WHERE b.unit_id = p.unit_id AND b.resource_id = p.resource_id AND p.slot_start = ANY(b.pool_slots))"""
_PEAK = f"""
SELECT p.slot_start, p.used - {_BLOCKED} AS used FROM pool_usage p
WHERE p.unit_id = $1::uuid AND p.resource_id = $2::uuid AND p.slot_start > $3::timestamptz
ORDER BY 2 DESC, 1 LIMIT 1
"""
_RESIZE = """
UPDATE pool_usage p SET capacity = $4::int, used = p.used + ($4::int - $3::int) * (
    SELECT count(*) FROM blocks b WHERE b.unit_id = p.unit_id AND b.resource_id = p.resource_id
    AND p.slot_start = ANY(b.pool_slots))
WHERE p.unit_id = $1::uuid AND p.resource_id = $2::uuid AND p.slot_start > $5::timestamptz
"""
_ZERO = UUID(int=0)
_OWNER_SQL: dict[str, str] = {
    "resource": "SELECT unit_id FROM resources WHERE id = $1 AND on_grid",
    "group": "SELECT unit_id FROM resource_groups WHERE id = $1",
    "hours_exception": "SELECT unit_id FROM hours_exceptions WHERE id = $1",
    "block": "SELECT unit_id FROM blocks WHERE id = $1 AND seat_event_id IS NULL",
}


def _json(raw: Any) -> Any:
    return json.loads(raw) if isinstance(raw, str) else raw


def _row(r: Any) -> ResourceRow:
    hours = tuple(sorted((OpeningWindow(wd, o, c) for wd, o, c in _json(r["hours"])),
                         key=lambda w: (w.weekday, w.opens)))
    return ResourceRow(r["id"], r["unit_id"], r["name"], ResourceKind(r["kind"]), r["capacity"], r["group_id"],
                       r["group_name"], r["sort"], r["active"], hours)


def _exception(r: Any) -> HoursException:
    return HoursException(r["id"], r["day"], r["resource_id"], tuple((int(o), int(c)) for o, c in _json(r["windows"])),
                          r["reason"])


class PgLayout(GridBlockRows):
    """LayoutRepository on the unit of work's connection; `touched` are the units whose cache to forget on
    commit."""

    async def lock_unit(self, unit_id: UUID) -> bool:
        conn = await self._conn()  # NO KEY UPDATE: holds (a FOR KEY SHARE of the unit) go on meanwhile
        return await conn.fetchval("SELECT true FROM units WHERE id = $1 FOR NO KEY UPDATE", unit_id) is not None

    async def fresh_unit(self, unit_id: UUID) -> Unit:
        conn = await self._conn()
        return unit_of(await conn.fetchrow(UNIT_SQL, unit_id))

    async def unit_of(self, kind: LayoutRow, row_id: UUID) -> UUID | None:
        """The unit a resource, group, hours exception or grid block belongs to."""
        conn = await self._conn()
        found: UUID | None = await conn.fetchval(_OWNER_SQL[kind], row_id)
        return found

    async def resource_rows(self, unit_id: UUID) -> list[ResourceRow]:
        conn = await self._conn()
        rows = await conn.fetch(_ROWS.format(where="r.unit_id = $1") + " ORDER BY r.sort, r.name", unit_id)
        return [_row(r) for r in rows]

    async def resource_row(self, resource_id: UUID) -> ResourceRow | None:
        conn = await self._conn()
        r = await conn.fetchrow(_ROWS.format(where="r.id = $1") + " FOR UPDATE OF r", resource_id)
        return _row(r) if r else None

    async def group(self, group_id: UUID) -> GroupRow | None:
        conn = await self._conn()
        r = await conn.fetchrow(_GROUPS.format(where="g.id = $1"), group_id)
        return GroupRow(r["id"], r["unit_id"], r["name"], r["sort"]) if r else None

    async def group_named(self, unit_id: UUID, name: str) -> GroupRow | None:
        conn = await self._conn()
        r = await conn.fetchrow(_GROUPS.format(where="g.unit_id = $1 AND g.name = $2"), unit_id, name)
        return GroupRow(r["id"], r["unit_id"], r["name"], r["sort"]) if r else None

    async def groups(self, unit_id: UUID) -> list[GroupRow]:
        conn = await self._conn()
        rows = await conn.fetch(_GROUPS.format(where="g.unit_id = $1") + " ORDER BY g.sort, g.name", unit_id)
        return [GroupRow(r["id"], r["unit_id"], r["name"], r["sort"]) for r in rows]

    async def _unique(self, sql: str, *args: Any) -> None:
        conn = await self._conn()
        try:
            async with conn.transaction():  # a savepoint: a taken name is an answer, not a broken transaction
                await conn.execute(sql, *args)
        except asyncpg.UniqueViolationError:
            raise NameTaken() from None

    async def create_group(self, group: GroupRow) -> None:
        await self._unique("INSERT INTO resource_groups (id, unit_id, name, sort) VALUES ($1, $2, $3, $4)",
                           group.id, group.unit_id, group.name, group.sort)
        self._forget(group.unit_id)

    async def rename_group(self, group_id: UUID, name: str) -> None:
        await self._unique("UPDATE resource_groups SET name = $2 WHERE id = $1", group_id, name)

    async def insert_resource(self, row: ResourceRow) -> None:
        await self._unique("INSERT INTO resources (id, unit_id, group_id, name, kind, capacity, sort, active) "
                           "VALUES ($1, $2, $3, $4, $5, $6, $7, $8)", row.id, row.unit_id, row.group_id, row.name,
                           row.kind.value, row.capacity, row.sort, row.active)
        self._forget(row.unit_id)

    async def update_resource(self, row: ResourceRow) -> None:
        await self._unique("UPDATE resources SET name = $3, group_id = $4, sort = $5, capacity = $6, active = $7 "
                           "WHERE id = $1 AND unit_id = $2", row.id, row.unit_id, row.name, row.group_id, row.sort,
                           row.capacity, row.active)
        self._forget(row.unit_id)

    async def set_sorts(self, unit_id: UUID, ordered: list[UUID]) -> None:
        conn = await self._conn()
        await conn.execute("UPDATE resources r SET sort = t.i - 1 FROM unnest($2::uuid[]) WITH ORDINALITY AS t(id, i) "
                           "WHERE r.unit_id = $1 AND r.id = t.id", unit_id, ordered)
        self._forget(unit_id)

    async def live_allocations(self, unit_id: UUID, resource_ids: list[UUID] | None, start: datetime,
                               end: datetime) -> list[LiveAllocation]:
        conn = await self._conn()
        rows = await conn.fetch(_LIVE, unit_id, resource_ids, start, end)
        return [LiveAllocation(r["booking_id"], r["resource_id"], r["s"], r["e"], r["quantity"], r["status"])
                for r in rows]

    async def pool_peak(self, unit_id: UUID, resource_id: UUID, after: datetime) -> tuple[datetime, int] | None:
        conn = await self._conn()
        r = await conn.fetchrow(_PEAK, unit_id, resource_id, after)
        return (r["slot_start"], int(r["used"])) if r else None

    async def set_capacity(self, unit_id: UUID, resource_id: UUID, old: int, new: int, after: datetime) -> None:
        conn = await self._conn()
        await conn.execute(_RESIZE, unit_id, resource_id, old, new, after)
        await conn.execute("UPDATE allocations a SET quantity = $3 FROM blocks b WHERE a.block_id = b.id "
                           "AND b.unit_id = $1 AND b.resource_id = $2 AND b.pool_slots IS NOT NULL "
                           "AND upper(b.during) > $4", unit_id, resource_id, new, after)
        self._forget(unit_id)

    async def replace_hours(self, unit_id: UUID, resource_id: UUID | None,
                            windows: tuple[OpeningWindow, ...]) -> None:
        conn = await self._conn()
        await conn.execute("DELETE FROM opening_hours WHERE unit_id = $1 AND resource_id IS NOT DISTINCT FROM $2",
                           unit_id, resource_id)
        await conn.execute("INSERT INTO opening_hours (unit_id, resource_id, weekday, opens_minute, closes_minute) "
                           "SELECT $1, $2, w.d, w.o, w.c "
                           "FROM unnest($3::smallint[], $4::int[], $5::int[]) AS w(d, o, c)",
                           unit_id, resource_id, [w.weekday for w in windows], [w.opens for w in windows],
                           [w.closes for w in windows])
        self._forget(unit_id)

    async def put_exception(self, unit_id: UUID, exception: HoursException, actor: str,
                            now: datetime) -> HoursException | None:
        conn = await self._conn()
        e = exception
        old = await conn.fetchrow(
            "SELECT id, day, resource_id, windows, reason FROM hours_exceptions WHERE unit_id = $1 "
            "AND coalesce(resource_id, $2) = coalesce($3, $2) AND day = $4 FOR UPDATE", unit_id, _ZERO,
            e.resource_id, e.day)
        windows = [list(w) for w in e.windows]
        kind = "closed" if e.closed else "special"
        if old is None:
            await conn.execute(
                "INSERT INTO hours_exceptions (id, unit_id, resource_id, day, kind, windows, reason, created_by, "
                "created_at) VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9)",
                e.id, unit_id, e.resource_id, e.day, kind, windows, e.reason, actor, now)
        else:
            await conn.execute("UPDATE hours_exceptions SET kind = $2, windows = $3::jsonb, reason = $4, "
                               "created_by = $5, created_at = $6 WHERE id = $1", old["id"], kind, windows, e.reason,
                               actor, now)
        self._forget(unit_id)
        return _exception(old) if old else None

    async def exception(self, exception_id: UUID) -> tuple[UUID, HoursException] | None:
        conn = await self._conn()
        r = await conn.fetchrow("SELECT unit_id, id, day, resource_id, windows, reason FROM hours_exceptions "
                                "WHERE id = $1", exception_id)
        return (r["unit_id"], _exception(r)) if r else None

    async def remove_exception(self, unit_id: UUID, exception_id: UUID) -> None:
        conn = await self._conn()
        await conn.execute("DELETE FROM hours_exceptions WHERE id = $1 AND unit_id = $2", exception_id, unit_id)
        self._forget(unit_id)

    async def exceptions(self, unit_id: UUID, first: date, last: date) -> list[HoursException]:
        conn = await self._conn()
        rows = await conn.fetch("SELECT id, day, resource_id, windows, reason FROM hours_exceptions WHERE unit_id = $1 "
                                "AND day BETWEEN $2 AND $3 ORDER BY day, resource_id NULLS FIRST LIMIT 1000",
                                unit_id, first, last)
        return [_exception(r) for r in rows]
