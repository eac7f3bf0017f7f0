"""venue_changes (migration 0018) and its `venue_changed` outbox event, written in one statement."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

from domain.events import VenueChanged
from domain.venue_log import ChangeAction, LoggedChange, VenueChange
from store.bookings import ConnGetter

_NOTE = """
WITH logged AS (
    INSERT INTO venue_changes (unit_id, entity, entity_id, action, before, after, session, at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id
), announced AS (
    INSERT INTO outbox (unit_id, topic, payload) VALUES ($1, $9, $10)
)
SELECT id FROM logged
"""

_RECENT = """
SELECT id, unit_id, entity, entity_id, action, before, after, session, at FROM venue_changes
WHERE unit_id = $1 AND ($3::bigint IS NULL OR id < $3) ORDER BY id DESC LIMIT $2
"""


def _logged(r: Any) -> LoggedChange:
    change = VenueChange(r["entity"], r["entity_id"], ChangeAction(r["action"]), r["session"], r["before"],
                         r["after"])
    return LoggedChange(r["id"], r["unit_id"], change, r["at"])


class PgVenueLog:
    """domain.venue_log.VenueLog on the unit of work's connection."""

    def __init__(self, conn: ConnGetter) -> None:
        self._conn = conn

    async def note(self, unit_id: UUID, change: VenueChange, at: datetime) -> int:
        """Append the change and its outbox event; returns the change's id."""
        conn = await self._conn()
        event = VenueChanged(change.entity, change.entity_id, change.action.value, change.session, at)
        before = None if change.before is None else dict(change.before)
        after = None if change.after is None else dict(change.after)
        found: int = await conn.fetchval(_NOTE, unit_id, change.entity, change.entity_id, change.action.value,
                                         before, after, change.session, at, event.TOPIC, event.to_json())
        return found

    async def recent(self, unit_id: UUID, limit: int, before_id: int | None = None) -> list[LoggedChange]:
        """The unit's changes, newest first."""
        conn = await self._conn()
        return [_logged(r) for r in await conn.fetch(_RECENT, unit_id, limit, before_id)]
