"""Types of the venue's change log: who changed what in the set-up, and when (issue 18)."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

import strawberry
from strawberry.scalars import JSON

from domain.events import VenueChanged
from domain.venue_log import LoggedChange
from schema.ids import Kind, ref

_ENTITY_KINDS = {
    "unit": Kind.UNIT, "parameters": Kind.UNIT, "contacts": Kind.UNIT, "resource_order": Kind.UNIT,
    "resource": Kind.RESOURCE, "resource_group": Kind.RESOURCE_GROUP, "closed_day": Kind.HOURS_EXCEPTION,
    "special_hours": Kind.HOURS_EXCEPTION, "block": Kind.GRID_BLOCK, "service": Kind.SERVICE,
    "price_band": Kind.SERVICE, "staff_token": Kind.STAFF_TOKEN, "seat_event": Kind.SEAT_EVENT,
}
"""The type of the object a change names (a price band's change names its service; a weekly-hours change its
resource, or the unit)."""


def entity_ref(entity: str, entity_id: str, unit_id: UUID) -> strawberry.ID:
    """The global id of the object a venue change names (its raw id when the entity has no type of its own)."""
    kind = _ENTITY_KINDS.get(entity)
    if entity == "hours":
        kind = Kind.UNIT if entity_id == str(unit_id) else Kind.RESOURCE
    return ref(kind, entity_id) if kind is not None else strawberry.ID(entity_id)


@strawberry.type(description="One change to the venue's set-up, as the log keeps it (appended only).")
class VenueChange:
    id: strawberry.ID
    entity: str = strawberry.field(description="What changed: resource, hours, closed_day, block, service, "
                                               "price_band, parameters, contacts, staff_token...")
    entity_id: strawberry.ID
    action: str = strawberry.field(description="created, updated or removed")
    before: JSON | None = strawberry.field(description="The changed fields' values before (not for a creation)")
    after: JSON | None = strawberry.field(description="The changed fields' values after (not for a removal)")
    session: str = strawberry.field(description="Who: staff:<token>, client:<token>, system:<token> or cli")
    at: datetime

    @classmethod
    def from_domain(cls, c: LoggedChange) -> VenueChange:
        ch = c.change
        return cls(id=strawberry.ID(str(c.id)), entity=ch.entity,
                   entity_id=entity_ref(ch.entity, ch.entity_id, c.unit_id), action=ch.action.value,
                   before=None if ch.before is None else JSON(dict(ch.before)),
                   after=None if ch.after is None else JSON(dict(ch.after)), session=ch.session, at=c.at)


@strawberry.type(description="A change to the venue's set-up, live: refetch what `entity` names.")
class VenueChangeEvent:
    seq: int
    entity: str
    entity_id: strawberry.ID
    action: str
    session: str
    at: datetime

    @classmethod
    def from_event(cls, seq: int, unit_id: UUID, e: VenueChanged) -> VenueChangeEvent:
        return cls(seq=seq, entity=e.entity, entity_id=entity_ref(e.entity, e.entity_id, unit_id), action=e.action,
                   session=e.session, at=e.at)
