"""Slots on daylight-saving days: the real length of the day, the missing spring hour, the repeated fall hour."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from uuid import uuid4
from zoneinfo import ZoneInfo

import pytest

from domain.availability import Occupancy, SlotState, check_on_grid, opening_windows, resource_cells, slot_ranges
from domain.errors import InvalidInput
from tests.unit._availability_helpers import (
    BERLIN,
    BERLIN_FALL,
    BERLIN_SPRING,
    NY,
    NY_FALL,
    NY_SPRING,
    S,
    assert_contiguous,
    every_day,
    field,
    hhmm,
    hhmm_off,
    local,
    make_unit,
    whole_day,
)


@pytest.mark.parametrize(
    ("day", "tz"),
    [(NY_SPRING, NY), (NY_FALL, NY), (BERLIN_SPRING, BERLIN), (BERLIN_FALL, BERLIN)],
    ids=["ny-spring", "ny-fall", "berlin-spring", "berlin-fall"],
)
def test_hours_away_from_the_change_keep_their_usual_local_slots_on_a_dst_day(
    day: date, tz: ZoneInfo
) -> None:
    unit = make_unit(tz=tz)
    (group,) = slot_ranges(unit, field(unit, "Court"), *whole_day(day, tz))
    assert [hhmm(s, tz) for s, _ in group] == [f"{h:02d}:00" for h in range(8, 23)]
    assert_contiguous(group, timedelta(hours=1))


def test_a_spring_forward_day_open_around_the_clock_has_23_hourly_slots_and_skips_the_missing_hour() -> None:
    unit = make_unit(tz=NY, hours=every_day(0, 24))
    (group,) = slot_ranges(unit, field(unit, "Court"), *whole_day(NY_SPRING, NY))
    assert len(group) == 23
    assert_contiguous(group, timedelta(hours=1))
    labels = [hhmm_off(s, NY) for s, _ in group]
    assert labels[:4] == ["00:00-0500", "01:00-0500", "03:00-0400", "04:00-0400"]
    assert not any(label.startswith("02:") for label in labels)


def test_a_fall_back_day_open_around_the_clock_has_25_hourly_slots_with_one_oclock_twice() -> None:
    unit = make_unit(tz=NY, hours=every_day(0, 24))
    (group,) = slot_ranges(unit, field(unit, "Court"), *whole_day(NY_FALL, NY))
    assert len(group) == 25
    assert_contiguous(group, timedelta(hours=1))
    labels = [hhmm_off(s, NY) for s, _ in group]
    assert labels[:4] == ["00:00-0400", "01:00-0400", "01:00-0500", "02:00-0500"]


@pytest.mark.parametrize(("day", "count"), [(BERLIN_SPRING, 46), (BERLIN_FALL, 50)])
def test_half_hour_slots_around_the_clock_follow_the_real_length_of_a_berlin_dst_day(
    day: date, count: int
) -> None:
    unit = make_unit(tz=BERLIN, slot_minutes=30, hours=every_day(0, 24))
    (group,) = slot_ranges(unit, field(unit, "Court"), *whole_day(day, BERLIN))
    assert len(group) == count
    assert_contiguous(group, timedelta(minutes=30))


def test_a_window_spanning_the_fall_back_lasts_its_real_three_hours() -> None:
    unit = make_unit(tz=NY, hours=every_day(1, 3))
    (group,) = slot_ranges(unit, field(unit, "Court"), *whole_day(NY_FALL, NY))
    assert [hhmm_off(s, NY) for s, _ in group] == ["01:00-0400", "01:00-0500", "02:00-0500"]
    assert_contiguous(group, timedelta(hours=1))


def test_an_opening_time_inside_the_spring_gap_is_moved_forward_by_the_gap() -> None:
    # Documented behaviour: 02:30 does not exist on that day; it is read with the old offset
    # (02:30 EST = 03:30 EDT), so the window opens an hour later in absolute time and the grid
    # stays on the half hour as on every other day.
    unit = make_unit(tz=NY, hours=every_day(2.5, 10))
    (group,) = slot_ranges(unit, field(unit, "Court"), *whole_day(NY_SPRING, NY))
    assert [hhmm_off(s, NY) for s, _ in group][:2] == ["03:30-0400", "04:30-0400"]
    assert hhmm(group[-1][1], NY) == "09:30"
    assert_contiguous(group, timedelta(hours=1))


def test_an_overnight_window_across_the_spring_gap_lasts_its_real_four_hours() -> None:
    unit = make_unit(tz=NY, hours=every_day(22, 26))
    saturday = NY_SPRING - timedelta(days=1)
    windows = opening_windows(unit.hours, NY, local(20, saturday, NY), local(30, saturday, NY))
    opening, closing = next((o, c) for o, c in windows if o.astimezone(NY).date() == saturday)
    assert closing - opening == timedelta(hours=4)
    assert hhmm_off(closing, NY) == "03:00-0400"


def test_both_one_oclock_slots_of_the_fall_back_day_are_distinct_bookable_ranges() -> None:
    unit = make_unit(tz=NY, hours=every_day(0, 24))
    r = field(unit, "Court")
    first = datetime(2026, 11, 1, 1, 0, tzinfo=timezone(timedelta(hours=-4)))
    second = datetime(2026, 11, 1, 1, 0, tzinfo=timezone(timedelta(hours=-5)))
    assert second - first == timedelta(hours=1)
    assert check_on_grid(unit, r, first, first + timedelta(hours=1)) == 1
    assert check_on_grid(unit, r, second, second + timedelta(hours=1)) == 1
    assert check_on_grid(unit, r, first, second + timedelta(hours=1)) == 2
    taken = Occupancy(r.id, first, second, booking_id=uuid4(), status=S.CONFIRMED)
    now = datetime(2026, 10, 31, 12, tzinfo=NY)
    (row,) = resource_cells(unit, r, [taken], *whole_day(NY_FALL, NY), now)
    states = {hhmm_off(c.starts_at, NY): c.state for c in row}
    assert states["01:00-0400"] is SlotState.BOOKED
    assert states["01:00-0500"] is SlotState.FREE


def test_the_missing_spring_hour_is_not_a_slot_start() -> None:
    unit = make_unit(tz=NY, hours=every_day(0, 24))
    # 02:00 EST would be 03:00 EDT: that instant is a slot start (the 03:00 one); 02:00 EDT is 01:00 EST.
    one_am = datetime(2026, 3, 8, 1, 0, tzinfo=timezone(timedelta(hours=-5)))
    assert check_on_grid(unit, field(unit, "Court"), one_am, one_am + timedelta(hours=1)) == 1
    with pytest.raises(InvalidInput):
        half = one_am + timedelta(minutes=30)
        check_on_grid(unit, field(unit, "Court"), half, half + timedelta(hours=1))


def test_an_ambiguous_zoneinfo_start_on_the_fall_back_day_is_accepted_on_the_grid() -> None:
    unit = make_unit(tz=NY, hours=every_day(0, 24))
    start = datetime(2026, 11, 1, 1, 0, tzinfo=NY)  # fold=0: 01:00 EDT, a slot start
    # Python adds wall-clock time to ZoneInfo datetimes: take the hour in absolute time.
    end = start.astimezone(UTC) + timedelta(hours=1)
    assert check_on_grid(unit, field(unit, "Court"), start, end) == 1


def test_a_non_ambiguous_zoneinfo_start_is_accepted_on_the_grid() -> None:
    unit = make_unit(tz=NY, hours=every_day(0, 24))
    start = datetime(2026, 11, 1, 3, 0, tzinfo=NY)
    # Python adds wall-clock time to ZoneInfo datetimes: take the hour in absolute time.
    end = start.astimezone(UTC) + timedelta(hours=1)
    assert check_on_grid(unit, field(unit, "Court"), start, end) == 1
