"""The SQL of RN-HLD-05: per-customer locks, a customer's standing, a day's hold pressure, the blacklist."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

from domain.customers import CustomerIdentity
from domain.fraud import Standing
from domain.units import Resource
from store.bookings import ConnGetter
from store.units import RESOURCES_SQL, resource_of

CUSTOMER_LOCK_SPACE = 5_107_005
"""The first key of the two-key advisory locks taken per customer (resources use one-key locks: another space)."""

# The identifiers asked for and those of the records they match (one record may link a CPF to a phone), then one
# lock per identifier in ascending key order: the same person always takes the same locks in the same order.
_LOCK = """
WITH asked AS (
    SELECT 'cpf:' || c AS name FROM unnest($3::text[]) AS c
    UNION SELECT 'phone:' || p FROM unnest($4::text[]) AS p
), linked AS (
    SELECT 'cpf:' || trim(cpf) AS name FROM customers
    WHERE tenant_id = $2::uuid AND (cpf = ANY($3::bpchar[]) OR phone = ANY($4::text[])) AND cpf IS NOT NULL
    UNION SELECT 'phone:' || phone FROM customers
    WHERE tenant_id = $2::uuid AND (cpf = ANY($3::bpchar[]) OR phone = ANY($4::text[])) AND phone IS NOT NULL
), keyed AS (
    SELECT name, hashtext($2::text || ':' || name) AS k FROM (SELECT name FROM asked UNION SELECT name FROM linked) n
    ORDER BY k
)
SELECT name, pg_advisory_xact_lock($1::int, k) FROM keyed ORDER BY k
"""

# Every record of the tenant with one of the CPFs or phones; their open holds, and what counts as an expiration:
# an expiry (not a staff drop), a customer's own cancel of a hold that was not a swap, and a hold past its
# deadline that no job has marked yet. Offers of waitlists are the system's, not the customer's doing.
_STANDING = """
WITH who AS (
    SELECT id, cpf, phone, blacklisted FROM customers
    WHERE tenant_id = $1::uuid AND (cpf = ANY($2::bpchar[]) OR phone = ANY($3::text[]))
)
SELECT coalesce((SELECT bool_or(blacklisted) FROM who), false) AS blacklisted,
       array(SELECT DISTINCT cpf::text FROM who WHERE cpf IS NOT NULL) AS cpfs,
       array(SELECT DISTINCT phone FROM who WHERE phone IS NOT NULL) AS phones,
       array(SELECT b.id FROM bookings b
             WHERE b.customer_id IN (SELECT id FROM who) AND b.status IN ('held', 'pending_payment', 'verifying')
               AND b.hold_expires_at > $4::timestamptz AND b.hold_type IS DISTINCT FROM 'WAITLIST_OFFER'
               AND b.id IS DISTINCT FROM $6::uuid
             ORDER BY b.created_at, b.id) AS open_holds,
       array(SELECT t FROM (
                 SELECT e.at AS t FROM bookings b JOIN booking_events e ON e.booking_id = b.id
                 WHERE b.customer_id IN (SELECT id FROM who) AND b.status IN ('expired', 'cancelled')
                   AND b.channel <> 'waitlist' AND e.at > $5::timestamptz AND e.at <= $4::timestamptz
                   AND e.old_status IN ('held', 'pending_payment', 'verifying')
                   AND ((e.new_status = 'expired' AND coalesce(e.reason, '') NOT LIKE 'dropped by staff%')
                        OR (e.new_status = 'cancelled' AND e.actor = 'customer'
                            AND e.reason IS DISTINCT FROM 'swapped'))
                 UNION ALL
                 SELECT b.hold_expires_at FROM bookings b
                 WHERE b.customer_id IN (SELECT id FROM who) AND b.status IN ('held', 'pending_payment', 'verifying')
                   AND b.channel <> 'waitlist' AND b.hold_expires_at > $5::timestamptz
                   AND b.hold_expires_at <= $4::timestamptz
             ) x ORDER BY t) AS expirations
"""

# The day's open holds (bookings; not the one a swap replaces) and, from $3 on, an upper bound of the slot
# units that bookings and blocks take: each allocation counts its places (a block: its resource's whole
# capacity) on every slot it could touch, ceil(length / slot) + 1. Lapsed holds take nothing, and open holds
# are left out on purpose (domain/fraud.py free_units).
_PRESSURE = """
SELECT count(DISTINCT a.booking_id) FILTER (WHERE a.hold_expires_at > $5::timestamptz
                                            AND a.booking_id IS DISTINCT FROM $7::uuid) AS open_holds,
       coalesce(sum(
           CASE WHEN a.block_id IS NULL THEN a.quantity
                ELSE (SELECT r.capacity FROM resources r WHERE r.id = a.resource_id) END
           * (ceil(extract(epoch FROM least(upper(a.during), $4::timestamptz)
                                      - greatest(lower(a.during), $3::timestamptz)) / $6::float8) + 1)
       ) FILTER (WHERE a.hold_expires_at IS NULL AND a.during && tstzrange($3::timestamptz, $4::timestamptz)),
       0)::bigint AS taken
FROM allocations a
WHERE a.unit_id = $1::uuid AND a.occupies AND a.during && tstzrange($2::timestamptz, $4::timestamptz)
"""

_BLACKLIST = """
UPDATE customers SET blacklisted = $4::bool, blacklist_reason = $5::text, blacklist_changed_at = $6::timestamptz,
                     blacklist_changed_by = $7::text
WHERE tenant_id = $1::uuid AND (cpf = ANY($2::bpchar[]) OR phone = ANY($3::text[]))
RETURNING id, cpf::text AS cpf, phone, name, blacklisted, blacklist_reason, blacklist_changed_at
"""


class PgAntifraud:
    """AntifraudRepository on the unit of work's connection."""

    def __init__(self, conn: ConnGetter) -> None:
        self._conn = conn

    async def lock_customer(self, tenant_id: UUID, cpfs: set[str], phones: set[str]) -> tuple[set[str], set[str]]:
        """Serialise the self-service holds of one customer until the transaction ends: one lock per CPF and
        phone, those given and those their records know. Returns the CPFs and phones locked.

        Count in a later statement: a statement that waited for the lock would still read from before the wait.
        """
        conn = await self._conn()
        rows = await conn.fetch(_LOCK, CUSTOMER_LOCK_SPACE, tenant_id, sorted(cpfs), sorted(phones))
        names = [r["name"] for r in rows]
        return ({n.removeprefix("cpf:") for n in names if n.startswith("cpf:")},
                {n.removeprefix("phone:") for n in names if n.startswith("phone:")})

    async def standing(self, tenant_id: UUID, cpfs: set[str], phones: set[str], now: datetime, since: datetime,
                       replacing: UUID | None) -> Standing:
        """The customer's blacklist flag, open holds and recent expirations, over every matching record."""
        conn = await self._conn()
        r: Any = await conn.fetchrow(_STANDING, tenant_id, sorted(cpfs), sorted(phones), now, since, replacing)
        return Standing(blacklisted=r["blacklisted"], open_holds=tuple(r["open_holds"]),
                        expirations=tuple(r["expirations"]), cpfs=frozenset(r["cpfs"]),
                        phones=frozenset(r["phones"]))

    async def day_pressure(self, unit_id: UUID, day_start: datetime, start: datetime, end: datetime,
                           now: datetime, step: timedelta, replacing: UUID | None) -> tuple[int, int]:
        """(open holds of [day_start, end) but `replacing`, an upper bound of the slot units taken in
        [start, end))."""
        conn = await self._conn()
        r: Any = await conn.fetchrow(_PRESSURE, unit_id, day_start, start, end, now, step.total_seconds(),
                                     replacing)
        return int(r["open_holds"]), int(r["taken"])

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
