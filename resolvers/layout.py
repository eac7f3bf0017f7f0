"""The venue's layout (issue 18): owners configure resources and hours (Action.CONFIGURE); managers and owners
block and unblock slots (Action.MANAGE: taking a field out for maintenance is a manager's daily work); staff read
blocks and hours exceptions (Action.READ)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated
from uuid import UUID

import strawberry

from domain.access import Action
from domain.errors import NotFound
from domain.layout import blocks, hours, resources
from domain.layout.common import unit_of
from domain.layout.ports import LayoutRow
from domain.units import ResourceKind
from resolvers.context import Info, parse_id
from resolvers.permissions import authorize_unit
from schema.args import IdArg, RangeToArg, ResourceIdArg, UnitIdArg
from schema.ids import Kind, opt_ref, ref
from schema.layout import (
    CreateResourceInput,
    GridBlock,
    GridBlockResult,
    HoursException,
    HoursExceptionResult,
    OpeningHours,
    OpeningHoursResult,
    ResourceGroup,
    ResourceGroupInput,
    ResourceGroupResult,
    ResourceOrder,
    ResourceOrderResult,
    ResourceResult,
    TimeWindowInput,
    UpdateResourceInput,
    VenueResource,
    WeeklyWindow,
    WeeklyWindowInput,
)

ToDateArg = Annotated[date, strawberry.argument(
    description="The last local date (inclusive), at most 400 days after from.")]
CreateResourceArg = Annotated[CreateResourceInput, strawberry.argument(description="The new resource.")]
UpdateResourceArg = Annotated[UpdateResourceInput, strawberry.argument(description="What changes.")]
OrderArg = Annotated[list[strawberry.ID], strawberry.argument(description="The resources to put first, in that order.")]
GroupNameArg = Annotated[str, strawberry.argument(description="The group's name, unique in the unit.")]
GroupSortArg = Annotated[int | None, strawberry.argument(
    description="Its place among the unit's groups; omitted: after the others.")]
GroupIdArg = Annotated[strawberry.ID, strawberry.argument(description="The group (its id as the API gave it).")]
WeeklyWindowsArg = Annotated[list[WeeklyWindowInput], strawberry.argument(
    description="The new weekly windows (they replace all); [] for a resource: it follows the unit.")]
HoursResourceArg = Annotated[strawberry.ID | None, strawberry.argument(
    description="One resource of the unit (its id); omitted: the unit itself.")]
DateArg = Annotated[date, strawberry.argument(description="The local date (the unit's time zone).")]
NoteArg = Annotated[str, strawberry.argument(description="Why (e.g. a holiday), shown to staff; empty by default.")]
DateWindowsArg = Annotated[list[TimeWindowInput], strawberry.argument(
    description="The only windows open that date (at least one; use addClosedDay to close it).")]
BlockIdArg = Annotated[strawberry.ID, strawberry.argument(description="The block (its id as the API gave it).")]


From = Annotated[datetime, strawberry.argument(name="from", description="Start of the range (inclusive), with a "
                                               "UTC offset.")]
FromDate = Annotated[date, strawberry.argument(name="from", description="The first local date (inclusive).")]
_KINDS: dict[LayoutRow, Kind] = {"resource": Kind.RESOURCE, "group": Kind.RESOURCE_GROUP,
                                 "hours_exception": Kind.HOURS_EXCEPTION, "block": Kind.GRID_BLOCK}


async def _authorize_row(info: Info, kind: LayoutRow, raw: strawberry.ID, field: str, action: Action) -> UUID:
    """The row's id, once the caller may `action` its unit."""
    row_id = parse_id(raw, field, _KINDS[kind])
    unit_id = await unit_of(info.context.deps, kind, row_id)
    if unit_id is None:
        raise NotFound(field.removesuffix("Id"), row_id, field=field)
    await authorize_unit(info.context, unit_id, action)
    return row_id


def _group(g: ResourceGroupInput | None) -> resources.GroupChoice | None:
    if g is None:
        return None
    gid = parse_id(g.id, "input.group.id", Kind.RESOURCE_GROUP) if g.id is not None else None
    return resources.GroupChoice(gid, g.name)


def _session(info: Info) -> str:
    return info.context.principal.key


@strawberry.type
class LayoutQuery:
    @strawberry.field(description="Staff: the unit's grid resources, active and inactive, with groups and order.")
    async def venue_resources(self, info: Info, unit_id: UnitIdArg) -> list[VenueResource]:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.READ)
        return [VenueResource.from_domain(r) for r in await resources.rows(info.context.deps, uid)]

    @strawberry.field(description="Staff: the unit's closed days and special hours (its own and its resources') "
                      "from one local date to another (at most 400 days).")
    async def hours_exceptions(self, info: Info, unit_id: UnitIdArg, from_: FromDate, to: ToDateArg
                               ) -> list[HoursException]:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.READ)
        return [HoursException.from_domain(e) for e in await hours.exceptions(info.context.deps, uid, from_, to)]

    @strawberry.field(description="Staff: the unit's grid blocks that overlap [from, to) (at most 400 days).")
    async def grid_blocks(self, info: Info, unit_id: UnitIdArg, from_: From, to: RangeToArg) -> list[GridBlock]:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.READ)
        return [GridBlock.from_domain(b) for b in await blocks.blocks(info.context.deps, uid, from_, to)]


@strawberry.type
class LayoutMutation:
    @strawberry.mutation(description="Owner: a new resource, EXCLUSIVE or POOLED (with a capacity). Names are unique "
                         "in the unit (name_taken).")
    async def create_resource(self, info: Info, unit_id: UnitIdArg, input: CreateResourceArg
                              ) -> ResourceResult:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.CONFIGURE)
        cmd = resources.NewResource(uid, input.name, ResourceKind(input.kind.value), _session(info), input.capacity,
                                    _group(input.group), input.sort)
        return VenueResource.from_domain(await resources.create_resource(info.context.deps, cmd))

    @strawberry.mutation(description="Owner: rename, regroup, move or resize a resource. A pooled capacity never "
                         "goes below what live bookings use at any future slot (bookings_in_the_way, naming the "
                         "busiest slot and its bookings).")
    async def update_resource(self, info: Info, resource_id: ResourceIdArg, input: UpdateResourceArg
                              ) -> ResourceResult:
        rid = await _authorize_row(info, "resource", resource_id, "resourceId", Action.CONFIGURE)
        cmd = resources.ResourceChange(rid, _session(info), input.name, _group(input.group), input.ungroup,
                                       input.sort, input.capacity)
        return VenueResource.from_domain(await resources.update_resource(info.context.deps, cmd))

    @strawberry.mutation(description="Owner: the listed resources first, in that order; the others after them.")
    async def reorder_resources(self, info: Info, unit_id: UnitIdArg, resource_ids: OrderArg
                                ) -> ResourceOrderResult:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.CONFIGURE)
        ids = [parse_id(r, "resourceIds", Kind.RESOURCE) for r in resource_ids]
        rows = await resources.reorder(info.context.deps, uid, ids, _session(info))
        return ResourceOrder(resources=[VenueResource.from_domain(r) for r in rows])

    @strawberry.mutation(description="Owner: a new group of resources.")
    async def create_resource_group(self, info: Info, unit_id: UnitIdArg, name: GroupNameArg, sort: GroupSortArg = None
                                    ) -> ResourceGroupResult:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.CONFIGURE)
        return ResourceGroup.from_domain(await resources.create_group(info.context.deps, uid, name, sort,
                                                                      _session(info)))

    @strawberry.mutation(description="Owner: rename a group of resources.")
    async def rename_resource_group(self, info: Info, group_id: GroupIdArg, name: GroupNameArg) -> ResourceGroupResult:
        gid = await _authorize_row(info, "group", group_id, "groupId", Action.CONFIGURE)
        return ResourceGroup.from_domain(await resources.rename_group(info.context.deps, gid, name, _session(info)))

    @strawberry.mutation(description="Owner: take a resource off the grid and out of sale; refused while it has "
                         "future live bookings (bookings_in_the_way, listing them).")
    async def deactivate_resource(self, info: Info, resource_id: ResourceIdArg) -> ResourceResult:
        rid = await _authorize_row(info, "resource", resource_id, "resourceId", Action.CONFIGURE)
        return VenueResource.from_domain(await resources.set_active(info.context.deps, rid, False, _session(info)))

    @strawberry.mutation(description="Owner: put a deactivated resource back on the grid.")
    async def reactivate_resource(self, info: Info, resource_id: ResourceIdArg) -> ResourceResult:
        rid = await _authorize_row(info, "resource", resource_id, "resourceId", Action.CONFIGURE)
        return VenueResource.from_domain(await resources.set_active(info.context.deps, rid, True, _session(info)))

    @strawberry.mutation(description="Owner: replace the weekly hours of the unit, or of one resource ([] for a "
                         "resource: it follows the unit's hours). Refused when live bookings would fall outside "
                         "(bookings_in_the_way). This API process applies it at once, others within 5 s.")
    async def set_opening_hours(self, info: Info, unit_id: UnitIdArg, windows: WeeklyWindowsArg,
                                resource_id: HoursResourceArg = None) -> OpeningHoursResult:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.CONFIGURE)
        rid = parse_id(resource_id, "resourceId", Kind.RESOURCE) if resource_id is not None else None
        specs = [hours.WindowSpec(w.opens, w.closes, w.weekday.value) for w in windows]
        done = await hours.set_opening_hours(info.context.deps, uid, rid, specs, _session(info))
        return OpeningHours(unit_id=ref(Kind.UNIT, uid), resource_id=opt_ref(Kind.RESOURCE, rid),
                            windows=[WeeklyWindow.from_domain(w) for w in done])

    @strawberry.mutation(description="Owner: close a local date (a holiday), unit-wide or for one resource; replaces "
                         "that date's special hours. Refused over live bookings (bookings_in_the_way).")
    async def add_closed_day(self, info: Info, unit_id: UnitIdArg, date: DateArg,
                             resource_id: HoursResourceArg = None, reason: NoteArg = "") -> HoursExceptionResult:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.CONFIGURE)
        rid = parse_id(resource_id, "resourceId", Kind.RESOURCE) if resource_id is not None else None
        return HoursException.from_domain(await hours.close_day(info.context.deps, uid, date, rid, reason,
                                                                _session(info)))

    @strawberry.mutation(description="Owner: a local date opens only in these windows, unit-wide or for one "
                         "resource; replaces that date's exception. Refused over live bookings outside them.")
    async def set_special_hours(self, info: Info, unit_id: UnitIdArg, date: DateArg, windows: DateWindowsArg,
                                resource_id: HoursResourceArg = None, reason: NoteArg = "") -> HoursExceptionResult:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.CONFIGURE)
        rid = parse_id(resource_id, "resourceId", Kind.RESOURCE) if resource_id is not None else None
        specs = [hours.WindowSpec(w.opens, w.closes) for w in windows]
        return HoursException.from_domain(await hours.special_hours(info.context.deps, uid, date, rid, specs, reason,
                                                                    _session(info)))

    @strawberry.mutation(description="Owner: the date follows its weekly hours again.")
    async def remove_hours_exception(self, info: Info, id: IdArg) -> HoursExceptionResult:
        eid = await _authorize_row(info, "hours_exception", id, "id", Action.CONFIGURE)
        return HoursException.from_domain(await hours.remove_day(info.context.deps, eid, _session(info)))

    @strawberry.mutation(description="Managers: take a resource out of sale over [from, to) (maintenance, a "
                         "tournament); a pooled one loses all its places. Refused over live bookings "
                         "(bookings_in_the_way, listing them) or another block (already_blocked).")
    async def block_resource(self, info: Info, resource_id: ResourceIdArg, from_: From, to: RangeToArg,
                             reason: NoteArg = "") -> GridBlockResult:
        rid = await _authorize_row(info, "resource", resource_id, "resourceId", Action.MANAGE)
        return GridBlock.from_domain(await blocks.block_resource(info.context.deps, rid, from_, to, reason,
                                                                 _session(info)))

    @strawberry.mutation(description="Managers: put a blocked range back on sale.")
    async def unblock_resource(self, info: Info, block_id: BlockIdArg) -> GridBlockResult:
        bid = await _authorize_row(info, "block", block_id, "blockId", Action.MANAGE)
        return GridBlock.from_domain(await blocks.unblock_resource(info.context.deps, bid, _session(info)))
