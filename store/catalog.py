"""Services, the resources they run on, their price versions and bands (migrations 0004 and 0019c)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any
from uuid import UUID

import asyncpg

from domain.errors import NotFound
from domain.payments import PaymentRule, Price
from domain.pricing import PriceBand, PriceTable, Service
from store import units
from store.bookings import ConnGetter
from store.units import _Cache

_SERVICES = """
SELECT s.id, s.unit_id, s.name, s.active, s.durations, p.version, p.price_cents, p.payment_rule,
       p.deposit_percent, p.deposit_cents,
       array(SELECT r.resource_id FROM service_resources r WHERE r.unit_id = s.unit_id AND r.service_id = s.id
             ORDER BY r.resource_id) AS resource_ids
FROM services s
JOIN service_prices p ON p.unit_id = s.unit_id AND p.service_id = s.id AND p.version = s.price_version
"""

_BANDS = """
SELECT service_id, version, position, weekday, from_minute, to_minute, price_cents, payment_rule, deposit_percent,
       deposit_cents
FROM service_price_bands WHERE unit_id = $1 AND (service_id, version) IN (SELECT * FROM unnest($2::uuid[], $3::int[]))
ORDER BY service_id, version, position, weekday
"""


def _price(service_id: UUID, r: Any) -> Price:
    return Price(service_id, r["version"], r["price_cents"], PaymentRule(r["payment_rule"]), r["deposit_percent"],
                 r["deposit_cents"])


def _bands(rows: list[Any]) -> dict[tuple[UUID, int], tuple[PriceBand, ...]]:
    """Band rows (one per band and weekday) → the bands of each (service, version), in their order."""
    days: dict[tuple[UUID, int], dict[int, list[int]]] = defaultdict(dict)
    first: dict[tuple[UUID, int, int], Any] = {}
    for r in rows:
        key = (r["service_id"], r["version"])
        days[key].setdefault(r["position"], []).append(r["weekday"])
        first.setdefault((r["service_id"], r["version"], r["position"]), r)
    out: dict[tuple[UUID, int], tuple[PriceBand, ...]] = {}
    for key, by_position in days.items():
        out[key] = tuple(
            PriceBand(tuple(by_position[pos]), b["from_minute"], b["to_minute"], b["price_cents"],
                      PaymentRule(b["payment_rule"]), b["deposit_percent"], b["deposit_cents"])
            for pos in sorted(by_position) for b in [first[(*key, pos)]])
    return out


async def _read_services(conn: Any, where: str, *args: Any) -> list[Service]:
    """Services with their current price version and bands, read on `conn` (a connection or a pool)."""
    rows = await conn.fetch(f"{_SERVICES} WHERE {where} ORDER BY s.name, s.id", *args)
    if not rows:
        return []
    bands = _bands(await conn.fetch(_BANDS, rows[0]["unit_id"], [r["id"] for r in rows],  # one unit's
                                    [r["version"] for r in rows]))
    return [Service(r["id"], r["unit_id"], r["name"],
                    PriceTable(_price(r["id"], r), bands.get((r["id"], r["version"]), ())),
                    tuple(r["durations"]) if r["durations"] is not None else None,
                    tuple(r["resource_ids"]), r["active"]) for r in rows]


_offered = _Cache()
"""Services as bookings are placed on them, per process for a few seconds like units (store/units.py)."""


def forget(service_ids: Iterable[UUID] | None = None) -> None:
    """Forget cached services (all when None) in this process."""
    ids = None if service_ids is None else set(service_ids)
    _offered.drop(None if ids is None else ids.__contains__)


units.ALSO_FORGET.append(forget)  # a unit's set-up changed (or a test edited rows): its services may have too


class PgCatalog:
    """The catalog of services on the unit of work's connection; `offered` reads through a per-process cache
    loaded from `pool` (the configuration pool: never the transaction's connection). `touched`: the services this
    unit of work changed, forgotten from the cache when it commits."""

    def __init__(self, conn: ConnGetter, pool: asyncpg.Pool | None = None) -> None:
        self._conn = conn
        self._pool = pool
        self.touched: set[UUID] = set()

    async def _services(self, where: str, *args: Any) -> list[Service]:
        return await _read_services(await self._conn(), where, *args)

    async def offered(self, service_id: UUID) -> Service | None:
        """`service`, as a new booking names it: cached for a few seconds (a change made in this process is seen
        at once, one made in another within CACHE_SECONDS), so that placing a booking on a service reads nothing
        in its transaction but the version it pins."""
        if self._pool is None:
            return await self.service(service_id)
        pool = self._pool

        async def load() -> Service | None:
            found = await _read_services(pool, "s.id = $1", service_id)
            return found[0] if found else None

        return await _offered.get(service_id, load)

    async def services(self, unit_id: UUID, include_inactive: bool) -> list[Service]:
        return await self._services("s.unit_id = $1 AND (s.active OR $2)", unit_id, include_inactive)

    async def service(self, service_id: UUID) -> Service | None:
        found = await self._services("s.id = $1", service_id)
        return found[0] if found else None

    async def name_taken(self, unit_id: UUID, name: str, other_than: UUID | None) -> bool:
        conn = await self._conn()
        return bool(await conn.fetchval(
            "SELECT EXISTS (SELECT 1 FROM services WHERE unit_id = $1 AND lower(name) = lower($2) "
            "AND id IS DISTINCT FROM $3)", unit_id, name, other_than))

    async def create(self, service: Service, duration_minutes: int) -> None:
        self.touched.add(service.id)
        conn = await self._conn()
        p = service.table.base
        await conn.execute(
            "INSERT INTO services (id, unit_id, name, duration_minutes, price_cents, payment_rule, deposit_percent, "
            "deposit_cents, active, durations, price_version) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 1)",
            service.id, service.unit_id, service.name, duration_minutes, p.price_cents, p.rule.value,
            p.deposit_percent, p.deposit_cents, service.active,
            list(service.durations) if service.durations is not None else None)
        await conn.execute(
            "INSERT INTO service_prices (unit_id, service_id, version, price_cents, payment_rule, deposit_percent, "
            "deposit_cents) VALUES ($1, $2, 1, $3, $4, $5, $6)", service.unit_id, service.id, p.price_cents,
            p.rule.value, p.deposit_percent, p.deposit_cents)
        await self._resources(service)

    async def update(self, service: Service, duration_minutes: int) -> None:
        self.touched.add(service.id)
        conn = await self._conn()
        await conn.execute(
            "UPDATE services SET name = $3, duration_minutes = $4, durations = $5, active = $6 "
            "WHERE unit_id = $1 AND id = $2", service.unit_id, service.id, service.name, duration_minutes,
            list(service.durations) if service.durations is not None else None, service.active)
        await conn.execute("DELETE FROM service_resources WHERE unit_id = $1 AND service_id = $2",
                           service.unit_id, service.id)
        await self._resources(service)

    async def _resources(self, service: Service) -> None:
        conn = await self._conn()
        await conn.execute(
            "INSERT INTO service_resources (unit_id, service_id, resource_id) SELECT $1, $2, r "
            "FROM unnest($3::uuid[]) AS r", service.unit_id, service.id, list(service.resource_ids))

    async def publish_bands(self, unit_id: UUID, service_id: UUID, bands: tuple[PriceBand, ...]) -> Price:
        self.touched.add(service_id)
        conn = await self._conn()
        version: int | None = await conn.fetchval(
            "UPDATE services SET price_version = price_version + 1 WHERE unit_id = $1 AND id = $2 "
            "RETURNING price_version", unit_id, service_id)
        if version is None:
            raise NotFound("service", service_id, field="serviceId")
        r = await conn.fetchrow(
            "INSERT INTO service_prices (unit_id, service_id, version, price_cents, payment_rule, deposit_percent, "
            "deposit_cents) SELECT unit_id, service_id, $3, price_cents, payment_rule, deposit_percent, "
            "deposit_cents FROM service_prices WHERE unit_id = $1 AND service_id = $2 AND version = $3 - 1 "
            "RETURNING version, price_cents, payment_rule, deposit_percent, deposit_cents",
            unit_id, service_id, version)
        rows = [(i, d, b) for i, b in enumerate(bands) for d in b.weekdays]
        await conn.execute(
            "INSERT INTO service_price_bands (unit_id, service_id, version, position, weekday, from_minute, "
            "to_minute, price_cents, payment_rule, deposit_percent, deposit_cents) "
            "SELECT $1, $2, $3, t.* FROM unnest($4::int[], $5::smallint[], $6::int[], $7::int[], $8::int[], "
            "$9::text[], $10::int[], $11::int[]) AS t",
            unit_id, service_id, version, [i for i, _, _ in rows], [d for _, d, _ in rows],
            [b.from_minute for *_, b in rows], [b.to_minute for *_, b in rows], [b.price_cents for *_, b in rows],
            [b.rule.value for *_, b in rows], [b.deposit_percent for *_, b in rows],
            [b.deposit_cents for *_, b in rows])
        return _price(service_id, r)

    async def table(self, unit_id: UUID, service_id: UUID, version: int | None = None) -> PriceTable:
        conn = await self._conn()
        r = await conn.fetchrow(
            "SELECT p.* FROM services s JOIN service_prices p ON p.unit_id = s.unit_id AND p.service_id = s.id "
            "AND p.version = coalesce($3, s.price_version) WHERE s.unit_id = $1 AND s.id = $2",
            unit_id, service_id, version)
        if r is None:
            raise NotFound("service", service_id, field="serviceId")
        bands = _bands(await conn.fetch(_BANDS, unit_id, [service_id], [r["version"]]))
        return PriceTable(_price(service_id, r), bands.get((service_id, r["version"]), ()))

    async def pin(self, unit_id: UUID, booking_id: UUID, service_id: UUID, version: int | None = None) -> None:
        conn = await self._conn()
        await conn.execute("INSERT INTO booking_price_versions (unit_id, booking_id, service_id, version) "
                           "SELECT $1, $2, id, coalesce($4, price_version) FROM services WHERE unit_id = $1 "
                           "AND id = $3", unit_id, booking_id, service_id, version)

    async def pinned(self, unit_id: UUID, booking_id: UUID) -> int | None:
        conn = await self._conn()
        version: int | None = await conn.fetchval(
            "SELECT version FROM booking_price_versions WHERE unit_id = $1 AND booking_id = $2", unit_id, booking_id)
        return version
