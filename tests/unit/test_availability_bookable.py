"""Bookable slots, the customer's view (SPEC §5, RN-ATD-06, RN-HLD-02): the booking window, free runs, quantities."""

from __future__ import annotations

from datetime import timedelta

import pytest

from domain.availability import bookable_slots, earliest_bookable_start
from domain.bookings import BookingStatus
from domain.holds import check_booking_window, hold_deadline
from tests.unit._availability_helpers import (
    DAY,
    EVE_BEFORE,
    NOW_MORNING,
    RN_ATD_06_NOW,
    S,
    field,
    hhmm,
    local,
    make_unit,
    occ,
    options,
    pool,
    two_windows,
    whole_day,
)


def test_rn_atd_06_at_17_20_the_first_offered_slot_is_19_00() -> None:
    unit = make_unit()
    c1 = field(unit, "Campo 1")
    offered = bookable_slots(unit, [c1], [], *whole_day(), RN_ATD_06_NOW)
    assert options(offered, {c1.id: "Campo 1"}) == [
        ("Campo 1", "19:00", "20:00"),
        ("Campo 1", "20:00", "21:00"),
        ("Campo 1", "21:00", "22:00"),
        ("Campo 1", "22:00", "23:00"),
    ]


def test_rn_atd_06_a_slot_held_by_another_customer_is_not_offered() -> None:
    unit = make_unit()
    c1 = field(unit, "Campo 1")
    held = occ(c1, 20, 21, S.HELD, expires=RN_ATD_06_NOW + timedelta(minutes=10))
    offered = bookable_slots(unit, [c1], [held], *whole_day(), RN_ATD_06_NOW)
    assert [hhmm(o.starts_at) for o in offered] == ["19:00", "21:00", "22:00"]


def test_a_slot_whose_hold_lapsed_is_offered_again() -> None:
    unit = make_unit()
    c1 = field(unit, "Campo 1")
    lapsed = occ(c1, 20, 21, S.HELD, expires=RN_ATD_06_NOW - timedelta(seconds=1))
    offered = bookable_slots(unit, [c1], [lapsed], *whole_day(), RN_ATD_06_NOW)
    assert [hhmm(o.starts_at) for o in offered] == ["19:00", "20:00", "21:00", "22:00"]


@pytest.mark.parametrize("status", [S.PENDING_PAYMENT, S.VERIFYING, S.CONFIRMED, S.CHECKED_IN, None])
def test_verifying_booked_and_blocked_slots_are_never_offered(status: BookingStatus | None) -> None:
    unit = make_unit()
    c1 = field(unit, "Campo 1")
    o = occ(c1, 20, 21, status, expires=RN_ATD_06_NOW + timedelta(minutes=30) if status else None)
    offered = bookable_slots(unit, [c1], [o], *whole_day(), RN_ATD_06_NOW)
    assert "20:00" not in [hhmm(s.starts_at) for s in offered]


def test_rn_atd_06_a_date_40_days_ahead_offers_nothing() -> None:
    unit = make_unit()
    c1 = field(unit, "Campo 1")
    assert bookable_slots(unit, [c1], [], *whole_day(DAY + timedelta(days=40)), RN_ATD_06_NOW) == []


def test_the_last_bookable_day_offers_slots_up_to_max_advance_from_now() -> None:
    unit = make_unit()
    c1 = field(unit, "Campo 1")
    last_day = DAY + timedelta(days=30)
    offered = bookable_slots(unit, [c1], [], *whole_day(last_day), RN_ATD_06_NOW)
    # now + 30 days is 17:20 on that day: 17:00 is the last start inside the window.
    assert [hhmm(o.starts_at) for o in offered] == [f"{h:02d}:00" for h in range(8, 18)]


@pytest.mark.parametrize(
    ("minute", "first"), [(50, "19:00"), (55, "19:00"), (56, "20:00"), (59, "20:00")]
)
def test_rn_hld_02_a_slot_whose_hold_would_be_shorter_than_hold_min_is_not_offered(
    minute: int, first: str
) -> None:
    unit = make_unit()
    c1 = field(unit, "Campo 1")
    now = local(17) + timedelta(minutes=minute)
    offered = bookable_slots(unit, [c1], [], *whole_day(), now)
    assert hhmm(offered[0].starts_at) == first


def test_the_earliest_bookable_start_is_min_advance_plus_hold_min_from_now() -> None:
    unit = make_unit()
    assert earliest_bookable_start(unit, local(17.5)) == local(18) + timedelta(minutes=35)


@pytest.mark.parametrize("minute", range(0, 60, 7))
def test_every_offered_slot_can_actually_be_held(minute: int) -> None:
    unit = make_unit()
    c1 = field(unit, "Campo 1")
    now = local(16) + timedelta(minutes=minute, seconds=13)
    for o in bookable_slots(unit, [c1], [], *whole_day(), now):
        check_booking_window(unit.params, now, o.starts_at)
        assert hold_deadline(unit.params, now, o.starts_at, payment_due=True) - now >= unit.params.hold_min


def test_two_consecutive_slots_are_offered_only_where_both_are_free() -> None:
    unit = make_unit()
    c1 = field(unit, "Campo 1")
    offered = bookable_slots(unit, [c1], [occ(c1, 12, 13)], *whole_day(), EVE_BEFORE, slots=2)
    assert [(hhmm(o.starts_at), hhmm(o.ends_at)) for o in offered] == [
        ("08:00", "10:00"), ("09:00", "11:00"), ("10:00", "12:00"),
        ("13:00", "15:00"), ("14:00", "16:00"), ("15:00", "17:00"), ("16:00", "18:00"),
        ("17:00", "19:00"), ("18:00", "20:00"), ("19:00", "21:00"), ("20:00", "22:00"), ("21:00", "23:00"),
    ]


def test_consecutive_slots_never_cross_the_closing_time_or_a_break() -> None:
    hours = two_windows(8, 12, 14, 17)
    unit = make_unit(hours=hours)
    c1 = field(unit, "Campo 1")
    offered = bookable_slots(unit, [c1], [], *whole_day(), EVE_BEFORE, slots=2)
    assert [(hhmm(o.starts_at), hhmm(o.ends_at)) for o in offered] == [
        ("08:00", "10:00"), ("09:00", "11:00"), ("10:00", "12:00"), ("14:00", "16:00"), ("15:00", "17:00"),
    ]


def test_consecutive_slots_do_not_join_two_adjacent_opening_windows() -> None:
    # Documented behaviour: hours written as 08-12 + 12-16 are two windows; no run crosses 12:00.
    hours = two_windows(8, 12, 12, 16)
    unit = make_unit(hours=hours)
    c1 = field(unit, "Campo 1")
    offered = bookable_slots(unit, [c1], [], *whole_day(), EVE_BEFORE, slots=2)
    assert ("10:00", "12:00") in [(hhmm(o.starts_at), hhmm(o.ends_at)) for o in offered]
    assert ("11:00", "13:00") not in [(hhmm(o.starts_at), hhmm(o.ends_at)) for o in offered]


def test_three_consecutive_slots_near_min_advance_start_late_enough() -> None:
    unit = make_unit()
    c1 = field(unit, "Campo 1")
    offered = bookable_slots(unit, [c1], [], *whole_day(), RN_ATD_06_NOW, slots=3)
    assert [(hhmm(o.starts_at), hhmm(o.ends_at)) for o in offered] == [("19:00", "22:00"), ("20:00", "23:00")]


def test_any_resource_lists_every_free_resource_by_start_time() -> None:
    unit = make_unit()
    c1, c2 = field(unit, "Campo 1", 1), field(unit, "Campo 2", 2)
    offered = bookable_slots(unit, [c1, c2], [occ(c1, 19, 20)], *whole_day(), RN_ATD_06_NOW)
    assert options(offered, {c1.id: "Campo 1", c2.id: "Campo 2"})[:3] == [
        ("Campo 2", "19:00", "20:00"), ("Campo 1", "20:00", "21:00"), ("Campo 2", "20:00", "21:00"),
    ]
    assert len(offered) == 7


def test_a_pooled_slot_is_offered_only_while_the_quantity_fits() -> None:
    unit = make_unit()
    p = pool(unit, 12)
    occs = [occ(p, 20, 21, quantity=10)]
    two = bookable_slots(unit, [p], occs, *whole_day(), RN_ATD_06_NOW, quantity=2)
    three = bookable_slots(unit, [p], occs, *whole_day(), RN_ATD_06_NOW, quantity=3)
    assert "20:00" in [hhmm(o.starts_at) for o in two]
    assert "20:00" not in [hhmm(o.starts_at) for o in three]
    assert [hhmm(o.starts_at) for o in three] == ["19:00", "21:00", "22:00"]


def test_a_full_pooled_slot_is_not_offered() -> None:
    unit = make_unit()
    p = pool(unit, 12)
    full = occ(p, 20, 21, S.HELD, expires=local(18), quantity=12)
    offered = bookable_slots(unit, [p], [full], *whole_day(), RN_ATD_06_NOW)
    assert [hhmm(o.starts_at) for o in offered] == ["19:00", "21:00", "22:00"]


def test_an_exclusive_resource_offers_nothing_for_a_quantity_above_one() -> None:
    unit = make_unit()
    c1 = field(unit, "Campo 1")
    assert bookable_slots(unit, [c1], [], *whole_day(), RN_ATD_06_NOW, quantity=2) == []


def test_a_range_entirely_in_the_past_offers_nothing() -> None:
    unit = make_unit()
    c1 = field(unit, "Campo 1")
    assert bookable_slots(unit, [c1], [], *whole_day(DAY - timedelta(days=1)), RN_ATD_06_NOW) == []


def test_offered_slots_do_not_depend_on_where_the_asked_range_starts() -> None:
    unit = make_unit()
    c1 = field(unit, "Campo 1")
    full = bookable_slots(unit, [c1], [], *whole_day(), NOW_MORNING)
    part = bookable_slots(unit, [c1], [], local(13.5), local(23), NOW_MORNING)
    assert part == [o for o in full if o.starts_at >= local(13.5)]
