"""The relay's reading of outbox payloads (pure)."""

from __future__ import annotations

from uuid import uuid4

import pytest

from jobs.relay import follow_ups, obsolete_jobs
from store.outbox import OutboxEvent


def event(payload: object) -> OutboxEvent:
    return OutboxEvent(1, uuid4(), 1, "slot_changed", payload)  # type: ignore[arg-type]


def test_a_held_booking_asks_for_its_deadline_and_reminder_jobs() -> None:
    p = {"topic": "slot_changed", "status": "held", "booking_id": "b1", "hold_expires_at": "2026-12-08T12:10:00+00:00",
         "remind_at": "2026-12-08T12:05:00+00:00"}
    jobs = follow_ups(event(p))
    assert [(f, a, j) for f, a, j, _ in jobs] == [
        ("expire_hold", "b1", "expire:b1:2026-12-08T12:10:00+00:00"),
        ("remind_hold", "b1", "remind:b1:2026-12-08T12:05:00+00:00")]


def test_a_settled_booking_unschedules_its_jobs_and_a_cancelled_charge_is_told_to_the_bank() -> None:
    p = {"topic": "slot_changed", "status": "confirmed", "booking_id": "b1", "hold_expires_at": None,
         "previous_hold_expires_at": "t1", "previous_remind_at": "t0"}
    assert follow_ups(event(p)) == []
    assert obsolete_jobs(event(p)) == ["expire:b1:t1", "remind:b1:t0"]
    assert follow_ups(event({"topic": "charge_cancel", "charge_id": "c1"})) == [
        ("cancel_charge", "c1", "cancel-charge:c1", None)]


def test_a_malformed_payload_is_refused_without_crashing_the_relay_loop() -> None:
    with pytest.raises(TypeError):
        follow_ups(event(["not", "an", "object"]))
    assert obsolete_jobs(event("text")) == []
    with pytest.raises(KeyError):
        follow_ups(event({"topic": "slot_changed", "status": "held"}))
