"""The grid and bookable slots as pure functions of hours, parameters, occupancy and now (SPEC §5)."""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from enum import StrEnum
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


@dataclass(frozen=True)
class Occupancy:
    """Something that takes (part of) a resource over a range: a booking's allocation or a block."""

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


_PRIORITY = {
    SlotState.BLOCKED: 4,
    SlotState.BOOKED: 3,
    SlotState.VERIFYING: 2,
    SlotState.HELD: 1,
}


def _state_of(occ: Occupancy) -> SlotState:
    if occ.is_block:
        return SlotState.BLOCKED
    if occ.status is BookingStatus.VERIFYING:
        return SlotState.VERIFYING
    if occ.status in LOCKED:
        return SlotState.HELD
    return SlotState.BOOKED


def resource_cells(
    unit: Unit, resource: Resource, occupancies: Sequence[Occupancy], start: datetime, end: datetime,
    now: datetime,
) -> list[list[Cell]]:
    """The state of every slot of one resource, grouped by opening window."""
    active = sorted((o for o in occupancies if o.is_active(now)), key=lambda o: o.starts_at)
    starts = [o.starts_at for o in active]
    longest = max((o.ends_at - o.starts_at for o in active), default=timedelta(0))
    pooled = resource.kind is ResourceKind.POOLED
    out: list[list[Cell]] = []
    for group in slot_ranges(unit, resource, start, end):
        row: list[Cell] = []
        for s, e in group:
            lo = bisect_left(starts, s - longest)
            hi = bisect_left(starts, e)
            hits = [o for o in active[lo:hi] if o.ends_at > s]
            if not hits:
                row.append(Cell(s, e, SlotState.FREE, resource.capacity))
                continue
            top = max(hits, key=lambda o: _PRIORITY[_state_of(o)])
            if pooled and not any(o.is_block for o in hits):
                used = sum(o.quantity for o in hits)
                left = max(resource.capacity - used, 0)
                state = SlotState.FREE if left > 0 else _state_of(top)
                row.append(Cell(s, e, state, left, None if left > 0 else top))
            else:
                row.append(Cell(s, e, _state_of(top), 0, top))
        out.append(row)
    return out


def grid(
    unit: Unit, resources: Sequence[Resource], occupancies: Iterable[Occupancy], start: datetime,
    end: datetime, now: datetime,
) -> dict[UUID, list[Segment]]:
    """Staff grid: per resource, runs of slots with the same state (SPEC §5)."""
    by_resource: dict[UUID, list[Occupancy]] = defaultdict(list)
    for o in occupancies:
        by_resource[o.resource_id].append(o)
    out: dict[UUID, list[Segment]] = {}
    for r in resources:
        segs: list[Segment] = []
        for row in resource_cells(unit, r, by_resource.get(r.id, []), start, end, now):
            for c in row:
                last = segs[-1] if segs else None
                if (
                    last is not None
                    and last.ends_at == c.starts_at
                    and last.state == c.state
                    and last.available == c.available
                    and last.occupancy == c.occupancy
                ):
                    segs[-1] = Segment(r.id, last.starts_at, c.ends_at, c.state, c.available,
                                       last.slots + 1, c.occupancy)
                else:
                    segs.append(Segment(r.id, c.starts_at, c.ends_at, c.state, c.available, 1, c.occupancy))
        out[r.id] = segs
    return out


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
    hi = min(end, now + unit.params.max_advance + timedelta(minutes=unit.params.slot_minutes * slots))
    if lo >= hi:
        return []
    by_resource: dict[UUID, list[Occupancy]] = defaultdict(list)
    for o in occupancies:
        by_resource[o.resource_id].append(o)
    latest_start = now + unit.params.max_advance
    out: list[SlotOption] = []
    for r in resources:
        # Cells are computed from the day's start so that grid alignment never depends on `start`.
        for row in resource_cells(unit, r, by_resource.get(r.id, []), lo - _day, hi, now):
            for i in range(len(row) - slots + 1):
                first = row[i]
                if first.starts_at < lo or first.starts_at > latest_start:
                    continue
                run = row[i : i + slots]
                if run[-1].ends_at > hi:
                    break
                if all(c.state is SlotState.FREE and c.available >= quantity for c in run):
                    out.append(SlotOption(r.id, first.starts_at, run[-1].ends_at))
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
