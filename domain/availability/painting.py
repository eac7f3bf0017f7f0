"""Painting one resource's rows: an exclusive resource's slots show the strongest occupancy over them, painted in
one pass over all its frames; a pooled resource's show the places left, and the strongest state where none are."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from functools import partial

from domain.availability.layout import _Frame, _frames, _Layout
from domain.availability.occupancy import Occupancy, OccupancyColumns, _columns
from domain.availability.rows import WindowRow
from domain.availability.states import _LETTER, _active, _active_columns, _by_priority
from domain.availability.windows import opening_windows
from domain.units import Resource, ResourceKind, Unit


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
        windows = opening_windows(unit.hours_of(resource), unit.tz, start, end, unit.days_of(resource))
    return _rows(resource, _columns(resource, occupancies), now, _Layout(_frames(windows, start, end, step), step))


def _rows(resource: Resource, cols: OccupancyColumns, now: datetime, layout: _Layout) -> list[WindowRow]:
    if resource.kind is ResourceKind.POOLED:
        return _pooled_rows(resource, _active(cols, now), layout.frames, layout.step)
    return _exclusive_rows(resource, cols, now.timestamp(), layout)


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
