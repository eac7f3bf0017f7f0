"""The staff grid (SPEC §5): each slot's state from what occupies it, segments, lapsed holds, blocks, pooled places."""

from __future__ import annotations

from datetime import timedelta
from uuid import uuid4

import pytest

from domain.availability import Occupancy, SlotState, grid
from domain.bookings import BookingStatus
from tests.unit._availability_helpers import NOW_MORNING, S, field, local, make_unit, occ, pool, seg_summary, whole_day


def test_an_empty_day_is_one_free_segment() -> None:
    unit = make_unit()
    r = field(unit, "Campo 1")
    g = grid(unit, [r], [], *whole_day(), NOW_MORNING)
    assert seg_summary(g[r.id]) == [("08:00", "23:00", "free", 1, 15)]
    assert g[r.id][0].occupancy is None


@pytest.mark.parametrize(
    ("status", "state"),
    [
        (S.HELD, SlotState.HELD),
        (S.PENDING_PAYMENT, SlotState.HELD),
        (S.VERIFYING, SlotState.VERIFYING),
        (S.CONFIRMED, SlotState.BOOKED),
        (S.CHECKED_IN, SlotState.BOOKED),
        (None, SlotState.BLOCKED),
    ],
    ids=["held", "pending_payment", "verifying", "confirmed", "checked_in", "block"],
)
def test_an_occupied_slot_shows_its_state_between_free_segments(
    status: BookingStatus | None, state: SlotState
) -> None:
    unit = make_unit()
    r = field(unit, "Campo 1")
    o = occ(r, 19, 20, status, expires=local(19) - timedelta(hours=1) if status else None, hold_type="CART")
    g = grid(unit, [r], [o], *whole_day(), NOW_MORNING)
    assert seg_summary(g[r.id]) == [
        ("08:00", "19:00", "free", 1, 11),
        ("19:00", "20:00", state.value, 0, 1),
        ("20:00", "23:00", "free", 1, 3),
    ]
    assert g[r.id][1].occupancy == o


@pytest.mark.parametrize("status", [S.HELD, S.PENDING_PAYMENT, S.VERIFYING])
@pytest.mark.parametrize("lapsed_by", [timedelta(0), timedelta(seconds=1), timedelta(hours=3)])
def test_a_lapsed_locked_booking_shows_free_before_any_job_expires_it(
    status: BookingStatus, lapsed_by: timedelta
) -> None:
    unit = make_unit()
    r = field(unit, "Campo 1")
    now = local(15)
    o = occ(r, 19, 20, status, expires=now - lapsed_by)
    g = grid(unit, [r], [o], *whole_day(), now)
    assert seg_summary(g[r.id]) == [("08:00", "23:00", "free", 1, 15)]


def test_a_hold_one_second_before_its_deadline_still_shows_held() -> None:
    unit = make_unit()
    r = field(unit, "Campo 1")
    now = local(15)
    g = grid(unit, [r], [occ(r, 19, 20, S.HELD, expires=now + timedelta(seconds=1))], *whole_day(), now)
    assert [s.state for s in g[r.id]] == [SlotState.FREE, SlotState.HELD, SlotState.FREE]


def test_a_confirmed_booking_with_a_stale_deadline_is_never_shown_free() -> None:
    unit = make_unit()
    r = field(unit, "Campo 1")
    g = grid(unit, [r], [occ(r, 19, 20, S.CONFIRMED, expires=local(8))], *whole_day(), local(15))
    assert g[r.id][1].state is SlotState.BOOKED


def test_a_booking_of_two_slots_is_one_segment() -> None:
    unit = make_unit()
    r = field(unit, "Campo 1")
    g = grid(unit, [r], [occ(r, 19, 21)], *whole_day(), NOW_MORNING)
    assert seg_summary(g[r.id])[1] == ("19:00", "21:00", "booked", 0, 2)


def test_two_adjacent_bookings_with_the_same_state_stay_separate_segments() -> None:
    unit = make_unit()
    r = field(unit, "Campo 1")
    a, b = occ(r, 19, 20), occ(r, 20, 21)
    g = grid(unit, [r], [a, b], *whole_day(), NOW_MORNING)
    assert seg_summary(g[r.id])[1:3] == [
        ("19:00", "20:00", "booked", 0, 1),
        ("20:00", "21:00", "booked", 0, 1),
    ]
    assert [s.occupancy for s in g[r.id][1:3]] == [a, b]


def test_a_block_over_part_of_a_slot_blocks_the_whole_slot() -> None:
    unit = make_unit()
    r = field(unit, "Campo 1")
    g = grid(unit, [r], [occ(r, 19.25, 19.75, None)], *whole_day(), NOW_MORNING)
    assert seg_summary(g[r.id])[1] == ("19:00", "20:00", "blocked", 0, 1)


def test_a_block_overrides_a_booking_in_the_same_slot() -> None:
    unit = make_unit()
    r = field(unit, "Campo 1")
    occs = [occ(r, 19, 20, S.HELD, expires=local(18)), occ(r, 18, 22, None)]
    g = grid(unit, [r], occs, *whole_day(), NOW_MORNING)
    assert seg_summary(g[r.id]) == [
        ("08:00", "18:00", "free", 1, 10),
        ("18:00", "22:00", "blocked", 0, 4),
        ("22:00", "23:00", "free", 1, 1),
    ]


def test_an_occupancy_ending_at_a_slot_start_does_not_touch_that_slot() -> None:
    unit = make_unit()
    r = field(unit, "Campo 1")
    g = grid(unit, [r], [occ(r, 7, 8), occ(r, 23, 24)], *whole_day(), NOW_MORNING)
    assert seg_summary(g[r.id]) == [("08:00", "23:00", "free", 1, 15)]


def test_the_grid_gives_every_resource_its_own_row_and_ignores_others_occupancies() -> None:
    unit = make_unit()
    c1, c2 = field(unit, "Campo 1"), field(unit, "Campo 2")
    stranger = Occupancy(uuid4(), local(10), local(11), booking_id=uuid4(), status=S.CONFIRMED)
    g = grid(unit, [c1, c2], [occ(c2, 10, 11), stranger], *whole_day(), NOW_MORNING)
    assert set(g) == {c1.id, c2.id}
    assert seg_summary(g[c1.id]) == [("08:00", "23:00", "free", 1, 15)]
    assert [s.state.value for s in g[c2.id]] == ["free", "booked", "free"]


def test_the_grid_lists_segments_in_time_order_and_only_within_the_range() -> None:
    unit = make_unit()
    r = field(unit, "Campo 1")
    g = grid(unit, [r], [occ(r, 9, 10)], local(12), local(15), NOW_MORNING)
    assert seg_summary(g[r.id]) == [("12:00", "15:00", "free", 1, 3)]


def test_a_pooled_resource_shows_how_many_places_are_left() -> None:
    unit = make_unit()
    p = pool(unit, 12)
    occs = [occ(p, 19, 20, quantity=5), occ(p, 19, 21, S.HELD, expires=local(18), quantity=3)]
    g = grid(unit, [p], occs, *whole_day(), NOW_MORNING)
    assert seg_summary(g[p.id]) == [
        ("08:00", "19:00", "free", 12, 11),
        ("19:00", "20:00", "free", 4, 1),
        ("20:00", "21:00", "free", 9, 1),
        ("21:00", "23:00", "free", 12, 2),
    ]
    assert all(s.occupancy is None for s in g[p.id])


@pytest.mark.parametrize(
    ("parts", "state"),
    [
        ([(S.CONFIRMED, 12)], SlotState.BOOKED),
        ([(S.HELD, 12)], SlotState.HELD),
        ([(S.VERIFYING, 4), (S.HELD, 8)], SlotState.VERIFYING),
        ([(S.HELD, 6), (S.CONFIRMED, 6)], SlotState.BOOKED),
        ([(S.CONFIRMED, 10), (S.HELD, 5)], SlotState.BOOKED),
    ],
    ids=["booked", "held", "verifying-wins-over-held", "booked-wins-over-held", "overfull"],
)
def test_a_full_pooled_slot_shows_the_strongest_state_of_its_bookings(
    parts: list[tuple[BookingStatus, int]], state: SlotState
) -> None:
    unit = make_unit()
    p = pool(unit, 12)
    occs = [occ(p, 19, 20, st, expires=local(18), quantity=q) for st, q in parts]
    g = grid(unit, [p], occs, *whole_day(), NOW_MORNING)
    middle = g[p.id][1]
    assert (middle.state, middle.available, middle.slots) == (state, 0, 1)
    assert middle.occupancy is not None


def test_a_pooled_slot_with_a_lapsed_hold_gets_its_places_back() -> None:
    unit = make_unit()
    p = pool(unit, 12)
    now = local(15)
    occs = [occ(p, 19, 20, quantity=6), occ(p, 19, 20, S.HELD, expires=now, quantity=6)]
    g = grid(unit, [p], occs, *whole_day(), now)
    assert seg_summary(g[p.id])[1] == ("19:00", "20:00", "free", 6, 1)


def test_a_block_on_a_pooled_resource_blocks_it_whatever_is_left() -> None:
    unit = make_unit()
    p = pool(unit, 12)
    occs = [occ(p, 19, 20, quantity=1), occ(p, 19, 20, None, quantity=1)]
    g = grid(unit, [p], occs, *whole_day(), NOW_MORNING)
    assert seg_summary(g[p.id])[1] == ("19:00", "20:00", "blocked", 0, 1)


def test_half_hour_cells_merge_into_segments_too() -> None:
    unit = make_unit(slot_minutes=30)
    r = field(unit, "Cadeira 1")
    g = grid(unit, [r], [occ(r, 10, 11.5, S.HELD, expires=local(9))], *whole_day(), NOW_MORNING)
    assert seg_summary(g[r.id]) == [
        ("08:00", "10:00", "free", 1, 4),
        ("10:00", "11:30", "held", 0, 3),
        ("11:30", "23:00", "free", 1, 23),
    ]
