"""Types streamed by subscriptions: each carries the unit's event sequence number."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import strawberry

from domain import hold_types as dh
from domain.hold_types import PLATFORM_CATALOG, HoldTypeCatalog
from schema.hold_types import SeatState
from schema.types import BookingStatus, SlotState

SEAT_STATES = {"free": dh.SeatState.ACTIVE, "held": dh.SeatState.LOCKED, "verifying": dh.SeatState.LOCKED,
               "booked": dh.SeatState.SOLD, "blocked": dh.SeatState.BLOCKED, "closed": dh.SeatState.BLOCKED}


@strawberry.type(description="One resource's range touched by a change.")
class SlotRange:
    resource_id: strawberry.ID
    starts_at: datetime
    ends_at: datetime
    quantity: int


@strawberry.type(description="A change of state of slots: a booking was held, confirmed, expired, cancelled...")
class SlotChange:
    seq: int = strawberry.field(description="The unit's event sequence number: reconnect with since: seq.")
    unit_id: strawberry.ID
    event: str = strawberry.field(description="booking.held, booking.confirmed, booking.expired, ...")
    booking_id: strawberry.ID | None = strawberry.field(description="The booking; null for a block (seats.blocked, "
                                                        "seats.unblocked).")
    status: BookingStatus | None
    old_status: BookingStatus | None
    state: SlotState = strawberry.field(description="What the grid shows now for these slots.")
    seat_state: SeatState = strawberry.field(description="The same as a seat map shows it (seed 004).")
    hold_type: str | None
    hold_type_name: str | None
    display_color: str
    hold_expires_at: datetime | None
    at: datetime
    slots: list[SlotRange]
    shared_event: strawberry.Private[bool] = True
    """One object per event, shared by every subscriber (see slothold/executor.py)."""

    @classmethod
    def from_payload(cls, seq: int, p: dict[str, Any], catalog: HoldTypeCatalog = PLATFORM_CATALOG) -> SlotChange:
        name, color = catalog.display(p["state"], p.get("hold_type"))
        return cls(
            seq=seq, unit_id=strawberry.ID(p["unit_id"]), event=p["event"],
            booking_id=strawberry.ID(p["booking_id"]) if p.get("booking_id") else None,
            status=BookingStatus(p["status"]) if p.get("status") else None, seat_state=SEAT_STATES[p["state"]],
            old_status=BookingStatus(p["old_status"]) if p.get("old_status") else None,
            state=SlotState(p["state"]), hold_type=p.get("hold_type"), hold_type_name=name, display_color=color,
            hold_expires_at=datetime.fromisoformat(p["hold_expires_at"]) if p.get("hold_expires_at") else None,
            at=datetime.fromisoformat(p["at"]),
            slots=[SlotRange(resource_id=strawberry.ID(a["resource_id"]),
                             starts_at=datetime.fromisoformat(a["starts_at"]),
                             ends_at=datetime.fromisoformat(a["ends_at"]), quantity=a["quantity"])
                   for a in p["allocations"]],
        )


@strawberry.type(description="A change in a unit's staff queue: an item opened, acknowledged or resolved.")
class QueueChange:
    seq: int
    unit_id: strawberry.ID
    kind: str = strawberry.field(description="opened, acknowledged or resolved")
    item_id: strawberry.ID | None
    type: str | None
    title: str | None
    priority: str | None
    booking_id: strawberry.ID | None
