"""Prices, policies, charges, payments, failure streaks and credits."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any
from uuid import UUID, uuid4

from domain.errors import NotFound
from domain.payments import Charge, ChargeStatus, PaymentRow, PaymentRule, Price, ReceivedPix
from domain.policies import CancellationPolicy, Tier
from domain.refunds import Refund, RefundStatus
from store.bookings import ConnGetter

CHARGE_COLUMNS = ("id, unit_id, booking_id, provider, txid, amount_cents, expires_at, status, brcode, provider_ref, "
                  "created_at")


def charge_from_row(r: Any) -> Charge:
    return Charge(id=r["id"], unit_id=r["unit_id"], booking_id=r["booking_id"], provider=r["provider"],
                  txid=r["txid"], amount_cents=r["amount_cents"], expires_at=r["expires_at"],
                  status=ChargeStatus(r["status"]), brcode=r["brcode"], provider_ref=r["provider_ref"],
                  created_at=r["created_at"])


def _payment(r: Any) -> PaymentRow:
    return PaymentRow(id=r["id"], unit_id=r["unit_id"], charge_id=r["charge_id"], booking_id=r["booking_id"],
                      provider=r["provider"], provider_payment_id=r["provider_payment_id"], txid=r["txid"],
                      amount_cents=r["amount_cents"], paid_at=r["paid_at"], outcome=r["outcome"],
                      created_at=r["created_at"])


def _refund(r: Any) -> Refund:
    return Refund(id=r["id"], unit_id=r["unit_id"], booking_id=r["booking_id"], payment_id=r["payment_id"],
                  paid_cents=r["paid_cents"], amount_cents=r["amount_cents"], policy_version=r["policy_version"],
                  percent=r["percent"], hours_before_start=float(r["hours_before_start"]),
                  status=RefundStatus(r["status"]), provider=r["provider"],
                  provider_refund_id=r["provider_refund_id"], provider_ref=r["provider_ref"], error=r["error"],
                  attempts=r["attempts"], created_at=r["created_at"], updated_at=r["updated_at"])


class PgPayments:
    """Everything about money, on the unit of work's connection; `prices_touched`: the services whose price this
    unit of work changed (store/catalog.py forgets them on commit)."""

    def __init__(self, conn: ConnGetter) -> None:
        self._conn = conn
        self.prices_touched: set[UUID] = set()

    async def current_price(self, unit_id: UUID, service_id: UUID) -> Price:
        """The service's price as it is now (its current version)."""
        conn = await self._conn()
        r = await conn.fetchrow(
            "SELECT p.* FROM services s JOIN service_prices p ON p.unit_id = s.unit_id AND p.service_id = s.id "
            "AND p.version = s.price_version WHERE s.unit_id = $1 AND s.id = $2", unit_id, service_id)
        if r is None:
            raise NotFound("service", service_id, field="serviceId")
        return Price(service_id, r["version"], r["price_cents"], PaymentRule(r["payment_rule"]),
                     r["deposit_percent"], r["deposit_cents"])

    async def current_policy(self, unit_id: UUID) -> CancellationPolicy:
        """The unit's cancellation policy as published now."""
        conn = await self._conn()
        r = await conn.fetchrow(
            "SELECT c.version, c.tiers FROM units u JOIN cancellation_policies c ON c.unit_id = u.id "
            "AND c.version = u.policy_version WHERE u.id = $1", unit_id)
        if r is None:
            raise NotFound("cancellation policy of unit", unit_id, field="unitId")
        return CancellationPolicy(r["version"], tuple(Tier(t["min_hours"], t["percent"]) for t in r["tiers"]))

    async def policy(self, unit_id: UUID, version: int) -> CancellationPolicy:
        """One published version of the unit's cancellation policy (the one a customer accepted)."""
        conn = await self._conn()
        r = await conn.fetchrow("SELECT version, tiers FROM cancellation_policies WHERE unit_id = $1 AND version = $2",
                                unit_id, version)
        if r is None:
            raise NotFound("cancellation policy version", version, field="unitId")
        return CancellationPolicy(r["version"], tuple(Tier(t["min_hours"], t["percent"]) for t in r["tiers"]))

    async def refundable_payments(self, booking_id: UUID) -> list[PaymentRow]:
        """The payments that paid this booking (confirmed it, in time or late) and have no refund row for it yet: its
        own, and the Pix of its series period (one payment for several occurrences, stored against the first)."""
        conn = await self._conn()
        rows = await conn.fetch(
            "SELECT p.* FROM payments p WHERE p.outcome IN ('confirmed', 'late_confirmed') "
            "AND (p.booking_id = $1 OR p.charge_id IN (SELECT sp.charge_id FROM bookings b JOIN series_periods sp "
            "ON sp.unit_id = b.unit_id AND sp.id = b.period_id WHERE b.id = $1 AND sp.charge_id IS NOT NULL)) "
            "AND NOT EXISTS (SELECT 1 FROM refunds r WHERE r.payment_id = p.id AND r.booking_id = $1) "
            "ORDER BY p.paid_at, p.id", booking_id)
        return [_payment(r) for r in rows]

    async def add_refund(self, r: Refund) -> bool:
        """Record a refund (once per payment and booking); False when that booking's share of it has one."""
        conn = await self._conn()
        done = await conn.fetchval(
            "INSERT INTO refunds (id, unit_id, booking_id, payment_id, paid_cents, amount_cents, policy_version, "
            "percent, hours_before_start, status, provider, provider_refund_id, created_at, updated_at) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13) "
            "ON CONFLICT (unit_id, payment_id, booking_id) DO NOTHING RETURNING id",
            r.id, r.unit_id, r.booking_id, r.payment_id, r.paid_cents, r.amount_cents, r.policy_version, r.percent,
            r.hours_before_start, r.status.value, r.provider, r.provider_refund_id, r.created_at)
        return done is not None

    async def refunds_of(self, booking_id: UUID) -> list[Refund]:
        """A booking's refunds, oldest first."""
        conn = await self._conn()
        rows = await conn.fetch("SELECT * FROM refunds WHERE booking_id = $1 ORDER BY created_at, id", booking_id)
        return [_refund(r) for r in rows]

    async def refund(self, refund_id: UUID) -> Refund:
        """One refund, not locked."""
        conn = await self._conn()
        r = await conn.fetchrow("SELECT * FROM refunds WHERE id = $1", refund_id)
        if r is None:
            raise NotFound("refund", refund_id)
        return _refund(r)

    async def claim_refund(self, refund_id: UUID, now: datetime, lease_until: datetime) -> Refund | None:
        """Take a requested refund for one attempt at the provider (counted); None when it is settled or another
        worker holds it."""
        conn = await self._conn()
        r = await conn.fetchrow(
            "UPDATE refunds SET attempts = attempts + 1, claimed_until = $3, updated_at = $2 WHERE id = $1 "
            "AND status = 'requested' AND (claimed_until IS NULL OR claimed_until <= $2) RETURNING *",
            refund_id, now, lease_until)
        return _refund(r) if r else None

    async def stale_refunds(self, before: datetime, now: datetime, limit: int = 100) -> list[UUID]:
        """Requested refunds nobody has touched since `before` and no attempt holds (a job Redis lost)."""
        conn = await self._conn()
        rows = await conn.fetch(
            "SELECT id FROM refunds WHERE status = 'requested' AND updated_at < $1 "
            "AND (claimed_until IS NULL OR claimed_until <= $2) ORDER BY updated_at LIMIT $3", before, now, limit)
        return [r["id"] for r in rows]

    async def finish_refund(self, refund_id: UUID, status: RefundStatus, now: datetime,
                            provider_ref: str | None = None, error: str | None = None) -> None:
        """Write the outcome of an attempt (still `requested` after a failure that will be retried)."""
        conn = await self._conn()
        await conn.execute(
            "UPDATE refunds SET status = $2, provider_ref = coalesce($3, provider_ref), error = $4, "
            "claimed_until = NULL, updated_at = $5 WHERE id = $1", refund_id, status.value, provider_ref,
            error[:500] if error else None, now)

    async def add_charge(self, c: Charge) -> None:
        """Record a new charge."""
        conn = await self._conn()
        await conn.execute(
            "INSERT INTO charges (id, unit_id, booking_id, provider, txid, amount_cents, expires_at, status, "
            "brcode, provider_ref) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
            c.id, c.unit_id, c.booking_id, c.provider, c.txid, c.amount_cents, c.expires_at, c.status.value,
            c.brcode, c.provider_ref)

    async def save_charge(self, c: Charge, at: datetime) -> None:
        """Write a charge's status, code and provider reference."""
        conn = await self._conn()
        await conn.execute("UPDATE charges SET status = $2, brcode = $3, provider_ref = $4, updated_at = $5 "
                           "WHERE id = $1", c.id, c.status.value, c.brcode, c.provider_ref, at)

    async def charge(self, charge_id: UUID) -> Charge:
        """One charge, locked."""
        conn = await self._conn()
        r = await conn.fetchrow(f"SELECT {CHARGE_COLUMNS} FROM charges WHERE id = $1 FOR UPDATE", charge_id)
        if r is None:
            raise NotFound("charge", charge_id)
        return charge_from_row(r)

    async def charge_by_txid(self, txid: str) -> Charge | None:
        """The charge with this txid, not locked (None if unknown)."""
        conn = await self._conn()
        r = await conn.fetchrow(f"SELECT {CHARGE_COLUMNS} FROM charges WHERE txid = $1", txid)
        return charge_from_row(r) if r else None

    async def charges_of(self, booking_id: UUID, limit: int | None = None) -> list[Charge]:
        """A booking's charges, newest first (the `limit` newest; None: all)."""
        conn = await self._conn()
        rows = await conn.fetch(f"SELECT {CHARGE_COLUMNS} FROM charges WHERE booking_id = $1 "
                                "ORDER BY created_at DESC LIMIT $2", booking_id, limit)
        return [charge_from_row(r) for r in rows]

    async def claim_pix(self, provider: str, provider_payment_id: str) -> bool:
        """Claim a bank's payment id once across all units (received_pix); False when it was claimed before."""
        conn = await self._conn()
        claimed = await conn.fetchval(
            "INSERT INTO received_pix (provider, provider_payment_id) VALUES ($1, $2) ON CONFLICT DO NOTHING "
            "RETURNING true", provider, provider_payment_id)
        return bool(claimed)

    async def record_payment(self, provider: str, pix: ReceivedPix, unit_id: UUID, charge_id: UUID | None,
                             booking_id: UUID | None, outcome: str, payment_id: UUID | None = None) -> UUID:
        """Record a claimed Pix as the unit's payment (with its payer, when the bank named one)."""
        conn = await self._conn()
        pid: UUID = await conn.fetchval(
            "INSERT INTO payments (id, unit_id, charge_id, booking_id, provider, provider_payment_id, txid, "
            "amount_cents, paid_at, outcome, payer_name, payer_document) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id",
            payment_id or uuid4(), unit_id, charge_id, booking_id, provider, pix.provider_payment_id, pix.txid,
            pix.amount_cents, pix.paid_at, outcome, pix.payer_name, pix.payer_document)
        return pid

    async def set_outcome(self, payment_id: UUID, outcome: str, charge_id: UUID | None = None,
                          booking_id: UUID | None = None) -> None:
        """Settle what a payment did (and, for a linked orphan, the charge it paid)."""
        conn = await self._conn()
        await conn.execute(
            "UPDATE payments SET outcome = $2, charge_id = coalesce($3, charge_id), "
            "booking_id = coalesce($4, booking_id) WHERE id = $1", payment_id, outcome, charge_id, booking_id)

    async def payment(self, payment_id: UUID) -> PaymentRow:
        """One payment, locked."""
        conn = await self._conn()
        r = await conn.fetchrow("SELECT * FROM payments WHERE id = $1 FOR UPDATE", payment_id)
        if r is None:
            raise NotFound("payment", payment_id, field="paymentId")
        return _payment(r)

    async def add_credit(self, unit_id: UUID, customer_id: UUID | None, payment_id: UUID, amount_cents: int) -> None:
        """Keep a payment as the customer's credit."""
        conn = await self._conn()
        await conn.execute("INSERT INTO customer_credits (id, unit_id, customer_id, payment_id, amount_cents) "
                           "VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
                           uuid4(), unit_id, customer_id, payment_id, amount_cents)

    async def charge_failed(self, unit_id: UUID, today: date, threshold: int) -> bool:
        """Count one more consecutive failure; True when this one must raise the alert (once a streak and day)."""
        conn = await self._conn()
        r = await conn.fetchrow(
            "INSERT INTO pix_failure_streaks AS s (unit_id, streak) VALUES ($1, 1) "
            "ON CONFLICT (unit_id) DO UPDATE SET streak = s.streak + 1 RETURNING streak, alerted, last_alert_on",
            unit_id)
        if r["streak"] < threshold or r["alerted"] or r["last_alert_on"] == today:
            return False
        await conn.execute("UPDATE pix_failure_streaks SET alerted = true, last_alert_on = $2 WHERE unit_id = $1",
                           unit_id, today)
        return True

    async def charge_succeeded(self, unit_id: UUID) -> None:
        """The first success ends a failure streak."""
        conn = await self._conn()
        await conn.execute("UPDATE pix_failure_streaks SET streak = 0, alerted = false "
                           "WHERE unit_id = $1 AND (streak > 0 OR alerted)", unit_id)

    async def record_webhook(self, provider: str, authentic: bool, detail: str, payload: str) -> None:
        """Keep every webhook call, forged ones included (they change nothing else)."""
        conn = await self._conn()
        await conn.execute("INSERT INTO webhook_receipts (provider, authentic, detail, payload) "
                           "VALUES ($1, $2, $3, $4)",
                           provider, authentic, detail[:500], payload[:20_000])

    async def verifying_charges(self) -> list[Charge]:
        """Open or paid-looking charges of bookings in `verifying`."""
        conn = await self._conn()
        rows = await conn.fetch(
            f"SELECT {', '.join('c.' + c.strip() for c in CHARGE_COLUMNS.split(','))} FROM charges c "
            "JOIN bookings b ON b.id = c.booking_id WHERE b.status = 'verifying' AND c.status = 'pending'")
        return [charge_from_row(r) for r in rows]

    async def publish_price(self, unit_id: UUID, price: Price) -> int:
        """Add the service's next price version and make it current; returns the version."""
        self.prices_touched.add(price.service_id)
        conn = await self._conn()
        version: int | None = await conn.fetchval(
            "UPDATE services SET price_version = price_version + 1, price_cents = $3, payment_rule = $4, "
            "deposit_percent = $5, deposit_cents = $6 WHERE unit_id = $1 AND id = $2 RETURNING price_version",
            unit_id, price.service_id, price.price_cents, price.rule.value, price.deposit_percent, price.deposit_cents)
        if version is None:
            raise NotFound("service", price.service_id, field="serviceId")
        await conn.execute(
            "INSERT INTO service_prices (unit_id, service_id, version, price_cents, payment_rule, deposit_percent, "
            "deposit_cents) VALUES ($1, $2, $3, $4, $5, $6, $7)", unit_id, price.service_id, version,
            price.price_cents, price.rule.value, price.deposit_percent, price.deposit_cents)
        await conn.execute(  # a new price keeps the service's price bands (domain/pricing.py)
            "INSERT INTO service_price_bands (unit_id, service_id, version, position, weekday, from_minute, "
            "to_minute, price_cents, payment_rule, deposit_percent, deposit_cents) SELECT unit_id, service_id, $3, "
            "position, weekday, from_minute, to_minute, price_cents, payment_rule, deposit_percent, deposit_cents "
            "FROM service_price_bands WHERE unit_id = $1 AND service_id = $2 AND version = $3 - 1",
            unit_id, price.service_id, version)
        return version

    async def publish_policy(self, unit_id: UUID, tiers: tuple[Tier, ...]) -> int:
        """Add the unit's next cancellation policy version and make it current; returns the version."""
        conn = await self._conn()
        version: int | None = await conn.fetchval(
            "UPDATE units SET policy_version = policy_version + 1 WHERE id = $1 RETURNING policy_version", unit_id)
        if version is None:
            raise NotFound("unit", unit_id, field="unitId")
        await conn.execute("INSERT INTO cancellation_policies (unit_id, version, tiers) VALUES ($1, $2, $3)",
                           unit_id, version, [{"min_hours": t.min_hours, "percent": t.percent} for t in tiers])
        return version
