"""Types streamed by subscriptions: each carries the unit's event sequence number."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

import strawberry

from domain import hold_types as dh
from domain.bookings import seat_state
from domain.events import BookingChanged, QueueItemChanged, SeatsBlockChanged
from domain.hold_types import PLATFORM_CATALOG, HoldTypeCatalog
from schema.availability import SlotState
from schema.bookings import BookingStatus
from schema.hold_types import SeatState
from schema.ids import Kind, opt_ref, ref


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
                                                        "seats.unblocked, resource.blocked, resource.unblocked, "
                                                        "hours.closed, hours.opened).")
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
    def from_event(cls, seq: int, e: BookingChanged | SeatsBlockChanged,
                   catalog: HoldTypeCatalog = PLATFORM_CATALOG) -> SlotChange:
        """A booking's change, or a seat or grid block or an hours change (no booking)."""
        b = e if isinstance(e, BookingChanged) else None
        hold_type = b.hold_type if b else None
        name, color = catalog.display(e.state, hold_type)
        # A seat's state comes from the status (a completed booking's seat stays sold; its grid slot is free).
        seat = seat_state(b.status) if b else dh.SeatState.BLOCKED if e.state == "blocked" else dh.SeatState.ACTIVE
        return cls(
            seq=seq, unit_id=ref(Kind.UNIT, e.unit_id), event=e.name,
            booking_id=ref(Kind.BOOKING, b.booking_id) if b else None,
            status=BookingStatus(b.status) if b else None,
            seat_state=seat,
            old_status=BookingStatus(b.old_status) if b and b.old_status else None,
            state=SlotState(e.state), hold_type=hold_type, hold_type_name=name, display_color=color,
            hold_expires_at=b.hold_expires_at if b else None, at=e.at,
            slots=[SlotRange(resource_id=ref(Kind.RESOURCE, a.resource_id), starts_at=a.starts_at,
                             ends_at=a.ends_at, quantity=a.quantity) for a in e.allocations],
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

    @classmethod
    def from_event(cls, seq: int, unit_id: UUID, e: QueueItemChanged) -> QueueChange:
        return cls(seq=seq, unit_id=ref(Kind.UNIT, unit_id), kind=e.kind, item_id=ref(Kind.QUEUE_ITEM, e.item_id),
                   type=e.type, title=e.title, priority=e.priority, booking_id=opt_ref(Kind.BOOKING, e.booking_id))
