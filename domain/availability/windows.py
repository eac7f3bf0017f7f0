"""Opening windows and the slot grid inside them: the absolute windows of weekly hours, a resource's slot ranges and
starts, and the check that a requested range is whole slots of one window."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from domain.errors import ErrorCode, InvalidInput
from domain.units import DayHours, OpeningWindow, Resource, Unit

_day = timedelta(days=1)


def _localize(day: date, minute: int, tz: ZoneInfo) -> datetime:
    naive = datetime.combine(day, time()) + timedelta(minutes=minute)
    aware = naive.replace(tzinfo=tz)
    # A wall time inside a DST gap does not exist: round-tripping through UTC moves it; keep the moved one.
    return aware.astimezone(UTC)


def opening_windows(
    hours: Sequence[OpeningWindow], tz: ZoneInfo, start: datetime, end: datetime, days: DayHours = ()
) -> list[tuple[datetime, datetime]]:
    """Absolute (UTC) opening windows of the weekly `hours` that touch [start, end); `days` replace the weekly
    hours on their dates (closed days and special hours: Unit.days_of)."""
    by_day: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for w in hours:
        by_day[w.weekday].append((w.opens, w.closes))
    dated = dict(days)
    first = start.astimezone(tz).date() - timedelta(days=1)
    last = end.astimezone(tz).date()
    out: list[tuple[datetime, datetime]] = []
    day = first
    while day <= last:
        windows = dated[day] if day in dated else by_day.get(day.weekday(), ())
        for opens, closes in windows:
            o, c = _localize(day, opens, tz), _localize(day, closes, tz)
            if c > start and o < end and c > o:
                out.append((o, c))
        day += timedelta(days=1)
    out.sort()
    return out


def slot_ranges(
    unit: Unit, resource: Resource, start: datetime, end: datetime
) -> list[list[tuple[datetime, datetime]]]:
    """The resource's grid slots inside [start, end), grouped by opening window."""
    step = timedelta(minutes=unit.params.slot_minutes)
    groups: list[list[tuple[datetime, datetime]]] = []
    for o, c in opening_windows(unit.hours_of(resource), unit.tz, start, end, unit.days_of(resource)):
        cells: list[tuple[datetime, datetime]] = []
        s = o
        while s + step <= c:
            if s >= start and s + step <= end:
                cells.append((s, s + step))
            s += step
        if cells:
            groups.append(cells)
    return groups


def slot_starts(unit: Unit, resource: Resource, start: datetime, end: datetime) -> list[datetime]:
    """The starts of the resource's grid slots inside [start, end) (pooled counters are kept per slot)."""
    return [s for group in slot_ranges(unit, resource, start, end) for s, _ in group]


def check_on_grid(unit: Unit, resource: Resource, starts_at: datetime, ends_at: datetime) -> int:
    """Refuse a range that is not whole consecutive slots inside one opening window; return slot count."""
    for name, value in (("startsAt", starts_at), ("endsAt", ends_at)):
        if value.tzinfo is None:
            raise InvalidInput(name, "times must carry a UTC offset (ISO 8601)", code=ErrorCode.NAIVE_DATETIME)
    # Compare instants in UTC: a ZoneInfo time in a repeated (fall-back) hour never equals another zone's.
    starts_at, ends_at = starts_at.astimezone(UTC), ends_at.astimezone(UTC)
    if ends_at <= starts_at:
        raise InvalidInput("endsAt", "endsAt must be after startsAt", code=ErrorCode.INVALID_RANGE)
    for group in slot_ranges(unit, resource, starts_at - _day, ends_at + _day):
        starts = [s for s, _ in group]
        if starts_at in starts:
            i = starts.index(starts_at)
            for j in range(i, len(group)):
                if group[j][1] == ends_at:
                    return j - i + 1
                if group[j][1] > ends_at:
                    break
            raise InvalidInput(
                "endsAt",
                f"the range must end on the {unit.params.slot_minutes}-minute slot grid inside opening hours",
                code=ErrorCode.OFF_GRID,
            )
    raise InvalidInput(
        "startsAt",
        f"{starts_at.isoformat()} is not the start of a {unit.params.slot_minutes}-minute slot "
        f"inside the opening hours of {resource.name}",
        code=ErrorCode.OFF_GRID,
    )


def closed_windows(
    hours: Sequence[OpeningWindow], tz: ZoneInfo, start: datetime, end: datetime, days: DayHours
) -> list[tuple[datetime, datetime]]:
    """The parts of the weekly windows that dated exceptions close (a holiday, shorter special hours), touching
    [start, end): the staff grid shows them CLOSED."""
    if not days:
        return []
    weekly = opening_windows(hours, tz, start, end)
    actual = opening_windows(hours, tz, start, end, days)
    dated = {d for d, _ in days}
    return subtract([(o, c) for o, c in weekly if o.astimezone(tz).date() in dated], actual)


def subtract(ranges: Sequence[tuple[datetime, datetime]], minus: Sequence[tuple[datetime, datetime]]
             ) -> list[tuple[datetime, datetime]]:
    """The parts of `ranges` outside every range of `minus`."""
    out: list[tuple[datetime, datetime]] = []
    for o, c in ranges:
        pieces = [(o, c)]
        for mo, mc in minus:
            pieces = [p for lo, hi in pieces for p in ((lo, min(hi, mo)), (max(lo, mc), hi)) if p[0] < p[1]]
        out += pieces
    return out
