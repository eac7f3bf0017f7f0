"""The statements that write a new booking: booking + allocations (+ pool usage) + audit events + outbox rows in
one statement, and its variant that first takes the resources' locks and checks for lapsed holds in the way (the
hold path's one round trip: `PgBookings.lock_and_add`).

Why the locks and the lapsed check may share the insert's statement although its snapshot is taken before the lock
wait: the exclusion constraint (and the pool counters' ON CONFLICT DO UPDATE) see what committed meanwhile, whatever
the snapshot, so a slot taken while we waited is still refused (SlotTaken); a lapsed hold found in the snapshot
stops the insert (the caller expires it, then adds — the lock is held by then); and a lapsed hold the snapshot does
not show has not lapsed, or is not there: it is either in the constraint's way (SlotTaken, rightly) or gone.

Contention (issue 22): a live booking or block the snapshot shows on an exclusive range is a SlotTaken the
constraint would give too, so it is answered before any lock (losers of a taken slot never queue behind its
winner). A single-resource booking only tries its lock: when another transaction holds it (the slot's winner, most
likely, until it commits), nothing is done and the caller runs the statement again a moment later, in a new
snapshot, which shows the winner's allocation once it committed — so the losers never hold the lock one after the
other while their refusals travel back (the convoy), and after a few tries the statement waits for the lock as
before: a free slot is never refused for being busy. Several resources always wait, in ascending key order (a
tried lock held while waiting for another could deadlock).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

from domain.bookings import Booking, slot_state
from domain.events import AUDIT_SESSION, BookingChanged, BookingEvent, SlotSpan

EVENTS_CTE = """
 ev AS (
    INSERT INTO booking_events (unit_id, booking_id, old_status, new_status, hold_type, actor, channel,
                                reason, resources, at, session)
    SELECT $2::uuid, $1::uuid, x.old_status, x.new_status, x.hold_type, x.actor, x.channel, x.reason,
           x.resources, x.at, x.session
    FROM jsonb_to_recordset($EV::jsonb) AS x(old_status text, new_status text, hold_type text, actor text,
                                             channel text, reason text, resources jsonb, at timestamptz,
                                             session text)$GO
 ),
 ob AS (
    INSERT INTO outbox (unit_id, topic, payload)
    SELECT $2::uuid, x->>'topic', x FROM jsonb_array_elements($OB::jsonb) AS x$GO
 )
"""
"""The audit events (hash-chained by the relay after commit, migration 0032a) and outbox rows of a booking's change, as
two CTEs."""


def lapsed_in_the_way(unit: str, resources: str, start: str, end: str, now: str) -> str:
    """The lapsed holds still occupying any of `resources` over [start, end) (the names of the statement's
    parameters): their booking ids. Read by resource (allocations_open_holds, allocations_seat), never by the unit's
    gists: the unit is checked on `resources` (an allocation's resource is its unit's: the foreign key), and the
    overlap is written on the range's bounds (the same for the [) ranges allocations hold). On a seat event every
    allocation has the same range, and the generic plan the form `unit_id = … AND during && …` got without
    statistics (a table filled by a sale is not analysed yet) read every allocation of the event and filtered them:
    4,000 buffers, 3 ms a hold at 5,000 sold seats, a quarter of the flash sale's database time (bench/RESULTS.md,
    2026-12-03). The unit's check is a scalar subquery, run for each allocation found: as an EXISTS the planner may
    turn it into a join that starts from the unit's resources (every seat of the event) when the statistics of
    `resources` were taken before the venue existed (a CI run: 867 buffers)."""
    return f"""
    SELECT DISTINCT a.booking_id
    FROM allocations a
    WHERE a.resource_id = ANY({resources}::uuid[]) AND a.occupies AND a.hold_expires_at IS NOT NULL
      AND a.hold_expires_at <= {now}::timestamptz
      AND upper(a.during) > {start}::timestamptz AND lower(a.during) < {end}::timestamptz
      AND (SELECT r.unit_id FROM resources r WHERE r.id = a.resource_id) = {unit}::uuid"""


# $28 the resources' lock keys (ascending), $29 now, $30 whether to wait for the locks (else only try them), $31
# whether to look for what is visibly taken first: an exclusive range visibly taken by a live booking or block
# (`taken`) is answered before any lock is taken; a lock another transaction holds (when only trying) and the lapsed
# holds in the way stop the insert (`go` is empty). The look costs about as much as the rest of the hold's
# PostgreSQL time (bench/RESULTS.md, 2026-12-02: 2.5 → 5.4 ms a hold when always on), so it is asked for only when
# the slot is contended: after a first try found its lock held.
_GATE = """
 lk AS MATERIALIZED (
    SELECT s.taken, (SELECT count(*) FILTER (WHERE CASE WHEN $30::bool THEN pg_advisory_xact_lock(k) IS NOT NULL
                                                        ELSE pg_try_advisory_xact_lock(k) END)
                     FROM unnest($28::bigint[]) AS k WHERE NOT s.taken) = cardinality($28::bigint[]) AS locked
    FROM (SELECT CASE WHEN $31::bool THEN EXISTS (
        SELECT 1 FROM unnest($16::uuid[], $17::timestamptz[], $18::timestamptz[], $20::bool[]) AS t(r, s, e, p)
        JOIN allocations a ON a.resource_id = t.r AND a.unit_id = $2::uuid AND a.occupies AND NOT a.pooled
             AND a.during && tstzrange(t.s, t.e) AND (a.hold_expires_at IS NULL OR a.hold_expires_at > $29)
        WHERE NOT t.p) ELSE false END AS taken) s
 ),
 lapsed AS MATERIALIZED (
""" + lapsed_in_the_way(unit="$2", resources="$16", start="$9", end="$10", now="$29") + """
      AND (SELECT locked FROM lk)
 ),
 go AS MATERIALIZED (SELECT 1 AS ok WHERE (SELECT locked FROM lk) AND NOT EXISTS (SELECT 1 FROM lapsed)),
"""

_BOOKING = """
 bk AS (
    INSERT INTO bookings (id, unit_id, customer_id, service_id, status, hold_type, channel, created_by,
                          during, hold_expires_at, quantity, price_cents, version, created_at, updated_at,
                          remind_at, swapped_from)
    SELECT $1::uuid, $2::uuid, $3::uuid, $4::uuid, $5::text, $6::text, $7::text, $8::text,
           tstzrange($9::timestamptz, $10::timestamptz), $11::timestamptz, $12::int, $13::int, $14::int,
           $15::timestamptz, $15::timestamptz, $26::timestamptz, $27::uuid$FROM
 ),
 al AS (
    INSERT INTO allocations (unit_id, booking_id, resource_id, during, quantity, pooled, occupies,
                             hold_expires_at, status, hold_type)
    SELECT $2::uuid, $1::uuid, t.r, tstzrange(t.s, t.e), t.q, t.p, true, $11::timestamptz, $5::text, $6::text
    FROM unnest($16::uuid[], $17::timestamptz[], $18::timestamptz[], $19::int[], $20::bool[])
         AS t(r, s, e, q, p)$GO
 ),
"""

# Only when the booking takes places of pooled resources ($21-$23: one row per resource and slot start).
_POOL_USAGE = """
 pu AS (
    INSERT INTO pool_usage (unit_id, resource_id, slot_start, used, capacity)
    SELECT $2::uuid, t.r, t.s, t.q, res.capacity
    FROM unnest($21::uuid[], $22::timestamptz[], $23::int[]) AS t(r, s, q)
    JOIN resources res ON res.id = t.r AND res.unit_id = $2::uuid$GO
    ON CONFLICT (unit_id, resource_id, slot_start)
    DO UPDATE SET used = pool_usage.used + EXCLUDED.used, capacity = EXCLUDED.capacity
 ),
"""


def _insert_sql(pooled: bool, gated: bool) -> str:
    ctes = _BOOKING + (_POOL_USAGE if pooled else "") + EVENTS_CTE.replace("$EV", "$24").replace("$OB", "$25")
    if not gated:
        body = ctes.replace("$FROM", "").replace("$GO", "")
        return "WITH" + body + "SELECT $21::uuid[], $22::timestamptz[], $23::int[], 1"  # every parameter typed
    body = ctes.replace("$FROM", " FROM go").replace("$GO", " CROSS JOIN go")
    return ("WITH" + _GATE + body + "SELECT $21::uuid[], $22::timestamptz[], $23::int[], "
            "(SELECT count(*) FROM go) AS added, array(SELECT booking_id FROM lapsed) AS lapsed, lk.taken, lk.locked "
            "FROM lk")


INSERT = {(pooled, gated): _insert_sql(pooled, gated) for pooled in (False, True) for gated in (False, True)}
"""The insert of a new booking by (takes pooled places, gated by the lock and the lapsed check)."""


def changes(b: Booking, events: list[BookingEvent]) -> list[BookingChanged]:
    """The outbox facts of a booking's new audit events: one slot change each, with the booking as it is now."""
    spans = tuple(SlotSpan(a.resource_id, a.starts_at, a.ends_at, a.quantity) for a in b.allocations)
    return [BookingChanged(booking_id=b.id, unit_id=b.unit_id, old_status=e.old_status, status=e.new_status,
                           state=slot_state(e.new_status), hold_type=e.hold_type, hold_expires_at=b.hold_expires_at,
                           remind_at=b.remind_at, previous_hold_expires_at=e.previous_deadline,
                           previous_remind_at=e.previous_remind_at, at=e.at, allocations=spans)
            for e in events]


def event_rows(b: Booking, events: list[BookingEvent]) -> tuple[list[Any], list[Any]]:
    """The booking_events rows and the outbox payloads of a booking's new audit events."""
    outbox = [c.to_json() for c in changes(b, events)]
    resources = outbox[0]["allocations"] if outbox else []
    session = AUDIT_SESSION.get()
    rows = [
        {"old_status": e.old_status, "new_status": e.new_status, "hold_type": e.hold_type, "actor": e.actor,
         "channel": e.channel, "reason": e.reason, "resources": resources, "at": e.at.isoformat(),
         "session": session}
        for e in events
    ]
    return rows, outbox


def insert_args(booking: Booking, slot_starts: dict[UUID, list[datetime]]) -> list[Any]:
    """$1-$27 of INSERT for a new booking and its pending events (left pending: the caller pulls them once the
    statement added the booking)."""
    allocs = booking.allocations
    pooled_r: list[UUID] = []
    pooled_s: list[datetime] = []
    pooled_q: list[int] = []
    qty = {a.resource_id: a.quantity for a in allocs}
    for rid, starts in slot_starts.items():
        pooled_r += [rid] * len(starts)
        pooled_s += starts
        pooled_q += [qty[rid]] * len(starts)
    pending = booking.events
    created_by = pending[0].actor if pending else "system"
    events, outbox = event_rows(booking, pending)
    return [
        booking.id, booking.unit_id, booking.customer_id, booking.service_id,
        booking.status.value, booking.hold_type, booking.channel, created_by,
        booking.starts_at, booking.ends_at, booking.hold_expires_at, max(a.quantity for a in allocs),
        booking.price_cents, booking.version, booking.created_at,
        [a.resource_id for a in allocs], [a.starts_at for a in allocs], [a.ends_at for a in allocs],
        [a.quantity for a in allocs], [a.resource_id in slot_starts for a in allocs],
        pooled_r, pooled_s, pooled_q, events, outbox, booking.remind_at, booking.swapped_from,
    ]
