"""calendar_feeds (migration 0024f) on the unit of work's connection (domain.ports.CalendarFeedRepository), and the
bookings each feed shows. A feed's secret is made here, stored as its SHA-256 digest (store/access.py, as staff
tokens are) and returned once."""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any
from uuid import UUID, uuid4

from domain import listings as order
from domain.bookings import BookingStatus
from domain.calendar_feeds import SECRET_PREFIX, SHOWN, TENTATIVE, CalendarFeed, FeedEvent, FeedScope, IssuedFeed
from domain.pages import Page, PageRequest
from store.access import digest
from store.bookings import ConnGetter
from store.keyset import Keyset, fetch_page

_COLUMNS = ("f.id, f.unit_id, f.scope, f.customer_id, f.resource_id, f.name, f.created_at, f.created_by, "
            "f.revoked_at, f.revoked_by")
FEEDS = Keyset(order.CALENDAR_FEEDS, ("f.created_at", "f.id"))


def _active(now_param: int) -> str:
    """Whether feed `f` works at the time in parameter `now_param`: not revoked, and the token that made it (a
    staff feed's) neither revoked nor expired."""
    return (f"(f.revoked_at IS NULL AND (f.token_id IS NULL OR EXISTS (SELECT 1 FROM access_tokens t WHERE "
            f"t.id = f.token_id AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR "
            f"t.expires_at > ${now_param}::timestamptz))))")



def _whose(customer_id: UUID | None) -> str:
    """The feeds of the customer in parameter $2, or (no customer: $2 is null) the staff feeds."""
    return "f.customer_id = $2::uuid" if customer_id is not None else "f.scope <> 'customer' AND $2::uuid IS NULL"


_OWN = ("b.customer_id IN (SELECT c.id FROM customers c JOIN customers me ON me.id = $7::uuid "
        "AND c.tenant_id = me.tenant_id WHERE c.id = me.id "
        "OR (me.phone_proved_at IS NOT NULL AND c.phone = me.phone) "
        "OR (me.email_proved_at IS NOT NULL AND lower(c.email) = lower(me.email)))")
"""A customer feed's bookings: those of the records its customer's proved contacts reach, as a customer session's
`bookings` search reaches them (store/listings.py; store/access.py `is_same_person`)."""
_ON_RESOURCE = ("EXISTS (SELECT 1 FROM allocations a WHERE a.unit_id = b.unit_id AND a.booking_id = b.id "
                "AND a.resource_id = $7::uuid)")

_EVENTS = """
SELECT b.id, b.status, lower(b.during) AS starts_at, upper(b.during) AS ends_at, b.version, b.updated_at, b.quantity,
       s.name AS service, CASE WHEN $8::boolean THEN c.name END AS customer_name,
       ARRAY(SELECT r.name FROM resources r WHERE r.unit_id = b.unit_id AND r.id IN (
                 SELECT a.resource_id FROM allocations a WHERE a.unit_id = b.unit_id AND a.booking_id = b.id)
             ORDER BY r.sort, r.name) AS resources
FROM bookings b
LEFT JOIN services s ON s.unit_id = b.unit_id AND s.id = b.service_id
LEFT JOIN customers c ON c.id = b.customer_id
WHERE b.unit_id = $1::uuid AND b.status = ANY($2::text[]) AND b.during && tstzrange($3::timestamptz, $4::timestamptz)
  AND (b.status <> ALL($5::text[]) OR b.hold_expires_at > $6::timestamptz)
  AND {which}
ORDER BY lower(b.during), b.id
LIMIT $9::int
"""


def _feed(r: Any) -> CalendarFeed:
    return CalendarFeed(id=r["id"], unit_id=r["unit_id"], scope=FeedScope(r["scope"]), name=r["name"],
                        created_at=r["created_at"], created_by=r["created_by"], customer_id=r["customer_id"],
                        resource_id=r["resource_id"], revoked_at=r["revoked_at"], revoked_by=r["revoked_by"],
                        active=r["active"])


def _event(r: Any) -> FeedEvent:
    return FeedEvent(booking_id=r["id"], status=BookingStatus(r["status"]), starts_at=r["starts_at"],
                     ends_at=r["ends_at"], version=r["version"], updated_at=r["updated_at"], quantity=r["quantity"],
                     service=r["service"], resources=tuple(r["resources"]), customer_name=r["customer_name"])


class PgCalendarFeeds:
    """Calendar feeds and the bookings they show."""

    def __init__(self, conn: ConnGetter) -> None:
        self._conn = conn

    async def create(self, unit_id: UUID, scope: FeedScope, name: str, created_by: str, now: datetime, *,
                     customer_id: UUID | None = None, resource_id: UUID | None = None, token_id: UUID | None = None
                     ) -> IssuedFeed:
        conn = await self._conn()
        plain = SECRET_PREFIX + secrets.token_urlsafe(32)
        row = await conn.fetchrow(
            "INSERT INTO calendar_feeds AS f (id, unit_id, scope, customer_id, resource_id, name, secret_hash, "
            f"created_at, created_by, token_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING {_COLUMNS}, "
            "true AS active", uuid4(), unit_id, scope.value, customer_id, resource_id, name, digest(plain), now,
            created_by, token_id)
        return IssuedFeed(_feed(row), plain)

    async def lock_and_count(self, unit_id: UUID, customer_id: UUID | None, now: datetime) -> int:
        conn = await self._conn()
        # NO KEY UPDATE on the unit: serializes the unit's feed creations without blocking the holds' key checks.
        await conn.execute("SELECT 1 FROM units WHERE id = $1 FOR NO KEY UPDATE", unit_id)
        count: int = await conn.fetchval(f"SELECT count(*) FROM calendar_feeds f WHERE f.unit_id = $1 AND "
                                         f"{_whose(customer_id)} AND {_active(3)}", unit_id, customer_id, now)
        return count

    async def get(self, feed_id: UUID, now: datetime, lock: bool) -> CalendarFeed | None:
        conn = await self._conn()
        row = await conn.fetchrow(f"SELECT {_COLUMNS}, {_active(2)} AS active FROM calendar_feeds f WHERE f.id = $1"
                                  + (" FOR UPDATE OF f" if lock else ""), feed_id, now)
        return None if row is None else _feed(row)

    async def by_secret(self, secret: str, now: datetime) -> CalendarFeed | None:
        conn = await self._conn()
        row = await conn.fetchrow(f"SELECT {_COLUMNS}, {_active(2)} AS active FROM calendar_feeds f "
                                  "WHERE f.secret_hash = $1", digest(secret), now)
        return None if row is None else _feed(row)

    async def revoke(self, feed_id: UUID, by: str, at: datetime) -> CalendarFeed:
        conn = await self._conn()
        row = await conn.fetchrow(
            "UPDATE calendar_feeds AS f SET revoked_at = coalesce(f.revoked_at, $2), "
            f"revoked_by = coalesce(f.revoked_by, $3) WHERE f.id = $1 RETURNING {_COLUMNS}, false AS active",
            feed_id, at, by)
        return _feed(row)

    async def page(self, unit_id: UUID, customer_id: UUID | None, include_revoked: bool, now: datetime,
                   page: PageRequest) -> Page[CalendarFeed]:
        where = f"f.unit_id = $1::uuid AND {_whose(customer_id)} AND ($3::boolean OR {_active(4)})"
        found = await fetch_page(await self._conn(), FEEDS, f"{_COLUMNS}, {_active(4)} AS active",
                                 "calendar_feeds f", where, [unit_id, customer_id, include_revoked, now], page)
        return found.map(_feed)

    async def resource_name(self, unit_id: UUID, resource_id: UUID) -> str | None:
        conn = await self._conn()
        name: str | None = await conn.fetchval("SELECT name FROM resources WHERE unit_id = $1 AND id = $2",
                                               unit_id, resource_id)
        return name

    async def events(self, feed: CalendarFeed, start: datetime, end: datetime, now: datetime, limit: int
                     ) -> list[FeedEvent]:
        conn = await self._conn()
        which, subject = {FeedScope.CUSTOMER: (_OWN, feed.customer_id), FeedScope.RESOURCE: (_ON_RESOURCE,
                          feed.resource_id), FeedScope.UNIT: ("$7::uuid IS NULL", None)}[feed.scope]
        rows = await conn.fetch(_EVENTS.format(which=which), feed.unit_id, [s.value for s in SHOWN], start, end,
                                [s.value for s in TENTATIVE], now, subject, feed.scope.staff, limit)
        return [_event(r) for r in rows]
