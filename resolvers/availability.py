"""Availability: the staff grid of a unit's slots and states, and the slots a customer may hold (SPEC §5)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import strawberry

from domain import queries
from domain.access import Action
from domain.availability import segments
from domain.services.series import series_of
from resolvers.context import Info, parse_id
from resolvers.permissions import authorize_unit
from schema.args import RangeToArg, UnitIdArg
from schema.availability import BookableSlot, BookableSlots, BookableSlotsResult, Grid, GridResult, GridRow
from schema.ids import Kind, ref
from schema.pages import page_description, page_size
from schema.units import Resource

GridResourcesArg = Annotated[list[strawberry.ID] | None, strawberry.argument(
    description="Only these resources (ids); omitted: all the unit's active resources.")]
AnyResourceArg = Annotated[strawberry.ID | None, strawberry.argument(
    description="One resource (its id); omitted: any resource of the unit.")]
SlotsArg = Annotated[int, strawberry.argument(
    description="The length asked for: how many consecutive grid slots (1 to 48; default 1).")]
PlacesArg = Annotated[int, strawberry.argument(description="Places needed at once (pooled resources; default 1).")]


From = Annotated[datetime, strawberry.argument(name="from", description="Start of the range (inclusive), with a "
                                               "UTC offset.")]


def _asks(fields: list[Any], name: str) -> bool:
    """Whether the selection (fragments included) asks for a field called `name` anywhere below."""
    for f in fields:
        if getattr(f, "name", None) == name or _asks(list(getattr(f, "selections", None) or []), name):
            return True
    return False


@strawberry.type
class AvailabilityQuery:
    @strawberry.field(description="Staff grid: every slot of the unit's resources over [from, to) with its state.")
    async def availability_grid(
        self, info: Info, unit_id: UnitIdArg, from_: From, to: RangeToArg,
        resource_ids: GridResourcesArg = None,
    ) -> GridResult:
        ids = [parse_id(r, "resourceIds", Kind.RESOURCE) for r in resource_ids] if resource_ids is not None else None
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.READ)
        unit, rows, seq = await queries.availability_grid_at(info.context.deps, uid, from_, to, ids,
                                                             with_seq=_asks(info.selected_fields, "seq"))
        series = None
        if _asks(info.selected_fields, "seriesId"):  # only then: a month's grid is not cut into segments for nothing
            booked = list({s.occupancy.booking_id for _, window_rows in rows for s in segments(window_rows)
                           if s.occupancy is not None and s.occupancy.booking_id is not None})
            series = await series_of(info.context.deps, booked)
        return Grid(
            unit_id=ref(Kind.UNIT, unit.id), starts_at=from_, ends_at=to, slot_minutes=unit.params.slot_minutes,
            seq=seq, rows=[GridRow(resource=Resource.from_domain(r), rows=window_rows, hold_types=unit.hold_types,
                          series=series) for r, window_rows in rows],
        )

    @strawberry.field(description="Customer view: free slots inside hours and the booking window (SPEC §5). "
                      "resourceId null means any resource; slots is the number of consecutive grid slots.")
    async def bookable_slots(
        self, info: Info, unit_id: UnitIdArg, from_: From, to: RangeToArg, resource_id: AnyResourceArg = None,
        slots: SlotsArg = 1, quantity: PlacesArg = 1,
        first: Annotated[int, strawberry.argument(description=page_description(500) + " The earliest first.")] = 500,
    ) -> BookableSlotsResult:
        limit = page_size(first)
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        rid = parse_id(resource_id, "resourceId", Kind.RESOURCE) if resource_id is not None else None
        await authorize_unit(info.context, uid, Action.PUBLIC)
        found = await queries.bookable(info.context.deps, uid, from_, to, rid, slots, quantity)
        return BookableSlots(
            unit_id=ref(Kind.UNIT, uid),
            slots=[BookableSlot(resource_id=ref(Kind.RESOURCE, o.resource_id), starts_at=o.starts_at,
                                ends_at=o.ends_at) for o in found[:limit]],
        )
