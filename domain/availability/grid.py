"""The staff grid (SPEC §5): every resource's rows over [start, end), as cells or as runs of slots with the same
state (segments)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from uuid import UUID

from domain.availability.layout import _Frame, _frames, _Layout
from domain.availability.occupancy import _NO_OCCUPANCY, Occupancy, OccupancyColumns, _by_resource
from domain.availability.painting import _rows, window_rows
from domain.availability.rows import Cell, Segment, WindowRow
from domain.availability.windows import closed_windows, opening_windows
from domain.units import DayHours, OpeningWindow, Resource, Unit


def resource_cells(
    unit: Unit, resource: Resource, occupancies: Sequence[Occupancy], start: datetime, end: datetime,
    now: datetime,
) -> list[list[Cell]]:
    """The state of every slot of one resource, grouped by opening window."""
    return [
        [Cell(row.start(i), row.start(i + 1), row.state(i), row.available[i], row.owner(i)) for i in range(len(row))]
        for row in window_rows(unit, resource, occupancies, start, end, now)
    ]


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
    layouts: dict[tuple[tuple[OpeningWindow, ...], DayHours], tuple[_Layout, list[_Frame]]] = {}
    out: dict[UUID, list[WindowRow]] = {}
    for r in resources:
        hours = (unit.hours_of(r), unit.days_of(r))
        if hours not in layouts:  # resources usually share the unit's hours: compute them once
            layouts[hours] = (
                _Layout(_frames(opening_windows(hours[0], unit.tz, start, end, hours[1]), start, end, step), step),
                _frames(closed_windows(hours[0], unit.tz, start, end, hours[1]), start, end, step))
        layout, closed = layouts[hours]
        rows = _rows(r, by_resource.get(r.id, _NO_OCCUPANCY), now, layout)
        if closed:  # a closed day's (or hours') slots show CLOSED, in time order with the open ones
            rows = sorted(rows + [WindowRow(r, fr.first, step, bytearray(b"C" * fr.n), [0] * fr.n, [-1] * fr.n, ())
                                  for fr in closed], key=lambda row: row.first)
        out[r.id] = rows
    return out


def mark_past(rows: Mapping[UUID, list[WindowRow]], now: datetime) -> None:
    """Show as PAST every free slot that has already begun at `now` (in place): the staff grid must not offer
    booking in it, as the API refuses a hold that starts in the past. Taken slots keep their state (history)."""
    free, past = ord("F"), ord("P")
    for rows_of in rows.values():
        for row in rows_of:
            codes = row.codes
            for i in range(len(codes)):
                if row.start(i) >= now:
                    break
                if codes[i] == free:
                    codes[i] = past
                    if row._available is not None:
                        row._available[i] = 0


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
