"""Writes the hold-type layers of a tenant or organization (SPEC §10), checked while their rows are locked."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import UUID

import asyncpg

from domain.errors import ErrorCode, InvalidInput, NotFound
from domain.hold_types import Level, merge
from store.units import invalidate

_LOCK = """
SELECT o.id AS org_id, o.tenant_id, o.hold_types AS org, t.hold_types AS tenant
FROM units u JOIN organizations o ON o.id = u.organization_id JOIN tenants t ON t.id = o.tenant_id
WHERE u.id = $1::uuid
FOR UPDATE OF o, t
"""
_TENANT_ORGS = "SELECT id, hold_types FROM organizations WHERE tenant_id = $1::uuid ORDER BY id FOR UPDATE"
_IN_USE = """
SELECT count(*) FROM bookings b JOIN units u ON u.id = b.unit_id
WHERE u.organization_id = ANY($1::uuid[]) AND b.hold_type = $2::text
  AND b.status IN ('held', 'pending_payment', 'verifying', 'confirmed', 'checked_in')
"""

Layers = dict[str, dict[str, Any]]
Check = Callable[[Layers, dict[UUID, Layers]], None]
"""Given the tenant's layer and every affected organization's layer after the change, refuse what is invalid."""


async def change_layer(pool: asyncpg.Pool, unit_id: UUID, level: Level, name: str,
                       edit: Callable[[dict[str, Any] | None], dict[str, Any] | None], check: Check,
                       ) -> None:
    """Replace the entry `name` of the unit's organization's (or tenant's) layer by `edit(entry)` (None removes it),
    after `check` accepted the result; one transaction with the tenant and organization rows locked. A type that
    would vanish from an organization whose bookings are held or sold as it is refused (`hold_type_in_use`)."""
    async with pool.acquire() as conn, conn.transaction():
        row = await conn.fetchrow(_LOCK, unit_id)
        if row is None:
            raise NotFound("unit", unit_id, field="unitId")
        tenant: Layers = dict(row["tenant"] or {})
        if level is Level.TENANT:
            orgs = {r["id"]: dict(r["hold_types"] or {}) for r in await conn.fetch(_TENANT_ORGS, row["tenant_id"])}
            layer = tenant
        else:
            orgs = {row["org_id"]: dict(row["org"] or {})}
            layer = orgs[row["org_id"]]
        entry = edit(layer.get(name))
        if entry is None:
            layer.pop(name, None)
        else:
            layer[name] = entry
        check(tenant, orgs)
        gone = [oid for oid, own in orgs.items() if merge(name, tenant.get(name), own.get(name)) is None]
        if gone and (count := int(await conn.fetchval(_IN_USE, gone, name))):
            raise InvalidInput("name", f"{count} live booking(s) are held or sold as {name}; release them before "
                               "removing the type", code=ErrorCode.HOLD_TYPE_IN_USE)
        if level is Level.TENANT:
            await conn.execute("UPDATE tenants SET hold_types = $2::jsonb WHERE id = $1::uuid", row["tenant_id"],
                               tenant)
        else:
            await conn.execute("UPDATE organizations SET hold_types = $2::jsonb WHERE id = $1::uuid", row["org_id"],
                               layer)
    invalidate()


class PgHoldTypeLayers:
    """The hold-type layers of tenants and organizations on the pool (each change one transaction)."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def change_layer(self, unit_id: UUID, level: Level, name: str,
                           edit: Callable[[dict[str, Any] | None], dict[str, Any] | None], check: Check) -> None:
        """As change_layer: replace the entry `name` of the unit's organization's (or tenant's) layer."""
        await change_layer(self._pool, unit_id, level, name, edit, check)
