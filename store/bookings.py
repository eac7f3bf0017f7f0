"""Bookings, allocations, their audit events and outbox rows: the SQL of the hold path."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import asyncpg

from domain.availability import Occupancy, OccupancyColumns
from domain.bookings import OCCUPYING, Allocation, Booking, BookingStatus, HistoryEntry
from domain.errors import NotFound, SlotTaken
from store.booking_writes import EVENTS_CTE, INSERT, insert_args, lapsed_in_the_way
from store.booking_writes import event_rows as _event_rows

ConnGetter = Callable[[], Awaitable[asyncpg.Connection]]

LOCK_TRIES = (0.002, 0.004, 0.008, 0.016, 0.032)
"""Seconds `lock_and_add` pauses after each try of a lock another transaction holds, before it waits for it."""

BOOKING_COLUMNS = """
       b.id, b.unit_id, b.status, b.created_at, b.customer_id, b.service_id, b.hold_type, b.channel,
       b.hold_expires_at, b.remind_at, b.price_cents, b.version, b.acceptance, b.due_now_cents, b.paid_cents,
       b.swapped_from, b.swapped_to, b.rescheduled_from, b.rescheduled_to, b.series_id, b.series_index,
       array(SELECT a.resource_id FROM allocations a WHERE a.booking_id = b.id ORDER BY a.id) AS r,
       array(SELECT lower(a.during) FROM allocations a WHERE a.booking_id = b.id ORDER BY a.id) AS s,
       array(SELECT upper(a.during) FROM allocations a WHERE a.booking_id = b.id ORDER BY a.id) AS e,
       array(SELECT a.quantity FROM allocations a WHERE a.booking_id = b.id ORDER BY a.id) AS q
"""
"""What a Booking is read from (`b` is the bookings row): booking_from_row builds it."""

_GET = f"SELECT {BOOKING_COLUMNS} FROM bookings b WHERE b.id = $1::uuid"

_LOCK = "SELECT pg_advisory_xact_lock(k) FROM unnest($1::bigint[]) WITH ORDINALITY AS t(k, i) ORDER BY i"

_LAPSED = lapsed_in_the_way(unit="$1", resources="$2", start="$3", end="$4", now="$5")

_DUE = """
SELECT id FROM bookings
WHERE status IN ('held', 'pending_payment', 'verifying') AND hold_expires_at <= $1::timestamptz
ORDER BY hold_expires_at LIMIT $2::int
FOR UPDATE SKIP LOCKED
"""

_PAST_CHECKED_IN = """
SELECT id FROM bookings
WHERE upper(during) <= $1::timestamptz
  AND id IN (SELECT id FROM bookings WHERE status = 'checked_in' AND upper(during) <= $1::timestamptz
             UNION ALL
             SELECT b.id FROM units u JOIN bookings b ON b.unit_id = u.id
             WHERE NOT u.check_in_required AND b.status = 'confirmed' AND upper(b.during) <= $1::timestamptz
               AND upper(b.during) > $1::timestamptz - interval '7 days')
ORDER BY upper(during) LIMIT $2::int
FOR UPDATE SKIP LOCKED
"""

_CLAIM_REMINDER = """
UPDATE bookings SET reminded_at = $2::timestamptz
WHERE id = $1::uuid AND reminded_at IS NULL AND remind_at <= $2::timestamptz
  AND hold_expires_at > $2::timestamptz AND status IN ('held', 'pending_payment')
RETURNING 1
"""

_HISTORY = """
SELECT booking_id, at, old_status, new_status, hold_type, actor, channel, reason, resources, session
FROM booking_events WHERE booking_id = $1 ORDER BY id LIMIT $2
"""


def _json_list(value: Any) -> list[Any]:
    found = json.loads(value) if isinstance(value, str) else value
    return found if isinstance(found, list) else []


_SAVE = """
WITH bk AS (
    UPDATE bookings SET status = $3::text, hold_type = $4::text, hold_expires_at = $5::timestamptz,
                        version = $6::int, updated_at = $7::timestamptz, remind_at = $12::timestamptz,
                        acceptance = $13::jsonb, due_now_cents = $14::int, paid_cents = $15::int,
                        swapped_to = $16::uuid
    WHERE id = $1::uuid AND version = $8::int
    RETURNING id
 ),
 al AS (
    UPDATE allocations SET occupies = $9::bool, hold_expires_at = $5::timestamptz, status = $3::text,
                           hold_type = $4::text
    WHERE booking_id = $1::uuid AND occupies AND EXISTS (SELECT 1 FROM bk)
    RETURNING resource_id, during, quantity, pooled
 ),
 pu AS (
    UPDATE pool_usage p SET used = p.used - al.quantity
    FROM al
    WHERE NOT $9::bool AND al.pooled AND p.unit_id = $2::uuid AND p.resource_id = al.resource_id
      AND p.slot_start <@ al.during
 ),
 ch AS (
    -- A hold that ends takes its open charges with it; the provider is told by a job (outbox).
    UPDATE charges SET status = 'cancelled', updated_at = $7::timestamptz
    WHERE booking_id = $1::uuid AND NOT $9::bool AND status IN ('creating', 'pending') AND EXISTS (SELECT 1 FROM bk)
    RETURNING id
 ),
 cho AS (
    -- domain.events.ChargeCancelRequested, built here: the charges are the ones this statement cancels
    INSERT INTO outbox (unit_id, topic, payload)
    SELECT $2::uuid, 'charge_cancel', jsonb_build_object('topic', 'charge_cancel', 'charge_id', ch.id) FROM ch
 ),
 -- A waitlist offer is a hold: its entry is fulfilled when the hold is confirmed, spent when it ends.
 sw AS (
    UPDATE slot_waitlist SET status = CASE WHEN $9::bool THEN 'fulfilled' ELSE 'expired' END
    WHERE offer_booking_id = $1::uuid AND status = 'offered' AND ($3::text = 'confirmed' OR NOT $9::bool)
      AND EXISTS (SELECT 1 FROM bk)
 ),
 cw AS (
    UPDATE capacity_waitlist SET status = CASE WHEN $9::bool THEN 'fulfilled' ELSE 'expired' END
    WHERE booking_id = $1::uuid AND status IN ('offered', 'claimed') AND ($3::text = 'confirmed' OR NOT $9::bool)
      AND EXISTS (SELECT 1 FROM bk)
 ),
""" + EVENTS_CTE.replace("$EV", "$10").replace("$OB", "$11").replace("$GO", "") + "SELECT count(*) FROM bk"

_REOCCUPY = """
WITH al AS (
    UPDATE allocations SET occupies = true
    WHERE booking_id = $1::uuid AND NOT occupies
    RETURNING resource_id, during, quantity, pooled
)
UPDATE pool_usage p SET used = p.used + al.quantity
FROM al
WHERE al.pooled AND p.unit_id = $2::uuid AND p.resource_id = al.resource_id AND p.slot_start <@ al.during
"""

# A reschedule (SPEC §11): the old booking points to the new one and the new one back; a confirmed booking's
# acceptance and amounts go with it, and so do its paid charges and their payments (a late duplicate Pix of such
# a charge then meets the booking that holds the money).
_RESCHEDULE = """
WITH o AS (
    UPDATE bookings SET rescheduled_to = $2::uuid WHERE id = $1::uuid AND unit_id = $3::uuid RETURNING id
 ),
 n AS (
    UPDATE bookings SET rescheduled_from = $1::uuid, acceptance = $4::jsonb, due_now_cents = $5::int,
                        paid_cents = $6::int, series_id = old.series_id, series_index = old.series_index,
                        period_id = old.period_id
    FROM (SELECT series_id, series_index, period_id FROM bookings WHERE id = $1::uuid AND unit_id = $3::uuid) old
    WHERE id = $2::uuid AND unit_id = $3::uuid RETURNING id
 ),
 ch AS (
    UPDATE charges SET booking_id = $2::uuid, updated_at = $8::timestamptz
    WHERE booking_id = $1::uuid AND unit_id = $3::uuid AND $7::bool AND status = 'paid' RETURNING id
 ),
 pa AS (
    UPDATE payments SET booking_id = $2::uuid WHERE booking_id = $1::uuid AND $7::bool RETURNING id
 )
SELECT (SELECT count(*) FROM o) + (SELECT count(*) FROM n) AS linked, (SELECT count(*) FROM ch) AS charges
"""

# A hold's channel (where it came from: the grid names a default-type hold by it) is read for holds only, by the
# booking's primary key: a month's grid of confirmed bookings pays nothing for it.
_HOLD_CHANNEL = """CASE WHEN a.status IN ('held', 'pending_payment', 'verifying')
  THEN (SELECT b.channel FROM bookings b WHERE b.id = a.booking_id AND b.unit_id = a.unit_id) END"""

_OCCUPANCY = f"""
SELECT a.resource_id, lower(a.during) AS s, upper(a.during) AS e, a.quantity, a.booking_id,
       a.status, a.hold_type, a.hold_expires_at, {_HOLD_CHANNEL} AS ch
FROM allocations a
WHERE a.unit_id = $1::uuid AND a.occupies AND a.during && tstzrange($2::timestamptz, $3::timestamptz)
  AND ($4::uuid[] IS NULL OR a.resource_id = ANY($4::uuid[]))
"""


# The same rows as _OCCUPANCY, as columns per resource (what a month's grid reads: thousands of rows). Times
# as POSIX seconds: date_part keeps the microseconds, and floats decode several times faster than timestamptz.
_GRID_OCCUPANCY = f"""
SELECT a.resource_id, array_agg(date_part('epoch', lower(a.during))) AS s,
       array_agg(date_part('epoch', upper(a.during))) AS e, array_agg(a.quantity) AS q,
       array_agg(a.booking_id) AS b, array_agg(a.status) AS st, array_agg(a.hold_type) AS ht,
       array_agg(date_part('epoch', a.hold_expires_at)) AS x, array_agg({_HOLD_CHANNEL}) AS ch
FROM allocations a
WHERE a.unit_id = $1::uuid AND a.occupies AND a.during && tstzrange($2::timestamptz, $3::timestamptz)
  AND ($4::uuid[] IS NULL OR a.resource_id = ANY($4::uuid[]))
GROUP BY a.resource_id
"""

_STATUSES = {s.value: s for s in BookingStatus}
_FIRST, _LAST = datetime.min.replace(tzinfo=UTC).timestamp(), datetime.max.replace(tzinfo=UTC).timestamp()


CLAIM_SPACE = 5_107_006
"""The first key of the two-key advisory locks a contended hold takes as its claim on a resource (never waited on)."""

# What is visibly taken (the gated insert's `taken`, store/booking_writes.py), else whether another transaction is
# placing a booking on one of the resources: it holds the resource's lock (a session lock tried and given back at once
# — the key space of the transaction locks `lock_and_add` takes), or, with $7, its claim (a two-key transaction lock,
# `CLAIM_SPACE`, that this statement takes when it is free: it is then ours until the transaction ends). Waits for
# nothing: the probe of a look before the customer's checks. Read by resource, as `lapsed_in_the_way` reads (its
# docstring says why): written `unit_id = … AND during && …`, its generic plan read a seat event's every allocation
# (bench.flash: 1.74 ms a call).
_TAKEN_OR_BUSY = f"""
SELECT s.taken, CASE WHEN s.taken THEN false ELSE (
           SELECT coalesce(bool_or(NOT CASE WHEN pg_try_advisory_lock(k) THEN pg_advisory_unlock(k) ELSE false END
                                   OR ($7::bool AND NOT pg_try_advisory_xact_lock({CLAIM_SPACE}, k::bit(32)::int))),
                           false)
           FROM unnest($6::bigint[]) AS k) END AS busy
FROM (SELECT EXISTS (
    SELECT 1 FROM allocations a
    WHERE a.resource_id = ANY($2::uuid[]) AND a.occupies AND NOT a.pooled
      AND upper(a.during) > $3::timestamptz AND lower(a.during) < $4::timestamptz
      AND (a.hold_expires_at IS NULL OR a.hold_expires_at > $5::timestamptz)
      AND (SELECT r.unit_id FROM resources r WHERE r.id = a.resource_id) = $1::uuid) AS taken) s
"""


def lock_key(resource_id: UUID) -> int:
    """The advisory-lock key of a resource: its first 8 bytes as a signed bigint."""
    return int.from_bytes(resource_id.bytes[:8], "big", signed=True)


def booking_from_row(row: Any) -> Booking:
    """The Booking of a row with BOOKING_COLUMNS."""
    return Booking(
        id=row["id"], unit_id=row["unit_id"], status=BookingStatus(row["status"]),
        created_at=row["created_at"], customer_id=row["customer_id"], service_id=row["service_id"],
        hold_type=row["hold_type"], channel=row["channel"], hold_expires_at=row["hold_expires_at"],
        remind_at=row["remind_at"], price_cents=row["price_cents"], version=row["version"],
        acceptance=row["acceptance"], due_now_cents=row["due_now_cents"], paid_cents=row["paid_cents"],
        swapped_from=row["swapped_from"], swapped_to=row["swapped_to"],
        rescheduled_from=row["rescheduled_from"], rescheduled_to=row["rescheduled_to"],
        series_id=row["series_id"], series_index=row["series_index"],
        allocations=[Allocation(r, s, e, q) for r, s, e, q in zip(row["r"], row["s"], row["e"], row["q"],
                                                                  strict=True)],
    )


HISTORY_COLUMNS = "booking_id, at, old_status, new_status, hold_type, actor, channel, reason, resources, session"
"""What a HistoryEntry is read from (a booking_events row): history_entry builds it."""


def history_entry(r: Any) -> HistoryEntry:
    """The HistoryEntry of a booking_events row with HISTORY_COLUMNS."""
    return HistoryEntry(
        at=r["at"], old_status=BookingStatus(r["old_status"]) if r["old_status"] else None,
        new_status=BookingStatus(r["new_status"]), hold_type=r["hold_type"], actor=r["actor"],
        channel=r["channel"], reason=r["reason"], session=r["session"], booking_id=r["booking_id"],
        allocations=tuple(Allocation(UUID(a["resource_id"]), datetime.fromisoformat(a["starts_at"]),
                                     datetime.fromisoformat(a["ends_at"]), int(a.get("quantity") or 1))
                          for a in _json_list(r["resources"])))


class PgBookings:
    """BookingRepository on the unit of work's connection."""

    def __init__(self, conn: ConnGetter) -> None:
        self._conn = conn

    async def get(self, booking_id: UUID) -> Booking:
        """Load and lock a booking for change."""
        conn = await self._conn()
        row = await conn.fetchrow(_GET + " FOR UPDATE OF b", booking_id)
        if row is None:
            raise NotFound("booking", booking_id, field="bookingId")
        return booking_from_row(row)

    async def find(self, booking_id: UUID) -> Booking:
        """Load a booking to read it (no lock)."""
        conn = await self._conn()
        row = await conn.fetchrow(_GET, booking_id)
        if row is None:
            raise NotFound("booking", booking_id, field="bookingId")
        return booking_from_row(row)

    async def lock_resources(self, unit_id: UUID, resource_ids: list[UUID]) -> None:
        """Serialise writers of the same resources (ascending key order: no deadlocks)."""
        conn = await self._conn()
        await conn.execute(_LOCK, sorted({lock_key(r) for r in resource_ids}))

    async def lapsed_overlapping(
        self, unit_id: UUID, allocations: list[Allocation], now: datetime
    ) -> list[Booking]:
        """Locked bookings past their deadline that still occupy the wanted ranges."""
        conn = await self._conn()
        start = min(a.starts_at for a in allocations)
        end = max(a.ends_at for a in allocations)
        ids = await conn.fetch(_LAPSED, unit_id, [a.resource_id for a in allocations], start, end, now)
        return [await self.get(r["booking_id"]) for r in ids]

    async def lapsed(self, now: datetime, limit: int) -> list[Booking]:
        """Locked bookings past their deadline, locked for us; rows other workers hold are skipped."""
        conn = await self._conn()
        ids = await conn.fetch(_DUE, now, limit)
        return [await self.get(r["id"]) for r in ids]

    async def past_checked_in(self, now: datetime, limit: int) -> list[Booking]:
        """Checked-in bookings that have ended, and confirmed ones of units without check-in that ended in the last 7
        days (turning check-in off does not complete, and notify, a venue's whole past), locked for us (others' rows
        skipped)."""
        conn = await self._conn()
        ids = await conn.fetch(_PAST_CHECKED_IN, now, limit)
        return [await self.get(r["id"]) for r in ids]

    async def history(self, booking_id: UUID, limit: int) -> list[HistoryEntry]:
        """The booking's audit trail (booking_events), oldest first, at most `limit` rows."""
        conn = await self._conn()
        rows = await conn.fetch(_HISTORY, booking_id, limit)
        return [history_entry(r) for r in rows]

    async def claim_reminder(self, booking_id: UUID, now: datetime) -> Booking | None:
        """Mark the hold's reminder as sent, once; None when it is not due or already sent."""
        conn = await self._conn()
        claimed = await conn.fetchval(_CLAIM_REMINDER, booking_id, now)
        return await self.find(booking_id) if claimed else None

    async def add(self, booking: Booking, slot_starts: dict[UUID, list[datetime]]) -> None:
        """Insert a new booking with its allocations, events and outbox rows in one statement (its resources
        locked by the caller, the lapsed holds in the way expired)."""
        conn = await self._conn()
        with self._refusals(booking):
            await conn.execute(INSERT[bool(slot_starts), False], *insert_args(booking, slot_starts))
        booking.pull_events()

    async def lock_and_add(self, booking: Booking, slot_starts: dict[UUID, list[datetime]], now: datetime
                           ) -> list[Booking]:
        """`lock_resources`, `lapsed_overlapping` and `add` in one round trip (store/booking_writes.py says why that
        is sound). When lapsed holds still occupy the booking's ranges nothing is added: they are returned, locked
        for change, for the caller to expire before it calls `add` (the resources stay locked). A single resource's
        lock held by another transaction is tried again after a pause (LOCK_TRIES), then waited for; those later
        tries answer a range visibly taken meanwhile as SlotTaken before any lock."""
        conn = await self._conn()
        keys = sorted({lock_key(a.resource_id) for a in booking.allocations})
        args = [*insert_args(booking, slot_starts), keys, now]
        contended = False  # a first try found the lock held: the next ones look for what is visibly taken first
        for pause in (*LOCK_TRIES, None) if len(keys) == 1 else (None,):
            with self._refusals(booking):
                row = await conn.fetchrow(INSERT[bool(slot_starts), True], *args, pause is None, contended)
            contended = True
            if row["taken"]:
                raise self._taken(booking, "that slot is taken")
            if row["locked"]:
                break
            await asyncio.sleep(pause or 0)  # the lock is held: the slot's winner, until it commits or gives up
        if row["added"]:
            booking.pull_events()
            return []
        return [await self.get(b) for b in row["lapsed"]]

    async def taken_or_busy(self, unit_id: UUID, resource_ids: list[UUID], start: datetime, end: datetime,
                            now: datetime, claim: bool) -> tuple[bool, bool]:
        conn = await self._conn()
        row = await conn.fetchrow(_TAKEN_OR_BUSY, unit_id, resource_ids, start, end, now,
                                  sorted({lock_key(r) for r in resource_ids}), claim)
        return bool(row["taken"]), bool(row["busy"])

    @contextmanager
    def _refusals(self, booking: Booking) -> Iterator[None]:
        """The constraints' refusals of a new booking as SlotTaken."""
        try:
            yield
        except asyncpg.ExclusionViolationError as e:
            raise self._taken(booking, "that slot was just taken") from e
        except asyncpg.CheckViolationError as e:
            if e.constraint_name != "pool_usage_within_capacity":
                raise
            raise self._taken(booking, "not enough places left in that slot") from e

    @staticmethod
    def _taken(booking: Booking, message: str) -> SlotTaken:
        return SlotTaken(message, [a.resource_id for a in booking.allocations], booking.starts_at,
                         booking.ends_at)

    async def reoccupy(self, booking: Booking) -> None:
        """Take a released booking's resources back (a late payment); SlotTaken if someone has them now."""
        await self.lock_resources(booking.unit_id, [a.resource_id for a in booking.allocations])
        conn = await self._conn()
        try:
            await conn.execute(_REOCCUPY, booking.id, booking.unit_id)
        except asyncpg.ExclusionViolationError as e:
            raise self._taken(booking, "the slot was taken meanwhile") from e
        except asyncpg.CheckViolationError as e:
            if e.constraint_name != "pool_usage_within_capacity":
                raise
            raise self._taken(booking, "not enough places left meanwhile") from e

    async def save(self, booking: Booking) -> None:
        """Write a state change with its events; releases the resources when it stops occupying."""
        conn = await self._conn()
        pending = booking.pull_events()
        if not pending:
            return
        events, outbox = _event_rows(booking, pending)
        previous_version = booking.version - len(pending)
        updated = await conn.fetchval(
            _SAVE, booking.id, booking.unit_id, booking.status.value, booking.hold_type,
            booking.hold_expires_at, booking.version, pending[-1].at, previous_version,
            booking.status in OCCUPYING, events, outbox, booking.remind_at, booking.acceptance,
            booking.due_now_cents, booking.paid_cents, booking.swapped_to,
        )
        if updated != 1:
            raise RuntimeError(f"booking {booking.id} changed underneath (version {previous_version})")

    async def link_reschedule(self, old: Booking, new: Booking, move_payments: bool, at: datetime) -> int:
        """Link a rescheduled booking and its replacement both ways (both already written); carry the new one's
        acceptance and amounts and, with `move_payments`, move the old one's paid charges and payments to it.
        Returns how many charges moved."""
        conn = await self._conn()
        row = await conn.fetchrow(_RESCHEDULE, old.id, new.id, old.unit_id, new.acceptance, new.due_now_cents,
                                  new.paid_cents, move_payments, at)
        if row["linked"] != 2:
            raise RuntimeError(f"reschedule of {old.id} to {new.id}: a booking is missing")
        return int(row["charges"])

    async def occupancy(
        self, unit_id: UUID, resource_ids: list[UUID] | None, start: datetime, end: datetime
    ) -> list[Occupancy]:
        """Everything that takes the unit's resources over [start, end), lapsed holds included."""
        conn = await self._conn()
        rows = await conn.fetch(_OCCUPANCY, unit_id, start, end, resource_ids)
        status = _STATUSES.get
        # Positional: a month's grid reads thousands of rows (resource, start, end, quantity, booking,
        # status, hold type, deadline, a hold's channel).
        return [Occupancy(r[0], r[1], r[2], r[3], r[4], status(r[5]), r[6], r[7], r[8]) for r in rows]

    async def grid_occupancy(
        self, unit_id: UUID, resource_ids: list[UUID] | None, start: datetime, end: datetime
    ) -> dict[UUID, OccupancyColumns]:
        """The same as occupancy(), as columns per resource."""
        conn = await self._conn()
        rows = await conn.fetch(_GRID_OCCUPANCY, unit_id, start, end, resource_ids)
        status = _STATUSES.get
        return {r[0]: OccupancyColumns(r[0], _finite(r[1]), _finite(r[2]), r[3], r[4], [status(v) for v in r[5]],
                                       r[6], r[7], channels=r[8]) for r in rows}


def _finite(seconds: list[float]) -> list[float]:
    """Range bounds at ±infinity as the first and last instants datetime can hold (asyncpg decodes them as
    datetime.max and datetime.min)."""
    if seconds and (max(seconds) == math.inf or min(seconds) == -math.inf):
        return [min(max(x, _FIRST), _LAST) for x in seconds]
    return seconds

