"""The grid and bookable slots as pure functions of hours, parameters, occupancy and now (SPEC §5)."""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from enum import StrEnum
from typing import NamedTuple
from uuid import UUID
from zoneinfo import ZoneInfo

from domain.bookings import LOCKED, BookingStatus
from domain.errors import InvalidInput, SlotOption
from domain.units import OpeningWindow, Resource, ResourceKind, Unit

_day = timedelta(days=1)


class SlotState(StrEnum):
    """What the staff grid shows for a slot."""

    FREE = "free"
    HELD = "held"
    VERIFYING = "verifying"
    BOOKED = "booked"
    BLOCKED = "blocked"
    CLOSED = "closed"


class Occupancy(NamedTuple):
    """Something that takes (part of) a resource over a range: a booking's allocation or a block.

    A NamedTuple rather than a dataclass: a month's grid reads thousands of them per request.
    """

    resource_id: UUID
    starts_at: datetime
    ends_at: datetime
    quantity: int = 1
    booking_id: UUID | None = None
    status: BookingStatus | None = None
    hold_type: str | None = None
    hold_expires_at: datetime | None = None

    @property
    def is_block(self) -> bool:
        """Blocks have no booking."""
        return self.booking_id is None

    def is_active(self, now: datetime) -> bool:
        """Whether it still takes the resource at `now` (a lapsed hold does not: guarantee 5)."""
        if self.status is None:
            return True
        if self.status in LOCKED and self.hold_expires_at is not None and self.hold_expires_at <= now:
            return False
        return True


@dataclass(frozen=True)
class Cell:
    """One slot of one resource with its state."""

    starts_at: datetime
    ends_at: datetime
    state: SlotState
    available: int
    occupancy: Occupancy | None = None


@dataclass(frozen=True)
class Segment:
    """A run of consecutive cells of one resource sharing a state (and booking)."""

    resource_id: UUID
    starts_at: datetime
    ends_at: datetime
    state: SlotState
    available: int
    slots: int
    occupancy: Occupancy | None = None


def _localize(day: date, minute: int, tz: ZoneInfo) -> datetime:
    naive = datetime.combine(day, time()) + timedelta(minutes=minute)
    aware = naive.replace(tzinfo=tz)
    # A wall time inside a DST gap does not exist: round-tripping through UTC moves it; keep the moved one.
    return aware.astimezone(UTC)


def opening_windows(
    hours: Sequence[OpeningWindow], tz: ZoneInfo, start: datetime, end: datetime
) -> list[tuple[datetime, datetime]]:
    """Absolute (UTC) opening windows of the weekly `hours` that touch [start, end)."""
    by_day: dict[int, list[OpeningWindow]] = defaultdict(list)
    for w in hours:
        by_day[w.weekday].append(w)
    first = start.astimezone(tz).date() - timedelta(days=1)
    last = end.astimezone(tz).date()
    out: list[tuple[datetime, datetime]] = []
    day = first
    while day <= last:
        for w in by_day.get(day.weekday(), ()):
            o, c = _localize(day, w.opens, tz), _localize(day, w.closes, tz)
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
    for o, c in opening_windows(unit.hours_of(resource), unit.tz, start, end):
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


_PRIORITY = {
    SlotState.HELD: 1,
    SlotState.VERIFYING: 2,
    SlotState.BOOKED: 3,
    SlotState.BLOCKED: 4,
}
CODES = {SlotState.FREE: "F", SlotState.HELD: "H", SlotState.VERIFYING: "V", SlotState.BOOKED: "B",
         SlotState.BLOCKED: "X", SlotState.CLOSED: "C"}
"""One letter per slot state, for compact grids."""
_BY_CODE = {ord(v): k for k, v in CODES.items()}
_ONE_IF_FREE = bytes(1 if i == ord("F") else 0 for i in range(256))


def _by_priority(a: tuple[float, float, int, int, Occupancy]) -> int:
    return a[2]


def _state_of(occ: Occupancy) -> SlotState:
    if occ.is_block:
        return SlotState.BLOCKED
    if occ.status is BookingStatus.VERIFYING:
        return SlotState.VERIFYING
    if occ.status in LOCKED:
        return SlotState.HELD
    return SlotState.BOOKED


@dataclass(slots=True)
class WindowRow:
    """The slots of one resource inside one opening window, as parallel arrays (fast to build and scan).

    `codes[i]` is the state letter of slot i (see CODES), `available[i]` the places left, `owners[i]` the
    index in `occupancies` of what decides the slot's state (-1: nothing).
    """

    resource: Resource
    first: datetime
    step: timedelta
    codes: bytearray
    available: list[int]
    owners: list[int]
    occupancies: list[Occupancy]

    def __len__(self) -> int:
        return len(self.codes)

    def start(self, i: int) -> datetime:
        """Start of slot i."""
        return self.first + self.step * i

    def state(self, i: int) -> SlotState:
        """State of slot i."""
        return _BY_CODE[self.codes[i]]

    def owner(self, i: int) -> Occupancy | None:
        """What decides slot i's state."""
        k = self.owners[i]
        return self.occupancies[k] if k >= 0 else None


def window_rows(
    unit: Unit, resource: Resource, occupancies: Sequence[Occupancy], start: datetime, end: datetime,
    now: datetime, windows: list[tuple[datetime, datetime]] | None = None,
) -> list[WindowRow]:
    """One resource's slots in [start, end) with their states, one row per opening window.

    `windows` may pass the resource's opening windows when the caller already has them.
    """
    step = timedelta(minutes=unit.params.slot_minutes)
    step_s = step.total_seconds()
    # (start, end) as POSIX seconds, priority, state letter, occupancy: computed once, sorted by start.
    active = sorted(
        (o.starts_at.timestamp(), o.ends_at.timestamp(), _PRIORITY[st], ord(CODES[st]), o)
        for o in occupancies if o.is_active(now) for st in (_state_of(o),)
    )
    starts = [a[0] for a in active]
    longest = max((a[1] - a[0] for a in active), default=0.0)
    pooled = resource.kind is ResourceKind.POOLED
    rows: list[WindowRow] = []
    if windows is None:
        windows = opening_windows(unit.hours_of(resource), unit.tz, start, end)
    start_s, end_s = start.timestamp(), end.timestamp()
    for o, c in windows:
        o_s, c_s = o.timestamp(), c.timestamp()
        skip = max(0, -int((o_s - start_s) // step_s))  # slots of the window before `start`
        f = o_s + skip * step_s
        n = int(min((c_s - f) // step_s, (end_s - f) // step_s)) if f < end_s else 0
        if n <= 0:
            continue
        first = o + step * skip
        # What overlaps this window, lowest priority first so that the highest decides.
        here = [a for a in active[bisect_left(starts, f - longest):bisect_left(starts, c_s)] if a[1] > f]
        if len(here) > 1:
            here.sort(key=_by_priority)
        codes, owners = bytearray(b"F" * n), [-1] * n
        if not pooled:
            for k, (s0, s1, _prio, code, _occ) in enumerate(here):
                i0 = max(0, int((s0 - f) // step_s))
                i1 = min(n, -int((f - s1) // step_s))
                if i0 < i1:
                    codes[i0:i1] = bytes((code,)) * (i1 - i0)
                    owners[i0:i1] = [k] * (i1 - i0)
            row = WindowRow(resource, first, step, codes, list(codes.translate(_ONE_IF_FREE)), owners,
                            [a[4] for a in here])
            rows.append(row)
            continue
        row = WindowRow(resource, first, step, codes, [resource.capacity] * n, owners, [a[4] for a in here])
        top = [0] * n
        for k, (s0, s1, prio, code, occ) in enumerate(here):
            i0 = max(0, int((s0 - f) // step_s))
            i1 = min(n, -int((f - s1) // step_s))
            if i0 >= i1:
                continue
            if not occ.is_block:
                for i in range(i0, i1):
                    row.available[i] -= occ.quantity
                    if prio >= top[i]:
                        top[i], row.owners[i] = prio, k
                continue
            row.codes[i0:i1] = bytes((code,)) * (i1 - i0)
            row.owners[i0:i1] = [k] * (i1 - i0)
            row.available[i0:i1] = [0] * (i1 - i0)
            top[i0:i1] = [prio] * (i1 - i0)
        for i in range(n):
            if row.codes[i] == ord("X"):
                continue
            if row.available[i] > 0:
                row.owners[i] = -1
            else:
                row.available[i] = 0
                row.codes[i] = here[row.owners[i]][3]
        rows.append(row)
    return rows


def resource_cells(
    unit: Unit, resource: Resource, occupancies: Sequence[Occupancy], start: datetime, end: datetime,
    now: datetime,
) -> list[list[Cell]]:
    """The state of every slot of one resource, grouped by opening window."""
    return [
        [Cell(row.start(i), row.start(i + 1), row.state(i), row.available[i], row.owner(i)) for i in range(len(row))]
        for row in window_rows(unit, resource, occupancies, start, end, now)
    ]


def _by_resource(occupancies: Iterable[Occupancy]) -> dict[UUID, list[Occupancy]]:
    out: dict[UUID, list[Occupancy]] = defaultdict(list)
    for o in occupancies:
        out[o.resource_id].append(o)
    return out


def grid_rows(
    unit: Unit, resources: Sequence[Resource], occupancies: Iterable[Occupancy], start: datetime,
    end: datetime, now: datetime,
) -> dict[UUID, list[WindowRow]]:
    """Staff grid as window rows per resource (SPEC §5)."""
    by_resource = _by_resource(occupancies)
    windows: dict[tuple[OpeningWindow, ...], list[tuple[datetime, datetime]]] = {}
    out: dict[UUID, list[WindowRow]] = {}
    for r in resources:
        hours = unit.hours_of(r)
        if hours not in windows:  # resources usually share the unit's hours: compute them once
            windows[hours] = opening_windows(hours, unit.tz, start, end)
        out[r.id] = window_rows(unit, r, by_resource.get(r.id, []), start, end, now, windows[hours])
    return out


def segments(rows: Sequence[WindowRow]) -> list[Segment]:
    """Runs of consecutive slots with the same state, places left and occupancy."""
    out: list[Segment] = []
    for row in rows:
        n, i = len(row), 0
        while i < n:
            j = i + 1
            while (j < n and row.codes[j] == row.codes[i] and row.owners[j] == row.owners[i]
                   and row.available[j] == row.available[i]):
                j += 1
            seg = Segment(row.resource.id, row.start(i), row.start(j), row.state(i), row.available[i], j - i,
                          row.owner(i))
            last = out[-1] if out else None
            if (last is not None and last.ends_at == seg.starts_at and last.state == seg.state
                    and last.available == seg.available and last.occupancy == seg.occupancy):
                out[-1] = Segment(seg.resource_id, last.starts_at, seg.ends_at, seg.state, seg.available,
                                  last.slots + seg.slots, seg.occupancy)
            else:
                out.append(seg)
            i = j
    return out


def grid(
    unit: Unit, resources: Sequence[Resource], occupancies: Iterable[Occupancy], start: datetime,
    end: datetime, now: datetime,
) -> dict[UUID, list[Segment]]:
    """Staff grid: per resource, runs of slots with the same state (SPEC §5)."""
    return {rid: segments(rows) for rid, rows in grid_rows(unit, resources, occupancies, start, end, now).items()}


def earliest_bookable_start(unit: Unit, now: datetime) -> datetime:
    """A slot must start at least min_advance + hold_min from now to be offered (RN-ATD-06, RN-HLD-02)."""
    p = unit.params
    return now + p.min_advance + p.hold_min


def bookable_slots(
    unit: Unit, resources: Sequence[Resource], occupancies: Iterable[Occupancy], start: datetime,
    end: datetime, now: datetime, slots: int = 1, quantity: int = 1,
) -> list[SlotOption]:
    """Customer view: free runs of `slots` consecutive slots inside the booking window (SPEC §5)."""
    lo = max(start, earliest_bookable_start(unit, now))
    latest_start = now + unit.params.max_advance
    hi = min(end, latest_start + timedelta(minutes=unit.params.slot_minutes * slots))
    if lo >= hi:
        return []
    by_resource = _by_resource(occupancies)
    free = ord("F")
    out: list[SlotOption] = []
    for r in resources:
        # Rows start a day early so that grid alignment never depends on `start`.
        for row in window_rows(unit, r, by_resource.get(r.id, []), lo - _day, hi, now):
            for i in range(len(row) - slots + 1):
                first = row.start(i)
                if first < lo or first > latest_start:
                    continue
                if all(row.codes[k] == free and row.available[k] >= quantity for k in range(i, i + slots)):
                    out.append(SlotOption(r.id, first, row.start(i + slots)))
    out.sort(key=lambda s: (s.starts_at, str(s.resource_id)))
    return out


def check_on_grid(unit: Unit, resource: Resource, starts_at: datetime, ends_at: datetime) -> int:
    """Refuse a range that is not whole consecutive slots inside one opening window; return slot count."""
    for name, value in (("startsAt", starts_at), ("endsAt", ends_at)):
        if value.tzinfo is None:
            raise InvalidInput(name, "times must carry a UTC offset (ISO 8601)", code="naive_datetime")
    # Compare instants in UTC: a ZoneInfo time in a repeated (fall-back) hour never equals another zone's.
    starts_at, ends_at = starts_at.astimezone(UTC), ends_at.astimezone(UTC)
    if ends_at <= starts_at:
        raise InvalidInput("endsAt", "endsAt must be after startsAt", code="invalid_range")
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
                code="off_grid",
            )
    raise InvalidInput(
        "startsAt",
        f"{starts_at.isoformat()} is not the start of a {unit.params.slot_minutes}-minute slot "
        f"inside the opening hours of {resource.name}",
        code="off_grid",
    )


def nearest_alternatives(
    unit: Unit, resources: Sequence[Resource], occupancies: Iterable[Occupancy], wanted: Resource,
    starts_at: datetime, ends_at: datetime, now: datetime, quantity: int = 1, limit: int = 3,
) -> list[SlotOption]:
    """The `limit` free options nearest in time to the wanted one, same resource first on ties (RN-ATD-07)."""
    step = timedelta(minutes=unit.params.slot_minutes)
    n = max(1, round((ends_at - starts_at) / step))
    same_kind = [r for r in resources if r.kind == wanted.kind]
    options = bookable_slots(
        unit, same_kind, occupancies, starts_at - _day, ends_at + _day, now, slots=n, quantity=quantity
    )
    options = [o for o in options if not (o.resource_id == wanted.id and o.starts_at == starts_at)]
    order = {r.id: i for i, r in enumerate(resources)}

    def distance(o: SlotOption) -> tuple[float, bool, datetime, int]:
        # Moving one slot in time or moving to another resource each cost one step (RN-ATD-07:
        # 20h on Campo 2 taken → 19h and 21h on Campo 2, 20h on Campo 1).
        steps = abs(o.starts_at - starts_at) / step + (0 if o.resource_id == wanted.id else 1)
        return steps, o.resource_id != wanted.id, o.starts_at, order.get(o.resource_id, 0)

    options.sort(key=distance)
    return options[:limit]
