"""The rows `node(id)` fetches one at a time that no other store reads by id (resolvers/nodes.py): a customer
record, an in-app notification, a webhook endpoint, a payment recorded by hand, an orphan Pix, a tenant, an
organization, and the unit of any resource (a grid resource or a seat). Read-only; each call one statement."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import asyncpg

from domain.manual_payments import ManualPayment
from domain.orphans import OrphanPayment
from store.manual_payments import _row as manual_payment
from store.notifications import _COLUMNS as NOTIFICATION_COLUMNS
from store.orphans import ORPHAN_COLUMNS, orphan_payment
from store.webhooks_out import _ENDPOINT_COLUMNS

_CUSTOMER = ("SELECT id, tenant_id, cpf::text AS cpf, phone, name, blacklisted, blacklist_reason, "
             "blacklist_changed_at FROM customers WHERE id = $1")
_ORPHAN = (f"SELECT {ORPHAN_COLUMNS} FROM payments "
           "WHERE id = $1 AND unit_id IS NOT NULL AND outcome = 'orphan' AND charge_id IS NULL")


class PgNodeRows:
    """resolvers.ports.NodeRows on the pool."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def _one(self, sql: str, row_id: UUID) -> dict[str, Any] | None:
        row = await self._pool.fetchrow(sql, row_id)
        return dict(row) if row is not None else None

    async def customer(self, customer_id: UUID) -> dict[str, Any] | None:
        return await self._one(_CUSTOMER, customer_id)

    async def notification(self, notification_id: UUID) -> dict[str, Any] | None:
        return await self._one(f"SELECT {NOTIFICATION_COLUMNS} FROM notifications WHERE id = $1", notification_id)

    async def webhook_endpoint(self, endpoint_id: UUID) -> dict[str, Any] | None:
        return await self._one(f"SELECT {_ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = $1", endpoint_id)

    async def manual_payment(self, payment_id: UUID) -> ManualPayment | None:
        row = await self._pool.fetchrow("SELECT * FROM manual_payments WHERE id = $1", payment_id)
        return manual_payment(row) if row is not None else None

    async def orphan_payment(self, payment_id: UUID) -> OrphanPayment | None:
        row = await self._pool.fetchrow(_ORPHAN, payment_id)
        return orphan_payment(row) if row is not None else None

    async def tenant(self, tenant_id: UUID) -> dict[str, Any] | None:
        return await self._one("SELECT id, name FROM tenants WHERE id = $1", tenant_id)

    async def organization(self, organization_id: UUID) -> dict[str, Any] | None:
        return await self._one("SELECT id, tenant_id, name FROM organizations WHERE id = $1", organization_id)

    async def resource_unit(self, resource_id: UUID) -> UUID | None:
        return await self._pool.fetchval(  # type: ignore[no-any-return]
            "SELECT unit_id FROM resources WHERE id = $1", resource_id)
