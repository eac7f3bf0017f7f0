"""Seat maps (seed 004, SPEC §3 mapping): numbered seats of an event, each an exclusive resource.

A seat map is a set of seats in sections and rows; an event is a performance of the map over a time range. A seat's
state for an event is derived from what occupies its resource over the event's range: free → ACTIVE; a held,
pending_payment or verifying booking → LOCKED; a confirmed, checked_in or completed booking → SOLD; a block →
BLOCKED. Every operation takes many seats and is all or nothing: one seat in the wrong state and nothing changes
(`SeatsUnavailable` names the seats and their states). Locks and sales go through the hold use case (one booking
for the seats, the exclusion constraint as the guarantee); unlock, sell, revert act on whole bookings.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from itertools import islice
from typing import Protocol
from uuid import UUID

from domain import refunds
from domain.access import Forbidden
from domain.bookings import Allocation, Booking
from domain.bookings import seat_state as booking_seat_state
from domain.customers import CustomerIdentity
from domain.errors import ErrorCode, InvalidInput, NotFound, SeatConflict, SeatsUnavailable, SlotTaken
from domain.events import SeatsBlockChanged, SlotSpan
from domain.hold_types import Releaser, SeatState
from domain.services import (
    BestSeats,
    BookingResult,
    Deps,
    SaleCommand,
    SeatHoldCommand,
    check_release,
    expire_booking,
    hold_seats,
    released,
    replayed,
    require_aware,
    sell,
)

MAX_SEATS_PER_MAP = 5000
MAX_SEATS_PER_OPERATION = 500
MAX_BEST_SEATS = 20
"""At most this many seats in one best-available lock."""
LOCK_BEST_TRIES = 3
"""A best-available lock races chosen-seat locks, and choices made under another lock (a row's, the event's): a seat
taken that way between the choice and the insert makes it choose again, this many times in all."""
MAX_EVENT_DAYS = 14
LABEL_MAX = 20



@dataclass(frozen=True)
class Seat:
    """One seat of a map: an exclusive resource with its place."""

    id: UUID
    section: str
    row: str
    label: str
    sort: int

    @property
    def name(self) -> str:
        return f"{self.section} {self.row}-{self.label}"


@dataclass(frozen=True)
class SeatMap:
    id: UUID
    unit_id: UUID
    name: str
    seats: tuple[Seat, ...] = ()

    @cached_property
    def by_id(self) -> dict[UUID, Seat]:
        """Its seats by id (a map is kept per process: built once, not per request)."""
        return {s.id: s for s in self.seats}

    @cached_property
    def segments(self) -> tuple[tuple[Seat, ...], ...]:
        """Its stretches of seats of one row consecutive in display order (where runs of free seats are found)."""
        return tuple(_segments(self.seats))

    @cached_property
    def segment_sorts(self) -> tuple[frozenset[int], ...]:
        """The `sort` of each seat of each of `segments`."""
        return tuple(frozenset(s.sort for s in seg) for seg in self.segments)

    @cached_property
    def row_seats(self) -> dict[tuple[str, str], tuple[Seat, ...]]:
        """Each (section, row)'s seats, in display order."""
        rows: dict[tuple[str, str], list[Seat]] = {}
        for s in self.seats:
            rows.setdefault((s.section, s.row), []).append(s)
        return {k: tuple(v) for k, v in rows.items()}

    @cached_property
    def rows(self) -> frozenset[tuple[str, str]]:
        """Its (section, row) pairs."""
        return frozenset((s.section, s.row) for s in self.seats)


@dataclass(frozen=True)
class SeatEvent:
    """A performance of a seat map over [starts_at, ends_at)."""

    id: UUID
    unit_id: UUID
    seat_map_id: UUID
    name: str
    starts_at: datetime
    ends_at: datetime


@dataclass(frozen=True)
class Occupant:
    """What takes a seat during an event: a booking (with its status) or a block."""

    booking_id: UUID | None
    status: str | None
    hold_type: str | None
    hold_expires_at: datetime | None
    block_id: UUID | None = None


@dataclass(frozen=True)
class SeatView:
    seat: Seat
    state: SeatState
    occupant: Occupant | None = None


def seat_state(o: Occupant | None, now: datetime) -> SeatState:
    """The seed's lifecycle state of a seat from what occupies it (a lapsed hold is free: SPEC guarantee 5)."""
    if o is None:
        return SeatState.ACTIVE
    if o.block_id is not None:
        return SeatState.BLOCKED
    state = booking_seat_state(o.status)  # the one status → seat state map (domain/bookings.py)
    lapsed = o.hold_expires_at is not None and o.hold_expires_at <= now
    return SeatState.ACTIVE if state is SeatState.LOCKED and lapsed else state


def _segments(seats: Sequence[Seat]) -> list[tuple[Seat, ...]]:
    """Stretches of seats of one row, consecutive in the map's order (`sort`): no run of free seats crosses two."""
    out: list[list[Seat]] = []
    for s in seats:
        last = out[-1][-1] if out else None
        if last is None or last.sort + 1 != s.sort or last.row != s.row or last.section != s.section:
            out.append([])
        out[-1].append(s)
    return [tuple(seg) for seg in out]


def free_runs(seats: SeatMap | Sequence[Seat], taken: AbstractSet[int], section: str | None = None,
              row: str | None = None) -> Iterator[tuple[Seat, ...]]:
    """The runs of free seats of a map (of a section, of a row), in display order: seats of one row, consecutive in
    the map's order (`sort`), none of them taken (`taken`: the `sort` of each seat taken). `seats`: a map, or seats
    in display order. On a map, a stretch whose seats are all taken is passed over in one set comparison (a sold-out
    row costs no loop over its seats)."""
    stretches: Iterable[tuple[tuple[Seat, ...], frozenset[int] | None]] = (
        zip(seats.segments, seats.segment_sorts, strict=True) if isinstance(seats, SeatMap)
        else ((seg, None) for seg in _segments(seats)))
    for seg, ids in stretches:
        head = seg[0]
        if (section is not None and head.section != section) or (row is not None and head.row != row):
            continue
        if ids is not None and ids <= taken:
            continue
        run: list[Seat] = []
        for s in seg:
            if s.sort in taken:
                if run:
                    yield tuple(run)
                    run = []
            else:
                run.append(s)
        if run:
            yield tuple(run)


def best_free(seats: SeatMap | Sequence[Seat], taken: AbstractSet[int], count: int, together: bool,
              section: str | None = None, row: str | None = None) -> list[Seat]:
    """Seed 004's best available: side by side, the first `count` seats of the first run that long; else the first
    `count` free seats in display order (fewer when not that many are free, none when no run is that long)."""
    if together:
        return next((list(run[:count]) for run in free_runs(seats, taken, section, row) if len(run) >= count), [])
    return list(islice((s for run in free_runs(seats, taken, section, row) for s in run), count))


def best_rows(seats: SeatMap | Sequence[Seat], taken: AbstractSet[int], count: int, section: str | None = None,
              row: str | None = None, limit: int = 16) -> list[tuple[str, str]]:
    """The (section, row) pairs with a run of `count` free seats, best first (by their first such run), at most
    `limit` of them: the rows a best-available choice tries in turn."""
    found: dict[tuple[str, str], None] = {}
    for run in free_runs(seats, taken, section, row):
        if len(run) >= count:
            found.setdefault((run[0].section, run[0].row))
            if len(found) >= limit:
                break
    return list(found)


class SeatMapRepository(Protocol):
    async def create_map(self, seat_map: SeatMap, group_id: UUID) -> None: ...

    async def create_event(self, event: SeatEvent) -> None: ...

    async def seat_map(self, seat_map_id: UUID) -> SeatMap: ...

    async def event(self, event_id: UUID) -> SeatEvent: ...

    async def occupants(self, event: SeatEvent, seat_ids: Sequence[UUID] | None = None) -> dict[UUID, Occupant]:
        """What occupies the map's seats over the event (only `seat_ids` when given)."""
        ...

    async def add_blocks(self, event: SeatEvent, seat_ids: list[UUID], reason: str, actor: str,
                         now: datetime, new_id: object) -> None: ...

    async def remove_blocks(self, event: SeatEvent, seat_ids: list[UUID], now: datetime) -> int: ...

    async def events_of(self, unit_id: UUID) -> list[SeatEvent]: ...

    async def choose_best(self, unit_id: UUID, best: BestSeats, starts_at: datetime, ends_at: datetime,
                          now: datetime, event_id: UUID) -> list[UUID]:
        """Up to `best.count` free seats of the map over the event, best first (the first in display order; side by
        side in one row when `best.together`), chosen under advisory locks held until the transaction ends, so that
        two choices at once never pick the same seats; fewer when not that many are free."""
        ...


# --- configuration -------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class RowSpec:
    label: str
    seats: tuple[str, ...]


@dataclass(frozen=True)
class SectionSpec:
    name: str
    rows: tuple[RowSpec, ...]


def _text(value: str, field_name: str, what: str, limit: int) -> str:
    text = (value or "").strip()
    if not 1 <= len(text) <= limit:
        raise InvalidInput(field_name, f"{what} must be 1 to {limit} characters", code=ErrorCode.INVALID_LABEL)
    return text


def plan_seats(sections: Sequence[SectionSpec], new_id: object) -> list[Seat]:
    """The seats of a new map in display order, checked: labels present, no seat twice, not too many."""
    seats: list[Seat] = []
    seen: set[tuple[str, str, str]] = set()
    if not sections:
        raise InvalidInput("sections", "a seat map needs at least one section", code=ErrorCode.NO_SEATS)
    for si, section in enumerate(sections):
        s_name = _text(section.name, f"sections[{si}].name", "a section's name", 60)
        if not section.rows:
            raise InvalidInput(f"sections[{si}].rows", f"section {s_name} has no rows", code=ErrorCode.NO_SEATS)
        for ri, row in enumerate(section.rows):
            r_label = _text(row.label, f"sections[{si}].rows[{ri}].label", "a row's label", LABEL_MAX)
            if not row.seats:
                raise InvalidInput(f"sections[{si}].rows[{ri}].seats", f"row {r_label} of {s_name} has no seats",
                                   code=ErrorCode.NO_SEATS)
            for k, raw in enumerate(row.seats):
                label = _text(raw, f"sections[{si}].rows[{ri}].seats[{k}]", "a seat's label", LABEL_MAX)
                key = (s_name, r_label, label)
                if key in seen:
                    raise InvalidInput(f"sections[{si}].rows[{ri}].seats[{k}]",
                                       f"seat {s_name} {r_label}-{label} is listed twice",
                                       code=ErrorCode.DUPLICATE_SEAT)
                seen.add(key)
                seats.append(Seat(new_id(), s_name, r_label, label, len(seats)))  # type: ignore[operator]
                if len(seats) > MAX_SEATS_PER_MAP:
                    raise InvalidInput("sections", f"a seat map has at most {MAX_SEATS_PER_MAP} seats",
                                       code=ErrorCode.TOO_MANY_SEATS)
    return seats


async def create_seat_map(deps: Deps, unit_id: UUID, name: str, sections: Sequence[SectionSpec]) -> SeatMap:
    """A new seat map: its seats become exclusive resources of the unit, off the slot grid."""
    title = _text(name, "name", "a seat map's name", 100)
    seats = plan_seats(sections, deps.new_id)
    seat_map = SeatMap(deps.new_id(), unit_id, title, tuple(seats))
    async with deps.uow() as uow:
        await uow.units.get(unit_id)
        await uow.seatmaps.create_map(seat_map, deps.new_id())
        await uow.commit()
    return seat_map


async def create_event(deps: Deps, seat_map_id: UUID, name: str, starts_at: datetime, ends_at: datetime
                       ) -> SeatEvent:
    """A performance of a seat map: its seats are sold for [starts_at, ends_at)."""
    require_aware(starts_at, "startsAt")
    require_aware(ends_at, "endsAt")
    starts_at, ends_at = starts_at.astimezone(UTC), ends_at.astimezone(UTC)
    if ends_at <= starts_at:
        raise InvalidInput("endsAt", "endsAt must be after startsAt", code=ErrorCode.INVALID_RANGE)
    if (ends_at - starts_at).days >= MAX_EVENT_DAYS:
        raise InvalidInput("endsAt", f"an event lasts less than {MAX_EVENT_DAYS} days", code=ErrorCode.INVALID_RANGE)
    if ends_at <= deps.clock.now():
        raise InvalidInput("endsAt", "the event would be over already", code=ErrorCode.IN_THE_PAST)
    title = _text(name, "name", "an event's name", 100)
    async with deps.uow() as uow:
        seat_map = await uow.seatmaps.seat_map(seat_map_id)
        event = SeatEvent(deps.new_id(), seat_map.unit_id, seat_map.id, title, starts_at, ends_at)
        await uow.seatmaps.create_event(event)
        await uow.commit()
    return event


# --- reading ---------------------------------------------------------------------------------------------------

@dataclass
class SeatMapView:
    event: SeatEvent
    seat_map: SeatMap
    seats: list[SeatView] = field(default_factory=list)
    seq: int = 0
    """The unit's event number the view reflects: a subscription with since: seq misses nothing after the read
    (the number is read first, and the relay numbers only committed events; domain/queries.py
    availability_grid_at)."""

    def counts(self) -> dict[SeatState, int]:
        out = dict.fromkeys(SeatState, 0)
        for s in self.seats:
            out[s.state] += 1
        return out


async def seat_map_view(deps: Deps, event_id: UUID) -> SeatMapView:
    """Every seat of the event's map with its state now."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        event = await uow.seatmaps.event(event_id)
        seat_map = await uow.seatmaps.seat_map(event.seat_map_id)
        seq = await uow.events.last_seq(event.unit_id)
        occupants = await uow.seatmaps.occupants(event)
    return SeatMapView(event, seat_map, [SeatView(s, seat_state(occupants.get(s.id), now), occupants.get(s.id))
                                         for s in seat_map.seats], seq)


async def events_of(deps: Deps, unit_id: UUID) -> list[SeatEvent]:
    """The unit's seat events that are not over, soonest first."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        return [e for e in await uow.seatmaps.events_of(unit_id) if e.ends_at > now]


async def seat_map_unit(deps: Deps, seat_map_id: UUID) -> UUID:
    """The unit a seat map belongs to (for access checks)."""
    async with deps.uow() as uow:
        return (await uow.seatmaps.seat_map(seat_map_id)).unit_id


async def event_unit(deps: Deps, event_id: UUID) -> UUID:
    """The unit an event belongs to (for access checks)."""
    async with deps.uow() as uow:
        return (await uow.seatmaps.event(event_id)).unit_id


# --- operations ------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SeatCommand:
    """An operation on some seats of an event."""

    event_id: UUID
    seat_ids: tuple[UUID, ...]
    actor: str = "staff"
    releaser: Releaser | frozenset[Releaser] | None = None
    """Who releases, for hold types' releaseApi (None: the platform)."""
    placed_by: Releaser | None = None
    """Who places seats (lock, sell), for hold types' placement rules (None: the platform)."""
    owns: Callable[[UUID | None], Awaitable[bool]] | None = None
    """A customer acting for themselves: whether a booking's customer is them (they touch only their own)."""
    hold_type: str | None = None
    customer: CustomerIdentity | None = None
    channel: str = "api"
    reason: str = ""
    idempotency_key: str | None = None


def _check_seats(cmd: SeatCommand, seat_map: SeatMap) -> list[Seat]:
    if not cmd.seat_ids:
        raise InvalidInput("seatIds", "give at least one seat", code=ErrorCode.NO_SEAT)
    if len(cmd.seat_ids) > MAX_SEATS_PER_OPERATION:
        raise InvalidInput("seatIds", f"at most {MAX_SEATS_PER_OPERATION} seats at once", code=ErrorCode.TOO_MANY_SEATS)
    if len(set(cmd.seat_ids)) != len(cmd.seat_ids):
        raise InvalidInput("seatIds", "a seat is listed twice", code=ErrorCode.DUPLICATE_SEAT)
    by_id = seat_map.by_id
    for sid in cmd.seat_ids:
        if sid not in by_id:
            raise NotFound("seat", sid, field="seatIds")
    return [by_id[s] for s in cmd.seat_ids]


def _require(views: list[SeatView], wanted: SeatState, doing: str) -> None:
    wrong = [v for v in views if v.state is not wanted]
    if wrong:
        names = ", ".join(f"{v.seat.name} ({v.state.value})" for v in wrong[:10])
        raise SeatsUnavailable(f"cannot {doing}: {len(wrong)} seat(s) are not {wanted.value}: {names}; nothing "
                               "was changed", [SeatConflict(v.seat.id, v.seat.name, v.state.value) for v in wrong])


async def _views(deps: Deps, cmd: SeatCommand) -> tuple[SeatEvent, list[SeatView]]:
    now = deps.clock.now()
    async with deps.uow() as uow:
        event = await uow.seatmaps.event(cmd.event_id)
        seat_map = await uow.seatmaps.seat_map(event.seat_map_id)
        seats = _check_seats(cmd, seat_map)
        occupants = await uow.seatmaps.occupants(event, cmd.seat_ids)  # the seats asked for, not the whole map
    return event, [SeatView(s, seat_state(occupants.get(s.id), now), occupants.get(s.id)) for s in seats]


def _open(event: SeatEvent, now: datetime) -> None:
    if event.ends_at <= now:
        raise InvalidInput("eventId", "the event is over", code=ErrorCode.EVENT_OVER)


async def _taken(deps: Deps, cmd: SeatCommand, wanted: SeatState, doing: str) -> SeatsUnavailable:
    _, views = await _views(deps, cmd)
    try:
        _require(views, wanted, doing)
    except SeatsUnavailable as e:
        return e
    return SeatsUnavailable(f"cannot {doing}: the seats changed meanwhile; nothing was changed", [])


async def lock_seats(deps: Deps, cmd: SeatCommand) -> BookingResult:
    """ACTIVE → LOCKED with a hold type (CART by default): one booking for all the seats, or nothing. A hold type
    that skips the locked state sells them at once (box office)."""
    event, views = await _views(deps, cmd)
    hold_cmd = SeatHoldCommand(event.unit_id, event.starts_at, event.ends_at, tuple(cmd.seat_ids),
                               customer=cmd.customer, hold_type=cmd.hold_type, channel=cmd.channel, actor=cmd.actor,
                               idempotency_key=cmd.idempotency_key, placed_by=cmd.placed_by, until=event.starts_at)
    if (again := await replayed(deps, hold_cmd)) is not None:
        return again  # a retry finds its own seats locked: it gets its first answer
    _open(event, deps.clock.now())
    _require(views, SeatState.ACTIVE, "lock")
    try:
        return await hold_seats(deps, hold_cmd)
    except SlotTaken:
        raise await _taken(deps, cmd, SeatState.ACTIVE, "lock") from None


@dataclass(frozen=True)
class BestSeatsCommand:
    """Lock the best free seats of an event: `count` of them (of a section, of a row), side by side in one row
    when `together`. Best = first in the map's display order (the order its sections, rows and seats were drawn
    in); side by side = consecutive seats of a row, all free."""

    event_id: UUID
    count: int
    section: str | None = None
    row: str | None = None
    together: bool = True
    actor: str = "staff"
    placed_by: Releaser | None = None
    hold_type: str | None = None
    customer: CustomerIdentity | None = None
    channel: str = "api"
    idempotency_key: str | None = None

    @classmethod
    def of(cls, cmd: SeatCommand, count: int, section: str | None = None, row: str | None = None,
           together: bool = True) -> BestSeatsCommand:
        """The best-available lock of a seat command's event, by its caller (its seats are left out)."""
        return cls(cmd.event_id, count, section, row, together, actor=cmd.actor, placed_by=cmd.placed_by,
                   hold_type=cmd.hold_type, customer=cmd.customer, channel=cmd.channel,
                   idempotency_key=cmd.idempotency_key)


async def lock_best_seats(deps: Deps, cmd: BestSeatsCommand) -> BookingResult:
    """ACTIVE → LOCKED on the best free seats, chosen and locked in one transaction under advisory locks (the best
    row no other choice is in; `PgSeatMaps.choose_best`): two buyers never get the same seats, nor queue behind
    each other while other rows have room. One booking for all of them, or SeatsUnavailable when not that many are
    free (together, in that section or row); the exclusion constraint stays the guarantee."""
    if not 1 <= cmd.count <= MAX_BEST_SEATS:
        raise InvalidInput("count", f"ask for 1 to {MAX_BEST_SEATS} seats", code=ErrorCode.TOO_MANY_SEATS
                           if cmd.count > MAX_BEST_SEATS else ErrorCode.NO_SEAT)
    section = _text(cmd.section, "section", "a section's name", 60) if cmd.section is not None else None
    row = _text(cmd.row, "row", "a row's label", LABEL_MAX) if cmd.row is not None else None
    async with deps.uow() as uow:
        event = await uow.seatmaps.event(cmd.event_id)
        seat_map = await uow.seatmaps.seat_map(event.seat_map_id)
    if section is not None and all(sec != section for sec, _ in seat_map.rows):
        raise NotFound("section", section, field="section")
    if row is not None and all(r != row for sec, r in seat_map.rows if section is None or sec == section):
        raise NotFound("row", row, field="row")
    best = BestSeats(event.id, seat_map.id, cmd.count, section, row, cmd.together and cmd.count > 1)
    hold_cmd = SeatHoldCommand(event.unit_id, event.starts_at, event.ends_at, None, customer=cmd.customer,
                               hold_type=cmd.hold_type, channel=cmd.channel, actor=cmd.actor,
                               idempotency_key=cmd.idempotency_key, placed_by=cmd.placed_by, until=event.starts_at,
                               best=best)
    if (again := await replayed(deps, hold_cmd)) is not None:
        return again
    _open(event, deps.clock.now())
    for _ in range(LOCK_BEST_TRIES - 1):
        try:
            return await hold_seats(deps, hold_cmd)
        except SlotTaken:
            continue  # a chosen-seat lock took one of them after the choice: choose again
    try:
        return await hold_seats(deps, hold_cmd)
    except SlotTaken:
        raise SeatsUnavailable("cannot lock: the best seats kept being taken meanwhile; nothing was changed",
                               []) from None


async def sell_seats(deps: Deps, cmd: SeatCommand) -> list[Booking]:
    """→ SOLD. ACTIVE seats: one new booking, born confirmed with the hold type given (valid in SOLD), or none.
    LOCKED seats: their bookings are confirmed (whole bookings only). Seats in both states at once are refused."""
    now = deps.clock.now()
    event, views = await _views(deps, cmd)
    _open(event, now)
    states = {v.state for v in views}
    sale = SaleCommand(event.unit_id, event.starts_at, event.ends_at, tuple(cmd.seat_ids), customer=cmd.customer,
                       hold_type=cmd.hold_type, channel=cmd.channel, actor=cmd.actor,
                       idempotency_key=cmd.idempotency_key, placed_by=cmd.placed_by, until=event.starts_at)
    if states == {SeatState.SOLD} and (again := await replayed(deps, sale)) is not None:
        return [again.booking]  # a retry of a sale of free seats finds them sold: its first answer
    if states == {SeatState.ACTIVE}:
        try:
            return [(await sell(deps, sale)).booking]
        except SlotTaken:
            raise await _taken(deps, cmd, SeatState.ACTIVE, "sell") from None
    if states != {SeatState.LOCKED}:
        if states <= {SeatState.ACTIVE, SeatState.LOCKED}:
            raise InvalidInput("seatIds", "sell either free seats or locked seats in one request, not both",
                               code=ErrorCode.MIXED_SEAT_STATES)
        _require(views, SeatState.LOCKED, "sell")
    return await _on_bookings(deps, cmd, event, views, SeatState.LOCKED, "sell", lambda b: b.confirm(now, cmd.actor),
                              retype=True)


async def unlock_seats(deps: Deps, cmd: SeatCommand) -> list[Booking]:
    """LOCKED → ACTIVE: the bookings holding them are cancelled (whole bookings only); releasing clears the type."""
    now = deps.clock.now()
    event, views = await _views(deps, cmd)
    _require(views, SeatState.LOCKED, "unlock")
    return await _on_bookings(deps, cmd, event, views, SeatState.LOCKED, "unlock",
                              lambda b: b.cancel(now, cmd.actor, cmd.reason or "seats unlocked"), release=True)


async def revert_sale(deps: Deps, cmd: SeatCommand) -> list[Booking]:
    """SOLD → ACTIVE: the sales are cancelled (whole bookings only); a paid one's refund follows the policy."""
    now = deps.clock.now()
    event, views = await _views(deps, cmd)
    _require(views, SeatState.SOLD, "revert the sale of")
    return await _on_bookings(deps, cmd, event, views, SeatState.SOLD, "revert the sale of",
                              lambda b: b.cancel(now, cmd.actor, cmd.reason or "sale reverted"), release=True,
                              refund=True)


async def _on_bookings(deps: Deps, cmd: SeatCommand, event: SeatEvent, views: list[SeatView], wanted: SeatState,
                       doing: str, apply: Callable[[Booking], None], release: bool = False, refund: bool = False,
                       retype: bool = False) -> list[Booking]:
    now = deps.clock.now()
    asked = set(cmd.seat_ids)
    ids = list(dict.fromkeys(v.occupant.booking_id for v in views if v.occupant and v.occupant.booking_id))
    changed: list[Booking] = []
    async with deps.uow() as uow:
        unit = await uow.units.get(event.unit_id)
        for bid in sorted(ids):  # a fixed order: two operations over the same bookings never deadlock
            b = await uow.bookings.get(bid)
            seats = {a.resource_id for a in b.allocations}
            if not seats <= asked:
                raise InvalidInput("seatIds", f"booking {b.id} holds {len(seats)} seats together; {doing} all of "
                                   "them in one request", code=ErrorCode.PARTIAL_BOOKING)
            if cmd.owns is not None and not await cmd.owns(b.customer_id):
                raise Forbidden("customers may only change their own bookings")
            state = seat_state(Occupant(b.id, b.status.value, b.hold_type, b.hold_expires_at), now)
            if state is not wanted:  # changed since we looked: all or nothing
                if b.is_lapsed(now):
                    await expire_booking(uow, b, now)
                    await uow.commit()
                raise await _taken(deps, cmd, wanted, doing)
            if release:
                await check_release(uow, b, cmd.releaser)
            if retype and cmd.hold_type is not None:
                sold_as = unit.hold_types.resolve(cmd.hold_type)
                sold_as.check_placement(cmd.placed_by)
                sold_as.check_target(SeatState.SOLD)
                b.hold_type = sold_as.name
            apply(b)
            await uow.bookings.save(b)
            if refund:
                await refunds.on_cancel(uow, b, now, deps.new_id)
            changed.append(b)
        await uow.commit()
    for b in changed:
        await released(deps, b)
    return changed


def _block_event(event: SeatEvent, cmd: SeatCommand, blocked: bool, now: datetime) -> SeatsBlockChanged:
    """Live on slotChanged with no booking (resolvers/subscriptions.py)."""
    return SeatsBlockChanged(event.unit_id, blocked, now, cmd.reason,
                             tuple(SlotSpan(s, event.starts_at, event.ends_at) for s in cmd.seat_ids))


async def block_seats(deps: Deps, cmd: SeatCommand) -> int:
    """ACTIVE → BLOCKED for the event (a broken seat, a camera position), all or nothing."""
    now = deps.clock.now()
    event, views = await _views(deps, cmd)
    _open(event, now)
    _require(views, SeatState.ACTIVE, "block")
    try:
        async with deps.uow() as uow:
            await uow.bookings.lock_resources(event.unit_id, list(cmd.seat_ids))
            probe = [Allocation(s, event.starts_at, event.ends_at) for s in cmd.seat_ids]
            for stale in await uow.bookings.lapsed_overlapping(event.unit_id, probe, now):
                if stale.is_lapsed(now):
                    await expire_booking(uow, stale, now)
            await uow.seatmaps.add_blocks(event, list(cmd.seat_ids), cmd.reason, cmd.actor, now, deps.new_id)
            await uow.events.notify(event.unit_id, _block_event(event, cmd, True, now))
            await uow.commit()
    except SlotTaken:
        raise await _taken(deps, cmd, SeatState.ACTIVE, "block") from None
    return len(cmd.seat_ids)


async def unblock_seats(deps: Deps, cmd: SeatCommand) -> int:
    """BLOCKED → ACTIVE: the blocks over those seats during the event go."""
    now = deps.clock.now()
    event, views = await _views(deps, cmd)
    _require(views, SeatState.BLOCKED, "unblock")
    async with deps.uow() as uow:
        removed = await uow.seatmaps.remove_blocks(event, list(cmd.seat_ids), now)
        if removed < len(cmd.seat_ids):
            raise await _taken(deps, cmd, SeatState.BLOCKED, "unblock")
        await uow.events.notify(event.unit_id, _block_event(event, cmd, False, now))
        await uow.commit()
    return removed
