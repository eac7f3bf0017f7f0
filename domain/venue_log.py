"""The venue's change log: every change to a venue's set-up, with who made it and when (issue 18).

A use case that changes a resource, hours, a closed day, a block, a service, a price band, a parameter or a staff
token calls `note` in the same unit of work as the change itself: the row in `venue_changes` and the
`venue_changed` outbox event (live on `venueChanged`) are then kept exactly when the change is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol
from uuid import UUID

if TYPE_CHECKING:
    from domain.services.deps import Deps

JsonValue = str | int | float | bool | None | list["JsonValue"] | dict[str, "JsonValue"]


class ChangeAction(StrEnum):
    CREATED = "created"
    UPDATED = "updated"
    REMOVED = "removed"


class VenueEntity(StrEnum):
    """What a set-up change is about (VenueChange.entity): the values are the stored nouns."""

    UNIT = "unit"
    PARAMETERS = "parameters"
    CONTACTS = "contacts"
    STAFF_TOKEN = "staff_token"
    RESOURCE = "resource"
    RESOURCE_GROUP = "resource_group"
    RESOURCE_ORDER = "resource_order"
    HOURS = "hours"
    CLOSED_DAY = "closed_day"
    SPECIAL_HOURS = "special_hours"
    BLOCK = "block"
    SERVICE = "service"
    PRICE_BAND = "price_band"
    SEAT_EVENT = "seat_event"
    ALLOWED_ORIGINS = "allowed_origins"
    CALENDAR_FEED = "calendar_feed"


@dataclass(frozen=True)
class VenueChange:
    """One change: `entity` is a lower-case noun (`resource`, `hours`, `closed_day`, `block`, `service`,
    `price_band`, `parameters`, `contacts`, `staff_token`...), `entity_id` the changed thing's id (the unit's for
    unit-wide settings), `before`/`after` the changed fields' values (None for a creation or a removal)."""

    entity: str
    entity_id: str
    action: ChangeAction
    session: str
    """Who: `staff:<token>`, `client:<token>`, `system:<token>` or `cli` (Principal.key)."""
    before: Mapping[str, JsonValue] | None = None
    after: Mapping[str, JsonValue] | None = None


@dataclass(frozen=True)
class LoggedChange:
    """A change as the log keeps it."""

    id: int
    unit_id: UUID
    change: VenueChange
    at: datetime


class VenueLog(Protocol):
    """venue_changes and its outbox event, in the unit of work's transaction (store/venue_log.py)."""

    async def note(self, unit_id: UUID, change: VenueChange, at: datetime) -> int:
        """Append the change and its `venue_changed` outbox event; returns the change's id."""
        ...

    async def recent(self, unit_id: UUID, limit: int, before_id: int | None = None) -> list[LoggedChange]:
        """The unit's changes, newest first (those older than `before_id` when given)."""
        ...


def changed_fields(before: Mapping[str, JsonValue], after: Mapping[str, JsonValue]
                   ) -> tuple[dict[str, JsonValue], dict[str, JsonValue]]:
    """Only the fields whose values differ, before and after: what an `updated` change records."""
    keys = [k for k in after if before.get(k) != after[k]]
    return {k: before.get(k) for k in keys}, {k: after[k] for k in keys}


class _LogUnitOfWork(Protocol):
    @property
    def venue_log(self) -> VenueLog: ...


async def note(uow: _LogUnitOfWork, unit_id: UUID, change: VenueChange, at: datetime) -> int:
    """Record `change` in the unit of work: the log row and its live event (kept only if the caller commits)."""
    return await uow.venue_log.note(unit_id, change, at)


async def recent(deps: Deps, unit_id: UUID, limit: int, before_id: int | None = None) -> list[LoggedChange]:
    """The unit's set-up changes, newest first."""
    async with deps.uow() as uow:
        return await uow.venue_log.recent(unit_id, limit, before_id)
