"""The guarantees of SPEC §4, checked after the fact against the database and the audit trail.

Used by the storm harness (bench/storm.py) after a run under load and faults, and by `slothold check`. Each check
is one or two statements over the whole database (or one unit); a violation names the rows involved.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import timedelta
from uuid import UUID

import asyncpg

from domain.bookings import OCCUPYING, TRANSITIONS, BookingStatus

CREATION_STATES = frozenset({"held", "pending_payment", "confirmed"})
"""States a booking may be born in: a hold, a moved hold awaiting payment (reschedule), a counter booking or sale."""
LATE_PAYMENT = "late payment, slot still free"
OFFER_CLAIMED = "waitlist offer claimed"


@dataclass(frozen=True)
class Violation:
    check: str
    detail: str


_OVERLAPS = """
SELECT a.unit_id, a.resource_id, a.id AS a_id, b.id AS b_id, a.booking_id AS a_booking, b.booking_id AS b_booking
FROM allocations a JOIN allocations b
  ON a.unit_id = b.unit_id AND a.resource_id = b.resource_id AND a.id < b.id AND a.during && b.during
WHERE a.occupies AND b.occupies AND NOT a.pooled AND NOT b.pooled AND ($1::uuid IS NULL OR a.unit_id = $1::uuid)
LIMIT 50
"""

# Pooled use at every allocation start (where the sum can only go up) against the resource's capacity.
_POOLED = """
WITH points AS (
    SELECT DISTINCT unit_id, resource_id, lower(during) AS at FROM allocations
    WHERE pooled AND occupies AND ($1::uuid IS NULL OR unit_id = $1::uuid)
)
SELECT r.id AS resource_id, pt.at, r.capacity, sum(a.quantity) AS used
FROM points pt
JOIN resources r ON r.unit_id = pt.unit_id AND r.id = pt.resource_id
JOIN allocations a ON a.unit_id = pt.unit_id AND a.resource_id = pt.resource_id AND a.pooled AND a.occupies
                  AND a.during @> pt.at
GROUP BY r.id, pt.at, r.capacity
HAVING sum(a.quantity) > r.capacity
LIMIT 50
"""

_POOL_USAGE = """
SELECT unit_id, resource_id, slot_start, used, capacity FROM pool_usage
WHERE used > capacity AND ($1::uuid IS NULL OR unit_id = $1::uuid) LIMIT 50
"""

_ALLOCATION_STATE = """
SELECT a.id, a.booking_id, a.occupies, b.status FROM allocations a JOIN bookings b ON b.id = a.booking_id
WHERE a.occupies <> (b.status = ANY($2::text[])) AND ($1::uuid IS NULL OR a.unit_id = $1::uuid)
LIMIT 50
"""

_HISTORIES = """
SELECT b.id, b.status, array_agg(e.old_status ORDER BY e.id) AS olds, array_agg(e.new_status ORDER BY e.id) AS news,
       array_agg(coalesce(e.reason, '') ORDER BY e.id) AS reasons
FROM bookings b LEFT JOIN booking_events e ON e.booking_id = b.id AND e.unit_id = b.unit_id
WHERE ($1::uuid IS NULL OR b.unit_id = $1::uuid)
GROUP BY b.id, b.status
"""

_LAPSED = """
SELECT id, status, hold_expires_at FROM bookings
WHERE status IN ('held', 'pending_payment', 'verifying') AND hold_expires_at < now() - $2::interval
  AND ($1::uuid IS NULL OR unit_id = $1::uuid)
LIMIT 50
"""

_PAYMENTS = """
SELECT p.id, p.outcome, p.booking_id, p.txid,
       EXISTS (SELECT 1 FROM booking_events e WHERE e.booking_id = p.booking_id AND e.new_status = 'confirmed')
           AS ever_confirmed
FROM payments p
WHERE ($1::uuid IS NULL OR p.unit_id = $1::uuid)
"""

_BANK = """
SELECT s.txid FROM sandbox_charges s JOIN charges c ON c.txid = s.txid
WHERE s.status = 'CONCLUIDA' AND ($1::uuid IS NULL OR c.unit_id = $1::uuid)
  AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.txid = s.txid)
LIMIT 50
"""


def replay(status: str, olds: list[str | None], news: list[str | None], reasons: list[str]) -> str | None:
    """Why a booking's audit history does not replay to its current state through legal moves (None: it does)."""
    if not news or news[0] is None:
        return "no audit events"
    if olds[0] is not None or news[0] not in CREATION_STATES:
        return f"born {olds[0]} → {news[0]}"
    state = news[0]
    for old, new, reason in zip(olds[1:], news[1:], reasons[1:], strict=True):
        if old != state:
            return f"event says {old} → {new} but the booking was {state}"
        legal = (new is not None and BookingStatus(new) in TRANSITIONS[BookingStatus(old)]) or (
            old == new == "held" and reason == OFFER_CLAIMED) or (
            old in ("expired", "cancelled") and new == "confirmed" and reason == LATE_PAYMENT)
        if not legal or new is None:  # (a legal move always names its new state)
            return f"illegal move {old} → {new}"
        state = new
    if state != status:
        return f"history ends {state} but the booking is {status}"
    return None


async def check(pool: asyncpg.Pool, unit_id: UUID | None = None, sweep_grace: timedelta = timedelta(seconds=60)
                ) -> list[Violation]:
    """Every violation of SPEC §4's guarantees found in the database (empty: all hold)."""
    out: list[Violation] = []
    async with pool.acquire() as conn:
        for r in await conn.fetch(_OVERLAPS, unit_id):
            out.append(Violation("exclusive_overlap", f"resource {r['resource_id']}: bookings {r['a_booking']} and "
                                 f"{r['b_booking']} (allocations {r['a_id']}, {r['b_id']}) overlap"))
        for r in await conn.fetch(_POOLED, unit_id):
            out.append(Violation("pooled_capacity", f"resource {r['resource_id']} at {r['at']}: {r['used']} used of "
                                 f"{r['capacity']}"))
        for r in await conn.fetch(_POOL_USAGE, unit_id):
            out.append(Violation("pooled_capacity", f"pool_usage {r['resource_id']} {r['slot_start']}: "
                                 f"{r['used']} > {r['capacity']}"))
        for r in await conn.fetch(_ALLOCATION_STATE, unit_id, [s.value for s in OCCUPYING]):
            out.append(Violation("allocation_state", f"allocation {r['id']} occupies={r['occupies']} but booking "
                                 f"{r['booking_id']} is {r['status']}"))
        for r in await conn.fetch(_HISTORIES, unit_id):
            why = replay(r["status"], list(r["olds"]), list(r["news"]), list(r["reasons"]))
            if why:
                out.append(Violation("audit_replay", f"booking {r['id']}: {why}"))
        for r in await conn.fetch(_LAPSED, unit_id, sweep_grace):
            out.append(Violation("lapsed_hold", f"booking {r['id']} still {r['status']}, deadline "
                                 f"{r['hold_expires_at']}"))
        for r in await conn.fetch(_PAYMENTS, unit_id):
            if r["outcome"] in ("confirmed", "late_confirmed") and not r["ever_confirmed"]:
                out.append(Violation("payment", f"payment {r['id']} ({r['outcome']}) but booking {r['booking_id']} "
                                     "was never confirmed"))
            elif r["outcome"] == "orphan":
                out.append(Violation("payment", f"payment {r['id']} (txid {r['txid']}) matched no charge"))
        for r in await conn.fetch(_BANK, unit_id):
            out.append(Violation("payment", f"the bank has charge {r['txid']} paid but no payment was recorded"))
    return out


def summary(violations: list[Violation]) -> dict[str, int]:
    """Violations per check."""
    counts: dict[str, int] = defaultdict(int)
    for v in violations:
        counts[v.check] += 1
    return dict(counts)
