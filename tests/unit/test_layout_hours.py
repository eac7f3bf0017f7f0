"""Dated exceptions to opening hours as pure functions (issue 18): which apply to a resource, the windows they
leave, the parts they close, and the checks of windows as the API takes them."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from uuid import UUID

import pytest

from domain.availability import opening_windows
from domain.availability.windows import closed_windows
from domain.errors import InvalidInput
from domain.layout.hours import WindowSpec, checked_windows
from domain.units import HoursException, OpeningWindow, Resource, Unit

TZ_NAME = "America/Sao_Paulo"
WEEK = tuple(OpeningWindow(d, 8 * 60, 23 * 60) for d in range(7))
R1, R2 = (Resource(UUID(int=i), UUID(int=9), f"Campo {i}") for i in (1, 2))
XMAS, EVE = date(2026, 12, 25), date(2026, 12, 24)


def _unit(*exceptions: HoursException) -> Unit:
    return Unit(UUID(int=9), UUID(int=8), UUID(int=7), "Arena", TZ_NAME, hours=WEEK, exceptions=exceptions)


def _local(d: date, hour: int) -> datetime:
    return datetime(d.year, d.month, d.day, hour, tzinfo=_unit().tz).astimezone(UTC)


def test_a_resources_own_exception_wins_over_the_units() -> None:
    unit = _unit(HoursException(UUID(int=1), XMAS), HoursException(UUID(int=2), XMAS, R2.id, ((600, 720),)),
                 HoursException(UUID(int=3), EVE, None, ((480, 840),)))
    assert unit.days_of(R1) == ((EVE, ((480, 840),)), (XMAS, ()))
    assert unit.days_of(R2) == ((EVE, ((480, 840),)), (XMAS, ((600, 720),)))
    start, end = _local(EVE, 0), _local(XMAS, 0) + timedelta(days=2)
    r1 = opening_windows(unit.hours_of(R1), unit.tz, start, end, unit.days_of(R1))
    assert r1 == [(_local(EVE, 8), _local(EVE, 14)), (_local(XMAS + timedelta(days=1), 8),
                                                      _local(XMAS + timedelta(days=1), 23))]
    assert closed_windows(unit.hours_of(R1), unit.tz, start, end, unit.days_of(R1)) == [
        (_local(EVE, 14), _local(EVE, 23)), (_local(XMAS, 8), _local(XMAS, 23))]
    assert closed_windows(unit.hours_of(R2), unit.tz, start, end, unit.days_of(R2))[1:] == [
        (_local(XMAS, 8), _local(XMAS, 10)), (_local(XMAS, 12), _local(XMAS, 23))]


def test_windows_are_checked_as_the_api_takes_them() -> None:
    ok = checked_windows([WindowSpec("18:00", "24:00", 6), WindowSpec("08:00", "12:00", 6)], 60, weekly=True)
    assert ok == [(6, 1080, 1440), (6, 480, 720)]
    assert checked_windows([WindowSpec("08:00", "09:30")], 30, weekly=False) == [(0, 480, 570)]
    for specs, slot, field, code in (
            ([WindowSpec("8:00", "12:00", 0)], 60, "windows[0].opens", "invalid_time"),
            ([WindowSpec("08:00", "24:01", 0)], 60, "windows[0].closes", "invalid_time"),
            ([WindowSpec("08:00", "12:00", 7)], 60, "windows[0].weekday", "invalid_input"),
            ([WindowSpec("12:00", "12:00", 0)], 60, "windows[0].closes", "invalid_range"),
            ([WindowSpec("08:00", "09:30", 0)], 60, "windows[0].closes", "off_grid"),
            ([WindowSpec("08:00", "12:00", 0), WindowSpec("14:00", "16:00", 1), WindowSpec("11:00", "13:00", 0)],
             60, "windows[2]", "overlapping_windows")):
        with pytest.raises(InvalidInput) as refused:
            checked_windows(specs, slot, weekly=True)
        assert (refused.value.field, refused.value.code) == (field, code)
