"""What takes a resource over a range, as the grid reads it: one Occupancy (a booking's allocation or a block),
or one resource's occupancies as parallel columns (a month's grid reads thousands)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import NamedTuple, overload
from uuid import UUID

from domain.bookings import LOCKED, BookingStatus
from domain.units import Resource


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
    channel: str | None = None
    """Where a hold came from (the booking's channel, e.g. "whatsapp", "counter"): read for holds only (the grid
    names a default-type hold by it); None for a block or a booking that is not a hold."""

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

    __slots__ = ("_built", "booking_ids", "channels", "deadlines", "ends", "hold_types", "quantities", "resource_id",
                 "starts", "statuses")

    def __init__(self, resource_id: UUID, starts: list[float], ends: list[float], quantities: list[int],
                 booking_ids: list[UUID | None], statuses: list[BookingStatus | None],
                 hold_types: list[str | None], deadlines: list[float | None],
                 built: list[Occupancy] | None = None, *, channels: list[str | None] | None = None) -> None:
        self.resource_id = resource_id
        self.starts, self.ends, self.quantities, self.booking_ids = starts, ends, quantities, booking_ids
        self.statuses, self.hold_types, self.deadlines = statuses, hold_types, deadlines
        self.channels: list[str | None] = channels if channels is not None else [None] * len(starts)
        self._built: list[Occupancy | None] = list(built) if built is not None else [None] * len(starts)

    @classmethod
    def of(cls, resource_id: UUID, occupancies: Iterable[Occupancy]) -> OccupancyColumns:
        """The columns of occupancies given as tuples (`self[i]` is then the i-th of them, itself)."""
        occ = list(occupancies)
        return cls(resource_id, [o.starts_at.timestamp() for o in occ], [o.ends_at.timestamp() for o in occ],
                   [o.quantity for o in occ], [o.booking_id for o in occ], [o.status for o in occ],
                   [o.hold_type for o in occ],
                   [None if o.hold_expires_at is None else o.hold_expires_at.timestamp() for o in occ], occ,
                   channels=[o.channel for o in occ])

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
                None if deadline is None else _instant(deadline), self.channels[i])
        return o

    def __repr__(self) -> str:
        return f"OccupancyColumns({self.resource_id}, {len(self)} occupancies)"


def _by_resource(occupancies: Iterable[Occupancy]) -> dict[UUID, list[Occupancy]]:
    out: dict[UUID, list[Occupancy]] = defaultdict(list)
    for o in occupancies:
        out[o.resource_id].append(o)
    return out


_NO_OCCUPANCY = OccupancyColumns(UUID(int=0), [], [], [], [], [], [], [])


def _columns(resource: Resource, occupancies: Iterable[Occupancy] | OccupancyColumns) -> OccupancyColumns:
    return occupancies if isinstance(occupancies, OccupancyColumns) else OccupancyColumns.of(resource.id,
                                                                                              occupancies)
