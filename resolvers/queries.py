"""Query resolvers: arguments → read use case → result type."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from domain import queries
from domain.access import Action
from resolvers.context import Info, parse_id
from resolvers.permissions import authorize_booking, authorize_unit
from schema.errors import InvalidInput, NotFound
from schema.types import BookableSlot, BookableSlots, Booking, Grid, GridRow, Resource, Unit
from slothold.limits import page_description, page_size

UnitResult = Annotated[Unit | NotFound | InvalidInput, strawberry.union("UnitResult")]
BookingResult = Annotated[Booking | NotFound | InvalidInput, strawberry.union("BookingResult")]
GridResult = Annotated[Grid | NotFound | InvalidInput, strawberry.union("GridResult")]
BookableSlotsResult = Annotated[BookableSlots | NotFound | InvalidInput, strawberry.union("BookableSlotsResult")]


@strawberry.type
class Query:
    @strawberry.field(description="A unit with its parameters, opening hours and resources.")
    async def unit(self, info: Info, id: strawberry.ID) -> UnitResult:
        uid = parse_id(id, "id")
        await authorize_unit(info.context, uid, Action.PUBLIC)
        unit, resources = await queries.unit_with_resources(info.context.deps, uid)
        return Unit.from_domain(unit, resources)

    @strawberry.field(description="One booking as it is now.")
    async def booking(self, info: Info, id: strawberry.ID) -> BookingResult:
        return Booking.from_domain(await authorize_booking(info.context, parse_id(id, "id"), Action.READ))

    @strawberry.field(description="Staff grid: every slot of the unit's resources over [from, to) with its state.")
    async def availability_grid(
        self, info: Info, unit_id: strawberry.ID, from_: Annotated[datetime, strawberry.argument(name="from")],
        to: datetime, resource_ids: list[strawberry.ID] | None = None,
    ) -> GridResult:
        ids = [parse_id(r, "resourceIds") for r in resource_ids] if resource_ids is not None else None
        uid = parse_id(unit_id, "unitId")
        await authorize_unit(info.context, uid, Action.READ)
        unit, rows = await queries.availability_grid(info.context.deps, uid, from_, to, ids)
        return Grid(
            unit_id=strawberry.ID(str(unit.id)), starts_at=from_, ends_at=to, slot_minutes=unit.params.slot_minutes,
            rows=[GridRow(resource=Resource.from_domain(r), rows=window_rows, hold_types=unit.hold_types)
                  for r, window_rows in rows],
        )

    @strawberry.field(description="Customer view: free slots inside hours and the booking window (SPEC §5). "
                      "resourceId null means any resource; slots is the number of consecutive grid slots.")
    async def bookable_slots(
        self, info: Info, unit_id: strawberry.ID, from_: Annotated[datetime, strawberry.argument(name="from")],
        to: datetime, resource_id: strawberry.ID | None = None, slots: int = 1, quantity: int = 1,
        first: Annotated[int, strawberry.argument(description=page_description(500) + " The earliest first.")] = 500,
    ) -> BookableSlotsResult:
        limit = page_size(first)
        uid = parse_id(unit_id, "unitId")
        rid = parse_id(resource_id, "resourceId") if resource_id is not None else None
        await authorize_unit(info.context, uid, Action.PUBLIC)
        found = await queries.bookable(info.context.deps, uid, from_, to, rid, slots, quantity)
        return BookableSlots(
            unit_id=strawberry.ID(str(uid)),
            slots=[BookableSlot(resource_id=strawberry.ID(str(o.resource_id)), starts_at=o.starts_at,
                                ends_at=o.ends_at) for o in found[:limit]],
        )
