"""Owners create, rename, group, reorder, resize, deactivate and reactivate the unit's resources (issue 18)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from uuid import UUID

from domain.errors import ErrorCode, InvalidInput, NotFound
from domain.layout.common import checked_name, live_over, note
from domain.layout.errors import BookingsInTheWay
from domain.layout.ports import GroupRow, NameTaken, ResourceRow
from domain.ports import UnitOfWork
from domain.services.deps import Deps
from domain.units import ResourceKind
from domain.venue_log import ChangeAction, changed_fields

CAPACITY_MAX = 10_000
FOREVER = timedelta(days=3660)
"""How far ahead "every future booking" looks (beyond any booking window)."""


@dataclass(frozen=True)
class GroupChoice:
    """A resource's group: an existing one by id, or by name (made when the unit has none of that name)."""

    group_id: UUID | None = None
    name: str | None = None


@dataclass(frozen=True)
class NewResource:
    unit_id: UUID
    name: str
    kind: ResourceKind
    session: str
    capacity: int | None = None
    group: GroupChoice | None = None
    sort: int | None = None


@dataclass(frozen=True)
class ResourceChange:
    """What changes of a resource (None: unchanged); `ungroup` takes it out of its group."""

    resource_id: UUID
    session: str
    name: str | None = None
    group: GroupChoice | None = None
    ungroup: bool = False
    sort: int | None = None
    capacity: int | None = None


def _capacity(kind: ResourceKind, capacity: int | None) -> int:
    if kind is ResourceKind.EXCLUSIVE:
        if capacity not in (None, 1):
            raise InvalidInput("input.capacity", "an exclusive resource takes one booking at a time (capacity 1); "
                               "make it POOLED to sell places", code=ErrorCode.NOT_POOLED)
        return 1
    if capacity is None or not 1 <= capacity <= CAPACITY_MAX:
        raise InvalidInput("input.capacity", f"a pooled resource needs a capacity of 1 to {CAPACITY_MAX}",
                           code=ErrorCode.INVALID_CAPACITY)
    return capacity


async def _group(deps: Deps, uow: UnitOfWork, unit_id: UUID, choice: GroupChoice, session: str,
                 now: datetime) -> GroupRow:
    if (choice.group_id is None) == (choice.name is None):
        raise InvalidInput("input.group", "name the group by id or by name, not both", code=ErrorCode.INVALID_INPUT)
    if choice.group_id is not None:
        found = await uow.layout.group(choice.group_id)
        if found is None or found.unit_id != unit_id:
            raise NotFound("group", choice.group_id, field="input.group.id")
        return found
    name = checked_name(choice.name or "", "input.group.name")
    found = await uow.layout.group_named(unit_id, name)
    if found is not None:
        return found
    return await _new_group(deps, uow, unit_id, name, None, session, now)


async def _new_group(deps: Deps, uow: UnitOfWork, unit_id: UUID, name: str, sort: int | None, session: str,
                     now: datetime) -> GroupRow:
    group = GroupRow(deps.new_id(), unit_id, name, sort if sort is not None else len(await uow.layout.groups(unit_id)))
    try:
        await uow.layout.create_group(group)
    except NameTaken:
        raise InvalidInput("name", f"the unit already has a group or seat map named {name!r}",
                           code=ErrorCode.NAME_TAKEN) from None
    await note(uow, unit_id, "resource_group", group.id, ChangeAction.CREATED, session, now,
               after={"name": group.name, "sort": group.sort})
    return group


async def _locked(uow: UnitOfWork, unit_id: UUID) -> None:
    if not await uow.layout.lock_unit(unit_id):
        raise NotFound("unit", unit_id, field="unitId")


async def _row(uow: UnitOfWork, resource_id: UUID) -> ResourceRow:
    row = await uow.layout.resource_row(resource_id)
    if row is None:
        raise NotFound("resource", resource_id, field="resourceId")
    await _locked(uow, row.unit_id)
    return row


def _taken(name: str) -> InvalidInput:
    return InvalidInput("input.name", f"the unit already has a resource named {name!r}", code=ErrorCode.NAME_TAKEN)


async def create_resource(deps: Deps, cmd: NewResource) -> ResourceRow:
    """A new exclusive or pooled resource at the end of the order (or at `sort`), in a group if named."""
    name = checked_name(cmd.name, "input.name")
    capacity = _capacity(cmd.kind, cmd.capacity)
    now = deps.clock.now()
    async with deps.uow() as uow:
        await _locked(uow, cmd.unit_id)
        group = await _group(deps, uow, cmd.unit_id, cmd.group, cmd.session, now) if cmd.group else None
        sort = cmd.sort if cmd.sort is not None else len(await uow.layout.resource_rows(cmd.unit_id))
        row = ResourceRow(deps.new_id(), cmd.unit_id, name, cmd.kind, capacity, None, None, sort, True
                          ).with_group(group)
        try:
            await uow.layout.insert_resource(row)
        except NameTaken:
            raise _taken(name) from None
        await note(uow, cmd.unit_id, "resource", row.id, ChangeAction.CREATED, cmd.session, now,
                   after=dict(row.logged()))
        await uow.commit()
    return row


async def update_resource(deps: Deps, cmd: ResourceChange) -> ResourceRow:
    """Rename, regroup, move in the order, or resize a pooled resource (never below what live bookings use at
    any future moment)."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        row = await _row(uow, cmd.resource_id)
        new = row
        if cmd.name is not None:
            new = replace(new, name=checked_name(cmd.name, "input.name"))
        if cmd.ungroup:
            new = new.with_group(None)
        elif cmd.group is not None:
            new = new.with_group(await _group(deps, uow, row.unit_id, cmd.group, cmd.session, now))
        if cmd.sort is not None:
            new = replace(new, sort=cmd.sort)
        if cmd.capacity is not None and cmd.capacity != row.capacity:
            new = replace(new, capacity=_capacity(row.kind, cmd.capacity))
            await _resize(deps, uow, row, new.capacity, now)
        before, after = changed_fields(row.logged(), new.logged())
        if after:
            try:
                await uow.layout.update_resource(new)
            except NameTaken:
                raise _taken(new.name) from None
            await note(uow, row.unit_id, "resource", row.id, ChangeAction.UPDATED, cmd.session, now, before, after)
        await uow.commit()
    return new


async def _resize(deps: Deps, uow: UnitOfWork, row: ResourceRow, capacity: int, now: datetime) -> None:
    """A pooled resource's new capacity on its counters; refused below the busiest future slot's live use."""
    unit = await uow.layout.fresh_unit(row.unit_id)
    await uow.bookings.lock_resources(row.unit_id, [row.id])
    after = now - timedelta(minutes=unit.params.slot_minutes)
    await live_over(uow, row.unit_id, [row.id], now, now + FOREVER, now)  # lapsed holds go first
    peak = await uow.layout.pool_peak(row.unit_id, row.id, after)
    if peak is not None and peak[1] > capacity:
        at, used = peak
        there = await uow.layout.live_allocations(row.unit_id, [row.id], at, at + timedelta(microseconds=1))
        raise BookingsInTheWay("input.capacity", f"live bookings use {used} places of {row.name} at "
                               f"{at.isoformat()}, more than {capacity}", [a.booking_id for a in there], at)
    await uow.layout.set_capacity(row.unit_id, row.id, row.capacity, capacity, after)


async def set_active(deps: Deps, resource_id: UUID, active: bool, session: str) -> ResourceRow:
    """Deactivate (out of the grid and of sale; refused while future live bookings exist) or reactivate."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        row = await _row(uow, resource_id)
        if row.active == active:
            return row
        if not active:
            await uow.bookings.lock_resources(row.unit_id, [row.id])
            live = await live_over(uow, row.unit_id, [row.id], now, now + FOREVER, now)
            if live:
                raise BookingsInTheWay("resourceId", f"{row.name} has future bookings; cancel or move them first",
                                       [a.booking_id for a in sorted(live, key=lambda a: a.starts_at)])
        new = replace(row, active=active)
        await uow.layout.update_resource(new)
        await note(uow, row.unit_id, "resource", row.id, ChangeAction.UPDATED, session, now, {"active": row.active},
                   {"active": active})
        await uow.commit()
    return new


async def reorder(deps: Deps, unit_id: UUID, resource_ids: list[UUID], session: str) -> list[ResourceRow]:
    """The listed resources first, in that order; the others after them as they were."""
    if len(set(resource_ids)) != len(resource_ids):
        raise InvalidInput("resourceIds", "a resource is listed twice", code=ErrorCode.DUPLICATE_RESOURCE)
    now = deps.clock.now()
    async with deps.uow() as uow:
        await _locked(uow, unit_id)
        rows = await uow.layout.resource_rows(unit_id)
        known = {r.id for r in rows}
        for rid in resource_ids:
            if rid not in known:
                raise NotFound("resource", rid, field="resourceIds")
        order = resource_ids + [r.id for r in rows if r.id not in set(resource_ids)]
        if order != [r.id for r in rows]:
            await uow.layout.set_sorts(unit_id, order)
            await note(uow, unit_id, "resource_order", unit_id, ChangeAction.UPDATED, session, now,
                       {"resourceIds": [str(r.id) for r in rows]}, {"resourceIds": [str(r) for r in order]})
        rows = await uow.layout.resource_rows(unit_id)
        await uow.commit()
    return rows


async def create_group(deps: Deps, unit_id: UUID, name: str, sort: int | None, session: str) -> GroupRow:
    """A new, empty group of resources."""
    checked = checked_name(name, "name")
    now = deps.clock.now()
    async with deps.uow() as uow:
        await _locked(uow, unit_id)
        group = await _new_group(deps, uow, unit_id, checked, sort, session, now)
        await uow.commit()
    return group


async def rename_group(deps: Deps, group_id: UUID, name: str, session: str) -> GroupRow:
    checked = checked_name(name, "name")
    now = deps.clock.now()
    async with deps.uow() as uow:
        group = await uow.layout.group(group_id)
        if group is None:
            raise NotFound("group", group_id, field="groupId")
        await _locked(uow, group.unit_id)
        if group.name != checked:
            try:
                await uow.layout.rename_group(group_id, checked)
            except NameTaken:
                raise InvalidInput("name", f"the unit already has a group or seat map named {checked!r}",
                                   code=ErrorCode.NAME_TAKEN) from None
            await note(uow, group.unit_id, "resource_group", group.id, ChangeAction.UPDATED, session, now,
                       {"name": group.name}, {"name": checked})
            await uow.commit()
    return replace(group, name=checked)


async def rows(deps: Deps, unit_id: UUID) -> list[ResourceRow]:
    """The unit's grid resources, active and inactive, in display order."""
    async with deps.uow() as uow:
        return await uow.layout.resource_rows(unit_id)
