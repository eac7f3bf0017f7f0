"""Seat maps, their events, and seat blocks (domain/seatmaps.py) in PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
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
  AND (a.occupies OR a.status = 'completed') AND ($5::uuid[] IS NULL OR s.resource_id = ANY($5::uuid[]))
ORDER BY a.occupies, lower(a.during)
"""

EVENT_LOCK_SPACE = 5_107_006
"""The first key of the two-key advisory locks of best-available choices: per row of a seat event, and per event
(choices not side by side); customers use 5_107_005, resources one-key locks (another space)."""

# The free seats of the map ($1 unit, $2 map, $3/$4 the event's range, $5 section, $6 row, $7 now): active seats
# (as `seat_resources` sells them) that nothing occupies over the event but lapsed holds (SPEC guarantee 5, as
# `seat_state` says), with their runs: consecutive free seats of one row (gaps and islands on `sort`), `len` long,
# the seat `k`-th in its run, which starts at `first`.
# The seats taken are a NOT IN (uncorrelated: one hashed subplan, a hash lookup per seat), not an anti join: a join's
# plan depends on statistics, and on tables filled moments ago (a new event's first minute) the planner chose a
# nested loop over every seat × every allocation, seconds per choice.
_RUNS = """
WITH free AS (
    SELECT s.resource_id, s.section, s.row_label, s.sort,
           s.sort - row_number() OVER (PARTITION BY s.section, s.row_label ORDER BY s.sort) AS island
    FROM seats s
    WHERE s.unit_id = $1::uuid AND s.seat_map_id = $2::uuid
      AND ($5::text IS NULL OR s.section = $5::text) AND ($6::text IS NULL OR s.row_label = $6::text)
      AND s.resource_id NOT IN (SELECT r.id FROM resources r WHERE r.unit_id = $1::uuid AND NOT r.active)
      AND s.resource_id NOT IN (
          SELECT a.resource_id FROM allocations a
          WHERE a.unit_id = $1::uuid AND a.during && tstzrange($3::timestamptz, $4::timestamptz)
            AND (a.occupies OR a.status = 'completed') AND a.resource_id IS NOT NULL
            AND NOT (a.status IN ('held', 'pending_payment', 'verifying') AND a.hold_expires_at <= $7::timestamptz))
), runs AS (
    SELECT resource_id, section, row_label, sort,
           count(*) OVER w AS len, row_number() OVER (w ORDER BY sort) AS k, min(sort) OVER w AS first
    FROM free
    WINDOW w AS (PARTITION BY section, row_label, island)
)"""

# $8 seats wanted; $9 side by side: the first run of that many, else the first free seats in display order.
_BEST_FREE = _RUNS + """
SELECT resource_id FROM runs
WHERE NOT $9::bool OR (len >= $8::int AND k <= $8::int)
ORDER BY CASE WHEN $9::bool THEN first ELSE sort END, sort
LIMIT $8::int
"""

# The rows with a run of $8 free seats, best first ($9: their keys, rows tried already, left out): the first whose
# lock is free is taken (pg_try_advisory_xact_lock, tried in that order, stopping at the first taken: a Limit over
# the CTE's rows in order); none free: the best row, not locked (`got` false); no such row: nothing.
_ROW_LOCK = _RUNS + f""", cand AS MATERIALIZED (
    SELECT section, row_label, hashtext($10::uuid::text || ':' || section || ':' || row_label) AS key, min(first) AS f
    FROM runs WHERE len >= $8::int GROUP BY section, row_label
    HAVING NOT hashtext($10::uuid::text || ':' || section || ':' || row_label) = ANY($9::int[])
    ORDER BY f LIMIT 64
), got AS MATERIALIZED (
    SELECT section, row_label, key FROM cand WHERE pg_try_advisory_xact_lock({EVENT_LOCK_SPACE}, key) LIMIT 1
)
SELECT section, row_label, key, true AS got FROM got
UNION ALL
SELECT * FROM (SELECT section, row_label, key, false AS got FROM cand ORDER BY f LIMIT 1) AS c
WHERE NOT EXISTS (SELECT 1 FROM got)
"""
_LOCK = f"SELECT pg_advisory_xact_lock({EVENT_LOCK_SPACE}, $1::int)"
_EVENT_KEY = "SELECT hashtext($1::uuid::text)"
ROW_TRIES = 4
"""Rows a best-available choice tries (each a lock taken, then its run read afresh) before it locks the event."""

_maps: dict[UUID, SeatMap] = {}
"""Seat maps never change once made: kept per process."""
_loading: dict[UUID, asyncio.Lock] = {}
"""The maps being loaded, so that concurrent misses wait for one load."""
_events: dict[UUID, SeatEvent] = {}
"""Nor do seat events (their name, map and range): kept per process too."""


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
        # One load at a time per map: when a sale opens on a cold process, hundreds of requests miss at once, and
        # each building 5,000 seats made a garbage-collection storm (a quarter of a worker's time in a flash sale).
        lock = _loading.setdefault(seat_map_id, asyncio.Lock())
        try:
            async with lock:
                return _maps.get(seat_map_id) or await self._load_map(seat_map_id)
        finally:
            if _loading.get(seat_map_id) is lock:
                del _loading[seat_map_id]  # locks bind to the event loop that waits on them: none is kept

    async def _load_map(self, seat_map_id: UUID) -> SeatMap:
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
        cached = _events.get(event_id)
        if cached is not None:
            return cached
        conn = await self._conn()
        row = await conn.fetchrow("SELECT id, unit_id, seat_map_id, name, during FROM seat_events WHERE id = $1",
                                  event_id)
        if row is None:
            raise NotFound("event", event_id, field="eventId")
        during: Any = row["during"]
        found = SeatEvent(row["id"], row["unit_id"], row["seat_map_id"], row["name"], during.lower, during.upper)
        if len(_events) > 10_000:
            _events.clear()
        _events[event_id] = found
        return found

    async def events_of(self, unit_id: UUID) -> list[SeatEvent]:
        conn = await self._conn()
        rows = await conn.fetch("SELECT id, unit_id, seat_map_id, name, during FROM seat_events WHERE unit_id = $1 "
                                "ORDER BY lower(during), name LIMIT 500", unit_id)
        return [SeatEvent(r["id"], r["unit_id"], r["seat_map_id"], r["name"], r["during"].lower, r["during"].upper)
                for r in rows]

    async def choose_best(self, unit_id: UUID, best: BestSeats, starts_at: datetime, ends_at: datetime,
                          now: datetime, event_id: UUID) -> list[UUID]:
        """Side by side (or one seat): the best row with a run of that many free seats whose lock no other choice
        holds is locked, then its run read afresh (a statement after the lock sees what its last holder committed);
        so buyers choose in different rows at once and never wait for each other unless every such row is being
        chosen in. Not side by side, or rows that changed under us ROW_TRIES times: the event's lock, then the
        best free seats anywhere. No deadlock: a row's lock is waited for only while holding none, the event's
        after rows' locks, and nothing holding the event's lock waits for a row's."""
        conn = await self._conn()
        args = (unit_id, best.seat_map_id, starts_at, ends_at, best.section, best.row, now, best.count)
        tried: list[int] = []
        together = best.together or best.count == 1
        while together and len(tried) < ROW_TRIES:
            row = await conn.fetchrow(_ROW_LOCK, *args, tried, event_id)
            if row is None:
                return []  # no row has that many free seats side by side
            if not row["got"]:  # every such row is being chosen in
                if tried:
                    break  # holding a row's lock, never wait for another's (two choices would deadlock)
                await conn.execute(_LOCK, row["key"])  # holding none: wait for the best
            rows = await conn.fetch(_BEST_FREE, unit_id, best.seat_map_id, starts_at, ends_at, row["section"],
                                    row["row_label"], now, best.count, True)
            if len(rows) == best.count:
                return [r["resource_id"] for r in rows]
            tried.append(row["key"])
        await conn.execute(_LOCK, await conn.fetchval(_EVENT_KEY, event_id))
        rows = await conn.fetch(_BEST_FREE, *args, best.together)
        return [r["resource_id"] for r in rows]

    async def occupants(self, event: SeatEvent, seat_ids: Sequence[UUID] | None = None) -> dict[UUID, Occupant]:
        conn = await self._conn()
        rows = await conn.fetch(_OCCUPANTS, event.unit_id, event.seat_map_id, event.starts_at, event.ends_at,
                                None if seat_ids is None else list(seat_ids))
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
