"""Opening windows and slot ranges as pure functions of the weekly hours (SPEC §5)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from domain.availability import opening_windows, slot_ranges
from domain.units import OpeningWindow
from tests.unit._availability_helpers import (
    DAY,
    SP,
    assert_contiguous,
    every_day,
    field,
    hhmm,
    local,
    make_unit,
    two_windows,
    whole_day,
)


def test_opening_windows_are_absolute_utc_ranges_of_the_local_hours() -> None:
    start, end = whole_day()
    assert opening_windows(every_day(8, 23), SP, start, end) == [
        (datetime(2026, 3, 10, 11, tzinfo=UTC), datetime(2026, 3, 11, 2, tzinfo=UTC))
    ]


def test_an_opening_window_that_passes_midnight_is_found_from_the_next_day() -> None:
    start, end = whole_day()
    windows = opening_windows(every_day(18, 26), SP, start, end)
    assert [(hhmm(o), hhmm(c)) for o, c in windows] == [("18:00", "02:00"), ("18:00", "02:00")]
    assert windows[0][0].astimezone(SP).date() == DAY - timedelta(days=1)


@pytest.mark.parametrize(("slot_minutes", "count"), [(60, 15), (30, 30)])
def test_slot_ranges_cover_the_opening_hours_in_local_time(slot_minutes: int, count: int) -> None:
    unit = make_unit(slot_minutes=slot_minutes)
    r = field(unit, "Campo 1")
    (group,) = slot_ranges(unit, r, *whole_day())
    assert len(group) == count
    assert hhmm(group[0][0]) == "08:00"
    assert hhmm(group[-1][1]) == "23:00"
    assert_contiguous(group, timedelta(minutes=slot_minutes))
    assert all(s.tzinfo is UTC for s, _ in group)


def test_slot_ranges_give_the_whole_local_hours_of_a_sao_paulo_day() -> None:
    unit = make_unit()
    (group,) = slot_ranges(unit, field(unit, "Campo 1"), *whole_day())
    assert [hhmm(s) for s, _ in group] == [f"{h:02d}:00" for h in range(8, 23)]
    assert group[0][0] == datetime(2026, 3, 10, 11, 0, tzinfo=UTC)


def test_slot_ranges_keep_only_slots_wholly_inside_the_asked_range() -> None:
    unit = make_unit()
    (group,) = slot_ranges(unit, field(unit, "Campo 1"), local(10.5), local(13))
    assert [(hhmm(s), hhmm(e)) for s, e in group] == [("11:00", "12:00"), ("12:00", "13:00")]


def test_slot_ranges_stay_on_the_grid_of_the_opening_time() -> None:
    unit = make_unit(hours=every_day(8.5, 11.5))
    (group,) = slot_ranges(unit, field(unit, "Campo 1"), *whole_day())
    assert [hhmm(s) for s, _ in group] == ["08:30", "09:30", "10:30"]


def test_slot_ranges_are_grouped_by_opening_window() -> None:
    hours = two_windows(8, 12, 14, 16)
    unit = make_unit(hours=hours)
    groups = slot_ranges(unit, field(unit, "Campo 1"), *whole_day())
    assert [[hhmm(s) for s, _ in g] for g in groups] == [
        ["08:00", "09:00", "10:00", "11:00"],
        ["14:00", "15:00"],
    ]


def test_a_resource_with_its_own_hours_uses_them_instead_of_the_units() -> None:
    unit = make_unit()
    r = field(unit, "Quadra coberta", hours=every_day(6, 9))
    (group,) = slot_ranges(unit, r, *whole_day())
    assert [hhmm(s) for s, _ in group] == ["06:00", "07:00", "08:00"]


def test_a_closed_day_has_no_slots() -> None:
    weekdays_only = tuple(OpeningWindow(d, 8 * 60, 23 * 60) for d in range(5))
    unit = make_unit(hours=weekdays_only)
    sunday = date(2026, 3, 15)
    assert slot_ranges(unit, field(unit, "Campo 1"), *whole_day(sunday)) == []


def test_a_window_running_past_midnight_gives_the_early_slots_to_the_next_day() -> None:
    unit = make_unit(hours=every_day(18, 26))
    groups = slot_ranges(unit, field(unit, "Campo 1"), *whole_day())
    assert [[hhmm(s) for s, _ in g] for g in groups] == [
        ["00:00", "01:00"],  # the tail of Monday's window
        ["18:00", "19:00", "20:00", "21:00", "22:00", "23:00"],
    ]
