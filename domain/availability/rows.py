"""What the grid is made of: a resource's slots in one opening window as a row of state letters (WindowRow), and
the cells and segments shown from rows."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from uuid import UUID

from domain.availability.occupancy import Occupancy
from domain.availability.states import _BY_CODE, _ONE_IF_FREE, SlotState
from domain.units import Resource


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
