"""What a venue file is compared with (`slothold venue apply`): tenants, organizations and units found by name, on
the apply's own connection (inside its transaction)."""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

import asyncpg


@dataclass(frozen=True)
class FoundUnit:
    id: UUID
    timezone: str
    slot_minutes: int
    currency: str


async def tenants_named(conn: asyncpg.Connection, name: str) -> list[UUID]:
    """The tenants of this name (a name is not unique across the platform)."""
    return [r["id"] for r in await conn.fetch("SELECT id FROM tenants WHERE name = $1 ORDER BY id", name)]


async def organizations_named(conn: asyncpg.Connection, tenant_id: UUID, name: str) -> list[UUID]:
    """The tenant's organizations of this name."""
    rows = await conn.fetch("SELECT id FROM organizations WHERE tenant_id = $1 AND name = $2 ORDER BY id",
                            tenant_id, name)
    return [r["id"] for r in rows]


async def units_named(conn: asyncpg.Connection, organization_id: UUID, name: str) -> list[FoundUnit]:
    """The organization's units of this name, with what `venue apply` does not change."""
    rows = await conn.fetch("SELECT id, timezone, coalesce(slot_minutes, 60) AS slot_minutes, currency FROM units "
                            "WHERE organization_id = $1 AND name = $2 ORDER BY id", organization_id, name)
    return [FoundUnit(r["id"], r["timezone"], r["slot_minutes"], r["currency"]) for r in rows]


async def last_change(conn: asyncpg.Connection) -> int:
    """The newest venue_changes id (0: none), to tell which changes an apply made."""
    found: int = await conn.fetchval("SELECT coalesce(max(id), 0) FROM venue_changes")
    return found


async def resource_names(conn: asyncpg.Connection, unit_id: UUID) -> dict[str, str]:
    """The unit's resources' and services' names by id (as text), for what `venue apply` prints."""
    rows = await conn.fetch("SELECT id::text AS id, name FROM resources WHERE unit_id = $1 UNION ALL "
                            "SELECT id::text, name FROM services WHERE unit_id = $1", unit_id)
    return {r["id"]: r["name"] for r in rows}
