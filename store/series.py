"""The SQL of recurring bookings (issue 23): series, their periods, and which bookings are their occurrences."""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

from domain.bookings import Booking
from domain.errors import NotFound
from domain.series import Period, Series, SeriesMode, SeriesStatus
from store.bookings import BOOKING_COLUMNS, ConnGetter, booking_from_row

SERIES_COLUMNS = """
    s.id, s.unit_id, s.customer_id, s.service_id, s.status, s.mode, s.channel, s.created_by, s.every_weeks,
    s.local_start, s.minutes, s.first_day, s.occurrences_asked, s.until_day, s.resource_ids, s.group_id, s.quantity,
    s.hold_type, s.acceptance, s.version, s.created_at, s.updated_at
"""
"""What a Series is read from (`s` is the series row): series_from_row builds it."""

_INSERT = """
INSERT INTO series (id, unit_id, customer_id, service_id, status, mode, channel, created_by, every_weeks, local_start,
                    minutes, first_day, occurrences_asked, until_day, resource_ids, group_id, quantity, hold_type,
                    acceptance, version, created_at, updated_at)
VALUES ($1::uuid, $2::uuid, $3::uuid, $4::uuid, $5::text, $6::text, $7::text, $8::text, $9::int, $10::time, $11::int,
        $12::date, $13::int, $14::date, $15::uuid[], $16::uuid, $17::int, $18::text, $19::jsonb, $20::int,
        $21::timestamptz, $21::timestamptz)
"""

_SAVE = """
UPDATE series SET status = $2::text, acceptance = $3::jsonb, local_start = $4::time, minutes = $5::int,
                  version = $6::int, updated_at = $7::timestamptz
WHERE id = $1::uuid AND version = $6::int - 1
"""

_LINK = """
UPDATE bookings b SET series_id = $1::uuid, series_index = t.i
FROM unnest($3::uuid[], $4::int[]) AS t(id, i)
WHERE b.id = t.id AND b.unit_id = $2::uuid
"""

_BOOKINGS = f"""
SELECT {BOOKING_COLUMNS} FROM bookings b WHERE b.series_id = $1::uuid ORDER BY b.series_index, b.created_at, b.id
"""

_ADD_PERIODS = """
WITH p AS (
    INSERT INTO series_periods (id, unit_id, series_id, starts_on, ends_on, due_at, status, amount_cents)
    SELECT t.id, $1::uuid, t.s, t.a, t.b, t.d, 'open', t.c
    FROM unnest($2::uuid[], $3::uuid[], $4::date[], $5::date[], $6::timestamptz[], $7::int[]) AS t(id, s, a, b, d, c)
    RETURNING id
)
UPDATE bookings b SET period_id = m.p
FROM unnest($8::uuid[], $9::uuid[]) AS m(p, b)
WHERE b.id = m.b AND b.unit_id = $1::uuid AND (SELECT count(*) FROM p) >= 0
"""

_PERIODS = """
SELECT id, series_id, starts_on, ends_on, due_at, status, amount_cents FROM series_periods
WHERE series_id = $1::uuid ORDER BY starts_on
"""

_SERIES_OF = "SELECT id, series_id FROM bookings WHERE id = ANY($1::uuid[]) AND series_id IS NOT NULL"


def series_from_row(r: Any) -> Series:
    """The Series of a row with SERIES_COLUMNS."""
    acceptance = r["acceptance"]
    return Series(
        id=r["id"], unit_id=r["unit_id"], customer_id=r["customer_id"], service_id=r["service_id"],
        status=SeriesStatus(r["status"]), mode=SeriesMode(r["mode"]), channel=r["channel"],
        created_by=r["created_by"], every_weeks=r["every_weeks"], local_start=r["local_start"],
        minutes=r["minutes"], first_day=r["first_day"], occurrences_asked=r["occurrences_asked"],
        until_day=r["until_day"], resource_ids=tuple(r["resource_ids"]) if r["resource_ids"] is not None else None,
        group_id=r["group_id"], quantity=r["quantity"], hold_type=r["hold_type"],
        acceptance=json.loads(acceptance) if isinstance(acceptance, str) else acceptance,
        version=r["version"], created_at=r["created_at"], updated_at=r["updated_at"])


class PgSeries:
    """SeriesRepository on the unit of work's connection."""

    def __init__(self, conn: ConnGetter) -> None:
        self._conn = conn

    async def add(self, series: Series) -> None:
        """Insert a new series."""
        s = series
        conn = await self._conn()
        await conn.execute(_INSERT, s.id, s.unit_id, s.customer_id, s.service_id, s.status.value, s.mode.value,
                           s.channel, s.created_by, s.every_weeks, s.local_start, s.minutes, s.first_day,
                           s.occurrences_asked, s.until_day, list(s.resource_ids) if s.resource_ids else None,
                           s.group_id, s.quantity, s.hold_type,
                           json.dumps(s.acceptance) if s.acceptance is not None else None, s.version, s.created_at)

    async def get(self, series_id: UUID, lock: bool = False) -> Series:
        """One series (NotFound naming seriesId); with `lock`, locked for change."""
        conn = await self._conn()
        row = await conn.fetchrow(f"SELECT {SERIES_COLUMNS} FROM series s WHERE s.id = $1::uuid"
                                  + (" FOR UPDATE" if lock else ""), series_id)
        if row is None:
            raise NotFound("series", series_id, field="seriesId")
        return series_from_row(row)

    async def save(self, series: Series) -> None:
        """Write a series' status, acceptance, times and version (its version moves on by one)."""
        conn = await self._conn()
        series.version += 1
        done = await conn.execute(_SAVE, series.id, series.status.value,
                                  json.dumps(series.acceptance) if series.acceptance is not None else None,
                                  series.local_start, series.minutes, series.version, series.updated_at)
        if done != "UPDATE 1":
            raise RuntimeError(f"series {series.id} changed underneath (version {series.version - 1})")

    async def link(self, series_id: UUID, unit_id: UUID, booking_ids: list[UUID], indexes: list[int]) -> None:
        """Mark the bookings as the series' occurrences at those indexes."""
        conn = await self._conn()
        await conn.execute(_LINK, series_id, unit_id, booking_ids, indexes)

    async def bookings(self, series_id: UUID, lock: bool = False) -> list[Booking]:
        """The series' bookings (every state, rescheduled ones too), by index then creation, in one read; with
        `lock`, locked for change."""
        conn = await self._conn()
        return [booking_from_row(r) for r in await conn.fetch(_BOOKINGS + (" FOR UPDATE OF b" if lock else ""),
                                                                series_id)]

    async def add_periods(self, unit_id: UUID, periods: list[Period], members: dict[UUID, list[UUID]]) -> None:
        """Insert the series' periods and point each period's bookings (`members`: period id → booking ids)."""
        if not periods:
            return
        conn = await self._conn()
        pairs = [(p, b) for p, bs in members.items() for b in bs]
        await conn.execute(_ADD_PERIODS, unit_id, [p.id for p in periods], [p.series_id for p in periods],
                           [p.starts_on for p in periods], [p.ends_on for p in periods],
                           [p.due_at for p in periods], [p.amount_cents for p in periods],
                           [p for p, _ in pairs], [b for _, b in pairs])

    async def periods(self, series_id: UUID) -> list[Period]:
        """The series' periods, oldest first."""
        conn = await self._conn()
        return [Period(id=r["id"], series_id=r["series_id"], starts_on=r["starts_on"], ends_on=r["ends_on"],
                       due_at=r["due_at"], status=r["status"], amount_cents=r["amount_cents"])
                for r in await conn.fetch(_PERIODS, series_id)]

    async def series_of(self, booking_ids: list[UUID]) -> dict[UUID, UUID]:
        """booking id → series id, for those of the bookings that belong to a series."""
        if not booking_ids:
            return {}
        conn = await self._conn()
        return {r["id"]: r["series_id"] for r in await conn.fetch(_SERIES_OF, booking_ids)}
