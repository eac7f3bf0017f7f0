"""Tenants, organizations and units: the rows a venue's set-up starts from (domain/setup.py's VenueSetup, and
store/venues.py's create_venue for seed-demo and tests: one SQL for both)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import asyncpg

from store import tables as t
from store.bookings import ConnGetter
from store.sql import execute
from store.units import invalidate


async def insert_tenant(conn: asyncpg.Connection, tenant_id: UUID, name: str) -> None:
    await execute(conn, t.tenants.insert().values(id=tenant_id, name=name))


async def insert_organization(conn: asyncpg.Connection, organization_id: UUID, tenant_id: UUID, name: str) -> None:
    await execute(conn, t.organizations.insert().values(id=organization_id, tenant_id=tenant_id, name=name))


async def insert_unit(conn: asyncpg.Connection, unit_id: UUID, organization_id: UUID, name: str, timezone: str,
                      **params: Any) -> None:
    """A unit (parameters not given keep the columns' defaults) and its first cancellation policy, version 1, made
    of the unit's default tiers."""
    await execute(conn, t.units.insert().values(id=unit_id, organization_id=organization_id, name=name,
                                                timezone=timezone, **params))
    await conn.execute("INSERT INTO cancellation_policies (unit_id, version, tiers) "
                       "SELECT id, 1, cancellation_tiers FROM units WHERE id = $1", unit_id)
    invalidate(unit_id)


class PgSetup:
    """domain.setup.VenueSetup on the unit of work's connection."""

    def __init__(self, conn: ConnGetter) -> None:
        self._conn = conn

    async def add_tenant(self, tenant_id: UUID, name: str) -> None:
        await insert_tenant(await self._conn(), tenant_id, name)

    async def tenant_exists(self, tenant_id: UUID) -> bool:
        conn = await self._conn()
        return bool(await conn.fetchval("SELECT EXISTS (SELECT 1 FROM tenants WHERE id = $1)", tenant_id))

    async def add_organization(self, organization_id: UUID, tenant_id: UUID, name: str) -> None:
        await insert_organization(await self._conn(), organization_id, tenant_id, name)

    async def organization_tenant(self, organization_id: UUID) -> UUID | None:
        conn = await self._conn()
        return await conn.fetchval(  # type: ignore[no-any-return]
            "SELECT tenant_id FROM organizations WHERE id = $1 FOR SHARE", organization_id)

    async def add_unit(self, unit_id: UUID, organization_id: UUID, name: str, timezone: str, slot_minutes: int,
                       currency: str) -> None:
        await insert_unit(await self._conn(), unit_id, organization_id, name, timezone, slot_minutes=slot_minutes,
                          currency=currency)
