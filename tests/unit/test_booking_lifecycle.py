"""The Booking aggregate's closed lifecycle (SPEC §3), checked exhaustively and without a database."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from itertools import product
from uuid import UUID, uuid4

import pytest

from domain.bookings import (
    LOCKED,
    OCCUPYING,
    TRANSITIONS,
    Allocation,
    Booking,
    BookingStatus,
    booking_from_snapshot,
    booking_snapshot,
)
from domain.errors import InvalidTransition

S = BookingStatus
NOW = datetime(2026, 3, 10, 20, 0, tzinfo=UTC)
DEADLINE = NOW + timedelta(minutes=10)
PAYMENT_DEADLINE = NOW + timedelta(minutes=15)

# SPEC §3, written out independently of domain.bookings.TRANSITIONS.
SPEC_TRANSITIONS: dict[BookingStatus, set[BookingStatus]] = {
    S.HELD: {S.CONFIRMED, S.PENDING_PAYMENT, S.EXPIRED, S.CANCELLED},
    S.PENDING_PAYMENT: {S.CONFIRMED, S.VERIFYING, S.EXPIRED, S.CANCELLED},
    S.VERIFYING: {S.CONFIRMED, S.EXPIRED},
    S.CONFIRMED: {S.CHECKED_IN, S.CANCELLED, S.NO_SHOW},
    S.CHECKED_IN: {S.COMPLETED},
    S.COMPLETED: set(),
    S.CANCELLED: set(),
    S.NO_SHOW: set(),
    S.EXPIRED: set(),
}

# The aggregate method that moves a booking into each target state (None: no method yet).
METHODS: dict[BookingStatus, Callable[[Booking], None] | None] = {
    S.HELD: None,
    S.VERIFYING: None,
    S.CONFIRMED: lambda b: b.confirm(NOW, "staff:ana"),
    S.PENDING_PAYMENT: lambda b: b.await_payment(NOW, "staff:ana", PAYMENT_DEADLINE),
    S.EXPIRED: lambda b: b.expire(NOW, "staff:ana"),
    S.CANCELLED: lambda b: b.cancel(NOW, "staff:ana", "customer asked"),
    S.CHECKED_IN: lambda b: b.check_in(NOW, "staff:ana"),
    S.COMPLETED: lambda b: b.complete(NOW, "staff:ana"),
    S.NO_SHOW: lambda b: b.mark_no_show(NOW, "staff:ana"),
}

EXPECTED_REASON: dict[BookingStatus, str | None] = {
    S.EXPIRED: "deadline passed",
    S.CANCELLED: "customer asked",
}

ALL_PAIRS = list(product(BookingStatus, BookingStatus))


def make_booking(status: BookingStatus, **overrides: object) -> Booking:
    """A booking in `status`; locked states get a deadline that has not passed yet."""
    fields: dict[str, object] = {
        "id": uuid4(),
        "unit_id": uuid4(),
        "status": status,
        "allocations": [Allocation(uuid4(), NOW + timedelta(hours=2), NOW + timedelta(hours=3))],
        "created_at": NOW - timedelta(minutes=1),
        "customer_id": uuid4(),
        "hold_type": "CART",
        "channel": "whatsapp",
        "hold_expires_at": DEADLINE if status in LOCKED else None,
        "version": 3,
    }
    fields.update(overrides)
    return Booking(**fields)  # type: ignore[arg-type]


def pair_id(pair: tuple[BookingStatus, BookingStatus]) -> str:
    return f"{pair[0].value}->{pair[1].value}"


# --- the table itself ----------------------------------------------------------------------------------


def test_the_transition_table_is_exactly_the_one_in_the_spec() -> None:
    assert {k: set(v) for k, v in TRANSITIONS.items()} == SPEC_TRANSITIONS


def test_every_status_has_an_entry_in_the_transition_table() -> None:
    assert set(TRANSITIONS) == set(BookingStatus)


def test_occupying_states_are_the_five_live_states_of_the_spec() -> None:
    assert {S.HELD, S.PENDING_PAYMENT, S.VERIFYING, S.CONFIRMED, S.CHECKED_IN} == OCCUPYING


def test_locked_states_are_held_pending_payment_and_verifying() -> None:
    assert {S.HELD, S.PENDING_PAYMENT, S.VERIFYING} == LOCKED


def test_no_transition_ever_leads_back_to_held() -> None:
    assert all(S.HELD not in targets for targets in TRANSITIONS.values())


def test_terminal_states_have_no_way_out() -> None:
    for status in (S.COMPLETED, S.CANCELLED, S.NO_SHOW, S.EXPIRED):
        assert TRANSITIONS[status] == frozenset()


# --- every (from, to) pair -----------------------------------------------------------------------------


@pytest.mark.parametrize(("current", "target"), ALL_PAIRS, ids=[pair_id(p) for p in ALL_PAIRS])
def test_a_transition_succeeds_exactly_when_the_spec_allows_it(
    current: BookingStatus, target: BookingStatus
) -> None:
    allowed = target in SPEC_TRANSITIONS[current]
    method = METHODS[target]
    if method is None:
        # No aggregate method moves a booking into this state yet: only the table can be checked.
        assert (target in TRANSITIONS[current]) is allowed
        return
    booking = make_booking(current)
    if allowed:
        method(booking)
        assert booking.status is target
    else:
        with pytest.raises(InvalidTransition) as info:
            method(booking)
        err = info.value
        assert err.code == "invalid_transition"
        assert err.current_state == current.value
        assert err.target_state == target.value
        assert current.value in err.message
        assert current.value in str(err)
        # A refused move changes nothing.
        assert booking.status is current
        assert booking.version == 3
        assert booking.events == []


ALLOWED_PAIRS = [
    (f, t) for f, t in ALL_PAIRS if t in SPEC_TRANSITIONS[f] and METHODS[t] is not None
]


@pytest.mark.parametrize(("current", "target"), ALLOWED_PAIRS, ids=[pair_id(p) for p in ALLOWED_PAIRS])
def test_each_successful_transition_appends_exactly_one_event_and_bumps_the_version(
    current: BookingStatus, target: BookingStatus
) -> None:
    booking = make_booking(current)
    method = METHODS[target]
    assert method is not None
    method(booking)
    assert booking.version == 4
    assert len(booking.events) == 1
    event = booking.events[0]
    assert event.booking_id == booking.id
    assert event.unit_id == booking.unit_id
    assert event.old_status == current.value
    assert event.new_status == target.value
    assert event.actor == "staff:ana"
    assert event.channel == "whatsapp"
    assert event.at == NOW
    assert event.reason == EXPECTED_REASON.get(target)
    assert event.name == f"booking.{target.value}"


@pytest.mark.parametrize(("current", "target"), ALLOWED_PAIRS, ids=[pair_id(p) for p in ALLOWED_PAIRS])
def test_the_deadline_is_cleared_when_a_booking_leaves_the_locked_states(
    current: BookingStatus, target: BookingStatus
) -> None:
    booking = make_booking(current)
    method = METHODS[target]
    assert method is not None
    method(booking)
    if target in LOCKED:
        assert booking.hold_expires_at is not None
    else:
        assert booking.hold_expires_at is None


@pytest.mark.parametrize(("current", "target"), ALLOWED_PAIRS, ids=[pair_id(p) for p in ALLOWED_PAIRS])
def test_cancel_and_expire_release_the_hold_type_and_other_moves_keep_it(
    current: BookingStatus, target: BookingStatus
) -> None:
    booking = make_booking(current)
    method = METHODS[target]
    assert method is not None
    method(booking)
    if target in (S.CANCELLED, S.EXPIRED):
        assert booking.hold_type is None
        # The audit event keeps the hold type that was released (SPEC §15 analytics by hold type).
        assert booking.events[0].hold_type == "CART"
    else:
        assert booking.hold_type == "CART"
        assert booking.events[0].hold_type == "CART"


def test_awaiting_payment_sets_the_payment_deadline() -> None:
    booking = make_booking(S.HELD)
    booking.await_payment(NOW, "customer", PAYMENT_DEADLINE)
    assert booking.status is S.PENDING_PAYMENT
    assert booking.hold_expires_at == PAYMENT_DEADLINE


def test_awaiting_payment_is_refused_while_already_pending_payment() -> None:
    booking = make_booking(S.PENDING_PAYMENT)
    with pytest.raises(InvalidTransition) as info:
        booking.await_payment(NOW, "customer", PAYMENT_DEADLINE)
    assert info.value.current_state == "pending_payment"
    assert booking.hold_expires_at == DEADLINE


def test_cancelling_a_verifying_booking_is_refused() -> None:
    booking = make_booking(S.VERIFYING)
    with pytest.raises(InvalidTransition, match="verifying"):
        booking.cancel(NOW, "customer")


def test_a_chain_of_moves_records_one_event_per_move_in_order() -> None:
    booking = make_booking(S.HELD, version=1)
    booking.record_creation(NOW - timedelta(minutes=1), "bot")
    booking.await_payment(NOW, "customer", PAYMENT_DEADLINE)
    booking.confirm(NOW + timedelta(minutes=1), "system")
    booking.check_in(NOW + timedelta(hours=2), "staff:ana")
    booking.complete(NOW + timedelta(hours=3), "system")
    assert [(e.old_status, e.new_status) for e in booking.events] == [
        (None, "held"),
        ("held", "pending_payment"),
        ("pending_payment", "confirmed"),
        ("confirmed", "checked_in"),
        ("checked_in", "completed"),
    ]
    assert booking.version == 5
    assert [e.actor for e in booking.events] == ["bot", "customer", "system", "staff:ana", "system"]


def test_recording_the_creation_adds_an_event_without_an_old_status_or_a_version_bump() -> None:
    booking = make_booking(S.HELD, version=1)
    booking.record_creation(NOW, "bot")
    assert booking.version == 1
    (event,) = booking.events
    assert event.old_status is None
    assert event.new_status == "held"
    assert event.hold_type == "CART"
    assert event.name == "booking.held"


def test_pulling_events_hands_them_over_once() -> None:
    booking = make_booking(S.HELD)
    booking.confirm(NOW, "system")
    events = booking.pull_events()
    assert len(events) == 1
    assert booking.events == []
    assert booking.pull_events() == []


def test_expire_defaults_to_the_system_actor() -> None:
    booking = make_booking(S.HELD)
    booking.expire(NOW)
    assert booking.events[0].actor == "system"


# --- staff drop ----------------------------------------------------------------------------------------

DROP_RESULT = {S.HELD: S.CANCELLED, S.PENDING_PAYMENT: S.CANCELLED, S.VERIFYING: S.EXPIRED}


@pytest.mark.parametrize("current", list(BookingStatus), ids=[s.value for s in BookingStatus])
def test_staff_can_drop_only_a_locked_booking(current: BookingStatus) -> None:
    booking = make_booking(current)
    if current in DROP_RESULT:
        booking.drop(NOW, "manager:bia", "customer stopped answering")
        assert booking.status is DROP_RESULT[current]
        assert booking.hold_expires_at is None
        assert booking.hold_type is None
        assert booking.version == 4
        (event,) = booking.events
        assert event.old_status == current.value
        assert event.new_status == DROP_RESULT[current].value
        assert event.actor == "manager:bia"
        assert event.reason == "dropped by staff: customer stopped answering"
    else:
        with pytest.raises(InvalidTransition) as info:
            booking.drop(NOW, "manager:bia", "whatever")
        assert info.value.current_state == current.value
        assert current.value in info.value.message
        assert booking.status is current
        assert booking.events == []


def test_staff_can_drop_a_hold_whose_deadline_already_passed() -> None:
    booking = make_booking(S.HELD, hold_expires_at=NOW - timedelta(minutes=1))
    booking.drop(NOW, "manager:bia", "cleanup")
    assert booking.status is S.CANCELLED


# --- lapsed holds --------------------------------------------------------------------------------------


@pytest.mark.parametrize("status", sorted(LOCKED), ids=str)
@pytest.mark.parametrize("deadline_offset", [timedelta(0), -timedelta(seconds=1), -timedelta(hours=1)])
def test_confirming_a_locked_booking_at_or_after_its_deadline_is_refused(
    status: BookingStatus, deadline_offset: timedelta
) -> None:
    booking = make_booking(status, hold_expires_at=NOW + deadline_offset)
    with pytest.raises(InvalidTransition) as info:
        booking.confirm(NOW, "system")
    assert info.value.current_state == "expired"
    assert info.value.target_state == "confirmed"
    assert booking.status is status
    assert booking.events == []


def test_confirming_a_hold_one_second_before_its_deadline_succeeds() -> None:
    booking = make_booking(S.HELD, hold_expires_at=NOW + timedelta(seconds=1))
    booking.confirm(NOW, "customer")
    assert booking.status is S.CONFIRMED


def test_awaiting_payment_on_a_lapsed_hold_is_refused() -> None:
    booking = make_booking(S.HELD, hold_expires_at=NOW)
    with pytest.raises(InvalidTransition) as info:
        booking.await_payment(NOW, "customer", PAYMENT_DEADLINE)
    assert info.value.current_state == "expired"
    assert booking.status is S.HELD


def test_a_lapsed_hold_can_still_be_expired() -> None:
    booking = make_booking(S.HELD, hold_expires_at=NOW - timedelta(minutes=5))
    booking.expire(NOW)
    assert booking.status is S.EXPIRED


@pytest.mark.parametrize(
    ("status", "deadline", "lapsed"),
    [
        (S.HELD, NOW - timedelta(seconds=1), True),
        (S.HELD, NOW, True),
        (S.HELD, NOW + timedelta(seconds=1), False),
        (S.HELD, None, False),
        (S.PENDING_PAYMENT, NOW, True),
        (S.VERIFYING, NOW - timedelta(minutes=30), True),
        (S.VERIFYING, NOW + timedelta(minutes=30), False),
        (S.CONFIRMED, NOW - timedelta(hours=1), False),
        (S.EXPIRED, NOW - timedelta(hours=1), False),
        (S.CANCELLED, NOW - timedelta(hours=1), False),
    ],
)
def test_a_booking_is_lapsed_only_when_locked_with_a_deadline_not_after_now(
    status: BookingStatus, deadline: datetime | None, lapsed: bool
) -> None:
    booking = make_booking(status, hold_expires_at=deadline)
    assert booking.is_lapsed(NOW) is lapsed


@pytest.mark.parametrize("status", list(BookingStatus), ids=[s.value for s in BookingStatus])
def test_a_booking_occupies_its_resources_only_in_an_occupying_state(status: BookingStatus) -> None:
    assert make_booking(status).occupies is (status in OCCUPYING)


def test_starts_and_ends_span_all_allocations() -> None:
    r1, r2 = uuid4(), uuid4()
    booking = make_booking(
        S.HELD,
        allocations=[
            Allocation(r1, NOW + timedelta(hours=2), NOW + timedelta(hours=3)),
            Allocation(r2, NOW + timedelta(hours=1), NOW + timedelta(hours=2)),
        ],
    )
    assert booking.starts_at == NOW + timedelta(hours=1)
    assert booking.ends_at == NOW + timedelta(hours=3)


# --- snapshots -----------------------------------------------------------------------------------------


def _full_booking() -> Booking:
    return Booking(
        id=UUID("11111111-1111-1111-1111-111111111111"),
        unit_id=uuid4(),
        status=S.PENDING_PAYMENT,
        allocations=[
            Allocation(uuid4(), NOW + timedelta(hours=2), NOW + timedelta(hours=4)),
            Allocation(uuid4(), NOW + timedelta(hours=2), NOW + timedelta(hours=3), quantity=4),
        ],
        created_at=NOW,
        customer_id=uuid4(),
        service_id=uuid4(),
        hold_type="RESERVED",
        channel="web",
        hold_expires_at=PAYMENT_DEADLINE,
        price_cents=12_500,
        version=7,
    )


def _bare_booking() -> Booking:
    return Booking(
        id=uuid4(),
        unit_id=uuid4(),
        status=S.CONFIRMED,
        allocations=[Allocation(uuid4(), NOW, NOW + timedelta(hours=1))],
        created_at=NOW,
        hold_type=None,
        hold_expires_at=None,
    )


@pytest.mark.parametrize("build", [_full_booking, _bare_booking], ids=["all-fields", "optional-empty"])
def test_a_snapshot_round_trips_through_json_to_an_equal_booking(build: Callable[[], Booking]) -> None:
    booking = build()
    snapshot = booking_snapshot(booking)
    restored = booking_from_snapshot(json.loads(json.dumps(snapshot)))
    assert restored == booking
    assert restored.status is booking.status
    assert booking_snapshot(restored) == snapshot


def test_a_snapshot_keeps_the_utc_offset_of_every_time() -> None:
    booking = _full_booking()
    restored = booking_from_snapshot(booking_snapshot(booking))
    assert restored.created_at.utcoffset() == timedelta(0)
    assert restored.hold_expires_at == PAYMENT_DEADLINE
    assert all(a.starts_at.tzinfo is not None for a in restored.allocations)


def test_a_snapshot_does_not_carry_pending_events() -> None:
    booking = make_booking(S.HELD)
    booking.confirm(NOW, "system")
    snapshot = booking_snapshot(booking)
    assert "events" not in snapshot
    assert booking_from_snapshot(snapshot).events == []
