"""Types of the venue's change log: who changed what in the set-up, and when (issue 18)."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.scalars import JSON

from domain.events import VenueChanged
from domain.venue_log import LoggedChange


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
        return cls(id=strawberry.ID(str(c.id)), entity=ch.entity, entity_id=strawberry.ID(ch.entity_id),
                   action=ch.action.value, before=None if ch.before is None else JSON(dict(ch.before)),
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
    def from_event(cls, seq: int, e: VenueChanged) -> VenueChangeEvent:
        return cls(seq=seq, entity=e.entity, entity_id=strawberry.ID(e.entity_id), action=e.action,
                   session=e.session, at=e.at)
