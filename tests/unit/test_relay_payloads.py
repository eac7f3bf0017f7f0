"""The relay's reading of outbox events (pure): the jobs each type of event asks for, from its table."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

import pytest

from domain.events import (
    BookingChanged,
    ChargeCancelRequested,
    MalformedEvent,
    RefundRequested,
    SlotSpan,
    WaitlistJoined,
    WebhookDeliveryReplayed,
)
from jobs.relay import FOLLOW_UPS, follow_ups, obsolete_jobs
from store.outbox import OutboxEvent

B = UUID(int=1)
T = datetime(2026, 12, 8, 12, 0, tzinfo=UTC)


def event(topic: str, payload: object) -> OutboxEvent:
    return OutboxEvent(1, uuid4(), 1, topic, payload)  # type: ignore[arg-type]


def changed(status: str, **times: Any) -> OutboxEvent:
    e = BookingChanged(B, UUID(int=2), "held", status, "held", "CART", times.get("deadline"), times.get("remind"),
                       times.get("previous_deadline"), times.get("previous_remind"), T,
                       (SlotSpan(UUID(int=3), T, T + timedelta(hours=1)),))
    return event(e.TOPIC, e.to_json())


def test_a_held_booking_asks_for_its_deadline_and_reminder_jobs() -> None:
    jobs = follow_ups(changed("held", deadline=T + timedelta(minutes=10), remind=T + timedelta(minutes=5)))
    assert jobs == [
        ("expire_hold", str(B), f"expire:{B}:2026-12-08T12:10:00+00:00", T + timedelta(minutes=10)),
        ("remind_hold", str(B), f"remind:{B}:2026-12-08T12:05:00+00:00", T + timedelta(minutes=5))]


def test_a_settled_booking_unschedules_its_jobs_and_a_cancelled_charge_is_told_to_the_bank() -> None:
    settled = changed("confirmed", previous_deadline=T + timedelta(minutes=10), previous_remind=T)
    assert follow_ups(settled) == []
    assert obsolete_jobs(settled) == [f"expire:{B}:2026-12-08T12:10:00+00:00", f"remind:{B}:2026-12-08T12:00:00+00:00"]
    charge = ChargeCancelRequested(UUID(int=9))
    assert follow_ups(event(charge.TOPIC, charge.to_json())) == [
        ("cancel_charge", str(UUID(int=9)), f"cancel-charge:{UUID(int=9)}", None)]


def test_a_moved_deadline_unschedules_the_old_one_only() -> None:
    moved = changed("held", deadline=T + timedelta(minutes=20), previous_deadline=T + timedelta(minutes=10))
    assert obsolete_jobs(moved) == [f"expire:{B}:2026-12-08T12:10:00+00:00"]
    assert obsolete_jobs(changed("held", deadline=T, previous_deadline=T)) == []


def test_refunds_and_replayed_webhooks_have_their_jobs_and_other_events_none() -> None:
    refund = RefundRequested(UUID(int=7), B)
    assert follow_ups(event(refund.TOPIC, refund.to_json())) == [
        ("refund_payment", str(UUID(int=7)), f"refund:{UUID(int=7)}", None)]
    replay = WebhookDeliveryReplayed(UUID(int=8), 4, "abc")
    assert follow_ups(event(replay.TOPIC, replay.to_json())) == [
        ("deliver_webhook", str(UUID(int=8)), f"webhook:{UUID(int=8)}:4:replay:abc", None)]
    joined = WaitlistJoined(UUID(int=5), UUID(int=3), T)
    assert type(joined) not in FOLLOW_UPS and follow_ups(event(joined.TOPIC, joined.to_json())) == []
    assert follow_ups(event("probe", {})) == []


def test_a_malformed_payload_is_refused_without_crashing_the_relay_loop() -> None:
    with pytest.raises(MalformedEvent):
        follow_ups(event("slot_changed", ["not", "an", "object"]))
    assert obsolete_jobs(event("probe", "text")) == []
    with pytest.raises(MalformedEvent):
        follow_ups(event("slot_changed", {"topic": "slot_changed", "status": "held"}))
