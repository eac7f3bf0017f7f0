"""What a slot shows: the slot states, their one-letter codes and priorities, and the state each occupancy still
active at `now` shows (as tuples the painting of the grid sorts)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from enum import StrEnum

from domain.availability.occupancy import Occupancy, OccupancyColumns
from domain.bookings import LOCKED, SLOT_STATE, BookingStatus


class SlotState(StrEnum):
    """What the staff grid shows for a slot."""

    FREE = "free"
    HELD = "held"
    VERIFYING = "verifying"
    BOOKED = "booked"
    BLOCKED = "blocked"
    CLOSED = "closed"
    PAST = "past"
    """Free, but it has already begun: nothing can be booked in it any more (issue 20)."""


_PRIORITY = {
    SlotState.HELD: 1,
    SlotState.VERIFYING: 2,
    SlotState.BOOKED: 3,
    SlotState.BLOCKED: 4,
}
CODES = {SlotState.FREE: "F", SlotState.HELD: "H", SlotState.VERIFYING: "V", SlotState.BOOKED: "B",
         SlotState.BLOCKED: "X", SlotState.CLOSED: "C", SlotState.PAST: "P"}
"""One letter per slot state, for compact grids."""
_BY_CODE = {ord(v): k for k, v in CODES.items()}
_ONE_IF_FREE = bytes(1 if i == ord("F") else 0 for i in range(256))


def _by_priority(a: tuple[float, float, int, int, object]) -> int:
    return a[2]


def _shown(status: BookingStatus | None) -> SlotState:
    """What an occupancy of a booking in `status` shows: the bookings' slot-state map (domain/bookings.py, where
    it is defined once). A status outside it (one that no longer occupies: the store never reads such an
    allocation) shows booked, as the occupancy still takes the slot."""
    return SlotState(SLOT_STATE[status]) if status is not None and status in SLOT_STATE else SlotState.BOOKED


_STATE: dict[BookingStatus | None, SlotState] = {s: _shown(s) for s in (None, *BookingStatus)}
"""_shown of every status, as one dict lookup."""


def _state_of(occ: Occupancy) -> SlotState:
    """What the occupancy shows: blocked for a block, else its booking status's slot state."""
    return SlotState.BLOCKED if occ.is_block else _STATE.get(occ.status, SlotState.BOOKED)


# (priority, state letter) of what a slot shows for an occupancy of a booking in each status (None: no status);
# blocks (no booking) show X whatever their status. The same as _state_of, as one dict lookup.
_SHOWN: dict[BookingStatus | None, tuple[int, int]] = {s: (_PRIORITY[st], ord(CODES[st])) for s, st in _STATE.items()}
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


_LETTER = [bytes((c,)) for c in range(256)]
