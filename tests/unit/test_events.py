"""Outbox facts (domain/events.py): every fact reads back as itself, and writes exactly the JSON its row held
before the facts were typed — the same keys in the same order, the same values, byte for byte."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any
from uuid import UUID

import pytest

from domain import events as ev
from domain.bookings import Allocation, Booking, BookingStatus
from domain.events import FACTS, Fact, MalformedEvent, SlotSpan, parse_event
from store.bookings import _event_rows

T = datetime(2026, 12, 8, 12, 0, 0, 500, tzinfo=UTC)
LOCAL = datetime(2026, 12, 8, 9, 30, tzinfo=timezone(timedelta(hours=-3)))
U = [UUID(int=i) for i in range(1, 10)]
SPAN = SlotSpan(U[5], T, T + timedelta(hours=1), 2)

SAMPLES: list[Fact] = [
    ev.BookingChanged(U[0], U[1], "held", "pending_payment", "held", "CART", T + timedelta(minutes=10),
                      T + timedelta(minutes=5), T, None, T, (SPAN,)),
    ev.BookingChanged(U[0], U[1], None, "confirmed", "booked", None, None, None, None, None, LOCAL, ()),
    ev.SeatsBlockChanged(U[1], True, T, "camera", (SlotSpan(U[5], T, T + timedelta(hours=2)),)),
    ev.SeatsBlockChanged(U[1], False, T, "", ()),
    ev.SeatsBlockChanged(U[1], True, T, "manutenção", (SlotSpan(U[5], T, T + timedelta(days=2)),), "resource"),
    ev.SeatsBlockChanged(U[1], True, T, "", (SlotSpan(U[5], T, T + timedelta(hours=15)),), "hours"),
    ev.ChargeCancelRequested(U[2]),
    ev.RefundRequested(U[3], U[0]),
    ev.PaymentReceived(U[0], U[2], U[4], 8000, False, T),
    ev.WebhookDeliveryReplayed(U[6], 3, "a1b2c3d4e5f6"),
    ev.QueueItemChanged("opened", U[7], "no_show_suggestion", "high", "Possível falta", U[0]),
    ev.QueueItemChanged("resolved", U[7], "pix_failing", "critical", "PIX falhando", None),
    ev.WaitlistJoined(U[7], U[5], T),
    ev.WaitlistClosed(U[5], T),
    ev.SlotOffered(U[7], U[0], U[8], T),
    ev.CapacityOffered(U[7], U[0], "f" * 64, T),
    ev.WalkInAdded(U[7], "Piscina "),
    ev.WalkInChanged(U[7], "seated"),
    ev.HoldReminderDue(U[0], U[8], T, "Pagamento perto de expirar"),
    ev.HoldReminderDue(U[0], None, None, "Pagamento perto de expirar"),
    ev.CapacityOfferSent(U[0], U[8], T, "f" * 64),
    ev.AppointmentReminderDue(U[0], U[8], 120, T),
    ev.OwnerAlerted("whatsapp", "+5511999990000", "Banco falhando"),
    ev.OwnerAlerted(None, None, "Banco falhando"),
    ev.WalkInOfferSent("whatsapp", "+5511999990000", "t0k3n", "Ana, sua vez chegou!"),
    ev.LoginCodeSent("email", "ana@example.com", "Seu código de acesso é 123456."),
    ev.NotificationAdded(U[4], "customer", U[8], "confirmed", U[0], "Reserva confirmada", "Sua reserva…", T),
    ev.NotificationAdded(U[4], "staff", None, "owner_alert", None, "Alerta", "Banco falhando", T),
    ev.VenueChanged("resource", str(U[2]), "updated", "staff:" + str(U[5]), T),
]


def test_every_fact_has_a_sample() -> None:
    assert {type(s) for s in SAMPLES} == set(FACTS)


@pytest.mark.parametrize("fact", SAMPLES, ids=lambda f: type(f).__name__)
def test_every_fact_reads_back_as_itself_through_json(fact: Fact) -> None:
    stored = json.loads(json.dumps(fact.to_json()))  # what jsonb hands back
    assert stored["topic"] == fact.TOPIC
    assert parse_event(fact.TOPIC, stored) == fact
    assert type(fact).from_json(stored).to_json() == fact.to_json()


# --- the shapes the code wrote before the facts were typed (copied from it) ------------------------------------


def _iso(d: datetime | None) -> str | None:
    return d.isoformat() if d else None


def _slot_changed(b: Booking, e: Any, state: str) -> dict[str, Any]:  # store/bookings._event_rows
    resources = [{"resource_id": str(a.resource_id), "starts_at": a.starts_at.isoformat(),
                  "ends_at": a.ends_at.isoformat(), "quantity": a.quantity} for a in b.allocations]
    return {"topic": "slot_changed", "event": e.name, "booking_id": str(b.id), "unit_id": str(b.unit_id),
            "old_status": e.old_status, "status": e.new_status, "state": state, "hold_type": e.hold_type,
            "hold_expires_at": _iso(b.hold_expires_at), "remind_at": _iso(b.remind_at),
            "previous_hold_expires_at": _iso(e.previous_deadline), "previous_remind_at": _iso(e.previous_remind_at),
            "at": e.at.isoformat(), "allocations": resources}


def _notify(topic: str, payload: dict[str, Any]) -> dict[str, Any]:  # store/outbox.PgEvents.notify
    return {"topic": topic, **payload}


def _before(fact: Fact) -> dict[str, Any]:
    """The payload the untyped code wrote for this fact's values."""
    match fact:
        case ev.SeatsBlockChanged():  # domain/seatmaps._block_event (and domain/layout/blocks._event: "resource")
            name = f"{fact.scope}.blocked" if fact.blocked else f"{fact.scope}.unblocked"
            if fact.scope == "hours":  # domain/layout/hours._announce (issue 18): typed from the start
                name = "hours.closed" if fact.blocked else "hours.opened"
            return _notify("block_changed", {
                "event": name, "unit_id": str(fact.unit_id), "booking_id": None, "status": None, "old_status": None,
                "state": ("closed" if fact.scope == "hours" else "blocked") if fact.blocked else "free",
                "hold_type": None, "hold_expires_at": None,
                "at": fact.at.isoformat(), "reason": fact.reason,
                "allocations": [{"resource_id": str(a.resource_id), "starts_at": a.starts_at.isoformat(),
                                 "ends_at": a.ends_at.isoformat(), "quantity": 1} for a in fact.allocations]})
        case ev.ChargeCancelRequested():  # domain/checkout.py; store/bookings._SAVE builds the same in SQL
            return _notify("charge_cancel", {"charge_id": str(fact.charge_id)})
        case ev.RefundRequested():  # domain/refunds.py
            return _notify("refund_request", {"topic": "refund_request", "refund_id": str(fact.refund_id),
                                              "booking_id": str(fact.booking_id)})
        case ev.PaymentReceived():  # domain/settlement.py
            return _notify("payment", {
                "event": "payment.paid", "booking_id": str(fact.booking_id), "charge_id": str(fact.charge_id),
                "payment_id": str(fact.payment_id), "amount_cents": fact.amount_cents, "late": fact.late,
                "at": fact.at.isoformat()})
        case ev.WebhookDeliveryReplayed():  # store/webhooks_out.replay
            return {"topic": "webhook_delivery", "delivery_id": str(fact.delivery_id), "attempt": fact.attempt,
                    "replay": fact.replay}
        case ev.QueueItemChanged():  # store/queue._changed; store/attendance._SUGGEST in SQL
            return {"topic": "queue_changed", "kind": fact.kind, "item_id": str(fact.item_id), "type": fact.type,
                    "priority": fact.priority, "title": fact.title,
                    "booking_id": str(fact.booking_id) if fact.booking_id else None}
        case ev.WaitlistJoined():  # domain/waitlist.py through store/waitlists.notify
            return _notify("waitlist_changed", {"kind": "joined", "entry_id": str(fact.entry_id),
                                                "resource_id": str(fact.resource_id),
                                                "starts_at": fact.starts_at.isoformat()})
        case ev.WaitlistClosed():
            return _notify("waitlist_changed", {"kind": "closed", "resource_id": str(fact.resource_id),
                                                "starts_at": fact.starts_at.isoformat()})
        case ev.SlotOffered():
            return _notify("waitlist_changed", {"kind": "offered", "event": "waitlist.offered",
                                                "entry_id": str(fact.entry_id), "booking_id": str(fact.booking_id),
                                                "customer_id": str(fact.customer_id),
                                                "hold_expires_at": fact.hold_expires_at.isoformat()})
        case ev.CapacityOffered():
            return _notify("waitlist_changed", {"kind": "offered", "event": "waitlist.offered",
                                                "entry_id": str(fact.entry_id), "booking_id": str(fact.booking_id),
                                                "token": fact.token,
                                                "offer_expires_at": fact.offer_expires_at.isoformat()})
        case ev.WalkInAdded():
            return _notify("waitlist_changed", {"kind": "walk_in_added", "entry_id": str(fact.entry_id),
                                                "area": fact.area})
        case ev.HoldReminderDue():  # domain/services remind_hold
            return _notify("notification", {
                "kind": "hold_reminder", "booking_id": str(fact.booking_id),
                "customer_id": str(fact.customer_id) if fact.customer_id else None,
                "hold_expires_at": fact.hold_expires_at.isoformat() if fact.hold_expires_at else None,
                "text": fact.text})
        case ev.CapacityOfferSent():  # domain/waitlist.promote_capacity
            return _notify("notification", {
                "kind": "capacity_offer", "booking_id": str(fact.booking_id), "customer_id": str(fact.customer_id),
                "hold_expires_at": fact.hold_expires_at.isoformat(), "text": fact.text})
        case ev.AppointmentReminderDue():  # store/attendance._REMIND in SQL
            return {"topic": "notification", "kind": "appointment_reminder", "booking_id": str(fact.booking_id),
                    "customer_id": str(fact.customer_id), "offset_minutes": fact.offset_minutes,
                    "starts_at": fact.starts_at.isoformat()}
        case ev.OwnerAlerted():  # domain/fraud.py, domain/checkout.py
            return _notify("notification", {"kind": "owner_alert", "channel": fact.channel, "to": fact.to,
                                            "text": fact.text})
        case ev.WalkInOfferSent():  # domain/waitlist.offer_walk_in
            return _notify("notification", {"kind": "walk_in_offer", "channel": fact.channel, "to": fact.to,
                                            "token": fact.token, "text": fact.text})
        case ev.LoginCodeSent():  # domain/login.py through store/access.add_code
            return {"topic": "notification", **{"kind": "login_code", "channel": fact.channel, "to": fact.to,
                                                "text": fact.text}}
        case ev.NotificationAdded():  # store/notifications.add_in_app
            return {"topic": "notification_added", "notification_id": str(fact.notification_id),
                    "audience": fact.audience,
                    "customer_id": str(fact.customer_id) if fact.audience == "customer" and fact.customer_id
                    else None,
                    "kind": fact.kind, "booking_id": str(fact.booking_id) if fact.booking_id else None,
                    "title": fact.title, "body": fact.body, "created_at": fact.created_at.isoformat()}
        case ev.VenueChanged():  # store/venue_log.py (issue 18)
            return {"topic": "venue_changed", "entity": fact.entity, "entity_id": fact.entity_id,
                    "action": fact.action, "session": fact.session, "at": fact.at.isoformat()}
    raise AssertionError(f"no former shape for {fact!r}")


# VenueChanged (issue 18) and WalkInChanged (issue 20) were typed from the start: they have no former shape.
@pytest.mark.parametrize("fact", [s for s in SAMPLES
                                  if not isinstance(s, ev.BookingChanged | ev.VenueChanged | ev.WalkInChanged)],
                         ids=lambda f: type(f).__name__)
def test_every_fact_writes_the_json_it_wrote_before(fact: Fact) -> None:
    assert json.dumps(fact.to_json()) == json.dumps(_before(fact))


def _booking(status: BookingStatus, **details: Any) -> Booking:
    hour = T + timedelta(hours=1)
    return Booking(id=U[0], unit_id=U[1], status=status, created_at=T, customer_id=U[8],
                   allocations=[Allocation(U[5], T, hour), Allocation(U[6], T, hour, 3)], **details)


def test_a_booking_change_writes_the_json_it_wrote_before() -> None:
    b = _booking(BookingStatus.HELD, hold_expires_at=T + timedelta(minutes=10), remind_at=T + timedelta(minutes=5))
    b.record_creation(T, "customer")
    b.confirm(T + timedelta(minutes=1), "staff")
    pending = b.pull_events()
    _, outbox = _event_rows(b, pending)
    states = ["held", "booked"]
    assert [json.dumps(p) for p in outbox] == [json.dumps(_slot_changed(b, e, s)) for e, s in zip(pending, states,
                                                                                                    strict=True)]
    assert [parse_event("slot_changed", p) for p in outbox] == [
        ev.BookingChanged.from_json(p) for p in json.loads(json.dumps(outbox))]


@pytest.mark.parametrize(("status", "state"), [
    ("held", "held"), ("pending_payment", "held"), ("verifying", "verifying"), ("confirmed", "booked"),
    ("checked_in", "booked"), ("completed", "free"), ("cancelled", "free"), ("no_show", "free"), ("expired", "free")])
def test_a_booking_change_names_the_state_its_slots_show(status: str, state: str) -> None:
    b = _booking(BookingStatus(status))
    b.record_creation(T, "staff")
    _, (payload,) = _event_rows(b, b.pull_events())
    assert (payload["event"], payload["state"]) == (f"booking.{status}", state)


def test_facts_of_one_topic_are_told_apart_by_kind_and_an_offer_by_its_token() -> None:
    slot = ev.SlotOffered(U[7], U[0], U[8], T).to_json()
    places = ev.CapacityOffered(U[7], U[0], "t", T).to_json()
    assert type(parse_event("waitlist_changed", slot)) is ev.SlotOffered
    assert type(parse_event("waitlist_changed", places)) is ev.CapacityOffered
    assert parse_event("notification", {"topic": "notification", "kind": "no_such_kind"}) is None
    assert parse_event("probe", {}) is None  # a topic no fact defines (the realtime benchmark's probe)


@pytest.mark.parametrize(("topic", "payload"), [
    ("slot_changed", ["not", "an", "object"]),
    ("slot_changed", {"topic": "slot_changed", "status": "held"}),
    ("charge_cancel", {"topic": "charge_cancel", "charge_id": "c1"}),
    ("charge_cancel", {"topic": "charge_cancel", "charge_id": 7}),
    ("payment", {**ev.PaymentReceived(U[0], U[2], U[4], 8000, False, T).to_json(), "amount_cents": "8000"}),
    ("notification", {"topic": "notification", "text": "no kind"}),
    ("block_changed", {**ev.SeatsBlockChanged(U[1], True, T, "", ()).to_json(), "event": "seats.sold"}),
])
def test_a_malformed_payload_of_a_known_topic_is_refused(topic: str, payload: object) -> None:
    with pytest.raises(MalformedEvent):
        parse_event(topic, payload)
