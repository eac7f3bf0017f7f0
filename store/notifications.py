"""Notifications: planning deliveries from outbox rows, claiming and recording them, in-app rows and reads."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

import asyncpg

from domain import listings
from domain.events import Fact, NotificationAdded
from domain.notice_matrix import effective
from domain.notifications import Context, Delivery, Intent, intent, plan
from domain.pages import Page, PageRequest
from store.keyset import Keyset, pool_page

NOTIFICATIONS = Keyset(listings.NOTIFICATIONS, ("created_at", "id"))

_CONTEXT = """
SELECT u.timezone, u.notification_locale, u.owner_alert_whatsapp, u.notification_matrix,
       u.owner_email,
       b.customer_id AS booking_customer,
       c.id AS customer_id, c.phone, c.email,
       (SELECT min(lower(a.during)) FROM allocations a WHERE a.booking_id = b.id) AS starts_at,
       e.actor, e.reason, b.channel,
       -- An occurrence of a series that moved the same way at the same moment as one of lower index (one change
       -- of the series: held, accepted, cancelled from a date, expired): that one's notice tells it.
       coalesce(b.series_index > (SELECT min(b2.series_index) FROM bookings b2
                                  JOIN booking_events e2 ON e2.booking_id = b2.id AND e2.new_status = $4::text
                                                            AND e2.at = e.at
                                  WHERE b2.series_id = b.series_id AND b2.unit_id = b.unit_id), false) AS echo
FROM units u
LEFT JOIN bookings b ON b.id = $2::uuid AND b.unit_id = u.id
LEFT JOIN customers c ON c.id = coalesce($3::uuid, b.customer_id)
LEFT JOIN LATERAL (
    SELECT actor, reason, at FROM booking_events
    WHERE booking_id = b.id AND new_status = $4::text ORDER BY id DESC LIMIT 1
) e ON true
WHERE u.id = $1::uuid
"""

_INSERT = """
INSERT INTO notification_deliveries (id, key, unit_id, kind, audience, customer_id, booking_id, channel, address,
                                     locale, title, body, next_attempt_at, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13)
ON CONFLICT (unit_id, key) DO NOTHING RETURNING id
"""

_CLAIM = """
UPDATE notification_deliveries SET status = 'sending', attempts = attempts + 1, claimed_until = $2::timestamptz + $3
WHERE id = $1 AND status = 'pending' AND next_attempt_at <= $2
RETURNING id, unit_id, kind, audience, channel, title, body, locale, customer_id, booking_id, address, attempts
"""


async def plan_deliveries(conn: asyncpg.Connection, event_id: int, unit_id: UUID, event: Fact | None,
                          now: datetime) -> list[UUID]:
    """Plan the deliveries an outbox event asks for (none twice: keyed by row, recipient and channel).

    Returns the ids newly planned. Raises ValueError on a notice domain.notifications.intent refuses."""
    it: Intent | None = intent(event)
    if it is None:
        return []
    r = await conn.fetchrow(_CONTEXT, unit_id, it.booking_id, it.customer_id, it.status)
    if r is None:
        return []
    ctx = Context(timezone=r["timezone"], locale=r["notification_locale"],
                  owner_alert_whatsapp=r["owner_alert_whatsapp"], customer_id=r["customer_id"], phone=r["phone"],
                  email=r["email"], actor=r["actor"], reason=r["reason"], starts_at=r["starts_at"],
                  channel=r["channel"], matrix=effective(r["notification_matrix"]), owner_email=r["owner_email"],
                  echo=r["echo"])
    planned = plan(it, ctx)
    ids = []
    async with conn.transaction():
        for p in planned:
            row_id = await conn.fetchval(
                _INSERT, uuid4(), f"{event_id}:{p.suffix}", unit_id, p.kind, p.audience, p.customer_id, it.booking_id,
                p.channel, p.address, p.locale, p.title, p.body, now)
            if row_id is not None:
                ids.append(row_id)
    return ids


class PgDeliveries:
    """The record of deliveries (domain.notifications.DeliveryStore) on a pool."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    async def claim(self, delivery_id: UUID, now: datetime, lease: timedelta) -> Delivery | None:
        r = await self.pool.fetchrow(_CLAIM, delivery_id, now, lease)
        if r is None:
            return None
        return Delivery(**dict(r))

    async def sent(self, delivery_id: UUID, now: datetime) -> None:
        await self.pool.execute(
            "UPDATE notification_deliveries SET status = 'sent', sent_at = $2, claimed_until = NULL, last_error = NULL "
            "WHERE id = $1", delivery_id, now)

    async def failed(self, delivery_id: UUID, error: str, next_attempt_at: datetime | None) -> None:
        await self.pool.execute(
            "UPDATE notification_deliveries SET status = CASE WHEN $3::timestamptz IS NULL THEN 'failed' "
            "ELSE 'pending' END, last_error = $2, next_attempt_at = coalesce($3, next_attempt_at), "
            "claimed_until = NULL WHERE id = $1", delivery_id, error, next_attempt_at)

    async def due(self, now: datetime, limit: int = 200) -> list[UUID]:
        """Deliveries due now (first release claims whose worker died: they are due again)."""
        await self.pool.execute(
            "UPDATE notification_deliveries SET status = 'pending', claimed_until = NULL "
            "WHERE status = 'sending' AND claimed_until < $1", now)
        rows = await self.pool.fetch(
            "SELECT id FROM notification_deliveries WHERE status = 'pending' AND next_attempt_at <= $1 "
            "ORDER BY next_attempt_at LIMIT $2", now, limit)
        return [r["id"] for r in rows]

    async def prune(self, before: datetime) -> int:
        """Delete sent and failed deliveries created before `before`; returns how many."""
        status: str = await self.pool.execute(
            "DELETE FROM notification_deliveries WHERE status IN ('sent', 'failed') AND created_at < $1", before)
        return int(status.split()[-1])

    async def get(self, delivery_id: UUID) -> dict[str, Any] | None:
        r = await self.pool.fetchrow("SELECT * FROM notification_deliveries WHERE id = $1", delivery_id)
        return dict(r) if r else None


async def add_in_app(pool: asyncpg.Pool, d: Delivery, now: datetime) -> UUID | None:
    """Store an in-app notification (once per delivery) and announce it on the unit's live feed."""
    audience = "customer" if d.audience == "customer" else "staff"
    async with pool.acquire() as conn, conn.transaction():
        nid = await conn.fetchval(
            "INSERT INTO notifications (id, delivery_id, unit_id, audience, customer_id, kind, booking_id, title, "
            "body, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) "
            "ON CONFLICT (unit_id, delivery_id) DO NOTHING RETURNING id", uuid4(), d.id, d.unit_id, audience,
            d.customer_id if audience == "customer" else None, d.kind, d.booking_id, d.title, d.body, now)
        if nid is None:
            return None
        added = NotificationAdded(nid, audience, d.customer_id if audience == "customer" else None, d.kind,
                                  d.booking_id, d.title, d.body, now)
        await conn.execute("INSERT INTO outbox (unit_id, topic, payload) VALUES ($1, $2, $3)", d.unit_id,
                           added.TOPIC, added.to_json())
    return nid  # type: ignore[no-any-return]


_COLUMNS = "id, unit_id, audience, customer_id, kind, booking_id, title, body, created_at, read_at"


async def for_customer(pool: asyncpg.Pool, customer_id: UUID, first: int, unread_only: bool) -> list[dict[str, Any]]:
    rows = await pool.fetch(
        f"SELECT {_COLUMNS} FROM notifications WHERE customer_id = $1 AND ($3::bool IS FALSE OR read_at IS NULL) "
        "ORDER BY created_at DESC, id LIMIT $2", customer_id, first, unread_only)
    return [dict(r) for r in rows]


async def for_staff(pool: asyncpg.Pool, unit_id: UUID, first: int, unread_only: bool) -> list[dict[str, Any]]:
    rows = await pool.fetch(
        f"SELECT {_COLUMNS} FROM notifications WHERE unit_id = $1 AND audience = 'staff' "
        "AND ($3::bool IS FALSE OR read_at IS NULL) ORDER BY created_at DESC, id LIMIT $2", unit_id, first, unread_only)
    return [dict(r) for r in rows]


async def mark_read(pool: asyncpg.Pool, ids: list[UUID], now: datetime, *, customer_id: UUID | None = None,
                    unit_id: UUID | None = None) -> list[UUID]:
    """Mark as read the given notifications of the customer, or of the unit's staff; returns those marked."""
    if customer_id is not None:
        rows = await pool.fetch(
            "UPDATE notifications SET read_at = $3 WHERE id = ANY($1::uuid[]) AND customer_id = $2 "
            "AND read_at IS NULL RETURNING id", ids, customer_id, now)
    else:
        rows = await pool.fetch(
            "UPDATE notifications SET read_at = $3 WHERE id = ANY($1::uuid[]) AND unit_id = $2 AND audience = 'staff' "
            "AND read_at IS NULL RETURNING id", ids, unit_id, now)
    return [r["id"] for r in rows]


class PgNotifications:
    """In-app notifications on the pool, for their readers: lists and marking as read (one statement each)."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def for_customer(self, customer_id: UUID, first: int, unread_only: bool) -> list[dict[str, Any]]:
        """The customer's own, newest first."""
        return await for_customer(self._pool, customer_id, first, unread_only)

    async def for_staff(self, unit_id: UUID, first: int, unread_only: bool) -> list[dict[str, Any]]:
        """The unit's staff notifications, newest first."""
        return await for_staff(self._pool, unit_id, first, unread_only)

    async def customer_page(self, customer_id: UUID, unread_only: bool, page: PageRequest
                            ) -> Page[dict[str, Any]]:
        """A page of the customer's own, newest first."""
        return await pool_page(self._pool, NOTIFICATIONS, _COLUMNS, "notifications",
                               "customer_id = $1 AND ($2::bool IS FALSE OR read_at IS NULL)",
                               [customer_id, unread_only], page)

    async def staff_page(self, unit_id: UUID, unread_only: bool, page: PageRequest) -> Page[dict[str, Any]]:
        """A page of the unit's staff notifications, newest first."""
        return await pool_page(self._pool, NOTIFICATIONS, _COLUMNS, "notifications",
                               "unit_id = $1 AND audience = 'staff' AND ($2::bool IS FALSE OR read_at IS NULL)",
                               [unit_id, unread_only], page)

    async def mark_read(self, ids: list[UUID], now: datetime, *, customer_id: UUID | None = None,
                        unit_id: UUID | None = None) -> list[UUID]:
        """Mark as read the given notifications of the customer, or of the unit's staff; returns those marked."""
        return await mark_read(self._pool, ids, now, customer_id=customer_id, unit_id=unit_id)

    async def sent_to(self, to: str, limit: int, tenant_id: UUID | None, unit_id: UUID | None
                      ) -> list[dict[str, Any]]:
        """The newest notifications sent to an address (its outbox rows, {payload, created_at}) from the units of the
        tenant (None: any) or of one unit (None: any): the sandbox channel's message box."""
        rows = await self._pool.fetch(
            "SELECT o.payload, o.created_at FROM outbox o JOIN units u ON u.id = o.unit_id "
            "JOIN organizations g ON g.id = u.organization_id WHERE o.topic = 'notification' "
            "AND o.payload->>'to' = $1 AND ($3::uuid IS NULL OR g.tenant_id = $3) AND ($4::uuid IS NULL OR u.id = $4) "
            "ORDER BY o.id DESC LIMIT $2", to, limit, tenant_id, unit_id)
        return [dict(r) for r in rows]
