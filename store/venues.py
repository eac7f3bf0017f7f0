"""Creating tenants, organizations, units, resources and opening hours (the venue's setup)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from uuid import UUID, uuid4

import asyncpg

from store import tables as t
from store.setup import insert_organization, insert_tenant, insert_unit
from store.sql import execute
from store.units import invalidate


@dataclass(frozen=True)
class ResourceSpec:
    """A resource to create; `hours` overrides the unit's weekly hours."""

    name: str
    kind: str = "exclusive"
    capacity: int = 1
    group: str | None = None
    hours: list[tuple[int, int, int]] = field(default_factory=list)
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class VenueSpec:
    """A whole venue: tenant → organization → unit with resources, hours and parameters."""

    unit_name: str
    timezone: str = "America/Sao_Paulo"
    tenant_name: str = "Demo tenant"
    organization_name: str = "Demo organization"
    hours: list[tuple[int, int, int]] = field(default_factory=list)
    """(weekday 0=Mon, opens minute, closes minute)"""
    resources: list[ResourceSpec] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)
    services: list[dict[str, Any]] = field(default_factory=list)
    unit_id: UUID | None = None


@dataclass(frozen=True)
class CreatedVenue:
    """Ids of what `create_venue` made."""

    tenant_id: UUID
    organization_id: UUID
    unit_id: UUID
    resource_ids: dict[str, UUID]
    service_ids: dict[str, UUID]


async def create_venue(pool: asyncpg.Pool, spec: VenueSpec) -> CreatedVenue:
    """Create a venue in one transaction."""
    tenant_id, org_id, unit_id = uuid4(), uuid4(), spec.unit_id or uuid4()
    resource_ids: dict[str, UUID] = {}
    service_ids: dict[str, UUID] = {}
    async with pool.acquire() as conn, conn.transaction():
        await insert_tenant(conn, tenant_id, spec.tenant_name)
        await insert_organization(conn, org_id, tenant_id, spec.organization_name)
        await insert_unit(conn, unit_id, org_id, spec.unit_name, spec.timezone, **spec.params)
        groups: dict[str, UUID] = {}
        for i, r in enumerate(spec.resources):
            gid = None
            if r.group:
                if r.group not in groups:
                    groups[r.group] = uuid4()
                    await execute(conn, t.resource_groups.insert().values(
                        id=groups[r.group], unit_id=unit_id, name=r.group, sort=len(groups)))
                gid = groups[r.group]
            rid = resource_ids[r.name] = uuid4()
            await execute(conn, t.resources.insert().values(
                id=rid, unit_id=unit_id, group_id=gid, name=r.name, kind=r.kind, capacity=r.capacity, sort=i,
                attributes=r.attributes))
            for wd, o, c in r.hours:
                await execute(conn, t.opening_hours.insert().values(
                    unit_id=unit_id, resource_id=rid, weekday=wd, opens_minute=o, closes_minute=c))
        if spec.hours:
            await conn.executemany(
                "INSERT INTO opening_hours (unit_id, weekday, opens_minute, closes_minute) "
                "VALUES ($1::uuid, $2::smallint, $3::int, $4::int)",
                [(unit_id, wd, o, c) for wd, o, c in spec.hours],
            )
        for s in spec.services:
            sid = service_ids[s["name"]] = uuid4()
            await execute(conn, t.services.insert().values(id=sid, unit_id=unit_id, **s))
            await conn.execute(
                "INSERT INTO service_prices (unit_id, service_id, version, price_cents, payment_rule, "
                "deposit_percent, deposit_cents) SELECT unit_id, id, 1, price_cents, payment_rule, "
                "deposit_percent, deposit_cents FROM services WHERE id = $1", sid)
    invalidate(unit_id)
    return CreatedVenue(tenant_id, org_id, unit_id, resource_ids, service_ids)


def every_day(opens_hour: int, closes_hour: int) -> list[tuple[int, int, int]]:
    """Weekly hours open every day from opens_hour to closes_hour (24 = midnight)."""
    return [(wd, opens_hour * 60, closes_hour * 60) for wd in range(7)]
