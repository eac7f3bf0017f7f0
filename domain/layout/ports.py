"""What the layout's use cases read and write (store/layout.py): resources with their groups and order, weekly
hours and dated exceptions, grid blocks, and the live bookings a change must not orphan."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import Literal, Protocol
from uuid import UUID

from domain.units import HoursException, OpeningWindow, Resource, ResourceKind, Unit


@dataclass(frozen=True)
class ResourceRow:
    """A resource of the unit's grid as its owner manages it: active or not, its group, its place in order."""

    id: UUID
    unit_id: UUID
    name: str
    kind: ResourceKind
    capacity: int
    group_id: UUID | None
    group_name: str | None
    sort: int
    active: bool
    hours: tuple[OpeningWindow, ...] = ()

    def resource(self) -> Resource:
        return Resource(self.id, self.unit_id, self.name, self.kind, self.capacity, self.group_id, self.hours)

    def logged(self) -> dict[str, str | int | bool | None]:
        """The fields the venue log records, by their GraphQL names."""
        return {"name": self.name, "kind": self.kind.name, "capacity": self.capacity,
                "groupId": str(self.group_id) if self.group_id else None, "sort": self.sort, "active": self.active}

    def with_group(self, group: GroupRow | None) -> ResourceRow:
        return replace(self, group_id=group.id if group else None, group_name=group.name if group else None)


@dataclass(frozen=True)
class GroupRow:
    """A group of resources (e.g. "Campos"), shown together on the grid."""

    id: UUID
    unit_id: UUID
    name: str
    sort: int = 0


@dataclass(frozen=True)
class GridBlock:
    """A resource taken out of sale over [starts_at, ends_at) (maintenance, a tournament)."""

    id: UUID
    unit_id: UUID
    resource_id: UUID
    starts_at: datetime
    ends_at: datetime
    reason: str
    created_by: str
    created_at: datetime

    def logged(self) -> dict[str, str | int | bool | None]:
        return {"resourceId": str(self.resource_id), "from": self.starts_at.isoformat(),
                "to": self.ends_at.isoformat(), "reason": self.reason}


@dataclass(frozen=True)
class LiveAllocation:
    """One resource range a live booking takes (lapsed holds are expired before anyone reads these)."""

    booking_id: UUID
    resource_id: UUID
    starts_at: datetime
    ends_at: datetime
    quantity: int
    status: str


LayoutRow = Literal["resource", "group", "hours_exception", "block"]
"""A layout row whose unit authorization looks up."""


class NameTaken(Exception):
    """A resource or group name the unit already has (the store's unique constraint said so)."""


class AlreadyBlocked(Exception):
    """The range overlaps another block of the resource (the exclusion constraint or pooled counter said so)."""


class LayoutRepository(Protocol):
    """The layout's rows in the unit of work's transaction (store/layout.py). Writes forget the unit's cached
    configuration in this process at once and again after commit; other processes follow within 5 s."""

    async def lock_unit(self, unit_id: UUID) -> bool:
        """Serialise layout changes of one unit (the unit row, FOR UPDATE); False when there is no such unit."""
        ...

    async def fresh_unit(self, unit_id: UUID) -> Unit:
        """The unit with its hours and exceptions as committed now (not the cached copy)."""
        ...

    async def unit_of(self, kind: LayoutRow, row_id: UUID) -> UUID | None:
        """The unit a grid resource, group, hours exception or grid block belongs to (None: no such row)."""
        ...

    async def resource_rows(self, unit_id: UUID) -> list[ResourceRow]:
        """The unit's grid resources, active and inactive, in display order."""
        ...

    async def resource_row(self, resource_id: UUID) -> ResourceRow | None:
        """One grid resource (seats are not), locked for change."""
        ...

    async def group(self, group_id: UUID) -> GroupRow | None: ...

    async def group_named(self, unit_id: UUID, name: str) -> GroupRow | None: ...

    async def groups(self, unit_id: UUID) -> list[GroupRow]: ...

    async def create_group(self, group: GroupRow) -> None:
        """Raises NameTaken."""
        ...

    async def rename_group(self, group_id: UUID, name: str) -> None:
        """Raises NameTaken."""
        ...

    async def insert_resource(self, row: ResourceRow) -> None:
        """Raises NameTaken."""
        ...

    async def update_resource(self, row: ResourceRow) -> None:
        """Name, group, sort, capacity and active as in `row`. Raises NameTaken."""
        ...

    async def set_sorts(self, unit_id: UUID, ordered: list[UUID]) -> None:
        """Sort the unit's resources in this order."""
        ...

    async def live_allocations(self, unit_id: UUID, resource_ids: list[UUID] | None, start: datetime,
                               end: datetime) -> list[LiveAllocation]:
        """The live bookings' allocations over [start, end) (None: every resource)."""
        ...

    async def pool_peak(self, unit_id: UUID, resource_id: UUID, after: datetime
                        ) -> tuple[datetime, int] | None:
        """The pooled resource's busiest slot from `after` on, by what bookings (not blocks) use, and that use."""
        ...

    async def set_capacity(self, unit_id: UUID, resource_id: UUID, old: int, new: int, after: datetime) -> None:
        """A pooled resource's new capacity, on its row, its counters from `after` on and its blocks."""
        ...

    async def replace_hours(self, unit_id: UUID, resource_id: UUID | None,
                            windows: tuple[OpeningWindow, ...]) -> None: ...

    async def put_exception(self, unit_id: UUID, exception: HoursException, actor: str,
                            now: datetime) -> HoursException | None:
        """Set the exception of its (resource, day), replacing any; returns the one replaced."""
        ...

    async def exception(self, exception_id: UUID) -> tuple[UUID, HoursException] | None:
        """(unit, exception)."""
        ...

    async def remove_exception(self, unit_id: UUID, exception_id: UUID) -> None: ...

    async def exceptions(self, unit_id: UUID, first: date, last: date) -> list[HoursException]: ...

    async def add_block(self, block: GridBlock, pooled: tuple[int, list[datetime]] | None) -> None:
        """The block with its allocation; `pooled`: (capacity, slot starts) it takes whole. Raises
        AlreadyBlocked."""
        ...

    async def pooled_blocks(self, unit_id: UUID, resource_ids: list[UUID], after: datetime
                            ) -> list[tuple[GridBlock, list[datetime]]]:
        """The grid blocks of those pooled resources that end after `after`, with the slot starts each took."""
        ...

    async def retake(self, block: GridBlock, capacity: int, slots: list[datetime]) -> None:
        """A pooled block takes these slot starts whole instead of those it took (the hours changed)."""
        ...

    async def block(self, block_id: UUID) -> GridBlock | None:
        """A grid block (seat blocks are not)."""
        ...

    async def remove_block(self, block: GridBlock) -> None:
        """The block, its allocation and the pooled places it took."""
        ...

    async def blocks(self, unit_id: UUID, start: datetime, end: datetime) -> list[GridBlock]: ...
