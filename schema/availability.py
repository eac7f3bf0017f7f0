"""The staff grid (slots and their states over a range) and the slots a customer may hold (SPEC §5)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry
from strawberry.scalars import JSON

from domain import availability as av
from domain.hold_types import PLATFORM_CATALOG, HoldTypeCatalog
from schema.bookings import BookingStatus
from schema.errors import InvalidInput, NotFound
from schema.ids import Kind, opt_ref
from schema.units import Resource

SlotState = av.SlotState  # the domain's enum, registered by strawberry.enum (which returns it unchanged)
strawberry.enum(SlotState, description="What the staff grid shows for a slot (SPEC §5).")


@strawberry.type(description="A run of consecutive slots of one resource in the same state.")
class GridSegment:
    starts_at: datetime
    ends_at: datetime
    state: SlotState
    slots: int = strawberry.field(description="How many grid slots the run covers.")
    available: int = strawberry.field(description="Places left (pooled resources); 0 or 1 for exclusive.")
    booking_id: strawberry.ID | None
    status: BookingStatus | None
    hold_type: str | None
    hold_type_name: str | None = strawberry.field(description="Display name of the hold type, e.g. Hold do bot.")
    hold_expires_at: datetime | None
    display_color: str

    @classmethod
    def from_domain(cls, s: av.Segment, catalog: HoldTypeCatalog = PLATFORM_CATALOG) -> GridSegment:
        o = s.occupancy
        hold_type = o.hold_type if o else None
        name, color = catalog.display(s.state.value, hold_type)
        return cls(
            starts_at=s.starts_at, ends_at=s.ends_at, state=SlotState(s.state.value), slots=s.slots,
            available=s.available,
            booking_id=opt_ref(Kind.BOOKING, o.booking_id) if o else None,
            status=BookingStatus(o.status.value) if o and o.status else None,
            hold_type=hold_type, hold_type_name=name,
            hold_expires_at=o.hold_expires_at if o else None,
            display_color=color,
        )


@strawberry.type(description="One opening window of a resource in compact form, for month views: one letter "
                  "per grid slot — F free, H held, V verifying, B booked, X blocked, C closed (a closed day).")
class GridWindow:
    starts_at: datetime
    ends_at: datetime
    states: str


@strawberry.type(description="One resource's row of the grid.")
class GridRow:
    resource: Resource
    rows: strawberry.Private[list[av.WindowRow]]
    hold_types: strawberry.Private[HoldTypeCatalog] = PLATFORM_CATALOG

    @strawberry.field(description="Runs of consecutive slots in the same state, with the booking and hold type.")
    def segments(self) -> list[GridSegment]:
        return [GridSegment.from_domain(s, self.hold_types) for s in av.segments(self.rows)]

    @strawberry.field(description="The same slots as one string per opening window.")
    def windows(self) -> list[GridWindow]:
        return [GridWindow(starts_at=r.first, ends_at=r.start(len(r)), states=r.codes.decode()) for r in self.rows]

    @strawberry.field(description="Compact form for long ranges (month views): the start of each opening "
                      "window's first slot; pairs with windowStates.")
    def window_starts(self) -> list[datetime]:
        return [r.first for r in self.rows]

    @strawberry.field(description="Compact form for long ranges: per opening window, one letter per slot (F free, "
                      "H held, V verifying, B booked, X blocked, C closed); slot i of window w starts at "
                      "windowStarts[w] + i × slotMinutes.")
    def window_states(self) -> list[str]:
        return [r.codes.decode() for r in self.rows]


@strawberry.type(description="The staff grid of a unit over a range (SPEC §5).")
class Grid:
    unit_id: strawberry.ID
    starts_at: datetime
    ends_at: datetime
    slot_minutes: int
    rows: list[GridRow]

    @strawberry.field(description="The whole grid as one JSON value, for month views: {slotMinutes, rows: "
                      "[{resourceId, name, windows: [[firstSlotStart, states], ...]}]} where states has one letter "
                      "per slot (F free, H held, V verifying, B booked, X blocked, C closed). One value instead of "
                      "thousands of fields: a 50-resource month is cheap this way.")
    def compact(self) -> JSON:
        iso: dict[datetime, str] = {}  # resources sharing hours share their windows' starts: format each once
        rows = []
        for row in self.rows:
            windows = []
            for w in row.rows:
                first = iso.get(w.first)
                if first is None:
                    first = iso[w.first] = w.first.isoformat()
                windows.append([first, w.codes.decode()])
            rows.append({"resourceId": str(row.resource.id), "name": row.resource.name, "windows": windows})
        return JSON({"slotMinutes": self.slot_minutes, "rows": rows})


@strawberry.type(description="A slot a customer may hold now.")
class BookableSlot:
    resource_id: strawberry.ID
    starts_at: datetime
    ends_at: datetime


@strawberry.type(description="Free slots a customer may hold (SPEC §5).")
class BookableSlots:
    unit_id: strawberry.ID
    slots: list[BookableSlot]


GridResult = Annotated[Grid | NotFound | InvalidInput, strawberry.union("GridResult")]
BookableSlotsResult = Annotated[BookableSlots | NotFound | InvalidInput, strawberry.union("BookableSlotsResult")]
