"""Seat maps, their events, and seat blocks (domain/seatmaps.py) in PostgreSQL."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

import asyncpg
from asyncpg import Range

from domain.errors import ErrorCode, InvalidInput, NotFound, SlotTaken
from domain.seatmaps import Occupant, Seat, SeatEvent, SeatMap
from domain.services import BestSeats
from store.bookings import ConnGetter

_OCCUPANTS = """
SELECT a.resource_id, a.booking_id, a.status, a.hold_type, a.hold_expires_at, a.block_id
FROM seats s JOIN allocations a ON a.unit_id = s.unit_id AND a.resource_id = s.resource_id
WHERE s.unit_id = $1::uuid AND s.seat_map_id = $2::uuid
  AND a.during && tstzrange($3::timestamptz, $4::timestamptz)
  AND (a.occupies OR a.status = 'completed')
ORDER BY a.occupies, lower(a.during)
"""

EVENT_LOCK_SPACE = 5_107_006
"""The first key of the two-key advisory lock of a seat event (best-available choices); customers use 5_107_005,
resources one-key locks (another space)."""

_LOCK_EVENT = f"SELECT pg_advisory_xact_lock({EVENT_LOCK_SPACE}, hashtext($1::uuid::text))"

# The free seats of the map ($1 unit, $2 map, $3/$4 the event's range, $5 section, $6 row, $7 now): nothing occupies
# them over the event but lapsed holds (SPEC guarantee 5, as `seat_state` says). $8 seats wanted; $9 side by side:
# the first run of that many consecutive free seats of one row (gaps and islands on `sort`), else the first free
# ones in display order.
_BEST_FREE = """
WITH taken AS MATERIALIZED (
    SELECT DISTINCT a.resource_id
    FROM allocations a
    WHERE a.unit_id = $1::uuid AND a.during && tstzrange($3::timestamptz, $4::timestamptz)
      AND (a.occupies OR a.status = 'completed')
      AND NOT (a.status IN ('held', 'pending_payment', 'verifying') AND a.hold_expires_at <= $7::timestamptz)
), free AS (
    SELECT s.resource_id, s.section, s.row_label, s.sort,
           s.sort - row_number() OVER (PARTITION BY s.section, s.row_label ORDER BY s.sort) AS island
    FROM seats s
    WHERE s.unit_id = $1::uuid AND s.seat_map_id = $2::uuid
      AND ($5::text IS NULL OR s.section = $5::text) AND ($6::text IS NULL OR s.row_label = $6::text)
      AND NOT EXISTS (SELECT 1 FROM taken t WHERE t.resource_id = s.resource_id)
), runs AS (
    SELECT resource_id, sort,
           count(*) OVER w AS len, row_number() OVER (w ORDER BY sort) AS k, min(sort) OVER w AS first
    FROM free
    WINDOW w AS (PARTITION BY section, row_label, island)
)
SELECT resource_id FROM runs
WHERE NOT $9::bool OR (len >= $8::int AND k <= $8::int)
ORDER BY CASE WHEN $9::bool THEN first ELSE sort END, sort
LIMIT $8::int
"""

_maps: dict[UUID, SeatMap] = {}
"""Seat maps never change once made: kept per process."""


class PgSeatMaps:
    """SeatMapRepository on the unit of work's connection."""

    def __init__(self, conn: ConnGetter) -> None:
        self._conn = conn

    async def create_map(self, seat_map: SeatMap, group_id: UUID) -> None:
        conn = await self._conn()
        u = seat_map.unit_id
        try:
            async with conn.transaction():  # a savepoint: a taken name is an answer, not a broken transaction
                await conn.execute("INSERT INTO resource_groups (id, unit_id, name, sort) VALUES ($1, $2, $3, 1000)",
                                   group_id, u, seat_map.name)
                await conn.execute("INSERT INTO seat_maps (id, unit_id, group_id, name) VALUES ($1, $2, $3, $4)",
                                   seat_map.id, u, group_id, seat_map.name)
                await conn.execute(
                    "INSERT INTO resources (id, unit_id, group_id, name, kind, capacity, sort, on_grid) "
                    "SELECT r.id, $1::uuid, $2::uuid, r.name, 'exclusive', 1, r.sort, false "
                    "FROM unnest($3::uuid[], $4::text[], $5::int[]) AS r(id, name, sort)",
                    u, group_id, [s.id for s in seat_map.seats],
                    [f"{seat_map.name} · {s.name}" for s in seat_map.seats], [s.sort for s in seat_map.seats])
                await conn.execute(
                    "INSERT INTO seats (unit_id, resource_id, seat_map_id, section, row_label, seat_label, sort) "
                    "SELECT $1::uuid, r.id, $2::uuid, r.section, r.row_label, r.seat_label, r.sort "
                    "FROM unnest($3::uuid[], $4::text[], $5::text[], $6::text[], $7::int[]) "
                    "AS r(id, section, row_label, seat_label, sort)",
                    u, seat_map.id, [s.id for s in seat_map.seats], [s.section for s in seat_map.seats],
                    [s.row for s in seat_map.seats], [s.label for s in seat_map.seats],
                    [s.sort for s in seat_map.seats])
        except asyncpg.UniqueViolationError:
            raise InvalidInput("name", f"the unit already has a seat map, resource group or resource named "
                               f"{seat_map.name!r}", code=ErrorCode.NAME_TAKEN) from None
        except asyncpg.ForeignKeyViolationError:
            raise NotFound("unit", u, field="unitId") from None

    async def create_event(self, event: SeatEvent) -> None:
        conn = await self._conn()
        await conn.execute(
            "INSERT INTO seat_events (id, unit_id, seat_map_id, name, during) "
            "VALUES ($1, $2, $3, $4, tstzrange($5::timestamptz, $6::timestamptz))",
            event.id, event.unit_id, event.seat_map_id, event.name, event.starts_at, event.ends_at)

    async def seat_map(self, seat_map_id: UUID) -> SeatMap:
        cached = _maps.get(seat_map_id)
        if cached is not None:
            return cached
        conn = await self._conn()
        row = await conn.fetchrow("SELECT id, unit_id, name FROM seat_maps WHERE id = $1", seat_map_id)
        if row is None:
            raise NotFound("seat map", seat_map_id, field="seatMapId")
        seats = await conn.fetch("SELECT resource_id, section, row_label, seat_label, sort FROM seats "
                                 "WHERE unit_id = $1 AND seat_map_id = $2 ORDER BY sort", row["unit_id"], row["id"])
        found = SeatMap(row["id"], row["unit_id"], row["name"],
                        tuple(Seat(s["resource_id"], s["section"], s["row_label"], s["seat_label"], s["sort"])
                              for s in seats))
        if len(_maps) > 1000:
            _maps.clear()
        _maps[seat_map_id] = found
        return found

    async def event(self, event_id: UUID) -> SeatEvent:
        conn = await self._conn()
        row = await conn.fetchrow("SELECT id, unit_id, seat_map_id, name, during FROM seat_events WHERE id = $1",
                                  event_id)
        if row is None:
            raise NotFound("event", event_id, field="eventId")
        during: Any = row["during"]
        return SeatEvent(row["id"], row["unit_id"], row["seat_map_id"], row["name"], during.lower, during.upper)

    async def events_of(self, unit_id: UUID) -> list[SeatEvent]:
        conn = await self._conn()
        rows = await conn.fetch("SELECT id, unit_id, seat_map_id, name, during FROM seat_events WHERE unit_id = $1 "
                                "ORDER BY lower(during), name LIMIT 500", unit_id)
        return [SeatEvent(r["id"], r["unit_id"], r["seat_map_id"], r["name"], r["during"].lower, r["during"].upper)
                for r in rows]

    async def lock_event(self, unit_id: UUID, event_id: UUID) -> None:
        conn = await self._conn()
        await conn.execute(_LOCK_EVENT, event_id)

    async def best_free(self, unit_id: UUID, best: BestSeats, starts_at: datetime, ends_at: datetime,
                        now: datetime) -> list[UUID]:
        conn = await self._conn()
        rows = await conn.fetch(_BEST_FREE, unit_id, best.seat_map_id, starts_at, ends_at, best.section, best.row,
                                now, best.count, best.together)
        return [r["resource_id"] for r in rows]

    async def occupants(self, event: SeatEvent) -> dict[UUID, Occupant]:
        conn = await self._conn()
        rows = await conn.fetch(_OCCUPANTS, event.unit_id, event.seat_map_id, event.starts_at, event.ends_at)
        return {r["resource_id"]: Occupant(r["booking_id"], r["status"], r["hold_type"], r["hold_expires_at"],
                                           r["block_id"]) for r in rows}

    async def add_blocks(self, event: SeatEvent, seat_ids: list[UUID], reason: str, actor: str, now: datetime,
                         new_id: Any) -> None:
        conn = await self._conn()
        ids = [new_id() for _ in seat_ids]
        during = Range(event.starts_at, event.ends_at)
        try:
            async with conn.transaction():
                await conn.execute(
                    "INSERT INTO blocks (id, unit_id, resource_id, during, reason, created_by, created_at, "
                    "seat_event_id) SELECT b.id, $1::uuid, b.r, $2::tstzrange, $3, $4, $5, $6 "
                    "FROM unnest($7::uuid[], $8::uuid[]) AS b(id, r)",
                    event.unit_id, during, reason, actor, now, event.id, ids, seat_ids)
                await conn.execute(
                    "INSERT INTO allocations (unit_id, block_id, resource_id, during, quantity, pooled, occupies) "
                    "SELECT $1::uuid, b.id, b.r, $2::tstzrange, 1, false, true "
                    "FROM unnest($3::uuid[], $4::uuid[]) AS b(id, r)",
                    event.unit_id, during, ids, seat_ids)
        except asyncpg.ExclusionViolationError:
            raise SlotTaken("a seat was taken meanwhile", seat_ids, event.starts_at, event.ends_at) from None

    async def remove_blocks(self, event: SeatEvent, seat_ids: list[UUID], now: datetime) -> int:
        conn = await self._conn()
        rows = await conn.fetch(
            "DELETE FROM allocations a USING blocks b WHERE a.block_id = b.id AND a.unit_id = $1 "
            "AND a.resource_id = ANY($2::uuid[]) AND a.during && tstzrange($3::timestamptz, $4::timestamptz) "
            "RETURNING b.id, a.resource_id", event.unit_id, seat_ids, event.starts_at, event.ends_at)
        await conn.execute("DELETE FROM blocks WHERE id = ANY($1::uuid[])", [r["id"] for r in rows])
        return len({r["resource_id"] for r in rows})
