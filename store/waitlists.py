"""Waitlist rows: slot waitlists (offers are holds), capacity waitlists (token offers), walk-in queues."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID, uuid4

import asyncpg

from domain.errors import ErrorCode, InvalidInput, NotFound
from store.bookings import ConnGetter


def entry_from_row(r: Any) -> dict[str, Any]:
    d = dict(r)
    during = d.pop("during", None)
    if during is not None:
        d["starts_at"], d["ends_at"] = during.lower, during.upper
    return d


_OWNER = {
    "slot_waitlist": "SELECT unit_id, customer_id FROM slot_waitlist WHERE id = $1",
    "capacity_waitlist": "SELECT unit_id, customer_id FROM capacity_waitlist WHERE id = $1",
    "walk_in": "SELECT unit_id, NULL::uuid AS customer_id FROM walkin_queue WHERE id = $1",
}

_OFFER_TO_CLAIM = {
    "capacity": """SELECT c.unit_id, u.name AS unit_name, u.timezone, c.status, c.party_size, r.name AS resource,
                          lower(c.during) AS starts_at, c.offer_expires_at AS expires_at
                   FROM capacity_waitlist c JOIN units u ON u.id = c.unit_id
                   JOIN resources r ON r.unit_id = c.unit_id AND r.id = c.resource_id WHERE c.token = $1""",
    "walk_in": """SELECT w.unit_id, u.name AS unit_name, u.timezone, w.status, w.party_size, w.name, w.area
                  FROM walkin_queue w JOIN units u ON u.id = w.unit_id WHERE w.token = $1""",
}


class PgWaitlists:
    """Waitlists on the unit of work's connection."""

    def __init__(self, conn: ConnGetter) -> None:
        self._conn = conn

    async def offer_to_claim(self, kind: str, token: str) -> dict[str, Any] | None:
        """The offer with that token for its claim page, with its unit's name and time zone (None: no such)."""
        conn = await self._conn()
        r = await conn.fetchrow(_OFFER_TO_CLAIM[kind], token)
        return dict(r) if r is not None else None

    async def owner(self, line: str, entry_id: UUID) -> tuple[UUID, UUID | None] | None:
        """(unit, customer) of an entry of a slot waitlist, a capacity waitlist or the walk-in queue (`line`:
        slot_waitlist, capacity_waitlist, walk_in; walk-ins name no customer); None when there is no such entry."""
        conn = await self._conn()
        r = await conn.fetchrow(_OWNER[line], entry_id)
        return (r["unit_id"], r["customer_id"]) if r is not None else None

    # --- slot waitlist -------------------------------------------------------------------------------

    async def join_slot(self, unit_id: UUID, resource_id: UUID, starts_at: datetime, ends_at: datetime,
                        customer_id: UUID, at: datetime) -> dict[str, Any]:
        """Add a customer to the line of one resource and slot (once)."""
        conn = await self._conn()
        try:
            r = await conn.fetchrow(
                "INSERT INTO slot_waitlist (id, unit_id, resource_id, during, customer_id, joined_at) "
                "VALUES ($1, $2, $3, tstzrange($4, $5), $6, $7) RETURNING *",
                uuid4(), unit_id, resource_id, starts_at, ends_at, customer_id, at)
        except asyncpg.UniqueViolationError:
            raise InvalidInput("customer", "this customer is already in the line for that slot",
                               code=ErrorCode.ALREADY_WAITING) from None
        return entry_from_row(r)

    async def slot_line(self, unit_id: UUID, resource_id: UUID, starts_at: datetime, ends_at: datetime
                        ) -> list[dict[str, Any]]:
        """Waiting entries of a slot, first in line first, locked."""
        conn = await self._conn()
        rows = await conn.fetch(
            "SELECT * FROM slot_waitlist WHERE unit_id = $1 AND resource_id = $2 AND during = tstzrange($3, $4) "
            "AND status = 'waiting' ORDER BY position FOR UPDATE", unit_id, resource_id, starts_at, ends_at)
        return [entry_from_row(r) for r in rows]

    async def slot_offer_of(self, booking_id: UUID) -> dict[str, Any] | None:
        """The open slot-waitlist offer made as this booking, locked."""
        conn = await self._conn()
        r = await conn.fetchrow("SELECT * FROM slot_waitlist WHERE offer_booking_id = $1 AND status = 'offered' "
                                "FOR UPDATE", booking_id)
        return entry_from_row(r) if r else None

    async def set_slot_status(self, entry_id: UUID, status: str, at: datetime,
                              offer_booking_id: UUID | None = None) -> None:
        """Move an entry along (waiting → offered → fulfilled / expired; closed; cancelled)."""
        conn = await self._conn()
        await conn.execute(
            "UPDATE slot_waitlist SET status = $2, offer_booking_id = coalesce($3, offer_booking_id), "
            "offered_at = CASE WHEN $2 = 'offered' THEN $4 ELSE offered_at END WHERE id = $1",
            entry_id, status, offer_booking_id, at)

    async def waiting_slots(self, now: datetime, limit: int = 200) -> list[dict[str, Any]]:
        """Slots that have someone waiting (for the sweep)."""
        conn = await self._conn()
        rows = await conn.fetch(
            "SELECT DISTINCT unit_id, resource_id, during FROM slot_waitlist WHERE status = 'waiting' "
            "AND upper(during) > $1 LIMIT $2", now, limit)
        return [entry_from_row(r) for r in rows]

    async def slot_position(self, entry_id: UUID) -> dict[str, Any]:
        """An entry with its place in line (1 = next to be offered)."""
        conn = await self._conn()
        r = await conn.fetchrow(
            "SELECT w.*, (SELECT count(*) FROM slot_waitlist o WHERE o.unit_id = w.unit_id "
            "AND o.resource_id = w.resource_id AND o.during = w.during AND o.status = 'waiting' "
            "AND o.position <= w.position) AS place FROM slot_waitlist w WHERE w.id = $1", entry_id)
        if r is None:
            raise NotFound("waitlist entry", entry_id, field="entryId")
        return entry_from_row(r)

    async def unit_slot_lists(self, unit_id: UUID, limit: int | None = None) -> list[dict[str, Any]]:
        """The live entries of the unit's slot waitlists, in line order (the first `limit`; None: all)."""
        conn = await self._conn()
        rows = await conn.fetch(
            "SELECT *, CASE WHEN status = 'waiting' THEN row_number() OVER (PARTITION BY resource_id, during, "
            "status = 'waiting' ORDER BY position) END AS place FROM slot_waitlist "
            "WHERE unit_id = $1 AND status IN ('waiting', 'offered') ORDER BY lower(during), resource_id, position "
            "LIMIT $2", unit_id, limit)
        return [entry_from_row(r) for r in rows]

    async def set_service(self, entry_id: UUID, service_id: UUID) -> None:
        """Remember what the offer will sell (its price makes the offer's Pix)."""
        conn = await self._conn()
        await conn.execute("UPDATE slot_waitlist SET service_id = $2 WHERE id = $1", entry_id, service_id)

    async def waiting_slots_overlapping(self, unit_id: UUID, resource_id: UUID, starts_at: datetime,
                                        ends_at: datetime) -> list[dict[str, Any]]:
        """Slots of a resource with someone waiting that overlap a freed range."""
        conn = await self._conn()
        rows = await conn.fetch(
            "SELECT DISTINCT unit_id, resource_id, during FROM slot_waitlist WHERE unit_id = $1 AND resource_id = $2 "
            "AND during && tstzrange($3, $4) AND status = 'waiting'", unit_id, resource_id, starts_at, ends_at)
        return [entry_from_row(r) for r in rows]

    # --- capacity waitlist ---------------------------------------------------------------------------

    async def join_capacity(self, unit_id: UUID, resource_id: UUID, starts_at: datetime, ends_at: datetime,
                            user_ref: str, customer_id: UUID | None, service_id: UUID | None, party_size: int,
                            at: datetime) -> dict[str, Any]:
        """Join the line of a pooled resource's range."""
        conn = await self._conn()
        r = await conn.fetchrow(
            "INSERT INTO capacity_waitlist (id, unit_id, resource_id, during, user_ref, customer_id, service_id, "
            "party_size, joined_at) VALUES ($1, $2, $3, tstzrange($4, $5), $6, $7, $8, $9, $10) RETURNING *",
            uuid4(), unit_id, resource_id, starts_at, ends_at, user_ref, customer_id, service_id, party_size, at)
        return entry_from_row(r)

    async def capacity_entry(self, entry_id: UUID) -> dict[str, Any]:
        """An entry with its place among those still waiting."""
        conn = await self._conn()
        r = await conn.fetchrow(
            "SELECT w.*, (SELECT count(*) FROM capacity_waitlist o WHERE o.unit_id = w.unit_id "
            "AND o.resource_id = w.resource_id AND o.during = w.during AND o.status = 'waiting' "
            "AND o.position <= w.position) AS place FROM capacity_waitlist w WHERE w.id = $1", entry_id)
        if r is None:
            raise NotFound("waitlist entry", entry_id, field="entryId")
        return entry_from_row(r)

    async def capacity_line(self, unit_id: UUID, resource_id: UUID, starts_at: datetime, ends_at: datetime
                            ) -> list[dict[str, Any]]:
        """Waiting entries whose range overlaps, first in line first, locked."""
        conn = await self._conn()
        rows = await conn.fetch(
            "SELECT * FROM capacity_waitlist WHERE unit_id = $1 AND resource_id = $2 AND during && tstzrange($3, $4) "
            "AND status = 'waiting' ORDER BY position FOR UPDATE", unit_id, resource_id, starts_at, ends_at)
        return [entry_from_row(r) for r in rows]

    async def capacity_lines(self, now: datetime) -> list[dict[str, Any]]:
        """Pooled ranges with someone waiting (for the sweep)."""
        conn = await self._conn()
        rows = await conn.fetch("SELECT DISTINCT unit_id, resource_id, during FROM capacity_waitlist "
                                "WHERE status = 'waiting' AND upper(during) > $1", now)
        return [entry_from_row(r) for r in rows]

    async def set_capacity(self, entry_id: UUID, status: str) -> None:
        """Move a capacity entry along."""
        conn = await self._conn()
        await conn.execute("UPDATE capacity_waitlist SET status = $2 WHERE id = $1", entry_id, status)

    async def offer_capacity(self, entry_id: UUID, token: str, expires_at: datetime, booking_id: UUID) -> None:
        """Record an offer: its token, expiry and the hold that sets the places aside."""
        conn = await self._conn()
        await conn.execute("UPDATE capacity_waitlist SET status = 'offered', token = $2, offer_expires_at = $3, "
                           "booking_id = $4 WHERE id = $1", entry_id, token, expires_at, booking_id)

    async def capacity_by_token(self, unit_id: UUID, token: str) -> dict[str, Any] | None:
        """The entry offered with this token, locked."""
        conn = await self._conn()
        r = await conn.fetchrow("SELECT * FROM capacity_waitlist WHERE unit_id = $1 AND token = $2 FOR UPDATE",
                                unit_id, token)
        return entry_from_row(r) if r else None

    # --- walk-in queue -------------------------------------------------------------------------------

    async def add_walk_in(self, unit_id: UUID, area: str, name: str, phone: str, party_size: int,
                          at: datetime) -> dict[str, Any]:
        """Add a walk-in party."""
        conn = await self._conn()
        r = await conn.fetchrow(
            "INSERT INTO walkin_queue (id, unit_id, area, name, phone, party_size, joined_at) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *", uuid4(), unit_id, area, name, phone, party_size, at)
        return dict(r)

    async def walk_in(self, entry_id: UUID) -> dict[str, Any]:
        """One walk-in entry, locked."""
        conn = await self._conn()
        r = await conn.fetchrow("SELECT * FROM walkin_queue WHERE id = $1 FOR UPDATE", entry_id)
        if r is None:
            raise NotFound("walk-in entry", entry_id, field="entryId")
        return dict(r)

    async def walk_in_by_token(self, unit_id: UUID, token: str) -> dict[str, Any] | None:
        """The walk-in entry offered with this token, locked."""
        conn = await self._conn()
        r = await conn.fetchrow("SELECT * FROM walkin_queue WHERE unit_id = $1 AND token = $2 FOR UPDATE",
                                unit_id, token)
        return dict(r) if r else None

    async def set_walk_in(self, entry_id: UUID, status: str, at: datetime, token: str | None = None
                          ) -> dict[str, Any]:
        """Move a walk-in entry along."""
        conn = await self._conn()
        r = await conn.fetchrow(
            "UPDATE walkin_queue SET status = $2, token = coalesce($4, token), "
            "offered_at = CASE WHEN $2 = 'offered' THEN $3 ELSE offered_at END, "
            "seated_at = CASE WHEN $2 = 'seated' THEN $3 ELSE seated_at END WHERE id = $1 RETURNING *",
            entry_id, status, at, token)
        return dict(r)

    async def walk_ins(self, unit_id: UUID, limit: int | None = None) -> list[dict[str, Any]]:
        """The unit's live walk-in queue in order (the first `limit`; None: all)."""
        conn = await self._conn()
        rows = await conn.fetch("SELECT * FROM walkin_queue WHERE unit_id = $1 AND status IN "
                                "('waiting', 'offered', 'claimed') ORDER BY area, position LIMIT $2", unit_id, limit)
        return [dict(r) for r in rows]

    # --- waitlists on or off (issue 18) ----------------------------------------------------------------

    async def enabled(self, unit_id: UUID, resource_id: UUID) -> bool:
        """Whether the resource's waitlists take entries and make offers (an unknown resource: true)."""
        conn = await self._conn()
        found = await conn.fetchval("SELECT waitlist_enabled FROM resources WHERE unit_id = $1 AND id = $2",
                                    unit_id, resource_id)
        return found is not False

    async def switch(self, target: str, target_id: UUID, enabled: bool) -> tuple[UUID, bool] | None:
        """Turn the waitlist of a resource or a seat event (`target`: resource, seat_event) on or off: (its unit,
        the value before), the row locked; None when there is no such row."""
        table = {"resource": "resources", "seat_event": "seat_events"}[target]
        conn = await self._conn()
        r = await conn.fetchrow(
            f"WITH old AS (SELECT unit_id, waitlist_enabled FROM {table} WHERE id = $1 FOR UPDATE) "
            f"UPDATE {table} t SET waitlist_enabled = $2 FROM old WHERE t.id = $1 "
            "RETURNING old.unit_id, old.waitlist_enabled", target_id, enabled)
        return (r["unit_id"], r["waitlist_enabled"]) if r is not None else None

    async def unit_of(self, target: str, target_id: UUID) -> UUID | None:
        """The unit of a resource or a seat event (`target`: resource, seat_event); None when there is none."""
        table = {"resource": "resources", "seat_event": "seat_events"}[target]
        conn = await self._conn()
        found: UUID | None = await conn.fetchval(f"SELECT unit_id FROM {table} WHERE id = $1", target_id)
        return found
