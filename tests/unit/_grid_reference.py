"""The grid computation as it was before the whole-resource rewrite (commit b3844c8), kept verbatim as the
reference that tests/unit/test_grid_equivalence.py compares the current one with on random data."""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from uuid import UUID

from domain.availability import Occupancy, SlotState, WindowRow, earliest_bookable_start, opening_windows
from domain.bookings import LOCKED, BookingStatus
from domain.errors import SlotOption
from domain.units import OpeningWindow, Resource, ResourceKind, Unit

_day = timedelta(days=1)
_PRIORITY = {
    SlotState.HELD: 1,
    SlotState.VERIFYING: 2,
    SlotState.BOOKED: 3,
    SlotState.BLOCKED: 4,
}
CODES = {SlotState.FREE: "F", SlotState.HELD: "H", SlotState.VERIFYING: "V", SlotState.BOOKED: "B",
         SlotState.BLOCKED: "X", SlotState.CLOSED: "C"}
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


def _by_resource(occupancies: Iterable[Occupancy]) -> dict[UUID, list[Occupancy]]:
    out: dict[UUID, list[Occupancy]] = defaultdict(list)
    for o in occupancies:
        out[o.resource_id].append(o)
    return out


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
