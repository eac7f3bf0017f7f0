"""Past-tense facts: recorded by aggregates, written to the audit trail and the outbox.

Every outbox row holds one `Fact`, and the fact's frozen dataclass below is the only definition of that row's
payload: `to_json()` is what the row stores (the relay publishes it to subscribers as stored, integrators' webhooks
carry it minus private keys) and `parse_event(topic, payload)` reads a row back for the relay, the notification
planner, webhooks and subscriptions. A fact's TOPIC is the outbox topic; facts that share a topic (notifications,
waitlist changes) are told apart by KIND. Keys and values are a contract with subscribers, integrators and rows
already stored: tests/unit/test_events.py pins every shape. Three rows are written by SQL, in the statement that
makes them (store/bookings.py `charge_cancel`, store/attendance.py `queue_changed` and `appointment_reminder`);
they follow these definitions, and tests/services/test_event_rows.py reads them back with `parse_event`.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar, Self
from uuid import UUID

AUDIT_SESSION: ContextVar[str | None] = ContextVar("audit_session", default=None)
"""The credential the current request came through (`staff:<token id>`, `customer:<session id>`, ...), recorded
with every audit row it writes (SPEC §15); unset (None) in jobs."""


@dataclass(frozen=True)
class BookingEvent:
    """A booking changed state (old_status None: it was created)."""

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


class MalformedEvent(ValueError):
    """An outbox row of a known topic whose payload is not the fact's shape."""


# --- JSON values: ids and times as strings, read back strictly ----------------------------------------------------

def _str(v: Any) -> str:
    if not isinstance(v, str):
        raise TypeError(f"expected a string, got {type(v).__name__}")
    return v


def _opt_str(v: Any) -> str | None:
    return None if v is None else _str(v)


def _int(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"expected an integer, got {type(v).__name__}")
    return v


def _uuid(v: Any) -> UUID:
    return UUID(_str(v))


def _opt_uuid(v: Any) -> UUID | None:
    return None if v is None else _uuid(v)


def _time(v: Any) -> datetime:
    return datetime.fromisoformat(_str(v))


def _opt_time(v: Any) -> datetime | None:
    return None if v is None else _time(v)


def _id(v: UUID | None) -> str | None:
    return None if v is None else str(v)


def _iso(v: datetime | None) -> str | None:
    return None if v is None else v.isoformat()


class Fact:
    """A fact written to the outbox. TOPIC is its outbox topic; KIND tells facts of one topic apart."""

    TOPIC: ClassVar[str]
    KIND: ClassVar[str | None] = None

    def to_json(self) -> dict[str, Any]:
        """The outbox payload (its `topic` key is the row's topic)."""
        raise NotImplementedError

    @classmethod
    def from_json(cls, p: Mapping[str, Any]) -> Self:
        """The fact a payload holds; raises KeyError/TypeError/ValueError when it is not this fact's shape."""
        raise NotImplementedError

    def _head(self) -> dict[str, Any]:
        return {"topic": self.TOPIC} if self.KIND is None else {"topic": self.TOPIC, "kind": self.KIND}


# --- bookings and seats: what the grid and seat maps show -----------------------------------------------------------

@dataclass(frozen=True)
class SlotSpan:
    """One resource's range a change touches: a booking's allocation, a blocked seat during an event."""

    resource_id: UUID
    starts_at: datetime
    ends_at: datetime
    quantity: int = 1

    def to_json(self) -> dict[str, Any]:
        return {"resource_id": str(self.resource_id), "starts_at": self.starts_at.isoformat(),
                "ends_at": self.ends_at.isoformat(), "quantity": self.quantity}

    @classmethod
    def from_json(cls, a: Mapping[str, Any]) -> SlotSpan:
        return cls(_uuid(a["resource_id"]), _time(a["starts_at"]), _time(a["ends_at"]), _int(a["quantity"]))


def _spans(v: Any) -> tuple[SlotSpan, ...]:
    if not isinstance(v, list):
        raise TypeError("allocations is not a list")
    return tuple(SlotSpan.from_json(a) for a in v)


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
        """The event's name for subscribers and integrators, e.g. booking.held."""
        return f"booking.{self.status}"

    def to_json(self) -> dict[str, Any]:
        return {**self._head(), "event": self.name, "booking_id": str(self.booking_id), "unit_id": str(self.unit_id),
                "old_status": self.old_status, "status": self.status, "state": self.state,
                "hold_type": self.hold_type, "hold_expires_at": _iso(self.hold_expires_at),
                "remind_at": _iso(self.remind_at), "previous_hold_expires_at": _iso(self.previous_hold_expires_at),
                "previous_remind_at": _iso(self.previous_remind_at), "at": self.at.isoformat(),
                "allocations": [a.to_json() for a in self.allocations]}

    @classmethod
    def from_json(cls, p: Mapping[str, Any]) -> Self:
        return cls(booking_id=_uuid(p["booking_id"]), unit_id=_uuid(p["unit_id"]),
                   old_status=_opt_str(p.get("old_status")), status=_str(p["status"]), state=_str(p["state"]),
                   hold_type=_opt_str(p.get("hold_type")), hold_expires_at=_opt_time(p.get("hold_expires_at")),
                   remind_at=_opt_time(p.get("remind_at")),
                   previous_hold_expires_at=_opt_time(p.get("previous_hold_expires_at")),
                   previous_remind_at=_opt_time(p.get("previous_remind_at")), at=_time(p["at"]),
                   allocations=_spans(p["allocations"]))


@dataclass(frozen=True)
class SeatsBlockChanged(Fact):
    """Seats of an event were blocked or unblocked (domain/seatmaps.py); shown on slotChanged with no booking, so
    the payload carries a booking change's keys, empty."""

    TOPIC: ClassVar[str] = "block_changed"

    unit_id: UUID
    blocked: bool
    at: datetime
    reason: str
    allocations: tuple[SlotSpan, ...]

    @property
    def name(self) -> str:
        return "seats.blocked" if self.blocked else "seats.unblocked"

    @property
    def state(self) -> str:
        return "blocked" if self.blocked else "free"

    def to_json(self) -> dict[str, Any]:
        return {**self._head(), "event": self.name, "unit_id": str(self.unit_id), "booking_id": None, "status": None,
                "old_status": None, "state": self.state, "hold_type": None, "hold_expires_at": None,
                "at": self.at.isoformat(), "reason": self.reason,
                "allocations": [a.to_json() for a in self.allocations]}

    @classmethod
    def from_json(cls, p: Mapping[str, Any]) -> Self:
        if p["event"] not in ("seats.blocked", "seats.unblocked"):
            raise ValueError(f"unknown seat block event {p['event']!r}")
        return cls(unit_id=_uuid(p["unit_id"]), blocked=p["event"] == "seats.blocked", at=_time(p["at"]),
                   reason=_str(p.get("reason") or ""), allocations=_spans(p["allocations"]))


# --- money: jobs the relay schedules, what integrators hear -----------------------------------------------------------

@dataclass(frozen=True)
class ChargeCancelRequested(Fact):
    """A hold ended with an open Pix charge: the bank is told by the cancel_charge job."""

    TOPIC: ClassVar[str] = "charge_cancel"

    charge_id: UUID

    def to_json(self) -> dict[str, Any]:
        return {**self._head(), "charge_id": str(self.charge_id)}

    @classmethod
    def from_json(cls, p: Mapping[str, Any]) -> Self:
        return cls(_uuid(p["charge_id"]))


@dataclass(frozen=True)
class RefundRequested(Fact):
    """A cancelled paid booking's money goes back (domain/refunds.py): the refund_payment job asks the provider."""

    TOPIC: ClassVar[str] = "refund_request"

    refund_id: UUID
    booking_id: UUID

    def to_json(self) -> dict[str, Any]:
        return {**self._head(), "refund_id": str(self.refund_id), "booking_id": str(self.booking_id)}

    @classmethod
    def from_json(cls, p: Mapping[str, Any]) -> Self:
        return cls(_uuid(p["refund_id"]), _uuid(p["booking_id"]))


@dataclass(frozen=True)
class PaymentReceived(Fact):
    """A Pix paid a booking (`late`: after its hold had ended, the slot still free): integrators' payment.paid."""

    TOPIC: ClassVar[str] = "payment"
    NAME: ClassVar[str] = "payment.paid"

    booking_id: UUID
    charge_id: UUID
    payment_id: UUID
    amount_cents: int
    late: bool
    at: datetime

    def to_json(self) -> dict[str, Any]:
        return {**self._head(), "event": self.NAME, "booking_id": str(self.booking_id),
                "charge_id": str(self.charge_id), "payment_id": str(self.payment_id),
                "amount_cents": self.amount_cents, "late": self.late, "at": self.at.isoformat()}

    @classmethod
    def from_json(cls, p: Mapping[str, Any]) -> Self:
        if not isinstance(p["late"], bool):
            raise TypeError("late is not a boolean")
        return cls(_uuid(p["booking_id"]), _uuid(p["charge_id"]), _uuid(p["payment_id"]), _int(p["amount_cents"]),
                   p["late"], _time(p["at"]))


@dataclass(frozen=True)
class WebhookDeliveryReplayed(Fact):
    """Staff replayed an outgoing webhook delivery: a new round of attempts (its job id names the replay)."""

    TOPIC: ClassVar[str] = "webhook_delivery"

    delivery_id: UUID
    attempt: int
    replay: str

    def to_json(self) -> dict[str, Any]:
        return {**self._head(), "delivery_id": str(self.delivery_id), "attempt": self.attempt, "replay": self.replay}

    @classmethod
    def from_json(cls, p: Mapping[str, Any]) -> Self:
        return cls(_uuid(p["delivery_id"]), _int(p["attempt"]), _str(p.get("replay") or ""))


# --- the staff queue ---------------------------------------------------------------------------------------------

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

    def to_json(self) -> dict[str, Any]:
        return {**self._head(), "kind": self.kind, "item_id": str(self.item_id), "type": self.type,
                "priority": self.priority, "title": self.title, "booking_id": _id(self.booking_id)}

    @classmethod
    def from_json(cls, p: Mapping[str, Any]) -> Self:
        return cls(_str(p["kind"]), _uuid(p["item_id"]), _str(p["type"]), _str(p["priority"]), _str(p["title"]),
                   _opt_uuid(p.get("booking_id")))


# --- waitlists (topic waitlist_changed, told apart by kind) -------------------------------------------------------

@dataclass(frozen=True)
class WaitlistJoined(Fact):
    """Someone joined a slot's waitlist."""

    TOPIC: ClassVar[str] = "waitlist_changed"
    KIND: ClassVar[str | None] = "joined"

    entry_id: UUID
    resource_id: UUID
    starts_at: datetime

    def to_json(self) -> dict[str, Any]:
        return {**self._head(), "entry_id": str(self.entry_id), "resource_id": str(self.resource_id),
                "starts_at": self.starts_at.isoformat()}

    @classmethod
    def from_json(cls, p: Mapping[str, Any]) -> Self:
        return cls(_uuid(p["entry_id"]), _uuid(p["resource_id"]), _time(p["starts_at"]))


@dataclass(frozen=True)
class WaitlistClosed(Fact):
    """A slot's waitlist closed: too late for an offer to be held."""

    TOPIC: ClassVar[str] = "waitlist_changed"
    KIND: ClassVar[str | None] = "closed"

    resource_id: UUID
    starts_at: datetime

    def to_json(self) -> dict[str, Any]:
        return {**self._head(), "resource_id": str(self.resource_id), "starts_at": self.starts_at.isoformat()}

    @classmethod
    def from_json(cls, p: Mapping[str, Any]) -> Self:
        return cls(_uuid(p["resource_id"]), _time(p["starts_at"]))


OFFERED_EVENT = "waitlist.offered"
"""The integrators' event type of both offers."""


@dataclass(frozen=True)
class SlotOffered(Fact):
    """A freed slot was offered to the first in its line, as a hold (`booking_id`) until `hold_expires_at`."""

    TOPIC: ClassVar[str] = "waitlist_changed"
    KIND: ClassVar[str | None] = "offered"

    entry_id: UUID
    booking_id: UUID
    customer_id: UUID
    hold_expires_at: datetime

    def to_json(self) -> dict[str, Any]:
        return {**self._head(), "event": OFFERED_EVENT, "entry_id": str(self.entry_id),
                "booking_id": str(self.booking_id), "customer_id": str(self.customer_id),
                "hold_expires_at": self.hold_expires_at.isoformat()}

    @classmethod
    def from_json(cls, p: Mapping[str, Any]) -> Self:
        return cls(_uuid(p["entry_id"]), _uuid(p["booking_id"]), _uuid(p["customer_id"]), _time(p["hold_expires_at"]))


@dataclass(frozen=True)
class CapacityOffered(Fact):
    """Places of a pooled slot were offered to a party in line, claimed with `token` (a credential) until
    `offer_expires_at`. Kind `offered` too: told from SlotOffered by its token."""

    TOPIC: ClassVar[str] = "waitlist_changed"
    KIND: ClassVar[str | None] = "offered"

    entry_id: UUID
    booking_id: UUID
    token: str
    offer_expires_at: datetime

    def to_json(self) -> dict[str, Any]:
        return {**self._head(), "event": OFFERED_EVENT, "entry_id": str(self.entry_id),
                "booking_id": str(self.booking_id), "token": self.token,
                "offer_expires_at": self.offer_expires_at.isoformat()}

    @classmethod
    def from_json(cls, p: Mapping[str, Any]) -> Self:
        return cls(_uuid(p["entry_id"]), _uuid(p["booking_id"]), _str(p["token"]), _time(p["offer_expires_at"]))


@dataclass(frozen=True)
class WalkInAdded(Fact):
    """Staff added a walk-in party to an area's queue."""

    TOPIC: ClassVar[str] = "waitlist_changed"
    KIND: ClassVar[str | None] = "walk_in_added"

    entry_id: UUID
    area: str

    def to_json(self) -> dict[str, Any]:
        return {**self._head(), "entry_id": str(self.entry_id), "area": self.area}

    @classmethod
    def from_json(cls, p: Mapping[str, Any]) -> Self:
        return cls(_uuid(p["entry_id"]), _str(p["area"]))


# --- notices to send (topic notification, told apart by kind; domain/notifications.py plans them) ------------------

@dataclass(frozen=True)
class HoldReminderDue(Fact):
    """A hold is about to expire: its customer is reminded to pay (RN-HLD-08)."""

    TOPIC: ClassVar[str] = "notification"
    KIND: ClassVar[str | None] = "hold_reminder"

    booking_id: UUID
    customer_id: UUID | None
    hold_expires_at: datetime | None
    text: str

    def to_json(self) -> dict[str, Any]:
        return {**self._head(), "booking_id": str(self.booking_id), "customer_id": _id(self.customer_id),
                "hold_expires_at": _iso(self.hold_expires_at), "text": self.text}

    @classmethod
    def from_json(cls, p: Mapping[str, Any]) -> Self:
        return cls(_uuid(p["booking_id"]), _opt_uuid(p.get("customer_id")), _opt_time(p.get("hold_expires_at")),
                   _str(p["text"]))


@dataclass(frozen=True)
class CapacityOfferSent(Fact):
    """The person an offer of places is for learns the code that claims it (`text`) (SPEC §8, §13)."""

    TOPIC: ClassVar[str] = "notification"
    KIND: ClassVar[str | None] = "capacity_offer"

    booking_id: UUID
    customer_id: UUID
    hold_expires_at: datetime
    text: str

    def to_json(self) -> dict[str, Any]:
        return {**self._head(), "booking_id": str(self.booking_id), "customer_id": str(self.customer_id),
                "hold_expires_at": self.hold_expires_at.isoformat(), "text": self.text}

    @classmethod
    def from_json(cls, p: Mapping[str, Any]) -> Self:
        return cls(_uuid(p["booking_id"]), _uuid(p["customer_id"]), _time(p["hold_expires_at"]), _str(p["text"]))


@dataclass(frozen=True)
class AppointmentReminderDue(Fact):
    """A confirmed booking starts in `offset_minutes`: its customer is reminded (written by store/attendance.py's
    sweep, in SQL)."""

    TOPIC: ClassVar[str] = "notification"
    KIND: ClassVar[str | None] = "appointment_reminder"

    booking_id: UUID
    customer_id: UUID
    offset_minutes: int
    starts_at: datetime

    def to_json(self) -> dict[str, Any]:
        return {**self._head(), "booking_id": str(self.booking_id), "customer_id": str(self.customer_id),
                "offset_minutes": self.offset_minutes, "starts_at": self.starts_at.isoformat()}

    @classmethod
    def from_json(cls, p: Mapping[str, Any]) -> Self:
        return cls(_uuid(p["booking_id"]), _uuid(p["customer_id"]), _int(p["offset_minutes"]), _time(p["starts_at"]))


@dataclass(frozen=True)
class OwnerAlerted(Fact):
    """Something the unit's owner must know (the bank failing, the hold ceiling): staff in-app, and `to` (or the
    unit's owner_alert_whatsapp) on `channel`."""

    TOPIC: ClassVar[str] = "notification"
    KIND: ClassVar[str | None] = "owner_alert"

    channel: str | None
    to: str | None
    text: str

    def to_json(self) -> dict[str, Any]:
        return {**self._head(), "channel": self.channel, "to": self.to, "text": self.text}

    @classmethod
    def from_json(cls, p: Mapping[str, Any]) -> Self:
        return cls(_opt_str(p.get("channel")), _opt_str(p.get("to")), _str(p["text"]))


@dataclass(frozen=True)
class WalkInOfferSent(Fact):
    """A walk-in party's turn came: a message to its phone with the code (`token`) that confirms it."""

    TOPIC: ClassVar[str] = "notification"
    KIND: ClassVar[str | None] = "walk_in_offer"

    channel: str
    to: str
    token: str
    text: str

    def to_json(self) -> dict[str, Any]:
        return {**self._head(), "channel": self.channel, "to": self.to, "token": self.token, "text": self.text}

    @classmethod
    def from_json(cls, p: Mapping[str, Any]) -> Self:
        return cls(_str(p["channel"]), _str(p["to"]), _str(p["token"]), _str(p["text"]))


@dataclass(frozen=True)
class LoginCodeSent(Fact):
    """A customer asked to sign in: the code goes to `to` on `channel` (store/access.py writes it with the code)."""

    TOPIC: ClassVar[str] = "notification"
    KIND: ClassVar[str | None] = "login_code"

    channel: str
    to: str
    text: str

    def to_json(self) -> dict[str, Any]:
        return {**self._head(), "channel": self.channel, "to": self.to, "text": self.text}

    @classmethod
    def from_json(cls, p: Mapping[str, Any]) -> Self:
        return cls(_str(p["channel"]), _str(p["to"]), _str(p["text"]))


Notice = HoldReminderDue | CapacityOfferSent | AppointmentReminderDue | OwnerAlerted | WalkInOfferSent | LoginCodeSent
"""The facts of topic `notification`: what the relay plans deliveries for (besides booking changes)."""


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

    def to_json(self) -> dict[str, Any]:
        return {**self._head(), "notification_id": str(self.notification_id), "audience": self.audience,
                "customer_id": _id(self.customer_id), "kind": self.kind, "booking_id": _id(self.booking_id),
                "title": self.title, "body": self.body, "created_at": self.created_at.isoformat()}

    @classmethod
    def from_json(cls, p: Mapping[str, Any]) -> Self:
        return cls(_uuid(p["notification_id"]), _str(p["audience"]), _opt_uuid(p.get("customer_id")),
                   _str(p["kind"]), _opt_uuid(p.get("booking_id")), _str(p["title"]), _str(p["body"]),
                   _time(p["created_at"]))


# --- reading rows back -------------------------------------------------------------------------------------------

FACTS: tuple[type[Fact], ...] = (
    BookingChanged, SeatsBlockChanged, ChargeCancelRequested, RefundRequested, PaymentReceived,
    WebhookDeliveryReplayed, QueueItemChanged, WaitlistJoined, WaitlistClosed, SlotOffered, CapacityOffered,
    WalkInAdded, HoldReminderDue, CapacityOfferSent, AppointmentReminderDue, OwnerAlerted, WalkInOfferSent,
    LoginCodeSent, NotificationAdded,
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
