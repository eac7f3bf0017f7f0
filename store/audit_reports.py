"""The audit reports' SQL (domain/audit_reports.py has the rules): read-only, one statement each.

Both scan one unit's `booking_events` over [start, end) through the index on (unit_id, at) and look bookings up by
primary key; the moves (swapped_to/from, rescheduled_to/from) come from `bookings`, whose link columns are written
once when the move happens.
"""

from __future__ import annotations

from datetime import date, datetime
from uuid import UUID

import asyncpg

from domain.audit_reports import AuditBucket, HoldConversion, PeriodCounts

_CONVERSION = """
WITH RECURSIVE chain (root, booking_id, status, next_id, depth) AS (
    SELECT b.id, b.id, b.status, coalesce(b.rescheduled_to, b.swapped_to), 0
    FROM booking_events e
    JOIN bookings b ON b.unit_id = $1 AND b.id = e.booking_id
    WHERE e.unit_id = $1 AND e.at >= $2 AND e.at < $3
      AND e.old_status IS NULL AND e.new_status = 'held'
      AND ($4::text IS NULL OR e.hold_type = $4::text)
      -- a replacement hold (a moved hold) is not a new hold: its original counts, with its outcome
      AND b.swapped_from IS NULL AND b.rescheduled_from IS NULL
    UNION ALL
    SELECT c.root, b.id, b.status, coalesce(b.rescheduled_to, b.swapped_to), c.depth + 1
    FROM chain c JOIN bookings b ON b.unit_id = $1 AND b.id = c.next_id
    WHERE c.depth < 100
),
outcome AS (
    SELECT root,
           -- Reached `confirmed` at some time: states past it say so; a cancelled booking may have been
           -- confirmed before (its events say); held, pending_payment, verifying and expired never were.
           bool_or(CASE WHEN status IN ('confirmed', 'checked_in', 'completed', 'no_show') THEN true
                        WHEN status = 'cancelled' THEN EXISTS (
                            SELECT 1 FROM booking_events s
                            WHERE s.booking_id = chain.booking_id AND s.new_status = 'confirmed')
                        ELSE false END) AS sold,
           (array_agg(status ORDER BY depth DESC))[1] AS last_status
    FROM chain
    GROUP BY root
)
SELECT count(*) AS created,
       count(*) FILTER (WHERE sold) AS sold,
       count(*) FILTER (WHERE NOT sold AND last_status = 'expired') AS expired,
       count(*) FILTER (WHERE NOT sold AND last_status = 'cancelled') AS cancelled,
       count(*) FILTER (WHERE NOT sold AND last_status NOT IN ('expired', 'cancelled')) AS open
FROM outcome
"""

_PERIODS = """
SELECT date_trunc($5::text, e.at AT TIME ZONE $4::text)::date AS period,
       count(*) FILTER (WHERE e.old_status IS NULL AND e.new_status = 'held'
                        AND b.swapped_from IS NULL AND b.rescheduled_from IS NULL) AS holds_created,
       count(*) FILTER (WHERE e.old_status IS NOT NULL AND e.new_status = 'confirmed') AS sold,
       count(*) FILTER (WHERE e.old_status IS NULL AND e.new_status = 'confirmed'
                        AND b.rescheduled_from IS NULL) AS born_confirmed,
       count(*) FILTER (WHERE e.new_status = 'cancelled'
                        AND (b.swapped_to IS NOT NULL OR b.rescheduled_to IS NOT NULL)) AS moved,
       count(*) FILTER (WHERE e.new_status = 'expired') AS expired,
       count(*) FILTER (WHERE e.new_status = 'no_show') AS no_shows,
       count(*) FILTER (WHERE e.new_status = 'cancelled'
                        AND b.swapped_to IS NULL AND b.rescheduled_to IS NULL) AS cancelled
FROM booking_events e
JOIN bookings b ON b.unit_id = $1 AND b.id = e.booking_id
WHERE e.unit_id = $1 AND e.at >= $2 AND e.at < $3 {hold_type}
GROUP BY 1
"""

_OF_HOLD_TYPE = """
  AND EXISTS (SELECT 1 FROM booking_events c
              WHERE c.unit_id = $1 AND c.booking_id = e.booking_id AND c.old_status IS NULL
                AND c.hold_type = $6::text)
"""
"""Bookings born with the hold type (their one event without an old state), whatever their type is now."""


class PgAuditReports:
    """domain.audit_reports.AuditReportStore over an asyncpg pool."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def hold_conversion(self, unit_id: UUID, start: datetime, end: datetime,
                              hold_type: str | None) -> HoldConversion:
        """Holds born in [start, end) and their outcomes now."""
        row = await self._pool.fetchrow(_CONVERSION, unit_id, start, end, hold_type)
        return HoldConversion(created=row["created"], sold=row["sold"], expired=row["expired"],
                              cancelled=row["cancelled"], open=row["open"])

    async def period_counts(self, unit_id: UUID, timezone: str, bucket: AuditBucket, start: datetime,
                            end: datetime, hold_type: str | None) -> dict[date, PeriodCounts]:
        """Counts per local day or week (Monday) of the unit, only for periods with events."""
        args: list[object] = [unit_id, start, end, timezone, bucket.value]
        sql = _PERIODS.format(hold_type=_OF_HOLD_TYPE if hold_type is not None else "")
        if hold_type is not None:
            args.append(hold_type)
        rows = await self._pool.fetch(sql, *args)
        return {r["period"]: PeriodCounts(
            holds_created=r["holds_created"], sold=r["sold"], born_confirmed=r["born_confirmed"], moved=r["moved"],
            expired=r["expired"], no_shows=r["no_shows"], cancelled=r["cancelled"]) for r in rows}
