"""The SQL of RN-HLD-05: per-customer locks, a customer's standing, a day's hold pressure, the blacklist.

The statements of the hold path take scalar parameters where they can: their generic plans are then good, so
each is planned once per connection rather than at every hold (planning cost more than running them).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID, uuid4

from domain.customers import CustomerIdentity
from domain.fraud import DayWindow, Locked, Standing
from domain.units import Resource
from store.bookings import ConnGetter
from store.units import RESOURCES_SQL, resource_of

CUSTOMER_LOCK_SPACE = 5_107_005
"""The first key of the two-key advisory locks taken per customer (resources use one-key locks: another space)."""

# The identifiers asked for, those of the records they match (a record may link a CPF to a phone) and any named
# in $4: the same person always takes the same locks, in ascending key order (no deadlocks).
_NAMES = """
SELECT DISTINCT name FROM (
    SELECT unnest(ARRAY['cpf:' || $2::text, 'phone:' || $3::text]) AS name
    UNION ALL SELECT unnest(ARRAY['cpf:' || trim(cpf), 'phone:' || phone]) FROM customers
    WHERE tenant_id = $1::uuid AND (cpf = $2::bpchar OR phone = $3::text)
    UNION ALL SELECT unnest($4::text[])
) named WHERE name IS NOT NULL
"""

_LOCK = f"""
SELECT n.name, pg_advisory_xact_lock({CUSTOMER_LOCK_SPACE}, hashtext($1::text || ':' || n.name)) FROM ({_NAMES}) n
ORDER BY hashtext($1::text || ':' || n.name)
"""

# The same locks, and the pressure on a day in the same round trip: its open holds (bookings, but the one a swap
# replaces) and, from $7 on, an upper bound of the slot units that bookings and blocks take: each allocation
# counts its places (a block: its resource's whole capacity) on every slot it could touch, ceil(length / slot)
# + 1. Lapsed holds take nothing, and open holds are left out on purpose (domain/fraud.py free_units). The
# pressure is read from before any wait for the locks: the ceiling is a throttle, not a count to serialise.
# date_part, not extract: extract(epoch …) is numeric arithmetic since PostgreSQL 14, and this expression runs on
# every allocation of the day (bench.holds with a venue's history: the statement 1.65 → 0.80 ms at 720 rows).
_LOCK_AND_PRESSURE = f"""
WITH p AS (
    SELECT count(DISTINCT a.booking_id) FILTER (WHERE a.hold_expires_at > $9::timestamptz
                                                AND a.booking_id IS DISTINCT FROM $11::uuid) AS open_holds,
           coalesce(sum(
               CASE WHEN a.block_id IS NULL THEN a.quantity
                    ELSE (SELECT r.capacity FROM resources r WHERE r.id = a.resource_id) END
               * (ceil(date_part('epoch', least(upper(a.during), $8::timestamptz)
                                          - greatest(lower(a.during), $7::timestamptz)) / $10::float8) + 1)
           ) FILTER (WHERE a.hold_expires_at IS NULL AND a.during && tstzrange($7::timestamptz, $8::timestamptz)),
           0)::bigint AS taken
    FROM allocations a
    WHERE a.unit_id = $5::uuid AND a.occupies AND a.during && tstzrange($6::timestamptz, $8::timestamptz)
)
SELECT n.name, pg_advisory_xact_lock({CUSTOMER_LOCK_SPACE}, hashtext($1::text || ':' || n.name)), p.open_holds,
       p.taken
FROM ({_NAMES}) n, p
ORDER BY hashtext($1::text || ':' || n.name)
"""

# One row per fact, `kind` saying which: 0 a record of the customer (`direct`: it has the CPF or the phone;
# else it shares a CPF or phone with one that does), 1 one of their holds that still has a deadline (open or
# lapsed), 2 an expiration: an expiry (not a staff drop) or the customer's own cancel of a hold that was not a
# swap or a reschedule. Offers of waitlists are the system's doing, not the customer's.
_STANDING = """
WITH asked AS MATERIALIZED (
    SELECT id, cpf, phone, blacklisted FROM customers WHERE tenant_id = $1::uuid AND (cpf = $2::bpchar OR phone = $3)
), who AS MATERIALIZED (
    SELECT DISTINCT ON (id) id, cpf, phone, blacklisted, direct FROM (
        SELECT id, cpf, phone, blacklisted, true AS direct FROM asked
        UNION ALL
        SELECT c.id, c.cpf, c.phone, c.blacklisted, false FROM asked a JOIN customers c
            ON c.tenant_id = $1::uuid AND (c.cpf = a.cpf OR c.phone = a.phone)
    ) linked ORDER BY id, direct DESC
)
SELECT 0 AS kind, w.id, NULL::timestamptz AS at, w.blacklisted, w.direct, w.cpf::text AS cpf, w.phone,
       NULL::text AS channel, NULL::text AS hold_type, NULL::timestamptz AS created_at, NULL::uuid AS owner,
       NULL::uuid AS series
FROM who w
UNION ALL
SELECT 1, b.id, b.hold_expires_at, NULL, NULL, NULL, w.phone, b.channel, b.hold_type, b.created_at, w.id,
       b.series_id
FROM who w JOIN bookings b ON b.customer_id = w.id AND b.hold_expires_at IS NOT NULL  -- held, pending, verifying
    -- an accepted series' occurrences await their periods' Pix for months: not an open hold (issue 23)
    AND (b.series_id IS NULL OR NOT EXISTS (SELECT 1 FROM series s WHERE s.id = b.series_id AND s.status = 'confirmed'))
UNION ALL
SELECT 2, b.id, e.at, NULL, NULL, NULL, NULL, b.channel, NULL, NULL, NULL, b.series_id
FROM who w
JOIN bookings b ON b.customer_id = w.id AND b.status IN ('expired', 'cancelled') AND b.channel <> 'waitlist'
JOIN booking_events e ON e.booking_id = b.id AND e.at > $4::timestamptz
    AND e.old_status IN ('held', 'pending_payment', 'verifying')
    AND ((e.new_status = 'expired' AND coalesce(e.reason, '') NOT LIKE 'dropped by staff%')
         OR (e.new_status = 'cancelled' AND e.actor = 'customer'
             AND coalesce(e.reason, '') NOT IN ('swapped', 'rescheduled')))
"""

_BLACKLIST = """
UPDATE customers SET blacklisted = $4::bool, blacklist_reason = $5::text, blacklist_changed_at = $6::timestamptz,
                     blacklist_changed_by = $7::text
WHERE tenant_id = $1::uuid AND (cpf = ANY($2::bpchar[]) OR phone = ANY($3::text[]))
RETURNING id, cpf::text AS cpf, phone, name, blacklisted, blacklist_reason, blacklist_changed_at
"""


def _names(names: list[str]) -> tuple[frozenset[str], frozenset[str]]:
    return (frozenset(n.removeprefix("cpf:") for n in names if n.startswith("cpf:")),
            frozenset(n.removeprefix("phone:") for n in names if n.startswith("phone:")))


def _once_per_series(rows: list[Any]) -> list[Any]:
    """The rows with one per series (issue 23: a series is one hold, however many occurrences it holds): the
    first of each series, in the given order; rows of single bookings all kept."""
    seen: set[UUID] = set()
    kept = []
    for r in rows:
        if r["series"] is not None:
            if r["series"] in seen:
                continue
            seen.add(r["series"])
        kept.append(r)
    return kept


def _standing(rows: list[Any], now: datetime, since: datetime, replacing: UUID | None) -> Standing:
    records = [r for r in rows if r["kind"] == 0]
    every_hold = sorted((r for r in rows if r["kind"] == 1), key=lambda r: (r["created_at"], r["id"]))
    holds = _once_per_series(every_hold)
    lapsed = [r for r in every_hold if since < r["at"] <= now and r["channel"] != "waitlist"]
    ended = [r for r in rows if r["kind"] == 2 and r["at"] <= now]
    # A series that expired counts once, whether the sweep has marked all, some or none of its occurrences yet.
    expirations = [r["at"] for r in _once_per_series(sorted(lapsed + ended, key=lambda r: r["at"]))]
    return Standing(
        blacklisted=any(r["blacklisted"] for r in records),
        open_holds=tuple(r["id"] for r in holds if r["at"] > now and r["hold_type"] != "WAITLIST_OFFER"
                         and r["id"] != replacing),
        owners={r["id"]: (r["owner"], r["phone"]) for r in every_hold},
        expirations=tuple(sorted(expirations)),
        cpfs=frozenset(r["cpf"] for r in records if r["direct"] and r["cpf"]),
        phones=frozenset(r["phone"] for r in records if r["direct"] and r["phone"]))


class PgAntifraud:
    """AntifraudRepository on the unit of work's connection."""

    def __init__(self, conn: ConnGetter) -> None:
        self._conn = conn

    async def lock_customer(self, tenant_id: UUID, identity: CustomerIdentity,
                            also: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset()),
                            day: DayWindow | None = None) -> Locked:
        """Serialise the self-service holds of one customer until the transaction ends: one lock per CPF and
        phone, those of `identity`, of the records they match and `also` (CPFs, phones). With `day`, also
        measure the pressure on it in the same round trip.

        Count in a later statement: a statement that waited for the lock would still read from before the wait.
        """
        conn = await self._conn()
        extra = [f"cpf:{c}" for c in sorted(also[0])] + [f"phone:{p}" for p in sorted(also[1])]
        if day is None:
            rows = await conn.fetch(_LOCK, tenant_id, identity.cpf, identity.phone, extra)
            return Locked(*_names([r["name"] for r in rows]))
        rows = await conn.fetch(_LOCK_AND_PRESSURE, tenant_id, identity.cpf, identity.phone, extra, day.unit_id,
                                day.day_start, day.start, day.end, day.now, day.step.total_seconds(), day.replacing)
        return Locked(*_names([r["name"] for r in rows]), rows[0]["open_holds"], rows[0]["taken"])

    async def standing(self, tenant_id: UUID, identity: CustomerIdentity, now: datetime, since: datetime,
                       replacing: UUID | None) -> Standing:
        """The customer's blacklist flag, open holds (but `replacing`) and expirations since `since`, over all
        their records."""
        conn = await self._conn()
        rows = await conn.fetch(_STANDING, tenant_id, identity.cpf, identity.phone, since)
        return _standing(rows, now, since, replacing)

    async def resources(self, unit_id: UUID) -> list[Resource]:
        """The unit's active resources, read in the transaction (not the cached list: that one needs the pool)."""
        conn = await self._conn()
        return [resource_of(unit_id, r) for r in await conn.fetch(RESOURCES_SQL, unit_id, None)]

    async def set_blacklisted(self, tenant_id: UUID, identity: CustomerIdentity, blacklisted: bool,
                              reason: str | None, actor: str, at: datetime) -> list[dict[str, Any]]:
        """Set or clear the flag on every record with the identity's CPF or phone (one is made if none exists)."""
        conn = await self._conn()
        cpfs = [identity.cpf] if identity.cpf else []
        phones = [identity.phone] if identity.phone else []
        rows = await conn.fetch(_BLACKLIST, tenant_id, cpfs, phones, blacklisted, reason, at, actor)
        if not rows:
            await conn.execute(
                "INSERT INTO customers (id, tenant_id, cpf, phone, name, email) VALUES ($1, $2, $3, $4, $5, $6) "
                "ON CONFLICT (tenant_id, cpf) DO NOTHING", uuid4(), tenant_id, identity.cpf, identity.phone,
                identity.name, identity.email)
            rows = await conn.fetch(_BLACKLIST, tenant_id, cpfs, phones, blacklisted, reason, at, actor)
        return [dict(r) for r in rows]
