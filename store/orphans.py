"""Orphan payments (domain/orphans.py): who paid them and the unit they are attributed to (migration 0019e)."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

from domain.orphans import OrphanPayment
from store.bookings import ConnGetter

_UNITS_OF_PAYER = """
SELECT DISTINCT ch.unit_id FROM charges ch
JOIN bookings b ON b.unit_id = ch.unit_id AND b.id = ch.booking_id
JOIN customers c ON c.id = b.customer_id
WHERE c.cpf = $1 AND ch.expires_at >= $2
LIMIT 2
"""

_UNITS_CLAIMING = """
SELECT DISTINCT ch.unit_id FROM charges ch
JOIN bookings b ON b.unit_id = ch.unit_id AND b.id = ch.booking_id
WHERE b.status = 'verifying' AND ch.amount_cents = $1
LIMIT 2
"""

ORPHAN_COLUMNS = "id, unit_id, amount_cents, payer_name, payer_document, txid, provider_payment_id, paid_at"
_OF_UNIT = f"""
SELECT {ORPHAN_COLUMNS} FROM payments
WHERE unit_id = $1 AND outcome = 'orphan' AND charge_id IS NULL
ORDER BY paid_at DESC, id LIMIT $2
"""


def orphan_payment(r: Any) -> OrphanPayment:
    """An orphan payment from its row (ORPHAN_COLUMNS)."""
    return OrphanPayment(r["id"], r["unit_id"], r["amount_cents"], r["payer_name"], r["payer_document"], r["txid"],
                         r["provider_payment_id"], r["paid_at"])


class PgOrphanPayments:
    """domain.orphans.OrphanPayments on the unit of work's connection."""

    def __init__(self, conn: ConnGetter) -> None:
        self._conn = conn

    async def units_of_payer(self, document: str, since: datetime) -> list[UUID]:
        conn = await self._conn()
        return [r["unit_id"] for r in await conn.fetch(_UNITS_OF_PAYER, document, since)]

    async def units_claiming(self, amount_cents: int) -> list[UUID]:
        conn = await self._conn()
        return [r["unit_id"] for r in await conn.fetch(_UNITS_CLAIMING, amount_cents)]

    async def keep(self, payment_id: UUID, unit_id: UUID | None, payer_name: str | None,
                   payer_document: str | None) -> None:
        conn = await self._conn()
        await conn.execute("UPDATE payments SET unit_id = $2, payer_name = $3, payer_document = $4 WHERE id = $1 "
                           "AND outcome = 'orphan' AND charge_id IS NULL", payment_id, unit_id, payer_name,
                           payer_document)

    async def of_unit(self, unit_id: UUID, limit: int) -> list[OrphanPayment]:
        conn = await self._conn()
        return [orphan_payment(r) for r in await conn.fetch(_OF_UNIT, unit_id, limit)]
