"""Customers of a tenant, found or created by CPF, else by phone."""

from __future__ import annotations

from typing import Any
from uuid import UUID, uuid4

from domain.customers import Customer, CustomerIdentity
from store.bookings import ConnGetter

_BY_CPF = """
INSERT INTO customers (id, tenant_id, cpf, phone, name, email)
VALUES ($1::uuid, $2::uuid, $3::text, $4::text, $5::text, $6::text)
ON CONFLICT (tenant_id, cpf) DO UPDATE
SET phone = coalesce(EXCLUDED.phone, customers.phone), name = coalesce(EXCLUDED.name, customers.name),
    email = coalesce(EXCLUDED.email, customers.email)
RETURNING id, blacklisted
"""

_BY_PHONE = """
WITH found AS (
    SELECT id, blacklisted FROM customers WHERE tenant_id = $2::uuid AND phone = $4::text
    ORDER BY created_at LIMIT 1
), made AS (
    INSERT INTO customers (id, tenant_id, cpf, phone, name, email)
    SELECT $1::uuid, $2::uuid, $3::text, $4::text, $5::text, $6::text WHERE NOT EXISTS (SELECT 1 FROM found)
    RETURNING id, blacklisted
)
SELECT id, blacklisted FROM found UNION ALL SELECT id, blacklisted FROM made
"""


class PgCustomers:
    """CustomerRepository on the unit of work's connection."""

    def __init__(self, conn: ConnGetter) -> None:
        self._conn = conn

    async def identify(self, tenant_id: UUID, identity: CustomerIdentity) -> Customer:
        """The stored customer for this identity, created on first sight."""
        conn = await self._conn()
        sql = _BY_CPF if identity.cpf else _BY_PHONE
        row: Any = await conn.fetchrow(
            sql, uuid4(), tenant_id, identity.cpf, identity.phone, identity.name, identity.email
        )
        return Customer(id=row["id"], identity=identity, blacklisted=row["blacklisted"])

    async def identity_of(self, customer_id: UUID) -> CustomerIdentity | None:
        """The stored identity of a customer."""
        conn = await self._conn()
        r = await conn.fetchrow("SELECT cpf, phone, name, email FROM customers WHERE id = $1", customer_id)
        return CustomerIdentity(r["cpf"], r["phone"], r["name"], r["email"]) if r else None
