"""Units and resources, cached per process for a few seconds (configuration changes rarely)."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any
from uuid import UUID

import asyncpg

from domain.errors import NotFound
from domain.units import OpeningWindow, Resource, ResourceKind, Unit, UnitParameters

CACHE_SECONDS = 5.0
_cache: dict[UUID, tuple[float, Unit, list[Resource]]] = {}

_UNIT_SQL = """
SELECT u.*, o.tenant_id,
       coalesce((SELECT json_agg(json_build_array(h.resource_id, h.weekday, h.opens_minute, h.closes_minute))
                 FROM opening_hours h WHERE h.unit_id = u.id), '[]') AS hours,
       coalesce((SELECT json_agg(json_build_array(r.id, r.name, r.kind, r.capacity, r.group_id)
                                 ORDER BY r.sort, r.name)
                 FROM resources r WHERE r.unit_id = u.id AND r.active), '[]') AS resources
FROM units u JOIN organizations o ON o.id = u.organization_id
WHERE u.id = $1::uuid
"""


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
    )


def invalidate(unit_id: UUID | None = None) -> None:
    """Forget cached configuration (all units when None)."""
    if unit_id is None:
        _cache.clear()
    else:
        _cache.pop(unit_id, None)


class PgUnits:
    """UnitRepository over a connection getter."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn

    async def _load(self, unit_id: UUID) -> tuple[Unit, list[Resource]]:
        hit = _cache.get(unit_id)
        if hit and hit[0] > time.monotonic():
            return hit[1], hit[2]
        conn: asyncpg.Connection = await self._conn()
        row = await conn.fetchrow(_UNIT_SQL, unit_id)
        if row is None:
            raise NotFound("unit", unit_id, field="unitId")
        own: dict[UUID | None, list[OpeningWindow]] = {}
        for rid, wd, o, c in row["hours"]:
            own.setdefault(UUID(rid) if rid else None, []).append(OpeningWindow(wd, o, c))
        unit = Unit(
            id=row["id"], organization_id=row["organization_id"], tenant_id=row["tenant_id"],
            name=row["name"], timezone=row["timezone"], params=_params(row),
            hours=tuple(sorted(own.get(None, []), key=lambda w: (w.weekday, w.opens))),
        )
        resources = [
            Resource(
                id=UUID(rid), unit_id=unit.id, name=name, kind=ResourceKind(kind), capacity=cap,
                group_id=UUID(gid) if gid else None,
                hours=tuple(sorted(own.get(UUID(rid), []), key=lambda w: (w.weekday, w.opens))),
            )
            for rid, name, kind, cap, gid in row["resources"]
        ]
        _cache[unit_id] = (time.monotonic() + CACHE_SECONDS, unit, resources)
        return unit, resources

    async def get(self, unit_id: UUID) -> Unit:
        """The unit with its parameters and hours."""
        return (await self._load(unit_id))[0]

    async def resources(self, unit_id: UUID) -> list[Resource]:
        """The unit's active resources in display order."""
        return (await self._load(unit_id))[1]
