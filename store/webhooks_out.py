"""Outgoing webhooks: endpoints, the delivery log, claiming attempts (domain/webhooks_out.py has the rules)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any
from uuid import UUID, uuid4

import asyncpg

from domain import listings
from domain import webhooks_out as wh
from domain.errors import ErrorCode, InvalidInput
from domain.events import MalformedEvent, WebhookDeliveryReplayed
from domain.pages import Page, PageRequest
from store.keyset import Keyset, pool_page
from store.outbox import OutboxEvent

_ENDPOINT_COLUMNS = "id, unit_id, url, event_types, enabled, description, created_at, updated_at"
_DELIVERY_COLUMNS = ("id, endpoint_id, unit_id, event_id, event_type, seq, status, attempts, next_attempt_at, "
                     "last_attempt_at, response_code, latency_ms, last_error, delivered_at, created_at")

DELIVERIES = Keyset(listings.WEBHOOK_DELIVERIES, ("created_at", "id"))

_SCHEDULE = """
INSERT INTO webhook_deliveries (id, endpoint_id, unit_id, outbox_id, event_id, event_type, seq, body, status,
                                next_attempt_at, created_at)
SELECT gen_random_uuid(), e.id, ev.unit_id, ev.outbox_id, ev.event_id, ev.type, ev.seq, ev.body::jsonb, 'pending',
       $7, $7
FROM unnest($1::bigint[], $2::uuid[], $3::bigint[], $4::text[], $5::text[], $6::uuid[])
     AS ev(outbox_id, unit_id, seq, type, body, event_id)
JOIN webhook_endpoints e ON e.unit_id = ev.unit_id AND e.enabled AND ev.type = ANY(e.event_types)
ORDER BY ev.outbox_id
ON CONFLICT (unit_id, endpoint_id, outbox_id) DO NOTHING
RETURNING id, attempts
"""

_CLAIM = """
UPDATE webhook_deliveries d
SET status = 'sending', attempts = d.attempts + 1, round_attempts = d.round_attempts + 1,
    last_attempt_at = $2, next_attempt_at = $3
FROM webhook_endpoints e
WHERE d.id = $1 AND e.id = d.endpoint_id AND e.enabled
  AND d.status IN ('pending', 'retrying', 'sending') AND d.next_attempt_at <= $2
RETURNING d.id, d.endpoint_id, e.url, e.secret, e.previous_secret, e.previous_secret_until, d.event_type, d.body,
          d.attempts, d.round_attempts
"""
# 'sending' is claimable only once its lease ran out (next_attempt_at = the lease's end): its worker died.

_RECORD = """
UPDATE webhook_deliveries
SET status = $3, next_attempt_at = $4, response_code = $5, latency_ms = $6, last_error = $7,
    delivered_at = CASE WHEN $3 = 'delivered' THEN $8 ELSE delivered_at END
WHERE id = $1 AND attempts = $2 AND status = 'sending'
"""


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


async def schedule(conn: asyncpg.Connection, events: list[OutboxEvent], now: datetime) -> list[tuple[UUID, int]]:
    """A pending delivery per (enabled endpoint subscribed to the event's type, event); an event relayed twice
    is scheduled once. Returns the new deliveries as (id, attempts done)."""
    rows: list[tuple[int, UUID, int, str, str, UUID]] = []
    for event in events:
        try:
            fact = event.fact
        except MalformedEvent:
            continue  # the relay logs it
        type_ = wh.event_type(fact)
        if fact is None or type_ is None:
            continue
        b = wh.body(event.unit_id, event.seq, type_, fact.to_json(), wh.occurred_at(fact, now))
        rows.append((event.id, event.unit_id, event.seq, type_, json.dumps(b), wh.event_id(event.unit_id, event.seq)))
    if not rows:
        return []
    cols = list(zip(*rows, strict=True))
    found = await conn.fetch(_SCHEDULE, *(list(c) for c in cols), now)
    return [(r["id"], r["attempts"]) for r in found]


class PgWebhooks:
    """Endpoints and deliveries on the pool (each method is one statement or one short transaction)."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    # --- endpoints --------------------------------------------------------------------------------------------

    async def register(self, unit_id: UUID, url: str, types: list[str], description: str | None, created_by: str,
                       now: datetime) -> tuple[dict[str, Any], str]:
        secret = wh.new_secret()
        enabled = await self._pool.fetchval(
            "SELECT count(*) FROM webhook_endpoints WHERE unit_id = $1 AND enabled", unit_id)
        if enabled >= wh.MAX_ENDPOINTS:
            raise InvalidInput("unitId", f"a unit may have at most {wh.MAX_ENDPOINTS} enabled webhook endpoints; "
                               "disable one first", code=ErrorCode.TOO_MANY_WEBHOOKS)
        row = await self._pool.fetchrow(
            f"INSERT INTO webhook_endpoints (id, unit_id, url, event_types, secret, description, created_by, "
            f"created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING {_ENDPOINT_COLUMNS}",
            uuid4(), unit_id, url, types, secret, description, created_by, now)
        return dict(row), secret

    async def endpoint_unit(self, endpoint_id: UUID) -> UUID | None:
        return await self._pool.fetchval(  # type: ignore[no-any-return]
            "SELECT unit_id FROM webhook_endpoints WHERE id = $1", endpoint_id)

    async def delivery_unit(self, delivery_id: UUID) -> UUID | None:
        return await self._pool.fetchval(  # type: ignore[no-any-return]
            "SELECT unit_id FROM webhook_deliveries WHERE id = $1", delivery_id)

    async def endpoints(self, unit_id: UUID) -> list[dict[str, Any]]:
        rows = await self._pool.fetch(
            f"SELECT {_ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE unit_id = $1 ORDER BY created_at, id", unit_id)
        return [dict(r) for r in rows]

    async def update(self, endpoint_id: UUID, now: datetime, url: str | None = None, types: list[str] | None = None,
                     enabled: bool | None = None, description: str | None = None) -> dict[str, Any] | None:
        """Change what is given; disabling cancels the endpoint's deliveries still waiting."""
        async with self._pool.acquire() as conn, conn.transaction():
            if enabled is True and await conn.fetchval(
                    "SELECT count(*) FROM webhook_endpoints o JOIN webhook_endpoints e ON e.unit_id = o.unit_id "
                    "WHERE o.id = $1 AND e.enabled AND e.id <> o.id", endpoint_id) >= wh.MAX_ENDPOINTS:
                raise InvalidInput("enabled", f"a unit may have at most {wh.MAX_ENDPOINTS} enabled webhook endpoints",
                                   code=ErrorCode.TOO_MANY_WEBHOOKS)
            row = await conn.fetchrow(
                f"UPDATE webhook_endpoints SET url = coalesce($2, url), event_types = coalesce($3, event_types), "
                f"enabled = coalesce($4, enabled), description = coalesce($5, description), updated_at = $6 "
                f"WHERE id = $1 RETURNING {_ENDPOINT_COLUMNS}", endpoint_id, url, types, enabled, description, now)
            if row is not None and enabled is False:
                await conn.execute(
                    "UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL, "
                    "last_error = coalesce(last_error || ' / ', '') || 'endpoint disabled' "
                    "WHERE endpoint_id = $1 AND status IN ('pending', 'retrying')", endpoint_id)
        return dict(row) if row is not None else None

    async def rotate(self, endpoint_id: UUID, now: datetime) -> tuple[dict[str, Any], str] | None:
        """A new secret; the previous one also signs for wh.ROTATION_OVERLAP."""
        secret = wh.new_secret()
        row = await self._pool.fetchrow(
            f"UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_until = $3, secret = $2, "
            f"updated_at = $4 WHERE id = $1 RETURNING {_ENDPOINT_COLUMNS}",
            endpoint_id, secret, now + wh.ROTATION_OVERLAP, now)
        return (dict(row), secret) if row is not None else None

    # --- deliveries -------------------------------------------------------------------------------------------

    async def deliveries(self, endpoint_id: UUID, limit: int, status: str | None = None) -> list[dict[str, Any]]:
        """The endpoint's delivery log, newest first."""
        rows = await self._pool.fetch(
            f"SELECT {_DELIVERY_COLUMNS} FROM webhook_deliveries WHERE endpoint_id = $1 "
            f"AND ($2::text IS NULL OR status = $2) ORDER BY created_at DESC, seq DESC LIMIT $3",
            endpoint_id, status, limit)
        return [dict(r) for r in rows]

    async def deliveries_page(self, endpoint_id: UUID, status: str | None, page: PageRequest
                              ) -> Page[dict[str, Any]]:
        """A page of the endpoint's delivery log, newest first."""
        return await pool_page(self._pool, DELIVERIES, _DELIVERY_COLUMNS, "webhook_deliveries",
                               "endpoint_id = $1 AND ($2::text IS NULL OR status = $2)", [endpoint_id, status], page)

    async def delivery(self, delivery_id: UUID) -> dict[str, Any] | None:
        row = await self._pool.fetchrow(f"SELECT {_DELIVERY_COLUMNS} FROM webhook_deliveries WHERE id = $1",
                                        delivery_id)
        return dict(row) if row is not None else None

    async def replay(self, delivery_id: UUID, now: datetime) -> dict[str, Any]:
        """A new round of attempts starting now (same delivery id); its job is scheduled through the outbox."""
        async with self._pool.acquire() as conn, conn.transaction():
            row = await conn.fetchrow(
                "SELECT d.status, d.attempts, d.next_attempt_at, d.unit_id, e.enabled FROM webhook_deliveries d "
                "JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE d.id = $1 FOR UPDATE OF d", delivery_id)
            if row is None:
                raise InvalidInput("deliveryId", "no such delivery", code=ErrorCode.NOT_FOUND)
            if not row["enabled"]:
                raise InvalidInput("deliveryId", "the endpoint is disabled: enable it first",
                                   code=ErrorCode.WEBHOOK_DISABLED)
            if row["status"] == "sending" and row["next_attempt_at"] > now:
                raise InvalidInput("deliveryId", "an attempt is being sent right now",
                                   code=ErrorCode.DELIVERY_IN_PROGRESS)
            await conn.execute(
                "UPDATE webhook_deliveries SET status = 'pending', round_attempts = 0, next_attempt_at = $2 "
                "WHERE id = $1", delivery_id, now)
            replayed = WebhookDeliveryReplayed(delivery_id, row["attempts"] + 1, uuid4().hex[:12])
            await conn.execute("INSERT INTO outbox (unit_id, topic, payload) VALUES ($1, $2, $3)", row["unit_id"],
                               replayed.TOPIC, replayed.to_json())
        found = await self.delivery(delivery_id)
        assert found is not None
        return found

    async def due(self, now: datetime, limit: int = 500) -> list[tuple[UUID, int]]:
        """Deliveries whose attempt is due (or whose sender died): (id, attempts done)."""
        rows = await self._pool.fetch(
            "SELECT id, attempts FROM webhook_deliveries WHERE status IN ('pending', 'retrying', 'sending') "
            "AND next_attempt_at <= $1 ORDER BY next_attempt_at LIMIT $2", now, limit)
        return [(r["id"], r["attempts"]) for r in rows]

    async def prune(self, before: datetime) -> int:
        """Forget finished deliveries created before `before` (waiting ones stay, whatever their age)."""
        done = await self._pool.execute(
            "DELETE FROM webhook_deliveries WHERE created_at < $1 AND status IN ('delivered', 'failed', 'cancelled')",
            before)
        return int(done.split()[-1])

    # --- wh.DeliveryStore -------------------------------------------------------------------------------------

    async def claim(self, delivery_id: UUID, now: datetime, lease_until: datetime) -> wh.Claimed | None:
        """Take the next attempt of a due delivery; None when it is not due, done, or another worker has it."""
        r = await self._pool.fetchrow(_CLAIM, delivery_id, now, lease_until)
        if r is None:
            return None
        keys = [r["secret"]]
        if r["previous_secret"] and r["previous_secret_until"] and r["previous_secret_until"] > now:
            keys.append(r["previous_secret"])
        return wh.Claimed(r["id"], r["endpoint_id"], r["url"], tuple(keys), r["event_type"], _json(r["body"]),
                          r["attempts"], r["round_attempts"])

    async def record(self, claimed: wh.Claimed, attempt: wh.Attempt, now: datetime, status: str,
                     next_at: datetime | None) -> bool:
        done = await self._pool.execute(_RECORD, claimed.id, claimed.attempts, status, next_at,
                                        attempt.status_code, attempt.latency_ms, attempt.error, now)
        return bool(done.endswith(" 1"))
