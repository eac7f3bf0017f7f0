"""Units and resources, cached per process for a few seconds (configuration changes rarely).

Reads go to a pool of their own (the API's and the worker's configuration pool, store/uow.py), never through the
unit of work's transaction: a use case asks for them while its transaction holds a connection of the main pool,
and must not wait for a second one. Concurrent misses for the same key share one load. A hold names its
resources, so it loads just those; only the grid, "any resource" and alternatives need a unit's whole list.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from datetime import date, timedelta
from typing import Any, TypeVar
from uuid import UUID

import asyncpg

from domain.errors import NotFound
from domain.hold_types import HoldTypeCatalog
from domain.notice_matrix import effective
from domain.units import HoursException, OpeningWindow, Resource, ResourceKind, Unit, UnitParameters

CACHE_SECONDS = 5.0
T = TypeVar("T")

UNIT_SQL = """
SELECT u.*, o.tenant_id, o.hold_types AS org_hold_types, t.hold_types AS tenant_hold_types,
       coalesce((SELECT json_agg(json_build_array(h.weekday, h.opens_minute, h.closes_minute))
                 FROM opening_hours h WHERE h.unit_id = u.id AND h.resource_id IS NULL), '[]') AS hours,
       coalesce((SELECT json_agg(json_build_array(x.id, x.day, x.resource_id, x.windows, x.reason) ORDER BY x.day)
                 FROM hours_exceptions x WHERE x.unit_id = u.id AND x.day >= current_date - 400), '[]') AS exceptions
FROM units u JOIN organizations o ON o.id = u.organization_id JOIN tenants t ON t.id = o.tenant_id
WHERE u.id = $1::uuid
"""

RESOURCES_SQL = """
SELECT r.id, r.name, r.kind, r.capacity, r.group_id,
       coalesce((SELECT json_agg(json_build_array(h.weekday, h.opens_minute, h.closes_minute))
                 FROM opening_hours h WHERE h.unit_id = r.unit_id AND h.resource_id = r.id), '[]') AS hours
FROM resources r
WHERE r.unit_id = $1::uuid AND r.active AND r.on_grid AND ($2::uuid[] IS NULL OR r.id = ANY($2::uuid[]))
ORDER BY r.sort, r.name
"""

_SEATS_SQL = """
SELECT r.id, r.name, r.kind, r.capacity, r.group_id, '[]'::json AS hours
FROM resources r JOIN seats s ON s.unit_id = r.unit_id AND s.resource_id = r.id
WHERE r.unit_id = $1::uuid AND r.active AND r.id = ANY($2::uuid[])
"""

# Resources grouped by their own weekly hours ('[]': the unit's), with their summed capacity.
_CAPACITY_SQL = """
WITH own AS (
    SELECT resource_id, json_agg(json_build_array(weekday, opens_minute, closes_minute)
                                 ORDER BY weekday, opens_minute)::text AS hours
    FROM opening_hours WHERE unit_id = $1::uuid AND resource_id IS NOT NULL GROUP BY resource_id
)
SELECT coalesce(own.hours, '[]') AS hours, sum(r.capacity)::bigint AS capacity
FROM resources r LEFT JOIN own ON own.resource_id = r.id
WHERE r.unit_id = $1::uuid AND r.active AND r.on_grid
GROUP BY 1
"""


class _Cache:
    """A TTL cache whose concurrent misses for one key wait for a single load."""

    def __init__(self) -> None:
        self._values: dict[Any, tuple[float, Any]] = {}
        self._loading: dict[Any, asyncio.Future[Any]] = {}

    async def get(self, key: Any, load: Callable[[], Awaitable[T]]) -> T:
        hit = self._values.get(key)
        if hit and hit[0] > time.monotonic():
            return hit[1]  # type: ignore[no-any-return]
        pending = self._loading.get(key)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._loading[key] = future
        try:
            value = await load()
        except BaseException as e:
            future.set_exception(e)
            future.exception()  # mark retrieved: waiters re-raise it themselves
            raise
        else:
            self._values[key] = (time.monotonic() + CACHE_SECONDS, value)
            future.set_result(value)
            return value
        finally:
            del self._loading[key]

    def peek(self, key: Any) -> Any:
        """The value cached for `key` if it is still fresh, else None (nothing is loaded)."""
        hit = self._values.get(key)
        return hit[1] if hit and hit[0] > time.monotonic() else None

    def drop(self, match: Callable[[Any], bool] | None = None) -> None:
        for key in [k for k in self._values if match is None or match(k)]:
            del self._values[key]


class _ResourceList:
    """A unit's resources in display order, and by id."""

    def __init__(self, resources: list[Resource]) -> None:
        self.resources = resources
        self.by_id = {r.id: r for r in resources}


_units = _Cache()
_resource_lists = _Cache()
_resources = _Cache()
_capacities = _Cache()


ALSO_FORGET: list[Callable[[], None]] = []
"""Other per-process caches of configuration, forgotten whole with any unit's (store/catalog.py's services)."""


def invalidate(unit_id: UUID | None = None) -> None:
    """Forget cached configuration (of every unit when None) in this process."""
    for cache in (_units, _resource_lists, _resources, _capacities):
        cache.drop(None if unit_id is None else lambda k: k == unit_id or (isinstance(k, tuple) and k[0] == unit_id))
    for forget in ALSO_FORGET:
        forget()


def _params(row: Any) -> UnitParameters:
    s = timedelta(seconds=1)
    return UnitParameters(
        min_advance=timedelta(minutes=row["min_advance_minutes"]),
        max_advance=timedelta(days=row["max_advance_days"]),
        slot_minutes=row["slot_minutes"],
        hold_ttl=s * row["hold_ttl_seconds"],
        hold_ttl_with_payment=s * row["hold_ttl_payment_seconds"],
        hold_min=s * row["hold_min_seconds"],
        waitlist_hold=s * row["waitlist_hold_seconds"],
        capacity_offer_ttl=s * row["capacity_offer_ttl_seconds"],
        charge_margin=s * row["charge_margin_seconds"],
        pix_failures_before_alert=row["pix_failures_before_alert"],
        owner_alert_whatsapp=row["owner_alert_whatsapp"],
        open_holds_per_customer=row["open_holds_per_customer"],
        cooldown_expirations=row["cooldown_expirations"],
        cooldown_window=timedelta(days=row["cooldown_window_days"]),
        cooldown_duration=timedelta(hours=row["cooldown_hours"]),
        hold_ceiling_percent=row["hold_ceiling_percent"],
        verification_wait=s * row["verification_wait_seconds"],
        hold_reminder=s * row["hold_reminder_seconds"],
        sweep_interval=s * row["sweep_interval_seconds"],
        payment_rule=row["payment_rule"],
        no_show_grace=timedelta(minutes=row["no_show_grace_minutes"]),
        check_in_opens=timedelta(minutes=row["check_in_opens_minutes"]),
        series_charge_days_ahead=row["series_charge_days_ahead"],
        appointment_reminders=tuple(row["appointment_reminder_minutes"]),
        manual_payments_enabled=row["manual_payments_enabled"],
        check_in_required=row["check_in_required"],
        notification_matrix=effective(_json(row["notification_matrix"])),
        owner_email=row["owner_email"],
    )


def _json(raw: Any) -> dict[str, Any]:
    return json.loads(raw) if isinstance(raw, str) else dict(raw or {})


def _hours(raw: list[list[int]]) -> tuple[OpeningWindow, ...]:
    return tuple(sorted((OpeningWindow(wd, o, c) for wd, o, c in raw), key=lambda w: (w.weekday, w.opens)))


def _exceptions(raw: Any) -> tuple[HoursException, ...]:
    """Closed days and special hours of a unit (its own and its resources'), as UNIT_SQL loads them: those of the
    last 400 days on (older grids show the weekly hours)."""
    rows = json.loads(raw) if isinstance(raw, str) else raw
    return tuple(HoursException(UUID(i), date.fromisoformat(d), UUID(r) if r else None,
                                tuple((int(o), int(c)) for o, c in w), reason or "") for i, d, r, w, reason in rows)


def unit_of(row: Any) -> Unit:
    """A Unit from a row of UNIT_SQL."""
    return Unit(id=row["id"], organization_id=row["organization_id"], tenant_id=row["tenant_id"],
                name=row["name"], timezone=row["timezone"], params=_params(row), hours=_hours(row["hours"]),
                hold_types=HoldTypeCatalog(_json(row["tenant_hold_types"]), _json(row["org_hold_types"])),
                exceptions=_exceptions(row["exceptions"]), currency=row["currency"])


def resource_of(unit_id: UUID, r: Any) -> Resource:
    """A Resource from a row of RESOURCES_SQL."""
    return Resource(id=r["id"], unit_id=unit_id, name=r["name"], kind=ResourceKind(r["kind"]),
                    capacity=r["capacity"], group_id=r["group_id"], hours=_hours(r["hours"]))


class PgUnits:
    """UnitRepository over the pool (outside any transaction)."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def get(self, unit_id: UUID) -> Unit:
        """The unit with its parameters and hours."""

        async def load() -> Unit:
            row = await self._pool.fetchrow(UNIT_SQL, unit_id)
            if row is None:
                raise NotFound("unit", unit_id, field="unitId")
            return unit_of(row)

        return await _units.get(unit_id, load)

    async def resources(self, unit_id: UUID) -> list[Resource]:
        """The unit's active resources in display order."""
        return (await self._resource_list(unit_id)).resources

    async def _resource_list(self, unit_id: UUID) -> _ResourceList:
        async def load() -> _ResourceList:
            return _ResourceList([resource_of(unit_id, r) for r in await self._pool.fetch(RESOURCES_SQL, unit_id,
                                                                                          None)])

        return await _resource_lists.get(unit_id, load)

    async def resources_by_id(self, unit_id: UUID, ids: list[UUID]) -> dict[UUID, Resource]:
        """Those of `ids` that are active resources of the unit (missing ones are left out). From the unit's whole
        list when this process holds it (authorizing a request on the unit reads it): no round trip at all; else
        each by itself (a unit of 10,000 resources is not loaded whole for one hold)."""
        whole = _resource_lists.peek(unit_id)
        if whole is not None:
            return {rid: whole.by_id[rid] for rid in ids if rid in whole.by_id}
        found: dict[UUID, Resource] = {}
        for rid in ids:

            async def load(rid: UUID = rid) -> Resource | None:
                rows = await self._pool.fetch(RESOURCES_SQL, unit_id, [rid])
                return resource_of(unit_id, rows[0]) if rows else None

            r = await _resources.get((unit_id, rid), load)
            if r is not None:
                found[rid] = r
        return found

    async def seat_resources(self, unit_id: UUID, ids: list[UUID]) -> dict[UUID, Resource]:
        """Those of `ids` that are active seats of the unit's seat maps (off the grid; not cached)."""
        rows = await self._pool.fetch(_SEATS_SQL, unit_id, ids)
        return {r["id"]: resource_of(unit_id, r) for r in rows}

    async def capacity_by_hours(self, unit_id: UUID) -> dict[tuple[OpeningWindow, ...], int]:
        """The unit's active resources' summed capacity per weekly hours (empty: the unit's), to size its grid
        without loading every resource."""

        async def load() -> dict[tuple[OpeningWindow, ...], int]:
            rows = await self._pool.fetch(_CAPACITY_SQL, unit_id)
            return {_hours(json.loads(r["hours"])): int(r["capacity"]) for r in rows}

        return await _capacities.get(unit_id, load)
