"""Payments recorded by hand (domain/manual_payments.py), and the summary that keeps them apart from Pix."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

from domain.manual_payments import ManualMethod, ManualPayment, PaymentsSummary
from store.bookings import ConnGetter

_SUMMARY = """
SELECT 'pix' AS method, count(*) AS n, coalesce(sum(amount_cents), 0)::bigint AS cents FROM payments
WHERE unit_id = $1 AND outcome IN ('confirmed', 'late_confirmed') AND paid_at >= $2 AND paid_at < $3
UNION ALL
SELECT method, count(*), sum(amount_cents)::bigint FROM manual_payments
WHERE unit_id = $1 AND recorded_at >= $2 AND recorded_at < $3 GROUP BY method
"""


def _row(r: Any) -> ManualPayment:
    return ManualPayment(id=r["id"], unit_id=r["unit_id"], booking_id=r["booking_id"], method=ManualMethod(r["method"]),
                         amount_cents=r["amount_cents"], reason=r["reason"], actor=r["actor"], session=r["session"],
                         recorded_at=r["recorded_at"])


class PgManualPayments:
    """manual_payments on the unit of work's connection."""

    def __init__(self, conn: ConnGetter) -> None:
        self._conn = conn

    async def add(self, p: ManualPayment) -> None:
        """Keep one payment recorded by hand (the table is append-only)."""
        conn = await self._conn()
        await conn.execute(
            "INSERT INTO manual_payments (id, unit_id, booking_id, method, amount_cents, reason, actor, session, "
            "recorded_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)", p.id, p.unit_id, p.booking_id,
            p.method.value, p.amount_cents, p.reason, p.actor, p.session, p.recorded_at)

    async def of_booking(self, booking_id: UUID) -> list[ManualPayment]:
        """A booking's payments recorded by hand, oldest first."""
        conn = await self._conn()
        rows = await conn.fetch("SELECT * FROM manual_payments WHERE booking_id = $1 ORDER BY recorded_at, id",
                                booking_id)
        return [_row(r) for r in rows]

    async def summary(self, unit_id: UUID, start: datetime, end: datetime) -> PaymentsSummary:
        """Pix that paid bookings, and payments by hand per method, in [start, end)."""
        conn = await self._conn()
        rows = {r["method"]: (int(r["n"]), int(r["cents"])) for r in await conn.fetch(_SUMMARY, unit_id, start, end)}
        pix_count, pix_cents = rows.pop("pix", (0, 0))
        manual = tuple((m, *rows[m.value]) for m in ManualMethod if m.value in rows)
        return PaymentsSummary(pix_count, pix_cents, manual)
