"""Orphan payments (domain/orphans.py): who paid them and the unit they are attributed to (migration 0019e)."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

from domain.orphans import OrphanPayment
from domain.payments import ReceivedPix
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

    async def keep_unattributed(self, payment_id: UUID, provider: str, pix: ReceivedPix) -> None:
        conn = await self._conn()
        await conn.execute(
            "INSERT INTO unattributed_payments (id, provider, provider_payment_id, txid, amount_cents, paid_at, "
            "payer_name, payer_document) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)", payment_id, provider,
            pix.provider_payment_id, pix.txid, pix.amount_cents, pix.paid_at, pix.payer_name, pix.payer_document)

    async def take_unattributed(self, payment_id: UUID) -> tuple[str, ReceivedPix] | None:
        conn = await self._conn()
        r = await conn.fetchrow("DELETE FROM unattributed_payments WHERE id = $1 RETURNING *", payment_id)
        if r is None:
            return None
        return r["provider"], ReceivedPix(r["provider_payment_id"], r["txid"], r["amount_cents"], r["paid_at"],
                                          r["payer_name"], r["payer_document"])

    async def of_unit(self, unit_id: UUID, limit: int) -> list[OrphanPayment]:
        conn = await self._conn()
        return [orphan_payment(r) for r in await conn.fetch(_OF_UNIT, unit_id, limit)]
