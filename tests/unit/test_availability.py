"""The grid, bookable slots, grid checks and alternatives as pure functions (SPEC §5, RN-ATD-06/07)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta, timezone
from itertools import pairwise
from uuid import UUID, uuid4
from zoneinfo import ZoneInfo

import pytest

from domain.availability import (
    Occupancy,
    Segment,
    SlotState,
    bookable_slots,
    check_on_grid,
    earliest_bookable_start,
    grid,
    nearest_alternatives,
    opening_windows,
    resource_cells,
    slot_ranges,
)
from domain.bookings import BookingStatus
from domain.errors import InvalidInput, SlotOption
from domain.holds import check_booking_window, hold_deadline
from domain.units import OpeningWindow, Resource, ResourceKind, Unit, UnitParameters

S = BookingStatus
SP = ZoneInfo("America/Sao_Paulo")  # no daylight-saving time since 2019
NY = ZoneInfo("America/New_York")
BERLIN = ZoneInfo("Europe/Berlin")
DAY = date(2026, 3, 10)  # a Tuesday

NY_SPRING = date(2026, 3, 8)  # 02:00 EST -> 03:00 EDT
NY_FALL = date(2026, 11, 1)  # 02:00 EDT -> 01:00 EST
BERLIN_SPRING = date(2026, 3, 29)  # 02:00 CET -> 03:00 CEST
BERLIN_FALL = date(2026, 10, 25)  # 03:00 CEST -> 02:00 CET


# --- helpers -------------------------------------------------------------------------------------------


def two_windows(a: float, b: float, c: float, d: float) -> tuple[OpeningWindow, ...]:
    """Open every day from `a` to `b` and from `c` to `d` (hours)."""
    return every_day(a, b) + every_day(c, d)


def every_day(opens: float, closes: float) -> tuple[OpeningWindow, ...]:
    """Open every day from `opens` to `closes` (hours after local midnight; may pass 24)."""
    return tuple(OpeningWindow(d, int(opens * 60), int(closes * 60)) for d in range(7))


def make_unit(
    tz: ZoneInfo = SP, slot_minutes: int = 60, hours: tuple[OpeningWindow, ...] | None = None,
    **params: object,
) -> Unit:
    return Unit(
        id=uuid4(), organization_id=uuid4(), tenant_id=uuid4(), name="Arena", timezone=tz.key,
        params=UnitParameters(slot_minutes=slot_minutes, **params),  # type: ignore[arg-type]
        hours=every_day(8, 23) if hours is None else hours,
    )


def field(unit: Unit, name: str, n: int = 0, **kw: object) -> Resource:
    return Resource(id=UUID(int=n) if n else uuid4(), unit_id=unit.id, name=name, **kw)  # type: ignore[arg-type]


def pool(unit: Unit, capacity: int = 12) -> Resource:
    return Resource(uuid4(), unit.id, "Aula de spinning", kind=ResourceKind.POOLED, capacity=capacity)


def local(hour: float, day: date = DAY, tz: ZoneInfo = SP) -> datetime:
    """`hour` o'clock on `day` in `tz` (24 and above run into the next days)."""
    return (datetime.combine(day, time(), tz) + timedelta(minutes=round(hour * 60))).replace(tzinfo=tz)


def whole_day(day: date = DAY, tz: ZoneInfo = SP) -> tuple[datetime, datetime]:
    return datetime.combine(day, time(), tz), datetime.combine(day + timedelta(days=1), time(), tz)


def occ(
    resource: Resource, start: float, end: float, status: BookingStatus | None = S.CONFIRMED,
    expires: datetime | None = None, quantity: int = 1, day: date = DAY, hold_type: str | None = None,
) -> Occupancy:
    """A booking's allocation (or a block when status is None) from `start` to `end` local hours."""
    return Occupancy(
        resource_id=resource.id, starts_at=local(start, day), ends_at=local(end, day), quantity=quantity,
        booking_id=None if status is None else uuid4(), status=status, hold_type=hold_type,
        hold_expires_at=expires,
    )


def hhmm(t: datetime, tz: ZoneInfo = SP) -> str:
    return t.astimezone(tz).strftime("%H:%M")


def hhmm_off(t: datetime, tz: ZoneInfo) -> str:
    return t.astimezone(tz).strftime("%H:%M%z")


def seg_summary(segs: Sequence[Segment], tz: ZoneInfo = SP) -> list[tuple[str, str, str, int, int]]:
    return [(hhmm(s.starts_at, tz), hhmm(s.ends_at, tz), s.state.value, s.available, s.slots) for s in segs]


def options(
    opts: Sequence[SlotOption], names: dict[UUID, str], tz: ZoneInfo = SP
) -> list[tuple[str, str, str]]:
    return [(names[o.resource_id], hhmm(o.starts_at, tz), hhmm(o.ends_at, tz)) for o in opts]


def assert_contiguous(slots: Sequence[tuple[datetime, datetime]], length: timedelta) -> None:
    """Every slot lasts exactly `length`, starts where the last ended, and no instant repeats."""
    starts = [s for s, _ in slots]
    assert len(set(starts)) == len(starts)
    assert all(e - s == length for s, e in slots)
    assert all(prev[1] == nxt[0] for prev, nxt in pairwise(slots))


NOW_MORNING = local(7)
EVE_BEFORE = local(20, DAY - timedelta(days=1))  # early enough for every slot of DAY to be bookable
RN_ATD_06_NOW = local(17, DAY) + timedelta(minutes=20)


# --- opening windows and slot ranges -------------------------------------------------------------------


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


# --- daylight saving -----------------------------------------------------------------------------------


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


# --- grid ----------------------------------------------------------------------------------------------


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


# --- bookable slots ------------------------------------------------------------------------------------


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


# --- check_on_grid -------------------------------------------------------------------------------------


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


# --- nearest alternatives ------------------------------------------------------------------------------


def four_fields(unit: Unit) -> list[Resource]:
    return [field(unit, f"Campo {i}", i) for i in range(1, 5)]


def test_rn_atd_07_the_three_nearest_options_for_20_00_on_campo_2() -> None:
    unit = make_unit()
    fields = four_fields(unit)
    c2 = fields[1]
    taken = occ(c2, 20, 21, S.HELD, expires=local(12) + timedelta(minutes=10))
    alts = nearest_alternatives(unit, fields, [taken], c2, local(20), local(21), local(12))
    assert options(alts, {f.id: f.name for f in fields}) == [
        ("Campo 2", "19:00", "20:00"),
        ("Campo 2", "21:00", "22:00"),
        ("Campo 1", "20:00", "21:00"),
    ]


def test_another_resource_at_the_same_time_follows_the_order_of_the_resources() -> None:
    unit = make_unit()
    fields = four_fields(unit)
    c2 = fields[1]
    occs = [occ(c2, 19, 20), occ(c2, 20, 21), occ(fields[0], 20, 21)]
    alts = nearest_alternatives(unit, fields, occs, c2, local(20), local(21), local(12))
    assert options(alts, {f.id: f.name for f in fields}) == [
        ("Campo 2", "21:00", "22:00"),
        ("Campo 3", "20:00", "21:00"),
        ("Campo 4", "20:00", "21:00"),
    ]


def test_alternatives_respect_the_minimum_advance() -> None:
    unit = make_unit()
    fields = four_fields(unit)
    c2 = fields[1]
    alts = nearest_alternatives(unit, fields, [occ(c2, 20, 21)], c2, local(20), local(21), local(18.5))
    assert options(alts, {f.id: f.name for f in fields}) == [
        ("Campo 2", "21:00", "22:00"),
        ("Campo 1", "20:00", "21:00"),
        ("Campo 3", "20:00", "21:00"),
    ]


def test_alternatives_keep_the_asked_number_of_slots() -> None:
    unit = make_unit()
    fields = four_fields(unit)
    c2 = fields[1]
    alts = nearest_alternatives(unit, fields, [occ(c2, 20, 21)], c2, local(19), local(21), local(12))
    assert all(o.ends_at - o.starts_at == timedelta(hours=2) for o in alts)
    assert options(alts, {f.id: f.name for f in fields})[0] == ("Campo 2", "18:00", "20:00")


def test_when_only_one_slot_is_free_nearby_only_it_is_offered() -> None:
    unit = make_unit()
    fields = four_fields(unit)
    c2 = fields[1]
    days = (DAY - timedelta(days=1), DAY, DAY + timedelta(days=1))
    occs = [occ(f, 0, 24, day=d) for f in fields for d in days]
    occs = [o for o in occs if not (o.resource_id == fields[3].id and o.starts_at.date() == DAY)]
    occs += [occ(fields[3], 8, 22), occ(fields[3], 23, 24)]
    alts = nearest_alternatives(unit, fields, occs, c2, local(20), local(21), local(12))
    assert options(alts, {f.id: f.name for f in fields}) == [("Campo 4", "22:00", "23:00")]


def test_when_nothing_is_free_nearby_there_are_no_alternatives() -> None:
    unit = make_unit()
    fields = four_fields(unit)
    occs = [
        occ(f, 0, 24, S.HELD, expires=local(12) + timedelta(minutes=5), day=d)
        for f in fields
        for d in (DAY - timedelta(days=1), DAY, DAY + timedelta(days=1))
    ]
    assert nearest_alternatives(unit, fields, occs, fields[1], local(20), local(21), local(12)) == []


def test_alternatives_only_look_one_day_either_side() -> None:
    unit = make_unit()
    fields = four_fields(unit)
    occs = [occ(f, 0, 24, day=d) for f in fields for d in (DAY, DAY + timedelta(days=1))]
    assert nearest_alternatives(unit, fields, occs, fields[1], local(20), local(21), local(12)) == []


def test_alternatives_never_include_the_wanted_slot_itself() -> None:
    unit = make_unit()
    fields = four_fields(unit)
    c2 = fields[1]
    alts = nearest_alternatives(unit, fields, [], c2, local(20), local(21), local(12))
    assert all(not (o.resource_id == c2.id and o.starts_at == local(20)) for o in alts)
    assert len(alts) == 3


def test_alternatives_stay_with_resources_of_the_same_kind() -> None:
    unit = make_unit()
    c1 = field(unit, "Campo 1", 1)
    p = pool(unit, 12)
    taken = [occ(c1, 20, 21)]
    alts = nearest_alternatives(unit, [c1, p], taken, c1, local(20), local(21), local(12), limit=10)
    assert {o.resource_id for o in alts} == {c1.id}


def test_alternatives_for_a_pooled_resource_need_room_for_the_quantity() -> None:
    unit = make_unit()
    p = pool(unit, 12)
    occs = [occ(p, 19, 20, quantity=11), occ(p, 20, 21, quantity=12)]
    alts = nearest_alternatives(unit, [p], occs, p, local(20), local(21), local(12), quantity=2)
    assert [hhmm(o.starts_at) for o in alts] == ["21:00", "18:00", "22:00"]


def test_the_limit_caps_the_number_of_alternatives() -> None:
    unit = make_unit()
    fields = four_fields(unit)
    alts = nearest_alternatives(unit, fields, [], fields[1], local(20), local(21), local(12), limit=5)
    assert len(alts) == 5

