"""Types streamed by subscriptions: each carries the unit's event sequence number."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

import strawberry

from domain import hold_types as dh
from domain.bookings import seat_state
from domain.events import BookingChanged, QueueItemChanged, SeatsBlockChanged, SlotEvent
from domain.hold_types import PLATFORM_CATALOG, HoldTypeCatalog
from schema import docs
from schema.availability import SlotState
from schema.enums import described_enum
from schema.hold_types import SeatState
from schema.ids import Kind, opt_ref, ref
from schema.queue import QueueChangeKind, QueueItemType, QueuePriority
from schema.vocabulary import BookingStatus

described_enum(SlotEvent, description="What a slot change reports: a booking reaching a status, or slots without a "
               "booking blocked or opened again.", values={
    "BOOKING_HELD": "A booking was held (created as a hold, or a hold moved here).",
    "BOOKING_PENDING_PAYMENT": "A booking was accepted and waits for its Pix.",
    "BOOKING_VERIFYING": "The customer says they paid: the slot is frozen while staff check.",
    "BOOKING_CONFIRMED": "A booking was confirmed (accepted with nothing due, paid, or born confirmed).",
    "BOOKING_CHECKED_IN": "The customer arrived.",
    "BOOKING_COMPLETED": "The booking was completed.",
    "BOOKING_CANCELLED": "A booking was cancelled (or dropped, swapped, rescheduled away): its slots are free.",
    "BOOKING_NO_SHOW": "The customer did not come: the slots are free.",
    "BOOKING_EXPIRED": "A hold's or payment's deadline passed: the slots are free.",
    "SEATS_BLOCKED": "Seats of an event were blocked.",
    "SEATS_UNBLOCKED": "Seats of an event were unblocked.",
    "RESOURCE_BLOCKED": "A grid resource was taken out of sale over a range (blockResource).",
    "RESOURCE_UNBLOCKED": "A grid block was removed.",
    "HOURS_CLOSED": "Opening hours closed ranges (a closed day, special or weekly hours).",
    "HOURS_OPENED": "Opening hours opened ranges.",
})


@strawberry.type(description="One resource's range touched by a change.")
class SlotRange:
    resource_id: strawberry.ID = strawberry.field(description="The resource (for a seat map: the seat).")
    starts_at: datetime = strawberry.field(description=docs.STARTS_AT)
    ends_at: datetime = strawberry.field(description=docs.ENDS_AT)
    quantity: int = strawberry.field(description=docs.QUANTITY)


@strawberry.type(description="A change of state of slots: a booking was held, confirmed, expired, cancelled...")
class SlotChange:
    seq: int = strawberry.field(description="The unit's event sequence number: reconnect with since: seq.")
    unit_id: strawberry.ID = strawberry.field(description=docs.UNIT_ID)
    event: SlotEvent = strawberry.field(description="What happened.")
    booking_id: strawberry.ID | None = strawberry.field(description="The booking; null for a block (seats.blocked, "
                                                        "seats.unblocked, resource.blocked, resource.unblocked, "
                                                        "hours.closed, hours.opened).")
    status: BookingStatus | None = strawberry.field(description="The booking's status now; null for a block.")
    old_status: BookingStatus | None = strawberry.field(description="The booking's status before; null for a new "
                                                        "booking and for a block.")
    state: SlotState = strawberry.field(description="What the grid shows now for these slots.")
    seat_state: SeatState = strawberry.field(description="The same as a seat map shows it (seed 004).")
    hold_type: str | None = strawberry.field(description=docs.HOLD_TYPE)
    hold_type_name: str | None = strawberry.field(description=docs.HOLD_TYPE_NAME)
    display_color: str = strawberry.field(description=docs.DISPLAY_COLOR)
    hold_expires_at: datetime | None = strawberry.field(description=docs.HOLD_EXPIRES_AT)
    at: datetime = strawberry.field(description="When it happened.")
    slots: list[SlotRange] = strawberry.field(description="The resources and ranges it touched.")
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
            seq=seq, unit_id=ref(Kind.UNIT, e.unit_id), event=SlotEvent(e.name),
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
    seq: int = strawberry.field(description=docs.SEQ)
    unit_id: strawberry.ID = strawberry.field(description=docs.UNIT_ID)
    kind: QueueChangeKind = strawberry.field(description="What happened to the item.")
    item_id: strawberry.ID | None = strawberry.field(description="The queue item (a QueueItem id).")
    type: QueueItemType | None = strawberry.field(description="The item's type.")
    title: str | None = strawberry.field(description="The item's title (pt-BR).")
    priority: QueuePriority | None = strawberry.field(description="The item's priority.")
    booking_id: strawberry.ID | None = strawberry.field(description=docs.OPTIONAL_BOOKING_ID)

    @classmethod
    def from_event(cls, seq: int, unit_id: UUID, e: QueueItemChanged) -> QueueChange:
        return cls(seq=seq, unit_id=ref(Kind.UNIT, unit_id), kind=QueueChangeKind(e.kind),
                   item_id=ref(Kind.QUEUE_ITEM, e.item_id), type=QueueItemType(e.type), title=e.title,
                   priority=QueuePriority(e.priority), booking_id=opt_ref(Kind.BOOKING, e.booking_id))
