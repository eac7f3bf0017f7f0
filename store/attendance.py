"""The SQL of attendance sweeps (SPEC §11): no-show suggestions and appointment reminders.

Each sweep is one statement whose writes are keyed (`queue_items_unit_no_show`: one suggestion per booking ever;
`appointment_reminders`: one reminder per booking and offset), so a sweep run twice, or on two workers at
once, raises or sends nothing twice. Outbox rows are written in the same statement: the dashboards hear of a new
item (`queue_changed`), the relay plans the reminder's deliveries (`notification`).
"""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

import asyncpg

from domain.staff_queue import PRIORITIES, TITLES, QueueItemType

LOOKBACK = "7 days"
"""A confirmed booking that started longer ago than this is left alone (a sweep that was off for a week does not
flood the queue with old suggestions)."""
HORIZON = "7 days"
"""The longest appointment reminder offset (domain/unit_settings.py REMINDER_OFFSET_RANGE)."""

_SUGGEST = f"""
WITH due AS (
    SELECT b.id, b.unit_id, lower(b.during) AS starts_at
    FROM bookings b JOIN units u ON u.id = b.unit_id
    WHERE b.status = 'confirmed' AND u.check_in_required AND lower(b.during) <= $1::timestamptz
      AND lower(b.during) > $1::timestamptz - interval '{LOOKBACK}'
      AND lower(b.during) + make_interval(mins => u.no_show_grace_minutes) <= $1::timestamptz
      AND NOT EXISTS (SELECT 1 FROM queue_items q
                      WHERE q.unit_id = b.unit_id AND q.booking_id = b.id AND q.type = $3::text)
    ORDER BY lower(b.during) LIMIT $2::int
), ins AS (
    INSERT INTO queue_items (id, unit_id, type, priority, booking_id, payload, status, created_at)
    SELECT gen_random_uuid(), due.unit_id, $3::text, $4::text, due.id,
           jsonb_build_object('starts_at', due.starts_at), 'open', $1::timestamptz
    FROM due
    ON CONFLICT (unit_id, booking_id) WHERE type = 'no_show_suggestion' DO NOTHING
    RETURNING id, unit_id, booking_id
), ob AS (
    INSERT INTO outbox (unit_id, topic, payload)
    SELECT ins.unit_id, 'queue_changed', jsonb_build_object(
        'topic', 'queue_changed', 'kind', 'opened', 'item_id', ins.id::text, 'type', $3::text,
        'priority', $4::text, 'title', $5::text, 'booking_id', ins.booking_id::text)
    FROM ins
)
SELECT count(*) FROM ins
"""

_STALE = """
SELECT q.id, b.status FROM queue_items q JOIN bookings b ON b.id = q.booking_id
WHERE q.type = $1::text AND q.status <> 'resolved' AND b.status <> 'confirmed'
ORDER BY q.created_at LIMIT $2::int
"""

_REMIND = f"""
WITH candidate AS (
    SELECT b.id, b.unit_id, b.customer_id, lower(b.during) AS starts_at,
           (SELECT min(o) FROM unnest(u.appointment_reminder_minutes) AS o
            WHERE lower(b.during) - make_interval(mins => o) <= $1::timestamptz
              AND lower(b.during) - make_interval(mins => o) >= b.created_at) AS offset_minutes
    FROM bookings b JOIN units u ON u.id = b.unit_id
    WHERE b.status = 'confirmed' AND b.customer_id IS NOT NULL
      AND lower(b.during) > $1::timestamptz AND lower(b.during) <= $1::timestamptz + interval '{HORIZON}'
), due AS (
    SELECT c.* FROM candidate c
    WHERE c.offset_minutes IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM appointment_reminders r
                      WHERE r.unit_id = c.unit_id AND r.booking_id = c.id AND r.offset_minutes = c.offset_minutes)
    ORDER BY c.starts_at LIMIT $2::int
), ins AS (
    INSERT INTO appointment_reminders (unit_id, booking_id, offset_minutes, sent_at)
    SELECT due.unit_id, due.id, due.offset_minutes, $1::timestamptz FROM due
    ON CONFLICT DO NOTHING
    RETURNING booking_id, offset_minutes
), ob AS (
    INSERT INTO outbox (unit_id, topic, payload)
    SELECT due.unit_id, 'notification', jsonb_build_object(
        'topic', 'notification', 'kind', 'appointment_reminder', 'booking_id', due.id::text,
        'customer_id', due.customer_id::text, 'offset_minutes', due.offset_minutes, 'starts_at', due.starts_at)
    FROM ins JOIN due ON due.id = ins.booking_id AND due.offset_minutes = ins.offset_minutes
)
SELECT count(*) FROM ins
"""


async def raise_no_show_suggestions(pool: asyncpg.Pool, now: datetime, limit: int = 500) -> int:
    """Open one "Possível falta" item for each confirmed booking whose start + the unit's grace has passed with no
    check-in; returns how many were opened (a booking that already had one, even resolved, gets none)."""
    t = QueueItemType.NO_SHOW_SUGGESTION
    return int(await pool.fetchval(_SUGGEST, now, limit, t.value, PRIORITIES[t], TITLES[t]))


async def stale_suggestions(pool: asyncpg.Pool, limit: int = 500) -> list[tuple[UUID, str]]:
    """Open suggestions whose booking is no longer confirmed (checked in late, cancelled): (item, booking status)."""
    rows = await pool.fetch(_STALE, QueueItemType.NO_SHOW_SUGGESTION.value, limit)
    return [(r["id"], r["status"]) for r in rows]


async def send_appointment_reminders(pool: asyncpg.Pool, now: datetime, limit: int = 500) -> int:
    """Write a `notification` outbox row (kind appointment_reminder) for each confirmed booking with a reminder due.

    Due: the smallest offset whose moment (start − offset) has passed and came after the booking was made, not yet
    sent. A booking made after some of its moments (a late booking, a reschedule's new booking) is reminded only
    at those still ahead; a sweep that was down sends one reminder, the nearest, rather than several at once.
    Returns how many were written."""
    return int(await pool.fetchval(_REMIND, now, limit))


class PgAttendance:
    """The attendance sweeps on the pool (domain.ports.AttendanceSweeps): each call one statement, committed."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def raise_no_show_suggestions(self, now: datetime, limit: int = 500) -> int:
        return await raise_no_show_suggestions(self._pool, now, limit)

    async def stale_suggestions(self, limit: int = 500) -> list[tuple[UUID, str]]:
        return await stale_suggestions(self._pool, limit)

    async def send_appointment_reminders(self, now: datetime, limit: int = 500) -> int:
        return await send_appointment_reminders(self._pool, now, limit)
