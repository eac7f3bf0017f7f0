"""check_on_grid: a requested range is whole consecutive slots of one opening window, else a refusal naming the
field."""

from __future__ import annotations

from datetime import UTC

import pytest

from domain.availability import check_on_grid
from domain.errors import InvalidInput
from tests.unit._availability_helpers import every_day, field, local, make_unit, two_windows


@pytest.mark.parametrize(("start", "end", "count"), [(19, 20, 1), (19, 21, 2), (8, 23, 15), (22, 23, 1)])
def test_whole_consecutive_slots_are_accepted_with_their_count(start: float, end: float, count: int) -> None:
    unit = make_unit()
    assert check_on_grid(unit, field(unit, "Campo 1"), local(start), local(end)) == count


def test_the_same_instant_written_in_utc_is_accepted() -> None:
    unit = make_unit()
    start, end = local(19).astimezone(UTC), local(20).astimezone(UTC)
    assert check_on_grid(unit, field(unit, "Campo 1"), start, end) == 1


def test_half_hour_slots_accept_half_hour_ranges() -> None:
    unit = make_unit(slot_minutes=30)
    assert check_on_grid(unit, field(unit, "Cadeira 1"), local(19.5), local(20)) == 1
    assert check_on_grid(unit, field(unit, "Cadeira 1"), local(19.5), local(21)) == 3


@pytest.mark.parametrize(("start", "end"), [(19.5, 20.5), (7, 8), (23, 24), (6, 7), (19.25, 20)])
def test_a_range_not_starting_on_a_slot_is_refused_naming_starts_at(start: float, end: float) -> None:
    unit = make_unit()
    with pytest.raises(InvalidInput) as info:
        check_on_grid(unit, field(unit, "Campo 1"), local(start), local(end))
    assert info.value.code == "off_grid"
    assert info.value.field == "startsAt"
    assert "Campo 1" in info.value.message


@pytest.mark.parametrize(("start", "end"), [(19, 19.5), (19, 20.5), (22, 24), (21, 25)])
def test_a_range_not_ending_on_a_slot_inside_opening_hours_is_refused_naming_ends_at(
    start: float, end: float
) -> None:
    unit = make_unit()
    with pytest.raises(InvalidInput) as info:
        check_on_grid(unit, field(unit, "Campo 1"), local(start), local(end))
    assert info.value.code == "off_grid"
    assert info.value.field == "endsAt"


def test_a_range_across_a_break_between_windows_is_refused() -> None:
    hours = two_windows(8, 12, 14, 17)
    unit = make_unit(hours=hours)
    with pytest.raises(InvalidInput) as info:
        check_on_grid(unit, field(unit, "Campo 1"), local(11), local(15))
    assert info.value.field == "endsAt"


def test_a_range_running_into_the_next_day_is_refused() -> None:
    unit = make_unit()
    with pytest.raises(InvalidInput) as info:
        check_on_grid(unit, field(unit, "Campo 1"), local(22), local(24 + 9))
    assert info.value.code == "off_grid"


def test_a_range_over_midnight_inside_an_overnight_window_is_accepted() -> None:
    unit = make_unit(hours=every_day(18, 26))
    assert check_on_grid(unit, field(unit, "Campo 1"), local(23), local(25)) == 2


@pytest.mark.parametrize("naive", ["start", "end", "both"])
def test_naive_datetimes_are_refused(naive: str) -> None:
    unit = make_unit()
    start, end = local(19), local(20)
    if naive in ("start", "both"):
        start = start.replace(tzinfo=None)
    if naive in ("end", "both"):
        end = end.replace(tzinfo=None)
    with pytest.raises(InvalidInput) as info:
        check_on_grid(unit, field(unit, "Campo 1"), start, end)
    assert info.value.code == "naive_datetime"


@pytest.mark.parametrize(("start", "end"), [(20, 19), (19, 19)])
def test_an_empty_or_reversed_range_is_refused(start: float, end: float) -> None:
    unit = make_unit()
    with pytest.raises(InvalidInput) as info:
        check_on_grid(unit, field(unit, "Campo 1"), local(start), local(end))
    assert info.value.code == "invalid_range"
    assert info.value.field == "endsAt"


def test_a_resource_with_its_own_hours_is_checked_against_them() -> None:
    unit = make_unit()
    early = field(unit, "Quadra coberta", hours=every_day(6, 9))
    assert check_on_grid(unit, early, local(6), local(7)) == 1
    with pytest.raises(InvalidInput):
        check_on_grid(unit, early, local(19), local(20))
