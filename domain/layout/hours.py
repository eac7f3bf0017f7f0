"""Opening hours (issue 18): a unit's or a resource's weekly windows, and dated exceptions — closed days and special
hours. Each change is checked against the slot grid and refused when it would leave a live booking outside the
hours (BookingsInTheWay). The unit's cached configuration is forgotten on commit: bookable slots, the staff grid,
holds and waitlists of this process follow at once, other API processes within the cache's 5 s."""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta
from uuid import UUID

from domain.availability import check_on_grid, opening_windows
from domain.availability.windows import subtract
from domain.errors import ErrorCode, InvalidInput, NotFound
from domain.events import SeatsBlockChanged, SlotSpan
from domain.layout.blocks import REASON_MAX, retake_pools
from domain.layout.common import live_over, note
from domain.layout.errors import BookingsInTheWay
from domain.layout.ports import LiveAllocation
from domain.ports import UnitOfWork
from domain.services.deps import Deps
from domain.units import HoursException, OpeningWindow, Resource, Unit
from domain.venue_log import ChangeAction, JsonValue

WEEKDAYS = ("MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY")
"""Weekday 0..6 as the API names them (Monday first, as ISO 8601 and Python's date.weekday())."""
_HHMM = re.compile(r"^([01][0-9]|2[0-4]):([0-5][0-9])$")
WINDOWS_MAX = 70
DAYS_AHEAD_MAX = 3 * 366
EXCEPTIONS_RANGE_MAX = 400


@dataclass(frozen=True)
class WindowSpec:
    """A window as the API takes it: "HH:MM" to "HH:MM" (closes may be "24:00"), on a weekday (weekly hours)."""

    opens: str
    closes: str
    weekday: int | None = None


def _minute(text: str, field: str, closing: bool) -> int:
    m = _HHMM.match(text.strip())
    minute = int(m.group(1)) * 60 + int(m.group(2)) if m else -1
    if not m or minute > 1440 or (minute == 1440 and not closing):
        raise InvalidInput(field, f"{text!r} is not a time of day HH:MM (00:00 to 23:59; closes may be 24:00)",
                           code=ErrorCode.INVALID_TIME)
    return minute


def checked_windows(specs: Sequence[WindowSpec], slot_minutes: int, weekly: bool) -> list[tuple[int, int, int]]:
    """(weekday, opens, closes) of each window (weekday 0 for a day's windows), or InvalidInput naming the first
    bad one: a time that is not HH:MM, opens not before closes, a window that is not whole slots of the unit's
    grid, two windows of one day that overlap."""
    if len(specs) > WINDOWS_MAX:
        raise InvalidInput("windows", f"at most {WINDOWS_MAX} windows", code=ErrorCode.TOO_LONG)
    out: list[tuple[int, int, int]] = []
    for i, w in enumerate(specs):
        f = f"windows[{i}]"
        if weekly and (w.weekday is None or not 0 <= w.weekday <= 6):
            raise InvalidInput(f"{f}.weekday", "weekday is MONDAY to SUNDAY", code=ErrorCode.INVALID_INPUT)
        opens, closes = _minute(w.opens, f"{f}.opens", False), _minute(w.closes, f"{f}.closes", True)
        if opens >= closes:
            raise InvalidInput(f"{f}.closes", "closes must be after opens (the same day; 24:00 is midnight)",
                               code=ErrorCode.INVALID_RANGE)
        if (closes - opens) % slot_minutes:
            raise InvalidInput(f"{f}.closes", f"a window must hold whole {slot_minutes}-minute slots: "
                               f"{w.opens}–{w.closes} does not", code=ErrorCode.OFF_GRID)
        out.append(((w.weekday or 0) if weekly else 0, opens, closes))
    ordered = sorted(range(len(out)), key=lambda k: out[k])
    for a, b in itertools.pairwise(ordered):
        if out[a][0] == out[b][0] and out[b][1] < out[a][2]:
            raise InvalidInput(f"windows[{b}]", "two windows of the same day overlap",
                               code=ErrorCode.OVERLAPPING_WINDOWS)
    return out


def hhmm(minute: int) -> str:
    return f"{minute // 60:02d}:{minute % 60:02d}"


def weekly_json(windows: Sequence[OpeningWindow]) -> list[JsonValue]:
    return [{"weekday": WEEKDAYS[w.weekday], "opens": hhmm(w.opens), "closes": hhmm(w.closes)} for w in windows]


def day_json(e: HoursException | None) -> dict[str, JsonValue] | None:
    if e is None:
        return None
    return {"date": e.day.isoformat(), "resourceId": str(e.resource_id) if e.resource_id else None,
            "closed": e.closed, "windows": [{"opens": hhmm(o), "closes": hhmm(c)} for o, c in e.windows],
            "reason": e.reason}


def _on_grid(unit: Unit, resource: Resource, a: LiveAllocation) -> bool:
    try:
        check_on_grid(unit, resource, a.starts_at, a.ends_at)
    except InvalidInput:
        return False
    return True


def orphaned(before: Unit, after: Unit, resources: Mapping[UUID, tuple[Resource, Resource]],
             live: Sequence[LiveAllocation]) -> list[UUID]:
    """The live bookings inside the hours before the change and outside them after it (resource → (before,
    after))."""
    out = []
    for a in live:
        pair = resources.get(a.resource_id)
        if pair and _on_grid(before, pair[0], a) and not _on_grid(after, pair[1], a):
            out.append(a.booking_id)
    return out


async def _context(uow: UnitOfWork, unit_id: UUID, resource_id: UUID | None) -> tuple[Unit, list[Resource]]:
    """The unit as committed (locked for layout changes) and its active resources."""
    if not await uow.layout.lock_unit(unit_id):
        raise NotFound("unit", unit_id, field="unitId")
    unit = await uow.layout.fresh_unit(unit_id)
    resources = [r.resource() for r in await uow.layout.resource_rows(unit_id) if r.active]
    if resource_id is not None and resource_id not in {r.id for r in resources}:
        raise NotFound("resource", resource_id, field="resourceId")
    return unit, resources


async def _change_hours(uow: UnitOfWork, before: Unit, after: Unit, pairs: dict[UUID, tuple[Resource, Resource]],
                          start: datetime, end: datetime, now: datetime, field: str) -> None:
    """Refuse a change that leaves live bookings outside the new hours; then pooled blocks take the new hours'
    slots of their ranges (the resources stay locked until the change commits)."""
    ids = list(pairs)
    await uow.bookings.lock_resources(before.id, ids)
    live = await live_over(uow, before.id, ids, max(start, now), end, now)
    found = orphaned(before, after, pairs, live)
    if found:
        raise BookingsInTheWay(field, "the change would leave live bookings outside the opening hours", found)
    await retake_pools(uow, after, [new for _, new in pairs.values()], now)
    await _announce(uow, before, after, pairs, max(start, now),
                    min(end, now + before.params.max_advance + timedelta(days=1)), now)


async def _announce(uow: UnitOfWork, before: Unit, after: Unit, pairs: dict[UUID, tuple[Resource, Resource]],
                    start: datetime, end: datetime, now: datetime) -> None:
    """Tell the grid's subscribers (slotChanged) which ranges closed and which opened, per resource, over [start,
    end) (a weekly change: the booking window)."""
    closed: list[SlotSpan] = []
    opened: list[SlotSpan] = []
    for old, new in pairs.values():
        was = opening_windows(before.hours_of(old), before.tz, start, end, before.days_of(old))
        now_open = opening_windows(after.hours_of(new), after.tz, start, end, after.days_of(new))
        closed += [SlotSpan(new.id, o, c) for o, c in subtract(was, now_open)]
        opened += [SlotSpan(new.id, o, c) for o, c in subtract(now_open, was)]
    for shut, spans in ((True, closed), (False, opened)):
        if spans:
            await uow.events.notify(before.id, SeatsBlockChanged(before.id, shut, now, "", tuple(spans), "hours"))


async def set_opening_hours(deps: Deps, unit_id: UUID, resource_id: UUID | None, specs: Sequence[WindowSpec],
                            session: str) -> tuple[OpeningWindow, ...]:
    """Replace the weekly hours of the unit, or of one resource ([] for a resource: the unit's hours)."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        unit, resources = await _context(uow, unit_id, resource_id)
        windows = tuple(OpeningWindow(*w) for w in sorted(checked_windows(specs, unit.params.slot_minutes,
                                                                          weekly=True)))
        if resource_id is None:
            old, after = unit.hours, replace(unit, hours=windows)
            pairs = {r.id: (r, r) for r in resources}
        else:
            mine = next(r for r in resources if r.id == resource_id)
            old, after = mine.hours, unit
            pairs = {mine.id: (mine, replace(mine, hours=windows))}
        if old != windows:
            await _change_hours(uow, unit, after, pairs, now, now + timedelta(days=3660), now, "windows")
            await uow.layout.replace_hours(unit_id, resource_id, windows)
            await note(uow, unit_id, "hours", resource_id or unit_id, ChangeAction.UPDATED, session, now,
                       {"windows": weekly_json(old)}, {"windows": weekly_json(windows)})
            await uow.commit()
    return windows


def _day_range(unit: Unit, day: date) -> tuple[datetime, datetime]:
    """The instants of a local date, with a day of margin each side (windows are cut by the local day)."""
    start = datetime.combine(day, time(), unit.tz).astimezone(UTC)
    return start - timedelta(days=1), start + timedelta(days=2)


async def put_day(deps: Deps, unit_id: UUID, day: date, resource_id: UUID | None, specs: Sequence[WindowSpec],
                  reason: str, session: str) -> HoursException:
    """Close a date (no windows: a holiday) or give it special hours, unit-wide or for one resource; replaces
    that date's exception if it has one."""
    if len(reason) > REASON_MAX:
        raise InvalidInput("reason", f"a reason is at most {REASON_MAX} characters", code=ErrorCode.TOO_LONG)
    now = deps.clock.now()
    async with deps.uow() as uow:
        unit, resources = await _context(uow, unit_id, resource_id)
        today = now.astimezone(unit.tz).date()
        if day < today:
            raise InvalidInput("date", "that date is in the past", code=ErrorCode.IN_THE_PAST)
        if day > today + timedelta(days=DAYS_AHEAD_MAX):
            raise InvalidInput("date", "at most 3 years ahead", code=ErrorCode.TOO_FAR)
        windows = tuple((o, c) for _, o, c in sorted(checked_windows(specs, unit.params.slot_minutes,
                                                                     weekly=False)))
        new = HoursException(deps.new_id(), day, resource_id, windows, reason.strip())
        kept = [e for e in unit.exceptions if not (e.day == day and e.resource_id == resource_id)]
        after = replace(unit, exceptions=(*kept, new))
        pairs = {r.id: (r, r) for r in resources if resource_id in (None, r.id)}
        await _change_hours(uow, unit, after, pairs, *_day_range(unit, day), now, "date")
        previous = await uow.layout.put_exception(unit_id, new, session, now)
        if previous is not None:
            new = replace(new, id=previous.id)
        await note(uow, unit_id, "closed_day" if new.closed else "special_hours", new.id,
                   ChangeAction.UPDATED if previous else ChangeAction.CREATED, session, now,
                   day_json(previous), day_json(new))
        await uow.commit()
    return new


async def remove_day(deps: Deps, exception_id: UUID, session: str) -> HoursException:
    """The date follows its weekly hours again (refused if live bookings lie outside them)."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        found = await uow.layout.exception(exception_id)
        if found is None:
            raise NotFound("hours exception", exception_id, field="id")
        unit_id, gone = found
        unit, resources = await _context(uow, unit_id, None)
        after = replace(unit, exceptions=tuple(e for e in unit.exceptions if e.id != exception_id))
        pairs = {r.id: (r, r) for r in resources if gone.resource_id in (None, r.id)}
        await _change_hours(uow, unit, after, pairs, *_day_range(unit, gone.day), now, "id")
        await uow.layout.remove_exception(unit_id, exception_id)
        await note(uow, unit_id, "closed_day" if gone.closed else "special_hours", gone.id, ChangeAction.REMOVED,
                   session, now, before=day_json(gone))
        await uow.commit()
    return gone


async def exceptions(deps: Deps, unit_id: UUID, first: date, last: date) -> list[HoursException]:
    """The unit's closed days and special hours (its own and its resources') from `first` to `last`."""
    if last < first:
        raise InvalidInput("to", "`to` must not be before `from`", code=ErrorCode.INVALID_RANGE)
    if (last - first).days > EXCEPTIONS_RANGE_MAX:
        raise InvalidInput("to", f"the range may span at most {EXCEPTIONS_RANGE_MAX} days",
                           code=ErrorCode.RANGE_TOO_LONG)
    async with deps.uow() as uow:
        return await uow.layout.exceptions(unit_id, first, last)


async def close_day(deps: Deps, unit_id: UUID, day: date, resource_id: UUID | None, reason: str,
                    session: str) -> HoursException:
    """A holiday: the date is closed for the unit (or one resource)."""
    return await put_day(deps, unit_id, day, resource_id, (), reason, session)


async def special_hours(deps: Deps, unit_id: UUID, day: date, resource_id: UUID | None,
                        specs: Sequence[WindowSpec], reason: str, session: str) -> HoursException:
    """The date opens only in `specs` (at least one window; close it with close_day)."""
    if not specs:
        raise InvalidInput("windows", "give the day's windows (addClosedDay closes it)", code=ErrorCode.REQUIRED)
    return await put_day(deps, unit_id, day, resource_id, specs, reason, session)
