"""GraphQL types of seat maps (seed 004): events, sections, rows and seats with their live states."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from domain import errors as de
from domain import seatmaps as ds
from domain.bookings import slot_state
from domain.hold_types import HoldTypeCatalog
from schema import docs
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
from schema.vocabulary import Channel


@strawberry.type(description="A seat map: numbered seats in sections and rows, each an exclusive resource.")
class SeatMap(Node):
    id: strawberry.ID = strawberry.field(description=docs.ID)
    unit_id: strawberry.ID = strawberry.field(description=docs.UNIT_ID)
    name: str = strawberry.field(description=docs.NAME)
    seat_count: int = strawberry.field(description="How many seats it has.")

    @classmethod
    def from_domain(cls, m: ds.SeatMap) -> SeatMap:
        return cls(id=ref(Kind.SEAT_MAP, m.id), unit_id=ref(Kind.UNIT, m.unit_id), name=m.name,
                   seat_count=len(m.seats))


@strawberry.type(description="A performance of a seat map: its seats are sold for [startsAt, endsAt).")
class SeatEvent(Node):
    id: strawberry.ID = strawberry.field(description=docs.ID)
    unit_id: strawberry.ID = strawberry.field(description=docs.UNIT_ID)
    seat_map_id: strawberry.ID = strawberry.field(description="Its seat map.")
    name: str = strawberry.field(description=docs.NAME)
    starts_at: datetime = strawberry.field(description="When the performance starts (inclusive).")
    ends_at: datetime = strawberry.field(description="When it ends (exclusive): its seats are sold for [startsAt, "
                                         "endsAt).")

    @classmethod
    def from_domain(cls, e: ds.SeatEvent) -> SeatEvent:
        return cls(id=ref(Kind.SEAT_EVENT, e.id), unit_id=ref(Kind.UNIT, e.unit_id),
                   seat_map_id=ref(Kind.SEAT_MAP, e.seat_map_id), name=e.name, starts_at=e.starts_at,
                   ends_at=e.ends_at)


@strawberry.type(description="One seat and its state for the event. Its id is its resource id (slotChanged names "
                 "it in slots[].resourceId).")
class Seat:
    id: strawberry.ID = strawberry.field(description="Its id: the seat's resource id.")
    section: str = strawberry.field(description="Its section's name.")
    row: str = strawberry.field(description="Its row's label.")
    label: str = strawberry.field(description="Its label in the row (e.g. 12).")
    state: SeatState = strawberry.field(description="Its state for the event now.")
    hold_type: str | None = strawberry.field(description=docs.HOLD_TYPE)
    hold_type_name: str | None = strawberry.field(description=docs.HOLD_TYPE_NAME)
    display_color: str = strawberry.field(description=docs.DISPLAY_COLOR)
    hold_expires_at: datetime | None = strawberry.field(description="While LOCKED: the hold's deadline; null "
                                                        "otherwise.")
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


@strawberry.type(description="A row of a section, its seats in display order.")
class SeatRow:
    label: str = strawberry.field(description="The row's label (e.g. A).")
    seats: list[Seat] = strawberry.field(description="Its seats, in display order.")


@strawberry.type(description="A section of a seat map, its rows in display order.")
class SeatSection:
    name: str = strawberry.field(description="The section's name (e.g. Plateia).")
    rows: list[SeatRow] = strawberry.field(description="Its rows, in display order.")


@strawberry.type(description="How many seats are in each state.")
class SeatCounts:
    active: int = strawberry.field(description="Seats free (ACTIVE).")
    locked: int = strawberry.field(description="Seats held (LOCKED).")
    sold: int = strawberry.field(description="Seats sold (SOLD).")
    blocked: int = strawberry.field(description="Seats out of sale (BLOCKED).")


@strawberry.type(description="An event's seat map with every seat's state now. Live changes: slotChanged(unitId, "
                 "from: event.startsAt, to: event.endsAt), whose seatState and slots[].resourceId (= seat id) say "
                 "what changed.")
class SeatMapView:
    event: SeatEvent = strawberry.field(description="The event.")
    seat_map: SeatMap = strawberry.field(description="Its seat map.")
    sections: list[SeatSection] = strawberry.field(description="The sections, rows and seats, in display order.")
    counts: SeatCounts = strawberry.field(description="How many seats are in each state.")
    seq: int = strawberry.field(description="The unit's event sequence number this view reflects: every change up "
                                "to it is in the view. Subscribe to slotChanged with since: seq to follow it with "
                                "nothing missed between the read and the subscription (its first events may be "
                                "in the view already).")

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
                                     sold=c[SeatState.SOLD], blocked=c[SeatState.BLOCKED]), seq=v.seq)


@strawberry.type(description="A seat and the state it was in.")
class SeatConflict:
    seat_id: strawberry.ID = strawberry.field(description="The seat.")
    label: str = strawberry.field(description="Its label.")
    state: SeatState = strawberry.field(description="The state it was in.")


@strawberry.type(description="Some seats were not in the state the operation needs; nothing was changed (all or "
                 "nothing). `seats` lists them with their states.")
class SeatsUnavailable(Error):
    seats: list[SeatConflict] = strawberry.field(description="The seats not in the state needed, with their states.")

    @classmethod
    def from_domain(cls, e: de.SeatsUnavailable) -> SeatsUnavailable:
        return cls(code=e.code, message=e.message,
                   seats=[SeatConflict(seat_id=ref(Kind.RESOURCE, s.seat_id), label=s.label,
                                       state=SeatState(s.state)) for s in e.seats])


@strawberry.type(description="The bookings a seat operation changed (unlocked, sold, reverted).")
class SeatBookingsPayload:
    bookings: list[Booking] = strawberry.field(description="The bookings changed, as they are now.")


@strawberry.type(description="How many seats were blocked or unblocked.")
class SeatsChanged:
    seats: int = strawberry.field(description="How many seats changed.")


@strawberry.input(description="A row of a new seat map: its label and seat labels.")
class SeatRowInput:
    label: str = strawberry.field(description="The row's label (e.g. A), unique in its section.")
    seats: list[str] = strawberry.field(description="Seat labels in display order, e.g. [\"1\", \"2\", \"3\"].")


@strawberry.input(description="A section of a new seat map: its name and rows.")
class SeatSectionInput:
    name: str = strawberry.field(description="The section's name, unique in the map.")
    rows: list[SeatRowInput] = strawberry.field(description="Its rows, in display order (at least one).")


@strawberry.input(description="A new seat map: sections of rows of seat labels (at most 5,000 seats).")
class SeatMapInput:
    unit_id: strawberry.ID = strawberry.field(description="The unit (venue).")
    name: str = strawberry.field(description="The map's name.")
    sections: list[SeatSectionInput] = strawberry.field(description="Its sections, in display order (at least one).")

    def specs(self) -> list[ds.SectionSpec]:
        return [ds.SectionSpec(s.name, tuple(ds.RowSpec(r.label, tuple(r.seats)) for r in s.rows))
                for s in self.sections]


@strawberry.input(description="Lock seats of an event for a customer with a hold type (CART when omitted); a type "
                  "that skips the locked state sells them at once (box office, staff only).")
class LockSeatsInput:
    event_id: strawberry.ID = strawberry.field(description="The seat event.")
    seat_ids: list[strawberry.ID] = strawberry.field(description="The seats to lock, all free (all or nothing).")
    customer: CustomerInput | None = strawberry.field(default=None, description=docs.CUSTOMER)
    hold_type: str | None = strawberry.field(default=None, description="The hold type; omitted: CART.")
    channel: Channel = strawberry.field(default=Channel.API, description=docs.CHANNEL)


@strawberry.input(description="Lock the best free seats of an event (best available): the first in the map's display "
                  "order, side by side in one row unless `together` is false; of a section or a row when given. "
                  "Chosen and locked in one transaction: two buyers never get the same seats.")
class LockBestSeatsInput:
    event_id: strawberry.ID = strawberry.field(description="The seat event.")
    count: int = strawberry.field(description="How many seats (1 to 20).")
    section: str | None = strawberry.field(default=None, description="Only seats of this section (its name); "
                                           "omitted: any section.")
    row: str | None = strawberry.field(default=None, description="Only seats of rows with this label (in the "
                                       "section, if given); omitted: any row.")
    together: bool = strawberry.field(default=True, description="Side by side in one row (default); false: the "
                                      "best free seats wherever they are.")
    customer: CustomerInput | None = strawberry.field(default=None, description=docs.CUSTOMER)
    hold_type: str | None = strawberry.field(default=None, description="The hold type; omitted: CART.")
    channel: Channel = strawberry.field(default=Channel.API, description=docs.CHANNEL)


@strawberry.input(description="Sell seats: free ones become one sale (with a hold type valid in SOLD, if given); "
                  "locked ones have their bookings confirmed.")
class SellSeatsInput:
    event_id: strawberry.ID = strawberry.field(description="The seat event.")
    seat_ids: list[strawberry.ID] = strawberry.field(description="The seats to sell: all free, or all locked (whole "
                                                     "bookings).")
    customer: CustomerInput | None = strawberry.field(default=None, description="Who the sale of free seats is for; "
                                                      "optional.")
    hold_type: str | None = strawberry.field(default=None, description="For free seats: a hold type valid in SOLD; "
                                             "omitted: none.")


SeatMapResult = Annotated[SeatMap | InvalidInput | NotFound, strawberry.union(
    "SeatMapResult", description=(
    "What createSeatMap answers: SeatMap, or the refusal (an Error) that stopped it."))]
SeatEventResult = Annotated[SeatEvent | InvalidInput | NotFound, strawberry.union(
    "SeatEventResult", description=(
    "What createSeatEvent answers: SeatEvent, or the refusal (an Error) that stopped it."))]
SeatMapViewResult = Annotated[SeatMapView | InvalidInput | NotFound, strawberry.union(
    "SeatMapViewResult", description=(
    "What seatMap answers: SeatMapView, or the refusal (an Error) that stopped it."))]
LockSeatsResult = Annotated[
    BookingPayload | SeatsUnavailable | InvalidInput | NotFound | IdempotencyKeyReused | IdempotencyInProgress
    | Busy, strawberry.union(
        "LockSeatsResult", description=(
        "What lockSeats and lockBestSeats answer: BookingPayload, or the refusal (an Error) that stopped it."))]
SeatBookingsResult = Annotated[
    SeatBookingsPayload | SeatsUnavailable | InvalidInput | NotFound | InvalidTransition | IdempotencyKeyReused
    | IdempotencyInProgress | Busy, strawberry.union(
        "SeatBookingsResult", description=(
        "What sellSeats, unlockSeats and revertSeatSale answer: SeatBookingsPayload, or the refusal (an Error) that "
        "stopped it."))]
SeatsChangedResult = Annotated[SeatsChanged | SeatsUnavailable | InvalidInput | NotFound | Busy,
                               strawberry.union(
                                   "SeatsChangedResult", description=(
                                   "What blockSeats and unblockSeats answer: SeatsChanged, or the refusal (an Error) "
                                   "that stopped it."))]
