"""The grid and bookable slots as pure functions of hours, parameters, occupancy and now (SPEC §5)."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from enum import StrEnum
from functools import partial
from typing import NamedTuple, overload
from uuid import UUID
from zoneinfo import ZoneInfo

from domain.bookings import LOCKED, BookingStatus
from domain.errors import ErrorCode, InvalidInput, SlotOption
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


_MIN_INSTANT = datetime.min.replace(tzinfo=UTC)
_MAX_INSTANT = datetime.max.replace(tzinfo=UTC)


def _instant(seconds: float) -> datetime:
    """POSIX seconds as a UTC datetime, exact to the microsecond (PostgreSQL's infinities: the first and last)."""
    try:
        return datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, ValueError, OSError):
        return _MAX_INSTANT if seconds > 0 else _MIN_INSTANT


class OccupancyColumns(Sequence[Occupancy]):
    """Occupancies of one resource as parallel columns: entry i of every list belongs to occupancy i.

    A month's grid reads thousands of occupancies and needs only their times and states: as columns they cost a
    few lists of numbers instead of thousands of tuples and datetimes. `self[i]` builds occupancy i (once), for
    what shows a slot's booking (segments). Times are POSIX seconds.
    """

    __slots__ = ("_built", "booking_ids", "deadlines", "ends", "hold_types", "quantities", "resource_id", "starts",
                 "statuses")

    def __init__(self, resource_id: UUID, starts: list[float], ends: list[float], quantities: list[int],
                 booking_ids: list[UUID | None], statuses: list[BookingStatus | None],
                 hold_types: list[str | None], deadlines: list[float | None],
                 built: list[Occupancy] | None = None) -> None:
        self.resource_id = resource_id
        self.starts, self.ends, self.quantities, self.booking_ids = starts, ends, quantities, booking_ids
        self.statuses, self.hold_types, self.deadlines = statuses, hold_types, deadlines
        self._built: list[Occupancy | None] = list(built) if built is not None else [None] * len(starts)

    @classmethod
    def of(cls, resource_id: UUID, occupancies: Iterable[Occupancy]) -> OccupancyColumns:
        """The columns of occupancies given as tuples (`self[i]` is then the i-th of them, itself)."""
        occ = list(occupancies)
        return cls(resource_id, [o.starts_at.timestamp() for o in occ], [o.ends_at.timestamp() for o in occ],
                   [o.quantity for o in occ], [o.booking_id for o in occ], [o.status for o in occ],
                   [o.hold_type for o in occ],
                   [None if o.hold_expires_at is None else o.hold_expires_at.timestamp() for o in occ], occ)

    def __len__(self) -> int:
        return len(self.starts)

    @overload
    def __getitem__(self, i: int) -> Occupancy: ...

    @overload
    def __getitem__(self, i: slice) -> list[Occupancy]: ...

    def __getitem__(self, i: int | slice) -> Occupancy | list[Occupancy]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        o = self._built[i]
        if o is None:
            deadline = self.deadlines[i]
            o = self._built[i] = Occupancy(
                self.resource_id, _instant(self.starts[i]), _instant(self.ends[i]), self.quantities[i],
                self.booking_ids[i], self.statuses[i], self.hold_types[i],
                None if deadline is None else _instant(deadline))
        return o

    def __repr__(self) -> str:
        return f"OccupancyColumns({self.resource_id}, {len(self)} occupancies)"


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


def _by_priority(a: tuple[float, float, int, int, object]) -> int:
    return a[2]


def _state_of(occ: Occupancy) -> SlotState:
    if occ.is_block:
        return SlotState.BLOCKED
    if occ.status is BookingStatus.VERIFYING:
        return SlotState.VERIFYING
    if occ.status in LOCKED:
        return SlotState.HELD
    return SlotState.BOOKED


class WindowRow:
    """The slots of one resource inside one opening window, as parallel arrays (fast to build and scan).

    `codes[i]` is the state letter of slot i (see CODES), `available[i]` the places left, `owners[i]` the
    index in `occupancies` of what decides the slot's state (-1: nothing). The compact grid reads only the
    letters: an exclusive resource's rows work out `available` and `owners` when first asked for them.
    """

    __slots__ = ("_available", "_owners", "_owners_later", "codes", "first", "occupancies", "resource", "step")

    def __init__(self, resource: Resource, first: datetime, step: timedelta, codes: bytearray,
                 available: list[int] | None, owners: list[int] | None, occupancies: Sequence[Occupancy],
                 owners_later: Callable[[], list[int]] | None = None) -> None:
        self.resource, self.first, self.step, self.codes, self.occupancies = resource, first, step, codes, occupancies
        self._available, self._owners, self._owners_later = available, owners, owners_later

    @property
    def available(self) -> list[int]:
        """Places left in each slot (an exclusive resource: 1 if free, else 0)."""
        if self._available is None:
            self._available = list(self.codes.translate(_ONE_IF_FREE))
        return self._available

    @property
    def owners(self) -> list[int]:
        """Index in `occupancies` of what decides each slot's state (-1: nothing)."""
        if self._owners is None:
            assert self._owners_later is not None
            self._owners = self._owners_later()
        return self._owners

    def __len__(self) -> int:
        return len(self.codes)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, WindowRow):
            return NotImplemented
        return (self.resource, self.first, self.step, self.codes, self.available, self.owners,
                self.occupancies) == (other.resource, other.first, other.step, other.codes, other.available,
                                      other.owners, other.occupancies)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"WindowRow({self.resource.name!r}, {self.first.isoformat()}, {self.codes.decode()!r})"

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


class _Frame(NamedTuple):
    """Where one opening window's slots inside [start, end) lie: its first slot, as a datetime and as POSIX
    seconds, the window's closing time in POSIX seconds, and how many whole slots fit."""

    first: datetime
    f: float
    close: float
    n: int


def _frames(windows: Sequence[tuple[datetime, datetime]], start: datetime, end: datetime,
            step: timedelta) -> list[_Frame]:
    """The opening windows that have at least one slot inside [start, end), in the order given."""
    step_s = step.total_seconds()
    start_s, end_s = start.timestamp(), end.timestamp()
    out: list[_Frame] = []
    for o, c in windows:
        o_s, c_s = o.timestamp(), c.timestamp()
        skip = max(0, -int((o_s - start_s) // step_s))  # slots of the window before `start`
        f = o_s + skip * step_s
        n = int(min((c_s - f) // step_s, (end_s - f) // step_s)) if f < end_s else 0
        if n > 0:
            out.append(_Frame(o + step * skip, f, c_s, n))
    return out


# (priority, state letter) of what a slot shows for an occupancy of a booking in each status (None: no status);
# blocks (no booking) show X whatever their status. The same as _state_of, as one dict lookup.
_SHOWN: dict[BookingStatus | None, tuple[int, int]] = {
    s: (_PRIORITY[st], ord(CODES[st]))
    for s in (None, *BookingStatus)
    for st in (_state_of(Occupancy(UUID(int=0), datetime.min, datetime.min, booking_id=UUID(int=0), status=s)),)
}
_BLOCK = (_PRIORITY[SlotState.BLOCKED], ord(CODES[SlotState.BLOCKED]))


def _active(occupancies: Iterable[Occupancy], now: datetime) -> list[tuple[float, float, int, int, Occupancy]]:
    """(start, end) as POSIX seconds, priority, state letter and occupancy of each occupancy still active at
    `now`, sorted (by start)."""
    return sorted(
        (o.starts_at.timestamp(), o.ends_at.timestamp(), _PRIORITY[st], ord(CODES[st]), o)
        for o in occupancies if o.is_active(now) for st in (_state_of(o),)
    )


def _active_columns(cols: OccupancyColumns, now_s: float) -> list[tuple[float, float, int, int, int]]:
    """The same as _active, with the occupancy's index instead of the occupancy: Occupancy.is_active and
    _state_of inlined over the columns (`now_s`: now in POSIX seconds). Sorted the same way: occupancies
    only tie on (start, end, priority, letter) when two start together, and then the tuples decide as in
    _active."""
    out = []
    shown, locked, block = _SHOWN, LOCKED, _BLOCK
    for i, (s0, s1, booking, status, deadline) in enumerate(zip(cols.starts, cols.ends, cols.booking_ids,
                                                                 cols.statuses, cols.deadlines, strict=True)):
        if status is not None and status in locked and deadline is not None and deadline <= now_s:
            continue  # a lapsed hold
        prio, code = block if booking is None else shown[status]
        out.append((s0, s1, prio, code, i))
    if len(set(cols.starts)) < len(cols.starts):  # two start together: let the occupancies break ties
        return [(s0, s1, p, c, i) for s0, s1, p, c, _o, i in sorted((*a[:4], cols[a[4]], a[4]) for a in out)]
    out.sort()
    return out


def _columns(resource: Resource, occupancies: Iterable[Occupancy] | OccupancyColumns) -> OccupancyColumns:
    return occupancies if isinstance(occupancies, OccupancyColumns) else OccupancyColumns.of(resource.id,
                                                                                              occupancies)


def window_rows(
    unit: Unit, resource: Resource, occupancies: Sequence[Occupancy], start: datetime, end: datetime,
    now: datetime, windows: list[tuple[datetime, datetime]] | None = None,
) -> list[WindowRow]:
    """One resource's slots in [start, end) with their states, one row per opening window.

    `windows` may pass the resource's opening windows when the caller already has them; `occupancies` may be
    OccupancyColumns.
    """
    step = timedelta(minutes=unit.params.slot_minutes)
    if windows is None:
        windows = opening_windows(unit.hours_of(resource), unit.tz, start, end)
    return _rows(resource, _columns(resource, occupancies), now, _Layout(_frames(windows, start, end, step), step))


def _rows(resource: Resource, cols: OccupancyColumns, now: datetime, layout: _Layout) -> list[WindowRow]:
    if resource.kind is ResourceKind.POOLED:
        return _pooled_rows(resource, _active(cols, now), layout.frames, layout.step)
    return _exclusive_rows(resource, cols, now.timestamp(), layout)


class _Layout:
    """The frames of one set of hours laid end to end: the slots of frame w are slots offsets[w]... of the whole.

    To find the frames an occupancy [s0, s1) touches: `firsts` (POSIX seconds) are the frames' first slots in
    time order (`by_first[j]` is the frame, `starts[j]` its offset, `sizes[j]` its slots, `ends[j]` the end of
    its last slot); those touched start after s0 - reach and before s1. When no two frames overlap,
    `frame_at[s0]` gives the j of the frame where s0 is a slot start: the one frame touched if s1 <= ends[j].
    """

    __slots__ = ("by_first", "ends", "firsts", "frame_at", "frames", "offsets", "reach", "sizes", "starts",
                 "step", "step_s", "total")

    def __init__(self, frames: list[_Frame], step: timedelta) -> None:
        self.frames, self.step = frames, step
        self.step_s = step_s = step.total_seconds()
        self.offsets, total = [], 0
        for fr in frames:
            self.offsets.append(total)
            total += fr.n
        self.total = total
        self.by_first = sorted(range(len(frames)), key=lambda w: frames[w].f)
        self.firsts = [frames[w].f for w in self.by_first]
        self.starts = [self.offsets[w] for w in self.by_first]
        self.sizes = [frames[w].n for w in self.by_first]
        self.ends = [f + n * step_s for f, n in zip(self.firsts, self.sizes, strict=True)]
        self.reach = max(self.sizes, default=0) * step_s + step_s
        self.frame_at: dict[float, int] = {}
        if all(e <= f for e, f in zip(self.ends, self.firsts[1:], strict=False)):
            self.frame_at = {f + i * step_s: j for j, (f, n) in enumerate(zip(self.firsts, self.sizes, strict=True))
                             for i in range(n)}


def _paint(layout: _Layout, ordered: list[tuple[float, float, int, int, int]], codes: bytearray | None,
           owners: list[int] | None) -> None:
    """Each slot gets the letter (into `codes`) or the index (into `owners`) of the last occupancy in `ordered`
    that overlaps it."""
    firsts, starts, sizes, ends, frame_at = layout.firsts, layout.starts, layout.sizes, layout.ends, layout.frame_at
    step_s, reach, nf, letter = layout.step_s, layout.reach, len(layout.firsts), _LETTER
    for s0, s1, _prio, code, k in ordered:
        j = frame_at.get(s0)
        if j is not None and s1 <= ends[j]:  # the usual case: inside one frame, from one of its slot starts
            f = firsts[j]
            i0, i1 = int((s0 - f) // step_s), -int((f - s1) // step_s)
            if i0 < i1:
                a = starts[j]
                if codes is not None:
                    codes[a + i0:a + i1] = letter[code] * (i1 - i0)
                if owners is not None:
                    owners[a + i0:a + i1] = [k] * (i1 - i0)
            continue
        j = bisect_right(firsts, s0 - reach)
        while j < nf:
            f = firsts[j]
            if f >= s1:
                break
            i0 = int((s0 - f) // step_s)
            i1 = -int((f - s1) // step_s)
            if i0 < 0:
                i0 = 0
            if i1 > sizes[j]:
                i1 = sizes[j]
            if i0 < i1:
                a = starts[j]
                if codes is not None:
                    codes[a + i0:a + i1] = letter[code] * (i1 - i0)
                if owners is not None:
                    owners[a + i0:a + i1] = [k] * (i1 - i0)
            j += 1


def _exclusive_rows(resource: Resource, cols: OccupancyColumns, now_s: float, layout: _Layout) -> list[WindowRow]:
    """An exclusive resource's rows in one pass over its occupancies: each slot shows the highest-priority
    occupancy that overlaps it (on ties the last in _active_columns' order), painted into the letters of all
    frames end to end. Owners (indices in `cols`) are painted the same way, when first asked for: until then
    nothing per occupancy outlives this call (a month's grid holds thousands of them)."""
    codes = bytearray(b"F" * layout.total)
    _paint(layout, _in_painting_order(cols, now_s), codes, None)
    owners = _Owners(cols, now_s, layout)
    step = layout.step
    return [WindowRow(resource, fr.first, step, codes[a:a + fr.n], None, None, cols, owners.of(a, fr.n))
            for fr, a in zip(layout.frames, layout.offsets, strict=True)]


class _Owners:
    """The owners of all of an exclusive resource's slots, painted on first use. Nothing here refers back to the
    rows: they are freed as soon as the response is, without waiting for the garbage collector."""

    __slots__ = ("_all", "cols", "layout", "now_s")

    def __init__(self, cols: OccupancyColumns, now_s: float, layout: _Layout) -> None:
        self.cols, self.now_s, self.layout = cols, now_s, layout
        self._all: list[int] | None = None

    def of(self, offset: int, n: int) -> Callable[[], list[int]]:
        """What gives the owners of the n slots from `offset` on."""
        return partial(self._slice, offset, n)

    def _slice(self, offset: int, n: int) -> list[int]:
        if self._all is None:
            self._all = [-1] * self.layout.total
            _paint(self.layout, _in_painting_order(self.cols, self.now_s), None, self._all)
        return self._all[offset:offset + n]


def _in_painting_order(cols: OccupancyColumns, now_s: float) -> list[tuple[float, float, int, int, int]]:
    """Lowest priority first so that the highest decides; among equals, in _active_columns' order (stable)."""
    return sorted(_active_columns(cols, now_s), key=_by_priority) if len(cols) else []


_LETTER = [bytes((c,)) for c in range(256)]


def _pooled_rows(resource: Resource, active: list[tuple[float, float, int, int, Occupancy]],
                 frames: Sequence[_Frame], step: timedelta) -> list[WindowRow]:
    """A pooled resource's rows, window by window: places left, and the strongest state where none are."""
    step_s = step.total_seconds()
    starts = [a[0] for a in active]
    longest = max((a[1] - a[0] for a in active), default=0.0)
    rows: list[WindowRow] = []
    for first, f, c_s, n in frames:
        # What overlaps this window, lowest priority first so that the highest decides.
        here = [a for a in active[bisect_left(starts, f - longest):bisect_left(starts, c_s)] if a[1] > f]
        if len(here) > 1:
            here.sort(key=_by_priority)
        row = WindowRow(resource, first, step, bytearray(b"F" * n), [resource.capacity] * n, [-1] * n,
                        [a[4] for a in here])
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


_NO_OCCUPANCY = OccupancyColumns(UUID(int=0), [], [], [], [], [], [], [])


def grid_rows(
    unit: Unit, resources: Sequence[Resource], occupancies: Iterable[Occupancy] | Mapping[UUID, OccupancyColumns],
    start: datetime, end: datetime, now: datetime,
) -> dict[UUID, list[WindowRow]]:
    """Staff grid as window rows per resource (SPEC §5). `occupancies` may come as columns per resource."""
    if isinstance(occupancies, Mapping):
        by_resource: Mapping[UUID, OccupancyColumns] = occupancies
    else:
        by_resource = {rid: OccupancyColumns.of(rid, occ) for rid, occ in _by_resource(occupancies).items()}
    step = timedelta(minutes=unit.params.slot_minutes)
    layouts: dict[tuple[OpeningWindow, ...], _Layout] = {}
    out: dict[UUID, list[WindowRow]] = {}
    for r in resources:
        hours = unit.hours_of(r)
        if hours not in layouts:  # resources usually share the unit's hours: compute them once
            layouts[hours] = _Layout(_frames(opening_windows(hours, unit.tz, start, end), start, end, step), step)
        out[r.id] = _rows(r, by_resource.get(r.id, _NO_OCCUPANCY), now, layouts[hours])
    return out


def segments(rows: Sequence[WindowRow]) -> list[Segment]:
    """Runs of consecutive slots with the same state, places left and occupancy."""
    out: list[Segment] = []
    for row in rows:
        n, i = len(row), 0
        codes, owners, available = row.codes, row.owners, row.available
        while i < n:
            j = i + 1
            while j < n and codes[j] == codes[i] and owners[j] == owners[i] and available[j] == available[i]:
                j += 1
            seg = Segment(row.resource.id, row.start(i), row.start(j), row.state(i), available[i], j - i,
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
    free = ord("F")
    out: list[SlotOption] = []
    # Rows start a day early so that grid alignment never depends on `start`.
    rows = grid_rows(unit, resources, occupancies, lo - _day, hi, now)
    for r in resources:
        for row in rows[r.id]:
            codes, available = row.codes, row.available
            for i in range(len(row) - slots + 1):
                first = row.start(i)
                if first < lo or first > latest_start:
                    continue
                if all(codes[k] == free and available[k] >= quantity for k in range(i, i + slots)):
                    out.append(SlotOption(r.id, first, row.start(i + slots)))
    out.sort(key=lambda s: (s.starts_at, str(s.resource_id)))
    return out


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
