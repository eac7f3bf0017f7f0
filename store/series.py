"""The SQL of recurring bookings (issue 23): series, their periods, and which bookings are their occurrences."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from domain.bookings import Booking
from domain.errors import NotFound
from domain.series import Period, Series, SeriesMode, SeriesStatus
from store.bookings import BOOKING_COLUMNS, ConnGetter, booking_from_row
from store.payments import CHARGE_COLUMNS, charge_from_row

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
_BOOKINGS_OF = f"""
SELECT {BOOKING_COLUMNS} FROM bookings b WHERE b.series_id = ANY($1::uuid[])
ORDER BY b.series_id, b.series_index, b.created_at, b.id
"""

_ADD_PERIODS = """
WITH p AS (
    INSERT INTO series_periods (id, unit_id, series_id, starts_on, ends_on, due_at, status, amount_cents,
                                deadline_at)
    SELECT t.id, $1::uuid, t.s, t.a, t.b, t.d, 'open', t.c, t.x
    FROM unnest($2::uuid[], $3::uuid[], $4::date[], $5::date[], $6::timestamptz[], $7::int[], $10::timestamptz[])
         AS t(id, s, a, b, d, c, x)
    RETURNING id
)
UPDATE bookings b SET period_id = m.p
FROM unnest($8::uuid[], $9::uuid[]) AS m(p, b)
WHERE b.id = m.b AND b.unit_id = $1::uuid AND (SELECT count(*) FROM p) >= 0
"""

_PERIOD_COLUMNS = """
    p.id, p.unit_id, p.series_id, p.starts_on, p.ends_on, p.due_at, p.status, p.amount_cents, p.deadline_at,
    p.charge_id, p.reminded_at, p.paid_at, p.paid_by
"""

_PERIODS = f"SELECT {_PERIOD_COLUMNS} FROM series_periods p WHERE p.series_id = $1::uuid ORDER BY p.starts_on"

_PERIOD_BOOKINGS = f"""
SELECT {BOOKING_COLUMNS} FROM bookings b WHERE b.period_id = $1::uuid ORDER BY b.series_index, b.created_at, b.id
"""

_SAVE_PERIOD = """
UPDATE series_periods SET status = $2::text, charge_id = $3::uuid, reminded_at = $4::timestamptz,
                          paid_at = $5::timestamptz, paid_by = $6::text
WHERE id = $1::uuid
"""

# A period is charged when due and some occurrence of it awaits its Pix (a series accepted with nothing due by Pix
# has periods that are never charged).
_AWAITING = """EXISTS (SELECT 1 FROM bookings b WHERE b.period_id = p.id AND b.unit_id = p.unit_id
                       AND b.status IN ('pending_payment', 'verifying') AND b.due_now_cents > 0)"""

_DUE = f"""
SELECT p.id FROM series_periods p
WHERE p.status = 'open' AND p.due_at <= $1::timestamptz AND p.deadline_at > $1::timestamptz AND {_AWAITING}
ORDER BY p.due_at LIMIT $2::int
"""

_TO_REMIND = f"""
SELECT p.id FROM series_periods p
WHERE p.status = 'charged' AND p.reminded_at IS NULL AND p.deadline_at > $1::timestamptz
  AND p.deadline_at - $2::interval <= $1::timestamptz AND {_AWAITING}
ORDER BY p.deadline_at LIMIT $3::int
"""

_LAPSED = """
SELECT p.id FROM series_periods p
WHERE p.status IN ('open', 'charged') AND p.deadline_at <= $1::timestamptz
  AND EXISTS (SELECT 1 FROM bookings b WHERE b.period_id = p.id AND b.unit_id = p.unit_id AND b.due_now_cents > 0
              AND b.paid_cents = 0 AND b.status IN ('pending_payment', 'verifying', 'expired'))
ORDER BY p.deadline_at LIMIT $2::int
"""

_PERIOD_CHARGES = f"""
SELECT p.id AS period_id, {', '.join('c.' + c.strip() for c in CHARGE_COLUMNS.split(','))}
FROM series_periods p JOIN charges c ON c.id = p.charge_id AND c.unit_id = p.unit_id WHERE p.series_id = $1::uuid
"""

_SERIES_OF = "SELECT id, series_id FROM bookings WHERE id = ANY($1::uuid[]) AND series_id IS NOT NULL"


def period_from_row(r: Any) -> Period:
    """The Period of a row with _PERIOD_COLUMNS."""
    return Period(id=r["id"], series_id=r["series_id"], starts_on=r["starts_on"], ends_on=r["ends_on"],
                  due_at=r["due_at"], status=r["status"], amount_cents=r["amount_cents"],
                  deadline_at=r["deadline_at"], unit_id=r["unit_id"], charge_id=r["charge_id"],
                  reminded_at=r["reminded_at"], paid_at=r["paid_at"], paid_by=r["paid_by"])


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

    async def bookings_of(self, series_ids: list[UUID]) -> dict[UUID, list[Booking]]:
        """Several series' bookings at once (a page of the unit's series), each as `bookings` orders them."""
        conn = await self._conn()
        found: dict[UUID, list[Booking]] = {i: [] for i in series_ids}
        for r in await conn.fetch(_BOOKINGS_OF, series_ids):
            found[r["series_id"]].append(booking_from_row(r))
        return found

    async def add_periods(self, unit_id: UUID, periods: list[Period], members: dict[UUID, list[UUID]]) -> None:
        """Insert the series' periods and point each period's bookings (`members`: period id → booking ids)."""
        if not periods:
            return
        conn = await self._conn()
        pairs = [(p, b) for p, bs in members.items() for b in bs]
        await conn.execute(_ADD_PERIODS, unit_id, [p.id for p in periods], [p.series_id for p in periods],
                           [p.starts_on for p in periods], [p.ends_on for p in periods],
                           [p.due_at for p in periods], [p.amount_cents for p in periods],
                           [p for p, _ in pairs], [b for _, b in pairs],
                           [p.deadline_at or p.due_at + timedelta(days=1) for p in periods])

    async def periods(self, series_id: UUID) -> list[Period]:
        """The series' periods, oldest first."""
        conn = await self._conn()
        return [period_from_row(r) for r in await conn.fetch(_PERIODS, series_id)]

    async def series_of(self, booking_ids: list[UUID]) -> dict[UUID, UUID]:
        """booking id → series id, for those of the bookings that belong to a series."""
        if not booking_ids:
            return {}
        conn = await self._conn()
        return {r["id"]: r["series_id"] for r in await conn.fetch(_SERIES_OF, booking_ids)}

    async def period(self, period_id: UUID, lock: bool = False) -> Period:
        """One period (NotFound naming periodId); with `lock`, locked for change."""
        conn = await self._conn()
        row = await conn.fetchrow(f"SELECT {_PERIOD_COLUMNS} FROM series_periods p WHERE p.id = $1::uuid"
                                  + (" FOR UPDATE" if lock else ""), period_id)
        if row is None:
            raise NotFound("series period", period_id, field="periodId")
        return period_from_row(row)

    async def period_of_charge(self, charge_id: UUID) -> Period | None:
        """The period a charge is for, if it is a period's charge."""
        conn = await self._conn()
        row = await conn.fetchrow(f"SELECT {_PERIOD_COLUMNS} FROM series_periods p WHERE p.charge_id = $1::uuid",
                                  charge_id)
        return period_from_row(row) if row is not None else None

    async def period_bookings(self, period_id: UUID, lock: bool = False) -> list[Booking]:
        """The period's occurrences' bookings, by index; with `lock`, locked for change."""
        conn = await self._conn()
        return [booking_from_row(r) for r in await conn.fetch(
            _PERIOD_BOOKINGS + (" FOR UPDATE OF b" if lock else ""), period_id)]

    async def save_period(self, period: Period) -> None:
        """Write a period's status, charge, reminder and payment."""
        conn = await self._conn()
        await conn.execute(_SAVE_PERIOD, period.id, period.status, period.charge_id, period.reminded_at,
                           period.paid_at, period.paid_by)

    async def periods_due(self, now: datetime, limit: int) -> list[UUID]:
        """Open periods due by `now` with occurrences awaiting their Pix (to charge)."""
        conn = await self._conn()
        return [r["id"] for r in await conn.fetch(_DUE, now, limit)]

    async def periods_to_remind(self, now: datetime, before: timedelta, limit: int) -> list[UUID]:
        """Charged periods not yet reminded whose deadline is within `before` of `now` (and still ahead)."""
        conn = await self._conn()
        return [r["id"] for r in await conn.fetch(_TO_REMIND, now, before, limit)]

    async def periods_lapsed(self, now: datetime, limit: int) -> list[UUID]:
        """Open or charged periods whose deadline has passed (to release)."""
        conn = await self._conn()
        return [r["id"] for r in await conn.fetch(_LAPSED, now, limit)]

    async def period_charges(self, series_id: UUID) -> dict[UUID, Any]:
        """period id → its current charge (domain.payments.Charge), for the series' charged periods."""
        conn = await self._conn()
        rows = await conn.fetch(_PERIOD_CHARGES, series_id)
        return {r["period_id"]: charge_from_row(r) for r in rows}
