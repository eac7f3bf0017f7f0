"""The Booking aggregate and its closed lifecycle (SPEC §3)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any
from uuid import UUID

from domain.errors import InvalidTransition
from domain.events import BookingEvent
from domain.hold_types import SeatState


class BookingStatus(StrEnum):
    """Where a booking is in its life; see TRANSITIONS for the legal moves."""

    HELD = "held"
    PENDING_PAYMENT = "pending_payment"
    VERIFYING = "verifying"
    CONFIRMED = "confirmed"
    CHECKED_IN = "checked_in"
    COMPLETED = "completed"
    CANCELLED = "cancelled"
    NO_SHOW = "no_show"
    EXPIRED = "expired"


S = BookingStatus


class Channel(StrEnum):
    """Where a booking came from (and where its acceptance was given): the values are the stored strings."""

    API = "api"
    WEB = "web"
    APP = "app"
    WHATSAPP = "whatsapp"
    BOT = "bot"
    COUNTER = "counter"
    WAITLIST = "waitlist"

TRANSITIONS: dict[BookingStatus, frozenset[BookingStatus]] = {
    S.HELD: frozenset({S.CONFIRMED, S.PENDING_PAYMENT, S.EXPIRED, S.CANCELLED}),
    S.PENDING_PAYMENT: frozenset({S.CONFIRMED, S.VERIFYING, S.EXPIRED, S.CANCELLED}),
    S.VERIFYING: frozenset({S.CONFIRMED, S.EXPIRED}),
    S.CONFIRMED: frozenset({S.CHECKED_IN, S.CANCELLED, S.NO_SHOW}),
    S.CHECKED_IN: frozenset({S.COMPLETED}),
    S.COMPLETED: frozenset(),
    S.CANCELLED: frozenset(),
    S.NO_SHOW: frozenset(),
    S.EXPIRED: frozenset(),
}

OCCUPYING: frozenset[BookingStatus] = frozenset(
    {S.HELD, S.PENDING_PAYMENT, S.VERIFYING, S.CONFIRMED, S.CHECKED_IN}
)
LOCKED: frozenset[BookingStatus] = frozenset({S.HELD, S.PENDING_PAYMENT, S.VERIFYING})
"""States with a deadline: the seat-map LOCKED of seed 004."""
SOLD: frozenset[BookingStatus] = frozenset({S.CONFIRMED, S.CHECKED_IN, S.COMPLETED})
"""The seat-map SOLD of seed 004 ("confirmed and completed", SPEC §3): completed too, though it no longer occupies."""

SLOT_STATE: Mapping[str, str] = {S.HELD: "held", S.PENDING_PAYMENT: "held", S.VERIFYING: "verifying",
                                 S.CONFIRMED: "booked", S.CHECKED_IN: "booked"}
"""What the grid shows for a slot a booking of this status occupies (values of domain.availability.SlotState)."""


def slot_state(status: str | None, *, seat: bool = False) -> str:
    """What a grid slot shows for a booking in `status`: held, verifying, booked, or free once it no longer
    occupies; with `seat`, what a seat of a seat map shows. The two differ in one status, `completed`: the grid's
    slot is in the past and its allocations no longer occupy it (free), while the seat stays sold (booked)."""
    if seat and status in SOLD:
        return "booked"
    return SLOT_STATE.get(status or "", "free")


def seat_state(status: str | None) -> SeatState:
    """A booking's seat as a seat map shows it (seed 004): LOCKED while the booking has a deadline, SOLD once
    confirmed (checked in and completed too), ACTIVE when it no longer holds the seat."""
    if status in LOCKED:
        return SeatState.LOCKED
    return SeatState.SOLD if status in SOLD else SeatState.ACTIVE


@dataclass(frozen=True)
class Allocation:
    """One resource occupied by a booking over [starts_at, ends_at) (quantity for pooled)."""

    resource_id: UUID
    starts_at: datetime
    ends_at: datetime
    quantity: int = 1


@dataclass
class Booking:
    """One customer's claim on one or more resources over a time range."""

    id: UUID
    unit_id: UUID
    status: BookingStatus
    allocations: list[Allocation]
    created_at: datetime
    customer_id: UUID | None = None
    service_id: UUID | None = None
    hold_type: str | None = "CART"
    channel: str = "api"
    hold_expires_at: datetime | None = None
    remind_at: datetime | None = None
    """When the customer is reminded that the hold is about to expire (None: never)."""
    price_cents: int = 0
    version: int = 1
    acceptance: dict[str, Any] | None = None
    """What the customer accepted (domain.payments.Acceptance.as_json), kept as accepted."""
    due_now_cents: int = 0
    paid_cents: int = 0
    swapped_from: UUID | None = None
    swapped_to: UUID | None = None
    rescheduled_from: UUID | None = None
    """The booking this one replaced by a reschedule (SPEC §11)."""
    rescheduled_to: UUID | None = None
    """The booking that replaced this one by a reschedule."""
    series_id: UUID | None = None
    """The series it is an occurrence of (domain/series.py); None for a single booking."""
    series_index: int | None = None
    """Its place in the series (0: the first); a rescheduled occurrence keeps it."""
    events: list[BookingEvent] = field(default_factory=list)

    @property
    def starts_at(self) -> datetime:
        """Earliest start among the allocations."""
        return min(a.starts_at for a in self.allocations)

    @property
    def ends_at(self) -> datetime:
        """Latest end among the allocations."""
        return max(a.ends_at for a in self.allocations)

    @property
    def occupies(self) -> bool:
        """Whether the booking's state keeps its resources from others."""
        return self.status in OCCUPYING

    def is_lapsed(self, now: datetime) -> bool:
        """A locked booking whose deadline has passed: free to others even before a job expires it."""
        return (
            self.status in LOCKED and self.hold_expires_at is not None and self.hold_expires_at <= now
        )

    def _move(self, target: BookingStatus, action: str, at: datetime, actor: str, reason: str | None) -> None:
        if target not in TRANSITIONS[self.status]:
            raise InvalidTransition(self.status.value, target.value, action)
        old, held_as = self.status, self.hold_type
        deadline, remind_at = self.hold_expires_at, self.remind_at
        self.status = target
        self.version += 1
        if target not in LOCKED:
            self.hold_expires_at = None
            self.remind_at = None
        if target in (S.CANCELLED, S.EXPIRED):
            self.hold_type = None  # releasing clears the hold type; the event keeps what it was
        self.events.append(
            BookingEvent(
                booking_id=self.id,
                unit_id=self.unit_id,
                old_status=old.value,
                new_status=target.value,
                hold_type=held_as,
                actor=actor,
                channel=self.channel,
                at=at,
                reason=reason,
                previous_deadline=deadline,
                previous_remind_at=remind_at,
            )
        )

    @classmethod
    def held(cls, id: UUID, unit_id: UUID, allocations: list[Allocation], at: datetime, actor: str,
             deadline: datetime, **details: Any) -> Booking:
        """A new hold, locked until `deadline`, its birth recorded in its audit events."""
        return cls._born(BookingStatus.HELD, id, unit_id, allocations, at, actor, hold_expires_at=deadline,
                         **details)

    @classmethod
    def confirmed(cls, id: UUID, unit_id: UUID, allocations: list[Allocation], at: datetime, actor: str,
                  **details: Any) -> Booking:
        """A new booking born confirmed (the counter, a box-office sale, a type that skips the locked state)."""
        return cls._born(BookingStatus.CONFIRMED, id, unit_id, allocations, at, actor, **details)

    @classmethod
    def _born(cls, status: BookingStatus, id: UUID, unit_id: UUID, allocations: list[Allocation], at: datetime,
              actor: str, **details: Any) -> Booking:
        booking = cls(id=id, unit_id=unit_id, status=status, allocations=allocations, created_at=at, **details)
        booking.record_creation(at, actor)
        return booking

    def record_creation(self, at: datetime, actor: str) -> None:
        """Record the birth of the booking as its first audit event."""
        self.events.append(
            BookingEvent(
                booking_id=self.id,
                unit_id=self.unit_id,
                old_status=None,
                new_status=self.status.value,
                hold_type=self.hold_type,
                actor=actor,
                channel=self.channel,
                at=at,
                reason=None,
            )
        )

    def confirm(self, at: datetime, actor: str) -> None:
        """Confirm a hold (no payment due) or a paid/verified booking."""
        if self.is_lapsed(at):
            raise InvalidTransition("expired", S.CONFIRMED.value, "confirm")
        self._move(S.CONFIRMED, "confirm", at, actor, None)

    def await_payment(self, at: datetime, actor: str, deadline: datetime) -> None:
        """The customer accepted; a charge is now due before `deadline`."""
        if self.is_lapsed(at):
            raise InvalidTransition("expired", S.PENDING_PAYMENT.value, "confirm")
        self._move(S.PENDING_PAYMENT, "confirm", at, actor, None)
        self.hold_expires_at = deadline

    def accept(self, acceptance: dict[str, Any], due_now_cents: int) -> None:
        """Record what the customer accepted before any charge (RN-ATD-09)."""
        self.acceptance = acceptance
        self.due_now_cents = due_now_cents

    def claim_paid(self, at: datetime, actor: str, until: datetime) -> None:
        """The customer says they paid ("paguei"): frozen while staff check, until `until` (RN-HLD-06)."""
        if self.is_lapsed(at):
            raise InvalidTransition("expired", S.VERIFYING.value, "claim payment for")
        self._move(S.VERIFYING, "claim payment for", at, actor, "customer says paid")
        self.hold_expires_at = until

    def settle(self, at: datetime, amount_cents: int, actor: str = "system", reason: str = "payment.paid") -> None:
        """A payment arrived in time (or staff recorded one taken by hand): the booking is confirmed (SPEC §7)."""
        self.paid_cents += amount_cents
        self._move(S.CONFIRMED, "confirm payment for", at, actor, reason)

    def revive_by_late_payment(self, at: datetime, amount_cents: int) -> None:
        """A payment arrived after the hold ended and its slot is still free: the booking confirms after all.

        The one way out of `expired` or `cancelled` (SPEC §7 "Late payment", RN-HLD-07); the caller must
        have taken the slot back first.
        """
        if self.status not in (S.EXPIRED, S.CANCELLED):
            raise InvalidTransition(self.status.value, S.CONFIRMED.value, "revive by late payment")
        old = self.status
        self.status = S.CONFIRMED
        self.paid_cents += amount_cents
        self.version += 1
        self.events.append(BookingEvent(
            booking_id=self.id, unit_id=self.unit_id, old_status=old.value, new_status=S.CONFIRMED.value,
            hold_type=None, actor="system", channel=self.channel, at=at, reason="late payment, slot still free",
        ))

    def claim_offer(self, at: datetime, actor: str, deadline: datetime, hold_type: str) -> None:
        """A waitlist offer (a long hold that sets places aside) becomes the customer's ordinary hold."""
        if self.status is not S.HELD or self.is_lapsed(at):
            raise InvalidTransition("expired" if self.is_lapsed(at) else self.status.value, S.HELD.value,
                                    "claim the offer of")
        previous, self.hold_expires_at, self.hold_type = self.hold_expires_at, deadline, hold_type
        self.version += 1
        self.events.append(BookingEvent(
            booking_id=self.id, unit_id=self.unit_id, old_status=S.HELD.value, new_status=S.HELD.value,
            hold_type=hold_type, actor=actor, channel=self.channel, at=at, reason="waitlist offer claimed",
            previous_deadline=previous,
        ))

    def expire(self, at: datetime, actor: str = "system") -> None:
        """The deadline passed without payment or confirmation."""
        self._move(S.EXPIRED, "expire", at, actor, "deadline passed")

    def cancel(self, at: datetime, actor: str, reason: str | None = None) -> None:
        """Cancel by customer or staff; a verifying booking cannot be cancelled (RN-HLD-06)."""
        self._move(S.CANCELLED, "cancel", at, actor, reason)

    def drop(self, at: datetime, actor: str, reason: str) -> None:
        """Staff drop a hold ("Derrubar hold"): only locked bookings can be dropped."""
        if self.status not in LOCKED:
            raise InvalidTransition(self.status.value, S.CANCELLED.value, "drop the hold of")
        target = S.EXPIRED if self.status is S.VERIFYING else S.CANCELLED
        self._move(target, "drop the hold of", at, actor, f"dropped by staff: {reason}")

    def check_in(self, at: datetime, actor: str) -> None:
        """The customer arrived."""
        self._move(S.CHECKED_IN, "check in", at, actor, None)

    def complete(self, at: datetime, actor: str) -> None:
        """The customer was attended."""
        self._move(S.COMPLETED, "complete", at, actor, None)

    def complete_unattended(self, at: datetime) -> None:
        """A confirmed booking of a venue without check-in ends: completed by the clock (issue 18, seed 002's
        "COMPLETADA (fecha/hora ya pasó)"). Like `revive_by_late_payment`, a move outside SPEC §3's table, made
        only by the worker's sweep for units with `check_in_required` off."""
        if self.status is not S.CONFIRMED:
            raise InvalidTransition(self.status.value, S.COMPLETED.value, "complete without check-in")
        self.status = S.COMPLETED
        self.version += 1
        self.events.append(BookingEvent(
            booking_id=self.id, unit_id=self.unit_id, old_status=S.CONFIRMED.value, new_status=S.COMPLETED.value,
            hold_type=self.hold_type, actor="system", channel=self.channel, at=at,
            reason="ended; the venue has no check-in"))

    def mark_no_show(self, at: datetime, actor: str) -> None:
        """A person confirms the customer did not come (never automatic)."""
        self._move(S.NO_SHOW, "mark as no-show", at, actor, None)

    def pull_events(self) -> list[BookingEvent]:
        """Hand the recorded events to the unit of work and forget them."""
        events, self.events = self.events, []
        return events


def booking_snapshot(b: Booking) -> dict[str, object]:
    """A JSON-friendly copy of a booking, as stored for idempotent replays."""
    return {
        "id": str(b.id),
        "unit_id": str(b.unit_id),
        "status": b.status.value,
        "created_at": b.created_at.isoformat(),
        "customer_id": str(b.customer_id) if b.customer_id else None,
        "service_id": str(b.service_id) if b.service_id else None,
        "hold_type": b.hold_type,
        "channel": b.channel,
        "hold_expires_at": b.hold_expires_at.isoformat() if b.hold_expires_at else None,
        "remind_at": b.remind_at.isoformat() if b.remind_at else None,
        "price_cents": b.price_cents,
        "version": b.version,
        "acceptance": b.acceptance,
        "due_now_cents": b.due_now_cents,
        "paid_cents": b.paid_cents,
        "swapped_from": str(b.swapped_from) if b.swapped_from else None,
        "swapped_to": str(b.swapped_to) if b.swapped_to else None,
        "rescheduled_from": str(b.rescheduled_from) if b.rescheduled_from else None,
        "rescheduled_to": str(b.rescheduled_to) if b.rescheduled_to else None,
        "series_id": str(b.series_id) if b.series_id else None,
        "series_index": b.series_index,
        "allocations": [
            {
                "resource_id": str(a.resource_id),
                "starts_at": a.starts_at.isoformat(),
                "ends_at": a.ends_at.isoformat(),
                "quantity": a.quantity,
            }
            for a in b.allocations
        ],
    }


def booking_from_snapshot(d: dict[str, object]) -> Booking:
    """Rebuild a booking from `booking_snapshot` output."""

    def uid(v: object) -> UUID | None:
        return UUID(str(v)) if v else None

    def ts(v: object) -> datetime | None:
        return datetime.fromisoformat(str(v)) if v else None

    allocations = d["allocations"]
    assert isinstance(allocations, list)
    return Booking(
        id=UUID(str(d["id"])),
        unit_id=UUID(str(d["unit_id"])),
        status=BookingStatus(str(d["status"])),
        created_at=datetime.fromisoformat(str(d["created_at"])),
        customer_id=uid(d.get("customer_id")),
        service_id=uid(d.get("service_id")),
        hold_type=d.get("hold_type"),  # type: ignore[arg-type]
        channel=str(d.get("channel", "api")),
        hold_expires_at=ts(d.get("hold_expires_at")),
        remind_at=ts(d.get("remind_at")),
        price_cents=int(d.get("price_cents", 0)),  # type: ignore[call-overload]
        version=int(d.get("version", 1)),  # type: ignore[call-overload]
        acceptance=d.get("acceptance"),  # type: ignore[arg-type]
        due_now_cents=int(d.get("due_now_cents") or 0),  # type: ignore[call-overload]
        paid_cents=int(d.get("paid_cents") or 0),  # type: ignore[call-overload]
        swapped_from=uid(d.get("swapped_from")),
        swapped_to=uid(d.get("swapped_to")),
        rescheduled_from=uid(d.get("rescheduled_from")),
        rescheduled_to=uid(d.get("rescheduled_to")),
        series_id=uid(d.get("series_id")),
        series_index=d.get("series_index"),  # type: ignore[arg-type]
        allocations=[
            Allocation(
                resource_id=UUID(a["resource_id"]),
                starts_at=datetime.fromisoformat(a["starts_at"]),
                ends_at=datetime.fromisoformat(a["ends_at"]),
                quantity=int(a["quantity"]),
            )
            for a in allocations
        ],
    )


@dataclass(frozen=True)
class HistoryEntry:
    """One row of a booking's audit trail (booking_events), as read back."""

    at: datetime
    old_status: BookingStatus | None
    new_status: BookingStatus
    hold_type: str | None
    actor: str
    channel: str
    reason: str | None
    allocations: tuple[Allocation, ...]
    session: str | None = None
    """The credential the change came through (None: the platform's own jobs)."""
    booking_id: UUID | None = None
    """The booking the row is of."""
