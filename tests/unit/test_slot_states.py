"""A booking's status → what its slot and its seat show, defined once (domain/bookings.py) and read by the grid,
seat maps, slot changes and the relay. A slot and a seat differ in one status: a completed booking's slot is in the
past and no longer occupied (free), its seat stays sold (SPEC §3, seed 004: SOLD is "confirmed and completed")."""

from __future__ import annotations

from datetime import UTC, datetime
from uuid import UUID

import pytest

from domain import seatmaps
from domain.availability import Occupancy, SlotState, _state_of
from domain.bookings import LOCKED, OCCUPYING, SOLD, BookingStatus, seat_state, slot_state
from domain.events import BookingChanged, SeatsBlockChanged, SlotSpan
from domain.hold_types import SeatState
from schema.events import SlotChange

S = BookingStatus
EXPECTED = {  # status: (grid slot, seat map cell, seat lifecycle state)
    S.HELD: ("held", "held", SeatState.LOCKED),
    S.PENDING_PAYMENT: ("held", "held", SeatState.LOCKED),
    S.VERIFYING: ("verifying", "verifying", SeatState.LOCKED),
    S.CONFIRMED: ("booked", "booked", SeatState.SOLD),
    S.CHECKED_IN: ("booked", "booked", SeatState.SOLD),
    S.COMPLETED: ("free", "booked", SeatState.SOLD),
    S.CANCELLED: ("free", "free", SeatState.ACTIVE),
    S.NO_SHOW: ("free", "free", SeatState.ACTIVE),
    S.EXPIRED: ("free", "free", SeatState.ACTIVE),
}


@pytest.mark.parametrize("status", list(BookingStatus))
def test_each_status_shows_one_slot_state_and_one_seat_state(status: BookingStatus) -> None:
    assert (slot_state(status), slot_state(status, seat=True), seat_state(status)) == EXPECTED[status]
    assert (slot_state(status.value), seat_state(status.value)) == (EXPECTED[status][0], EXPECTED[status][2])


def test_a_slot_and_a_seat_differ_only_for_a_completed_booking() -> None:
    assert [s for s in BookingStatus if slot_state(s) != slot_state(s, seat=True)] == [S.COMPLETED]
    assert SOLD - OCCUPYING == {S.COMPLETED}
    assert slot_state(None) == slot_state(None, seat=True) == "free" and seat_state(None) is SeatState.ACTIVE


@pytest.mark.parametrize("status", sorted(OCCUPYING))
def test_the_grid_paints_an_occupying_booking_with_its_slot_state(status: BookingStatus) -> None:
    occupancy = Occupancy(UUID(int=1), datetime.min, datetime.min, booking_id=UUID(int=2), status=status)
    assert _state_of(occupancy) is SlotState(slot_state(status))


@pytest.mark.parametrize("status", list(BookingStatus))
def test_a_seat_map_shows_a_booking_that_takes_a_seat_with_its_seat_state(status: BookingStatus) -> None:
    occupant = seatmaps.Occupant(UUID(int=2), status.value, "CART", None)
    assert seatmaps.seat_state(occupant, datetime.now(UTC)) is seat_state(status)


def test_the_locked_states_are_the_ones_with_a_deadline() -> None:
    assert {s for s in BookingStatus if seat_state(s) is SeatState.LOCKED} == LOCKED


@pytest.mark.parametrize("status", list(BookingStatus))
def test_a_slot_change_names_the_state_of_its_slot_and_of_its_seat(status: BookingStatus) -> None:
    t = datetime(2026, 12, 8, 12, 0, tzinfo=UTC)
    span = (SlotSpan(UUID(int=1), t, t),)
    change = SlotChange.from_event(1, BookingChanged(UUID(int=2), UUID(int=3), None, status.value, slot_state(status),
                                                     "CART", None, None, None, None, t, span))
    assert (str(change.state), change.seat_state) == (slot_state(status), seat_state(status))
    blocked = SlotChange.from_event(2, SeatsBlockChanged(UUID(int=3), True, t, "camera", span))
    unblocked = SlotChange.from_event(3, SeatsBlockChanged(UUID(int=3), False, t, "", span))
    assert (blocked.seat_state, unblocked.seat_state) == (SeatState.BLOCKED, SeatState.ACTIVE)
