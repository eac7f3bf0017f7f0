"""The venue's layout as owners and managers change it (issue 18): resources with groups and order, weekly hours,
closed days and special hours, grid blocks; and the refusal that lists the live bookings in the way."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated

import strawberry

from domain.layout import errors as le
from domain.layout.hours import hhmm
from domain.layout.ports import GridBlock as DomainBlock
from domain.layout.ports import GroupRow, ResourceRow
from domain.units import HoursException as DomainException
from domain.units import OpeningWindow
from schema import docs
from schema.errors import Busy, Error, InvalidInput, NotFound
from schema.ids import Kind, opt_ref, ref, refs
from schema.nodes import Node
from schema.units import ResourceKind
from schema.vocabulary import Weekday


@strawberry.type(description="Refused because live bookings (held, pending payment, verifying, confirmed, checked "
                 "in) stand in the way: cancel or move them first. Code bookings_in_the_way.")
class BookingsInTheWay(Error):
    field: str = strawberry.field(description="The argument refused.")
    booking_ids: list[strawberry.ID] = strawberry.field(description="The bookings in the way (at most 50).")
    count: int = strawberry.field(description="How many bookings are in the way in all.")
    at: datetime | None = strawberry.field(description="A capacity change: the busiest slot's start.")

    @classmethod
    def from_domain(cls, e: le.BookingsInTheWay) -> BookingsInTheWay:
        return cls(code=e.code, message=e.message, field=e.field,
                   booking_ids=refs(Kind.BOOKING, e.booking_ids), count=e.count, at=e.at)


@strawberry.type(description="Open from `opens` to `closes` (local time, HH:MM; closes may be 24:00).")
class TimeWindow:
    opens: str = strawberry.field(description="Opening time: " + docs.CLOCK)
    closes: str = strawberry.field(description="Closing time, after the opening: " + docs.CLOCK)


@strawberry.type(description="Open on `weekday` from `opens` to `closes` (local time, HH:MM).")
class WeeklyWindow:
    weekday: Weekday = strawberry.field(description="The day of the week.")
    opens: str = strawberry.field(description="Opening time: " + docs.CLOCK)
    closes: str = strawberry.field(description="Closing time, after the opening: " + docs.CLOCK)

    @classmethod
    def from_domain(cls, w: OpeningWindow) -> WeeklyWindow:
        return cls(weekday=Weekday(w.weekday), opens=hhmm(w.opens), closes=hhmm(w.closes))


@strawberry.input(description="A weekly window: local time HH:MM, opens before closes (24:00 is midnight); it must "
                  "hold whole slots of the unit's grid, and not overlap another window of the same weekday.")
class WeeklyWindowInput:
    weekday: Weekday = strawberry.field(description="The day of the week.")
    opens: str = strawberry.field(description="Opening time: " + docs.CLOCK)
    closes: str = strawberry.field(description="Closing time, after the opening: " + docs.CLOCK)


@strawberry.input(description="A window of one date: local time HH:MM, opens before closes (24:00 is midnight).")
class TimeWindowInput:
    opens: str = strawberry.field(description="Opening time: " + docs.CLOCK)
    closes: str = strawberry.field(description="Closing time, after the opening: " + docs.CLOCK)


@strawberry.type(description="A resource of the grid as its owner manages it.")
class VenueResource:
    id: strawberry.ID = strawberry.field(description=docs.ID)
    unit_id: strawberry.ID = strawberry.field(description=docs.UNIT_ID)
    name: str = strawberry.field(description="Its name, unique in the unit.")
    kind: ResourceKind = strawberry.field(description="EXCLUSIVE or POOLED.")
    capacity: int = strawberry.field(description="Places at a time: 1 for EXCLUSIVE.")
    group_id: strawberry.ID | None = strawberry.field(description="Its group; null when none.")
    group_name: str | None = strawberry.field(description="Its group's name; null when none.")
    sort: int = strawberry.field(description="Its place in the unit's order (lower first).")
    active: bool = strawberry.field(description="Inactive resources are off the grid and not for sale.")
    opening_hours: list[WeeklyWindow] = strawberry.field(description="Its own weekly hours; [] means the unit's.")

    @classmethod
    def from_domain(cls, r: ResourceRow) -> VenueResource:
        return cls(id=ref(Kind.RESOURCE, r.id), unit_id=ref(Kind.UNIT, r.unit_id), name=r.name,
                   kind=ResourceKind(r.kind.value), capacity=r.capacity,
                   group_id=opt_ref(Kind.RESOURCE_GROUP, r.group_id), group_name=r.group_name,
                   sort=r.sort, active=r.active, opening_hours=[WeeklyWindow.from_domain(w) for w in r.hours])


@strawberry.type(description="The unit's resources in their new order.")
class ResourceOrder:
    resources: list[VenueResource] = strawberry.field(description="Every resource of the unit, in the new order.")


@strawberry.type(description="A group of resources, shown together on the grid.")
class ResourceGroup(Node):
    id: strawberry.ID = strawberry.field(description=docs.ID)
    unit_id: strawberry.ID = strawberry.field(description=docs.UNIT_ID)
    name: str = strawberry.field(description="Its name, unique in the unit.")
    sort: int = strawberry.field(description="Its place among the unit's groups (lower first).")

    @classmethod
    def from_domain(cls, g: GroupRow) -> ResourceGroup:
        return cls(id=ref(Kind.RESOURCE_GROUP, g.id), unit_id=ref(Kind.UNIT, g.unit_id), name=g.name, sort=g.sort)


@strawberry.input(description="A group by id, or by name (made when the unit has no group of that name).")
class ResourceGroupInput:
    id: strawberry.ID | None = strawberry.field(default=None, description="An existing group of the unit.")
    name: str | None = strawberry.field(default=None, description="A group's name: the unit's group of that name, or "
                                        "a new one.")


@strawberry.input(description="A new resource: EXCLUSIVE (one booking at a time) or POOLED (capacity places).")
class CreateResourceInput:
    name: str = strawberry.field(description="Its name, unique in the unit.")
    kind: ResourceKind = strawberry.field(description="EXCLUSIVE or POOLED.")
    capacity: int | None = strawberry.field(default=None, description="POOLED only (1 to 10000).")
    group: ResourceGroupInput | None = strawberry.field(default=None, description="Its group; omitted: none.")
    sort: int | None = strawberry.field(default=None, description="Default: after the others.")


@strawberry.input(description="What changes of a resource; leave out what stays.")
class UpdateResourceInput:
    name: str | None = strawberry.field(default=None, description="A new name, unique in the unit.")
    group: ResourceGroupInput | None = strawberry.field(default=None, description="A group to move it to.")
    ungroup: bool = strawberry.field(default=False, description="Take it out of its group.")
    sort: int | None = strawberry.field(default=None, description="Its new place in the unit's order.")
    capacity: int | None = strawberry.field(default=None, description="POOLED only; never below what live "
                                            "bookings use at any future slot.")


@strawberry.type(description="The weekly hours of a unit, or of one resource ([]: the resource follows the unit).")
class OpeningHours:
    unit_id: strawberry.ID = strawberry.field(description=docs.UNIT_ID)
    resource_id: strawberry.ID | None = strawberry.field(description="The resource; null for the unit's own hours.")
    windows: list[WeeklyWindow] = strawberry.field(description="The weekly windows, by weekday and time.")


@strawberry.type(description="A dated exception to the weekly hours: a closed day (no windows) or special hours, "
                 "unit-wide (resourceId null) or for one resource. A resource's own exception wins over the unit's.")
class HoursException(Node):
    id: strawberry.ID = strawberry.field(description=docs.ID)
    date: date = strawberry.field(description="The local date (the unit's time zone).")
    resource_id: strawberry.ID | None = strawberry.field(description="The resource; null: unit-wide.")
    closed: bool = strawberry.field(description="A closed day (no windows).")
    windows: list[TimeWindow] = strawberry.field(description="Special hours: the only windows open that date; empty "
                                                 "when closed.")
    reason: str = strawberry.field(description="Why (e.g. a holiday); may be empty.")

    @classmethod
    def from_domain(cls, e: DomainException) -> HoursException:
        return cls(id=ref(Kind.HOURS_EXCEPTION, e.id), date=e.day,
                   resource_id=opt_ref(Kind.RESOURCE, e.resource_id), closed=e.closed,
                   windows=[TimeWindow(opens=hhmm(o), closes=hhmm(c)) for o, c in e.windows], reason=e.reason)


@strawberry.type(description="A resource out of sale over [from, to): BLOCKED on the grid, not bookable.")
class GridBlock(Node):
    id: strawberry.ID = strawberry.field(description=docs.ID)
    unit_id: strawberry.ID = strawberry.field(description=docs.UNIT_ID)
    resource_id: strawberry.ID = strawberry.field(description="The resource taken out of sale.")
    from_: datetime = strawberry.field(name="from", description=docs.FROM)
    to: datetime = strawberry.field(description=docs.TO)
    reason: str = strawberry.field(description="Why (maintenance, a tournament...); may be empty.")
    created_by: str = strawberry.field(description="The session that made it.")
    created_at: datetime = strawberry.field(description=docs.CREATED_AT)

    @classmethod
    def from_domain(cls, b: DomainBlock) -> GridBlock:
        return cls(id=ref(Kind.GRID_BLOCK, b.id), unit_id=ref(Kind.UNIT, b.unit_id),
                   resource_id=ref(Kind.RESOURCE, b.resource_id), from_=b.starts_at, to=b.ends_at, reason=b.reason,
                   created_by=b.created_by, created_at=b.created_at)


ResourceResult = Annotated[VenueResource | InvalidInput | NotFound | BookingsInTheWay | Busy,
                           strawberry.union(
                               "ResourceResult", description=(
                               "What createResource, updateResource, deactivateResource and reactivateResource answer:"
                               " VenueResource, or the refusal (an Error) that stopped it."))]
ResourceOrderResult = Annotated[ResourceOrder | InvalidInput | NotFound, strawberry.union(
    "ResourceOrderResult", description=(
    "What reorderResources answers: ResourceOrder, or the refusal (an Error) that stopped it."))]
ResourceGroupResult = Annotated[ResourceGroup | InvalidInput | NotFound, strawberry.union(
    "ResourceGroupResult", description=(
    "What createResourceGroup and renameResourceGroup answer: ResourceGroup, or the refusal (an Error) that stopped "
    "it."))]
OpeningHoursResult = Annotated[OpeningHours | InvalidInput | NotFound | BookingsInTheWay | Busy,
                               strawberry.union(
                                   "OpeningHoursResult", description=(
                                   "What setOpeningHours answers: OpeningHours, or the refusal (an Error) that stopped"
                                   " it."))]
HoursExceptionResult = Annotated[HoursException | InvalidInput | NotFound | BookingsInTheWay | Busy,
                                 strawberry.union(
                                     "HoursExceptionResult", description=(
                                     "What addClosedDay, setSpecialHours and removeHoursException answer: "
                                     "HoursException, or the refusal (an Error) that stopped it."))]
GridBlockResult = Annotated[GridBlock | InvalidInput | NotFound | BookingsInTheWay | Busy,
                            strawberry.union(
                                "GridBlockResult", description=(
                                "What blockResource and unblockResource answer: GridBlock, or the refusal (an Error) "
                                "that stopped it."))]
