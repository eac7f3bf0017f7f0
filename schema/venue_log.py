"""Types of the venue's change log: who changed what in the set-up, and when (issue 18)."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

import strawberry
from strawberry.scalars import JSON

from domain.events import VenueChanged
from domain.venue_log import ChangeAction, LoggedChange, VenueEntity
from schema.enums import described_enum
from schema.ids import Kind, ref

described_enum(VenueEntity, description="What a set-up change is about: refetch it.", values={
    "UNIT": "The unit itself (created).",
    "PARAMETERS": "The unit's parameters (updateUnitParameters; entityId: the unit).",
    "CONTACTS": "The unit's alert and owner contacts (entityId: the unit).",
    "STAFF_TOKEN": "A staff or integrator token (issued or revoked).",
    "RESOURCE": "A resource (created, changed, deactivated, its waitlist switched).",
    "RESOURCE_GROUP": "A group of resources.",
    "RESOURCE_ORDER": "The order of the unit's resources (entityId: the unit).",
    "HOURS": "Weekly opening hours, of the unit or of a resource (entityId: that one).",
    "CLOSED_DAY": "A closed day (a dated exception).",
    "SPECIAL_HOURS": "Special hours of a date (a dated exception).",
    "BLOCK": "A grid block.",
    "SERVICE": "A service (created, changed, deactivated, its price published).",
    "PRICE_BAND": "A service's price bands (entityId: the service).",
    "SEAT_EVENT": "A seat event (its waitlist switched).",
    "ALLOWED_ORIGINS": "The origins allowed to call the API from a browser (setAllowedOrigins; entityId: the unit).",
    "CALENDAR_FEED": "A staff calendar feed of the unit's or a resource's agenda (made or revoked).",
})
described_enum(ChangeAction, name="VenueChangeAction", description="What a set-up change did.", values={
    "CREATED": "Made it (`before` is null).",
    "UPDATED": "Changed it.",
    "REMOVED": "Removed it (`after` is null).",
})

_ENTITY_KINDS = {
    "unit": Kind.UNIT, "parameters": Kind.UNIT, "contacts": Kind.UNIT, "resource_order": Kind.UNIT,
    "allowed_origins": Kind.UNIT, "resource": Kind.RESOURCE, "resource_group": Kind.RESOURCE_GROUP,
    "closed_day": Kind.HOURS_EXCEPTION, "special_hours": Kind.HOURS_EXCEPTION, "block": Kind.GRID_BLOCK,
    "service": Kind.SERVICE, "price_band": Kind.SERVICE, "staff_token": Kind.STAFF_TOKEN,
    "seat_event": Kind.SEAT_EVENT, "calendar_feed": Kind.CALENDAR_FEED,
}
"""The type of the object a change names (a price band's change names its service; a weekly-hours change its
resource, or the unit)."""


def entity_ref(entity: str, entity_id: str, unit_id: UUID) -> strawberry.ID:
    """The global id of the object a venue change names (its raw id when the entity has no type of its own)."""
    kind = _ENTITY_KINDS.get(str(entity))
    if entity == "hours":
        kind = Kind.UNIT if entity_id == str(unit_id) else Kind.RESOURCE
    return ref(kind, entity_id) if kind is not None else strawberry.ID(entity_id)


@strawberry.type(description="One change to the venue's set-up, as the log keeps it (appended only).")
class VenueChange:
    id: strawberry.ID = strawberry.field(description="Its id, in the order of the log (venueChanges' before takes it).")
    entity: VenueEntity = strawberry.field(description="What changed.")
    entity_id: strawberry.ID = strawberry.field(description="The id of what changed (the unit's for unit-wide "
                                                "settings).")
    action: ChangeAction = strawberry.field(description="What was done to it.")
    before: JSON | None = strawberry.field(description="The changed fields' values before (not for a creation)")
    after: JSON | None = strawberry.field(description="The changed fields' values after (not for a removal)")
    session: str = strawberry.field(description="Who: staff:<token>, client:<token>, system:<token> or cli")
    at: datetime = strawberry.field(description="When it was made.")

    @classmethod
    def from_domain(cls, c: LoggedChange) -> VenueChange:
        ch = c.change
        return cls(id=strawberry.ID(str(c.id)), entity=VenueEntity(ch.entity),
                   entity_id=entity_ref(ch.entity, ch.entity_id, c.unit_id), action=ch.action,
                   before=None if ch.before is None else JSON(dict(ch.before)),
                   after=None if ch.after is None else JSON(dict(ch.after)), session=ch.session, at=c.at)


@strawberry.type(description="A change to the venue's set-up, live: refetch what `entity` names.")
class VenueChangeEvent:
    seq: int = strawberry.field(description="The unit's event sequence number: reconnect with since: seq.")
    entity: VenueEntity = strawberry.field(description="What changed.")
    entity_id: strawberry.ID = strawberry.field(description="The id of what changed.")
    action: ChangeAction = strawberry.field(description="What was done to it.")
    session: str = strawberry.field(description="Who: staff:<token>, client:<token>, system:<token> or cli.")
    at: datetime = strawberry.field(description="When it was made.")

    @classmethod
    def from_event(cls, seq: int, unit_id: UUID, e: VenueChanged) -> VenueChangeEvent:
        return cls(seq=seq, entity=VenueEntity(e.entity), entity_id=entity_ref(e.entity, e.entity_id, unit_id),
                   action=ChangeAction(e.action),
                   session=e.session, at=e.at)
