"""GraphQL types of seat maps (seed 004): events, sections, rows and seats with their live states."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from domain import errors as de
from domain import seatmaps as ds
from domain.bookings import slot_state
from domain.hold_types import HoldTypeCatalog
from schema.bookings import Booking, BookingPayload
from schema.customers import CustomerInput
from schema.errors import (
    Busy,
    Error,
    IdempotencyInProgress,
    IdempotencyKeyReused,
    InvalidInput,
    InvalidTransition,
    NotFound,
)
from schema.hold_types import SeatState
from schema.ids import Kind, opt_ref, ref
from schema.nodes import Node


@strawberry.type(description="A seat map: numbered seats in sections and rows, each an exclusive resource.")
class SeatMap(Node):
    id: strawberry.ID
    unit_id: strawberry.ID
    name: str
    seat_count: int

    @classmethod
    def from_domain(cls, m: ds.SeatMap) -> SeatMap:
        return cls(id=ref(Kind.SEAT_MAP, m.id), unit_id=ref(Kind.UNIT, m.unit_id), name=m.name,
                   seat_count=len(m.seats))


@strawberry.type(description="A performance of a seat map: its seats are sold for [startsAt, endsAt).")
class SeatEvent(Node):
    id: strawberry.ID
    unit_id: strawberry.ID
    seat_map_id: strawberry.ID
    name: str
    starts_at: datetime
    ends_at: datetime

    @classmethod
    def from_domain(cls, e: ds.SeatEvent) -> SeatEvent:
        return cls(id=ref(Kind.SEAT_EVENT, e.id), unit_id=ref(Kind.UNIT, e.unit_id),
                   seat_map_id=ref(Kind.SEAT_MAP, e.seat_map_id), name=e.name, starts_at=e.starts_at,
                   ends_at=e.ends_at)


@strawberry.type(description="One seat and its state for the event. Its id is its resource id (slotChanged names "
                 "it in slots[].resourceId).")
class Seat:
    id: strawberry.ID
    section: str
    row: str
    label: str
    state: SeatState
    hold_type: str | None
    hold_type_name: str | None
    display_color: str
    hold_expires_at: datetime | None
    booking_id: strawberry.ID | None = strawberry.field(description="The booking that locks or bought it: staff and "
                                                        "integrators with 'read' only.")

    @classmethod
    def from_domain(cls, v: ds.SeatView, catalog: HoldTypeCatalog, show_booking: bool) -> Seat:
        o = v.occupant if v.state in (SeatState.LOCKED, SeatState.SOLD, SeatState.BLOCKED) else None
        slot = ("blocked" if v.state is SeatState.BLOCKED else slot_state(o.status, seat=True) if o else "free")
        hold_type = o.hold_type if o else None
        name, color = catalog.display(slot, hold_type)
        return cls(id=ref(Kind.RESOURCE, v.seat.id), section=v.seat.section, row=v.seat.row, label=v.seat.label,
                   state=v.state, hold_type=hold_type, hold_type_name=name, display_color=color,
                   hold_expires_at=o.hold_expires_at if o and v.state is SeatState.LOCKED else None,
                   booking_id=opt_ref(Kind.BOOKING, o.booking_id) if show_booking and o else None)


@strawberry.type
class SeatRow:
    label: str
    seats: list[Seat]


@strawberry.type
class SeatSection:
    name: str
    rows: list[SeatRow]


@strawberry.type(description="How many seats are in each state.")
class SeatCounts:
    active: int
    locked: int
    sold: int
    blocked: int


@strawberry.type(description="An event's seat map with every seat's state now. Live changes: slotChanged(unitId, "
                 "from: event.startsAt, to: event.endsAt), whose seatState and slots[].resourceId (= seat id) say "
                 "what changed.")
class SeatMapView:
    event: SeatEvent
    seat_map: SeatMap
    sections: list[SeatSection]
    counts: SeatCounts

    @classmethod
    def from_domain(cls, v: ds.SeatMapView, catalog: HoldTypeCatalog, show_booking: bool) -> SeatMapView:
        sections: dict[str, dict[str, list[Seat]]] = {}
        for sv in v.seats:
            sections.setdefault(sv.seat.section, {}).setdefault(sv.seat.row, []).append(
                Seat.from_domain(sv, catalog, show_booking))
        c = v.counts()
        return cls(event=SeatEvent.from_domain(v.event), seat_map=SeatMap.from_domain(v.seat_map),
                   sections=[SeatSection(name=s, rows=[SeatRow(label=r, seats=seats) for r, seats in rows.items()])
                             for s, rows in sections.items()],
                   counts=SeatCounts(active=c[SeatState.ACTIVE], locked=c[SeatState.LOCKED],
                                     sold=c[SeatState.SOLD], blocked=c[SeatState.BLOCKED]))


@strawberry.type(description="A seat and the state it was in.")
class SeatConflict:
    seat_id: strawberry.ID
    label: str
    state: SeatState


@strawberry.type(description="Some seats were not in the state the operation needs; nothing was changed (all or "
                 "nothing). `seats` lists them with their states.")
class SeatsUnavailable(Error):
    seats: list[SeatConflict]

    @classmethod
    def from_domain(cls, e: de.SeatsUnavailable) -> SeatsUnavailable:
        return cls(code=e.code, message=e.message,
                   seats=[SeatConflict(seat_id=ref(Kind.RESOURCE, s.seat_id), label=s.label,
                                       state=SeatState(s.state)) for s in e.seats])


@strawberry.type(description="The bookings a seat operation changed (unlocked, sold, reverted).")
class SeatBookingsPayload:
    bookings: list[Booking]


@strawberry.type(description="How many seats were blocked or unblocked.")
class SeatsChanged:
    seats: int


@strawberry.input
class SeatRowInput:
    label: str
    seats: list[str] = strawberry.field(description="Seat labels in display order, e.g. [\"1\", \"2\", \"3\"].")


@strawberry.input
class SeatSectionInput:
    name: str
    rows: list[SeatRowInput]


@strawberry.input(description="A new seat map: sections of rows of seat labels (at most 5,000 seats).")
class SeatMapInput:
    unit_id: strawberry.ID
    name: str
    sections: list[SeatSectionInput]

    def specs(self) -> list[ds.SectionSpec]:
        return [ds.SectionSpec(s.name, tuple(ds.RowSpec(r.label, tuple(r.seats)) for r in s.rows))
                for s in self.sections]


@strawberry.input(description="Lock seats of an event for a customer with a hold type (CART when omitted); a type "
                  "that skips the locked state sells them at once (box office, staff only).")
class LockSeatsInput:
    event_id: strawberry.ID
    seat_ids: list[strawberry.ID]
    customer: CustomerInput | None = None
    hold_type: str | None = None
    channel: str = "api"


@strawberry.input(description="Sell seats: free ones become one sale (with a hold type valid in SOLD, if given); "
                  "locked ones have their bookings confirmed.")
class SellSeatsInput:
    event_id: strawberry.ID
    seat_ids: list[strawberry.ID]
    customer: CustomerInput | None = None
    hold_type: str | None = None


SeatMapResult = Annotated[SeatMap | InvalidInput | NotFound, strawberry.union("SeatMapResult")]
SeatEventResult = Annotated[SeatEvent | InvalidInput | NotFound, strawberry.union("SeatEventResult")]
SeatMapViewResult = Annotated[SeatMapView | InvalidInput | NotFound, strawberry.union("SeatMapViewResult")]
LockSeatsResult = Annotated[
    BookingPayload | SeatsUnavailable | InvalidInput | NotFound | IdempotencyKeyReused | IdempotencyInProgress
    | Busy, strawberry.union("LockSeatsResult")]
SeatBookingsResult = Annotated[
    SeatBookingsPayload | SeatsUnavailable | InvalidInput | NotFound | InvalidTransition | IdempotencyKeyReused
    | IdempotencyInProgress | Busy, strawberry.union("SeatBookingsResult")]
SeatsChangedResult = Annotated[SeatsChanged | SeatsUnavailable | InvalidInput | NotFound | Busy,
                               strawberry.union("SeatsChangedResult")]
