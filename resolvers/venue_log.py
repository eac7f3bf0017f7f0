"""The venue's change log (who changed what in the set-up, and when) and its live feed."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Annotated

import strawberry

from domain import venue_log
from domain.access import Action
from domain.errors import ErrorCode, InvalidInput
from domain.events import VenueChanged
from resolvers.context import Info, parse_id
from resolvers.feed import unit_events
from resolvers.permissions import authorize_unit
from schema.args import SinceArg, UnitIdArg
from schema.ids import Kind
from schema.pages import page_description, page_size
from schema.venue_log import VenueChange, VenueChangeEvent

BeforeArg = Annotated[strawberry.ID | None, strawberry.argument(
    description="The id of the last change you saw: the page starts after it (older ones). Omitted: the newest.")]


@strawberry.type
class VenueLogQuery:
    @strawberry.field(description="Managers: the unit's set-up changes (resources, hours, closed days, blocks, "
                      "services, price bands, parameters, staff tokens), newest first, with who and when. "
                      "before: the id of the last change you saw, for the next page.")
    async def venue_changes(self, info: Info, unit_id: UnitIdArg, before: BeforeArg = None,
                            first: Annotated[int, strawberry.argument(description=page_description(100))] = 100
                            ) -> list[VenueChange]:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.MANAGE)
        before_id = None if before is None else _change_id(before)
        rows = await venue_log.recent(info.context.deps, uid, page_size(first), before_id)
        return [VenueChange.from_domain(r) for r in rows]


@strawberry.type
class VenueLogSubscription:
    @strawberry.subscription(description="Staff: the unit's set-up as it changes (a resource, hours, a closed day, "
                             "a block, a service, a price band...): refetch what `entity` names. since: the last "
                             "seq you saw.")
    async def venue_changed(self, info: Info, unit_id: UnitIdArg, since: SinceArg = None
                            ) -> AsyncGenerator[VenueChangeEvent, None]:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.READ)
        async for event in unit_events(info.context.deps, info.context.hub, uid, since):
            if event.topic == VenueChanged.TOPIC and isinstance(fact := event.fact, VenueChanged):
                yield VenueChangeEvent.from_event(event.seq, uid, fact)


def _change_id(raw: strawberry.ID) -> int:
    try:
        return int(raw)
    except ValueError:
        raise InvalidInput("before", "`before` is the id of a change", code=ErrorCode.INVALID_ID) from None
