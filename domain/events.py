"""Past-tense facts: recorded by aggregates, written to the audit trail and the outbox.

Every outbox row holds one fact, and the fact's frozen dataclass below is the only definition of that row's
payload: `to_json()` is what the row stores (the relay publishes it to subscribers as stored, integrators' webhooks
carry it minus private keys) and `parse_event(topic, payload)` reads a row back for the relay, the notification
planner, webhooks and subscriptions. How fields become JSON is domain/fact.py's. Keys and values are a contract with
subscribers, integrators and rows already stored: tests/unit/test_events.py pins every shape. Three rows are written
by SQL, in the statement that makes them (store/bookings.py `charge_cancel`, store/attendance.py `queue_changed` and
`appointment_reminder`); tests/services/test_event_rows.py reads them back as facts.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any, ClassVar, Self
from uuid import UUID

from domain.fact import Fact as Fact  # re-exported: what a fact is belongs with the facts for their readers
from domain.fact import MalformedEvent as MalformedEvent
from domain.fact import SlotSpan as SlotSpan
from domain.fact import read_spans, read_str, read_time, write_spans

AUDIT_SESSION: ContextVar[str | None] = ContextVar("audit_session", default=None)
"""The credential the current request came through (`staff:<token id>`, `customer:<session id>`, ...), recorded
with every audit row it writes (SPEC §15); unset (None) in jobs."""


class SlotEvent(StrEnum):
    """What a slot change (slotChanged, bookingChanged) reports: a booking reaching a status (`booking.<status>`),
    or slots without a booking blocked or opened (seats of an event, a grid resource, the opening hours)."""

    BOOKING_HELD = "booking.held"
    BOOKING_PENDING_PAYMENT = "booking.pending_payment"
    BOOKING_VERIFYING = "booking.verifying"
    BOOKING_CONFIRMED = "booking.confirmed"
    BOOKING_CHECKED_IN = "booking.checked_in"
    BOOKING_COMPLETED = "booking.completed"
    BOOKING_CANCELLED = "booking.cancelled"
    BOOKING_NO_SHOW = "booking.no_show"
    BOOKING_EXPIRED = "booking.expired"
    SEATS_BLOCKED = "seats.blocked"
    SEATS_UNBLOCKED = "seats.unblocked"
    RESOURCE_BLOCKED = "resource.blocked"
    RESOURCE_UNBLOCKED = "resource.unblocked"
    HOURS_CLOSED = "hours.closed"
    HOURS_OPENED = "hours.opened"


class WaitlistChangeKind(StrEnum):
    """What happened in a unit's waitlists (the KIND of each waitlist_changed fact)."""

    JOINED = "joined"
    OFFERED = "offered"
    CLOSED = "closed"
    WALK_IN_ADDED = "walk_in_added"
    WALK_IN_CHANGED = "walk_in_changed"


@dataclass(frozen=True)
class BookingEvent:
    """A booking changed state (old_status None: it was created): an audit event the aggregate records."""

    booking_id: UUID
    unit_id: UUID
    old_status: str | None
    new_status: str
    hold_type: str | None
    actor: str
    channel: str
    at: datetime
    reason: str | None
    previous_deadline: datetime | None = None
    """The hold's deadline before this change (its deadline job is obsolete when it moved or ended)."""
    previous_remind_at: datetime | None = None

    @property
    def name(self) -> str:
        """Event name for subscribers and integrators, e.g. booking.held."""
        return f"booking.{self.new_status}"


# --- bookings and seats: what the grid and seat maps show -----------------------------------------------------------

@dataclass(frozen=True)
class BookingChanged(Fact):
    """A booking changed state (old_status None: it was created); `state` is what its slots show now."""

    TOPIC: ClassVar[str] = "slot_changed"

    booking_id: UUID
    unit_id: UUID
    old_status: str | None
    status: str
    state: str
    hold_type: str | None
    hold_expires_at: datetime | None
    remind_at: datetime | None
    previous_hold_expires_at: datetime | None
    """The deadline before this change: its expiry job is obsolete when it moved or ended."""
    previous_remind_at: datetime | None
    at: datetime
    allocations: tuple[SlotSpan, ...]

    @property
    def name(self) -> str:
        """booking.held, booking.confirmed, ..."""
        return f"booking.{self.status}"


_BLOCK_EVENTS = {("seats", True): SlotEvent.SEATS_BLOCKED, ("seats", False): SlotEvent.SEATS_UNBLOCKED,
                 ("resource", True): SlotEvent.RESOURCE_BLOCKED, ("resource", False): SlotEvent.RESOURCE_UNBLOCKED,
                 ("hours", True): SlotEvent.HOURS_CLOSED, ("hours", False): SlotEvent.HOURS_OPENED}


@dataclass(frozen=True)
class SeatsBlockChanged(Fact):
    """Slots without a booking changed: seats of an event were blocked or unblocked (domain/seatmaps.py), a grid
    resource was (`scope` "resource", domain/layout/blocks.py), or the opening hours closed or opened ranges (`scope`
    "hours", domain/layout/hours.py; `blocked`: closed). Shown on slotChanged with no booking, so its payload
    carries a booking change's keys, empty: the one fact with a codec of its own."""

    TOPIC: ClassVar[str] = "block_changed"

    unit_id: UUID
    blocked: bool
    at: datetime
    reason: str
    allocations: tuple[SlotSpan, ...]
    scope: str = "seats"

    @property
    def name(self) -> str:
        """seats.blocked, seats.unblocked, resource.blocked, resource.unblocked, hours.closed, hours.opened."""
        return _BLOCK_EVENTS[(self.scope, self.blocked)]

    @property
    def state(self) -> str:
        if not self.blocked:
            return "free"
        return "closed" if self.scope == "hours" else "blocked"

    def to_json(self) -> dict[str, Any]:
        return {"topic": self.TOPIC, "event": self.name, "unit_id": str(self.unit_id), "booking_id": None,
                "status": None, "old_status": None, "state": self.state, "hold_type": None, "hold_expires_at": None,
                "at": self.at.isoformat(), "reason": self.reason, "allocations": write_spans(self.allocations)}

    @classmethod
    def from_json(cls, p: Mapping[str, Any]) -> Self:
        found = [key for key, name in _BLOCK_EVENTS.items() if name == p["event"]]
        if not found:
            raise ValueError(f"unknown block event {p['event']!r}")
        (scope, blocked), = found
        return cls(UUID(read_str(p["unit_id"])), blocked, read_time(p["at"]), read_str(p.get("reason") or ""),
                   read_spans(p["allocations"]), scope)


# --- money: jobs the relay schedules, what integrators hear -----------------------------------------------------------

@dataclass(frozen=True)
class ChargeCancelRequested(Fact):
    """A hold ended with an open Pix charge: the cancel_charge job tells the bank."""

    TOPIC: ClassVar[str] = "charge_cancel"

    charge_id: UUID


@dataclass(frozen=True)
class RefundRequested(Fact):
    """A cancelled paid booking's money goes back (domain/refunds.py): the refund_payment job asks the provider."""

    TOPIC: ClassVar[str] = "refund_request"

    refund_id: UUID
    booking_id: UUID


@dataclass(frozen=True)
class PaymentReceived(Fact):
    """A Pix paid a booking (`late`: after its hold had ended, the slot still free)."""

    TOPIC: ClassVar[str] = "payment"
    EVENT: ClassVar[str | None] = "payment.paid"

    booking_id: UUID
    charge_id: UUID
    payment_id: UUID
    amount_cents: int
    late: bool
    at: datetime


@dataclass(frozen=True)
class WebhookDeliveryReplayed(Fact):
    """Staff replayed an outgoing webhook delivery: a new round of attempts (its job id names the replay)."""

    TOPIC: ClassVar[str] = "webhook_delivery"

    delivery_id: UUID
    attempt: int
    replay: str = ""


# --- the staff queue and waitlists (waitlist_changed: told apart by kind) ---------------------------------------

@dataclass(frozen=True)
class QueueItemChanged(Fact):
    """A staff queue item was opened, acknowledged or resolved (`kind`), for live dashboards."""

    TOPIC: ClassVar[str] = "queue_changed"

    kind: str
    item_id: UUID
    type: str
    priority: str
    title: str
    booking_id: UUID | None


@dataclass(frozen=True)
class WaitlistJoined(Fact):
    """Someone joined a slot's waitlist."""

    TOPIC: ClassVar[str] = "waitlist_changed"
    KIND: ClassVar[str | None] = "joined"

    entry_id: UUID
    resource_id: UUID
    starts_at: datetime


@dataclass(frozen=True)
class WaitlistClosed(Fact):
    """A slot's waitlist closed: too late for an offer to be held."""

    TOPIC: ClassVar[str] = "waitlist_changed"
    KIND: ClassVar[str | None] = "closed"

    resource_id: UUID
    starts_at: datetime


@dataclass(frozen=True)
class SlotOffered(Fact):
    """A freed slot was offered to the first in its line, as a hold (`booking_id`) until `hold_expires_at`."""

    TOPIC: ClassVar[str] = "waitlist_changed"
    KIND: ClassVar[str | None] = "offered"
    EVENT: ClassVar[str | None] = "waitlist.offered"

    entry_id: UUID
    booking_id: UUID
    customer_id: UUID
    hold_expires_at: datetime


@dataclass(frozen=True)
class CapacityOffered(Fact):
    """Places of a pooled slot were offered to a party in line, claimed with `token` (a credential) until
    `offer_expires_at`. Kind `offered` too: told from SlotOffered by its token."""

    TOPIC: ClassVar[str] = "waitlist_changed"
    KIND: ClassVar[str | None] = "offered"
    EVENT: ClassVar[str | None] = "waitlist.offered"

    entry_id: UUID
    booking_id: UUID
    token: str
    offer_expires_at: datetime


@dataclass(frozen=True)
class WalkInAdded(Fact):
    """Staff added a walk-in party to an area's queue."""

    TOPIC: ClassVar[str] = "waitlist_changed"
    KIND: ClassVar[str | None] = "walk_in_added"

    entry_id: UUID
    area: str


@dataclass(frozen=True)
class WalkInChanged(Fact):
    """A walk-in party moved on: offered a place, claimed it, seated or left the queue (`status`)."""

    TOPIC: ClassVar[str] = "waitlist_changed"
    KIND: ClassVar[str | None] = "walk_in_changed"

    entry_id: UUID
    status: str


WaitlistFact = WaitlistJoined | WaitlistClosed | SlotOffered | CapacityOffered | WalkInAdded | WalkInChanged
"""The facts of topic waitlist_changed (live on waitlistChanged)."""


# --- notices to send (notification: told apart by kind; domain/notifications.py plans them) ---------------------

@dataclass(frozen=True)
class HoldReminderDue(Fact):
    """A hold is about to expire: its customer is reminded to pay (RN-HLD-08)."""

    TOPIC: ClassVar[str] = "notification"
    KIND: ClassVar[str | None] = "hold_reminder"

    booking_id: UUID
    customer_id: UUID | None
    hold_expires_at: datetime | None
    text: str


@dataclass(frozen=True)
class CapacityOfferSent(Fact):
    """The person an offer of places is for gets the link that claims it (`text`: <base>/waitlist/claim/<token>)
    (SPEC §8, §13; seed 003)."""

    TOPIC: ClassVar[str] = "notification"
    KIND: ClassVar[str | None] = "capacity_offer"

    booking_id: UUID
    customer_id: UUID
    hold_expires_at: datetime
    text: str


@dataclass(frozen=True)
class AppointmentReminderDue(Fact):
    """A confirmed booking starts in `offset_minutes`: its customer is reminded (store/attendance.py, in SQL)."""

    TOPIC: ClassVar[str] = "notification"
    KIND: ClassVar[str | None] = "appointment_reminder"

    booking_id: UUID
    customer_id: UUID
    offset_minutes: int
    starts_at: datetime


@dataclass(frozen=True)
class OwnerAlerted(Fact):
    """Something the unit's owner must know (the bank failing, the hold ceiling): staff in-app, and `to` (or the
    unit's owner_alert_whatsapp) on `channel`."""

    TOPIC: ClassVar[str] = "notification"
    KIND: ClassVar[str | None] = "owner_alert"

    channel: str | None
    to: str | None
    text: str


@dataclass(frozen=True)
class WalkInOfferSent(Fact):
    """A walk-in party's turn came: a message to its phone (`text`) with the link of the `token` that confirms it."""

    TOPIC: ClassVar[str] = "notification"
    KIND: ClassVar[str | None] = "walk_in_offer"

    channel: str
    to: str
    token: str
    text: str


@dataclass(frozen=True)
class LoginCodeSent(Fact):
    """A customer asked to sign in: the code goes to `to` on `channel` (store/access.py writes it with the code)."""

    TOPIC: ClassVar[str] = "notification"
    KIND: ClassVar[str | None] = "login_code"

    channel: str
    to: str
    text: str


@dataclass(frozen=True)
class NotificationAdded(Fact):
    """An in-app notification was stored (for a customer, or the unit's staff): live on notificationAdded."""

    TOPIC: ClassVar[str] = "notification_added"

    notification_id: UUID
    audience: str
    customer_id: UUID | None
    kind: str
    booking_id: UUID | None
    title: str
    body: str
    created_at: datetime


@dataclass(frozen=True)
class VenueChanged(Fact):
    """An owner, a manager or the platform changed the venue's set-up (a resource, hours, a closed day, a grid
    block, a service, a price band, a parameter, a staff token...): live on venueChanged, kept in venue_changes."""

    TOPIC: ClassVar[str] = "venue_changed"

    entity: str
    entity_id: str
    action: str
    session: str
    at: datetime


# --- reading rows back -------------------------------------------------------------------------------------------

FACTS: tuple[type[Fact], ...] = (
    BookingChanged, SeatsBlockChanged, ChargeCancelRequested, RefundRequested, PaymentReceived,
    WebhookDeliveryReplayed, QueueItemChanged, WaitlistJoined, WaitlistClosed, SlotOffered, CapacityOffered,
    WalkInAdded, WalkInChanged, HoldReminderDue, CapacityOfferSent, AppointmentReminderDue, OwnerAlerted,
    WalkInOfferSent, LoginCodeSent, NotificationAdded, VenueChanged,
)
"""Every fact written to the outbox."""


def _by_topic() -> dict[str, dict[str | None, type[Fact]]]:
    found: dict[str, dict[str | None, type[Fact]]] = {}
    for fact in FACTS:
        if fact is not CapacityOffered:  # shares (waitlist_changed, offered) with SlotOffered: told by its token
            found.setdefault(fact.TOPIC, {})[fact.KIND] = fact
    return found


_BY_TOPIC = _by_topic()
TOPICS = frozenset(_BY_TOPIC)
"""The outbox topics facts are written to."""


def _fact_class(topic: str, p: Mapping[str, Any]) -> type[Fact] | None:
    kinds = _BY_TOPIC[topic]
    if None in kinds:
        return kinds[None]
    kind = p.get("kind")
    if not isinstance(kind, str) or not kind:
        raise TypeError(f"a {topic} payload without a kind")
    found = kinds.get(kind)
    return CapacityOffered if found is SlotOffered and "token" in p else found


def parse_event(topic: str, payload: object) -> Fact | None:
    """The fact an outbox row holds; None for a topic (or a kind of one) that no fact defines. Raises
    MalformedEvent (a ValueError) when the payload of a known topic is not that fact's shape."""
    if topic not in TOPICS:
        return None
    if not isinstance(payload, Mapping):
        raise MalformedEvent(f"a {topic} payload that is not a JSON object")
    try:
        cls = _fact_class(topic, payload)
        return None if cls is None else cls.from_json(payload)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise MalformedEvent(f"a {topic} payload that is not its fact's shape ({type(e).__name__}: {e})") from e
