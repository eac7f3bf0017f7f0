"""The grid and bookable slots as pure functions of hours, parameters, occupancy and now (SPEC §5).

By what they do: `states` (what a slot shows, its letter and priority), `occupancy` (what takes a resource, as tuples
or columns), `windows` (opening windows, slot ranges, the on-grid check), `layout` (where the slots lie, frame by
frame), `rows` (a window's row of slot letters; cells and segments), `painting` (one resource's rows), `grid` (the
staff grid), `bookable` (the customer's slots and the nearest alternatives). Every name is importable from here.
"""

from domain.availability.bookable import bookable_slots, earliest_bookable_start, nearest_alternatives
from domain.availability.grid import grid, grid_rows, mark_past, resource_cells, segments
from domain.availability.occupancy import Occupancy, OccupancyColumns
from domain.availability.painting import window_rows
from domain.availability.rows import Cell, Segment, WindowRow
from domain.availability.states import CODES, SlotState, _state_of
from domain.availability.windows import check_on_grid, opening_windows, slot_ranges, slot_starts

__all__ = [
    "CODES",
    "Cell",
    "Occupancy",
    "OccupancyColumns",
    "Segment",
    "SlotState",
    "WindowRow",
    "_state_of",
    "bookable_slots",
    "check_on_grid",
    "earliest_bookable_start",
    "grid",
    "grid_rows",
    "mark_past",
    "nearest_alternatives",
    "opening_windows",
    "resource_cells",
    "segments",
    "slot_ranges",
    "slot_starts",
    "window_rows",
]
