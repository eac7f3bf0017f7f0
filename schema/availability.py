"""The staff grid (slots and their states over a range) and the slots a customer may hold (SPEC §5)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Annotated
from uuid import UUID

import strawberry
from strawberry.scalars import JSON

from domain import availability as av
from domain.hold_types import PLATFORM_CATALOG, HoldTypeCatalog
from schema import docs
from schema.enums import described_enum
from schema.errors import InvalidInput, NotFound
from schema.ids import Kind, opt_ref
from schema.units import Resource
from schema.vocabulary import BookingStatus, Channel

SlotState = av.SlotState  # the domain's enum, registered by strawberry.enum (which returns it unchanged)
described_enum(SlotState, description="What the staff grid shows for a slot (SPEC §5).", values={
    "FREE": "Open and free (a pooled resource: at least one place left).",
    "HELD": "Held or awaiting payment (\"Hold do bot\").",
    "VERIFYING": "The customer says they paid: frozen while staff check.",
    "BOOKED": "Confirmed or checked in (a pooled resource: no place left).",
    "BLOCKED": "Out of sale: a block (maintenance, a broken seat).",
    "CLOSED": "Outside the opening hours (or a closed day).",
    "PAST": "Open and free, but it has already begun: it can no longer be booked (the staff grid only).",
})


@strawberry.type(description="A run of consecutive slots of one resource in the same state.")
class GridSegment:
    starts_at: datetime = strawberry.field(description="Start of the run's first slot.")
    ends_at: datetime = strawberry.field(description="End of the run's last slot (exclusive).")
    state: SlotState = strawberry.field(description="What the run's slots show.")
    slots: int = strawberry.field(description="How many grid slots the run covers.")
    available: int = strawberry.field(description="Places left (pooled resources); 0 or 1 for exclusive.")
    booking_id: strawberry.ID | None = strawberry.field(description="The booking occupying it, for staff; null when "
                                                        "free, closed or a block.")
    status: BookingStatus | None = strawberry.field(description="That booking's status; null without one.")
    hold_type: str | None = strawberry.field(description=docs.HOLD_TYPE)
    hold_type_name: str | None = strawberry.field(description="Display name of the hold type, e.g. Hold do bot.")
    hold_expires_at: datetime | None = strawberry.field(description=docs.HOLD_EXPIRES_AT)
    display_color: str = strawberry.field(description=docs.DISPLAY_COLOR)
    channel: Channel | None = strawberry.field(default=None, description=(
        "Where the hold came from (the booking's channel: WHATSAPP, WEB, COUNTER...), so a grid can name a "
        "default-type hold by its origin without reading each booking; null unless the run is a hold (HELD or "
        "VERIFYING)."))
    series_id: strawberry.ID | None = strawberry.field(default=None, description="The series (recurring booking) "
                                                       "that booking is an occurrence of, for staff (series(id)); "
                                                       "null for a single booking or none.")

    @classmethod
    def from_domain(cls, s: av.Segment, catalog: HoldTypeCatalog = PLATFORM_CATALOG,
                    series: Mapping[UUID, UUID] | None = None) -> GridSegment:
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
            channel=Channel(o.channel) if o and o.channel else None,
            series_id=opt_ref(Kind.SERIES, (series or {}).get(o.booking_id)) if o and o.booking_id else None,
        )


@strawberry.type(description="One opening window of a resource in compact form, for month views: one letter "
                  "per grid slot — F free, H held, V verifying, B booked, X blocked, C closed (a closed day), P past.")
class GridWindow:
    starts_at: datetime = strawberry.field(description="Start of the window's first slot.")
    ends_at: datetime = strawberry.field(description="End of the window's last slot (exclusive).")
    states: str = strawberry.field(description="One letter per slot, in order (F, H, V, B, X, C, P as above).")


@strawberry.type(description="One resource's row of the grid.")
class GridRow:
    resource: Resource = strawberry.field(description="The row's resource.")
    rows: strawberry.Private[list[av.WindowRow]]
    hold_types: strawberry.Private[HoldTypeCatalog] = PLATFORM_CATALOG
    series: strawberry.Private[Mapping[UUID, UUID] | None] = None
    """booking id → series id of the row's occurrences of series (None: not read)."""

    @strawberry.field(description="Runs of consecutive slots in the same state, with the booking, its series and "
                      "hold type.")
    def segments(self) -> list[GridSegment]:
        return [GridSegment.from_domain(s, self.hold_types, self.series) for s in av.segments(self.rows)]

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
    unit_id: strawberry.ID = strawberry.field(description=docs.UNIT_ID)
    starts_at: datetime = strawberry.field(description="Start of the range asked for (inclusive).")
    ends_at: datetime = strawberry.field(description="End of the range asked for (exclusive).")
    slot_minutes: int = strawberry.field(description="The length of one grid slot, in minutes.")
    rows: list[GridRow] = strawberry.field(description="One row per resource, in the unit's order.")
    seq: int = strawberry.field(description="The unit's event sequence number this grid reflects: every change up "
                                "to it is in the grid. Subscribe to slotChanged with since: seq to follow it with "
                                "nothing missed between the read and the subscription (its first events may be "
                                "in the grid already: applying them again changes nothing).")

    @strawberry.field(description="The whole grid as one JSON value, for month views: {slotMinutes, rows: "
                      "[{resourceId, name, windows: [[firstSlotStart, states], ...]}]} where states has one letter "
                      "per slot (F free, H held, V verifying, B booked, X blocked, C closed, P past). One value "
                      "instead of thousands of fields: a 50-resource month is cheap this way.")
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
    resource_id: strawberry.ID = strawberry.field(description="The resource to hold it on.")
    starts_at: datetime = strawberry.field(description="Start of the slot (inclusive): pass it to hold as is.")
    ends_at: datetime = strawberry.field(description="End of the slot (exclusive): `slots` grid slots after the start.")


@strawberry.type(description="Free slots a customer may hold (SPEC §5).")
class BookableSlots:
    unit_id: strawberry.ID = strawberry.field(description=docs.UNIT_ID)
    slots: list[BookableSlot] = strawberry.field(description="The free slots, earliest first.")


GridResult = Annotated[Grid | NotFound | InvalidInput, strawberry.union(
    "GridResult", description=(
    "What availabilityGrid answers: Grid, or the refusal (an Error) that stopped it."))]
BookableSlotsResult = Annotated[BookableSlots | NotFound | InvalidInput, strawberry.union(
    "BookableSlotsResult", description=(
    "What bookableSlots answers: BookableSlots, or the refusal (an Error) that stopped it."))]
