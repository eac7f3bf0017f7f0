"""Placing a new booking for a request: holds (SPEC §6), counter bookings (§11), seat holds and box-office sales
(seed 004). Each is its own command; all of them go through `_book` and `placing.place`.

- `HoldCommand`: held until its type's deadline (confirmed when the type skips the locked state); on the grid with
  its advance limits; RN-HLD-05 when self-service.
- `CounterCommand`: confirmed; on the grid without advance limits; a customer's live hold in the way is named
  (`SlotHeld`).
- `SeatHoldCommand`: as a hold, until the event's start at the latest; on the event's seats.
- `SaleCommand`: confirmed, with the hold type it was sold as (valid in SOLD); on the event's seats.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import ClassVar, TypeVar
from uuid import UUID

from domain import fraud
from domain.availability import bookable_slots, check_on_grid, slot_starts
from domain.bookings import LOCKED, Allocation, Booking
from domain.customers import Customer, CustomerIdentity
from domain.errors import (
    ErrorCode,
    HoldCeilingReached,
    InvalidInput,
    NotFound,
    SeatsUnavailable,
    SlotHeld,
    SlotTaken,
)
from domain.hold_types import HoldType, Releaser, SeatState
from domain.holds import check_booking_window, hold_deadline, reminder_at
from domain.ports import UnitOfWork
from domain.pricing import Service, price_of
from domain.services.alternatives import alternatives, window_free
from domain.services.checks import check_key, utc_range
from domain.services.deps import Deps
from domain.services.idempotency import remember, replay
from domain.services.placing import place
from domain.units import OpeningWindow, Resource, ResourceKind, Unit

BeforeInsert = Callable[[UnitOfWork, Booking], Awaitable[None]]
R = TypeVar("R", bound="BookingRequest")


@dataclass(frozen=True)
class BookingRequest:
    """What every request for a new booking says: [starts_at, ends_at) on resources (None: any free one)."""

    OPERATION: ClassVar[str] = "hold"
    """The operation its idempotency key is claimed for and fingerprinted as."""

    unit_id: UUID
    starts_at: datetime
    ends_at: datetime
    resource_ids: tuple[UUID, ...] | None = None
    quantity: int = 1
    customer: CustomerIdentity | None = None
    service_id: UUID | None = None
    hold_type: str | None = None
    channel: str = "api"
    actor: str = "customer"
    idempotency_key: str | None = None
    placed_by: Releaser | None = None
    """Who places it, for its hold type's rules (None: the platform itself)."""


@dataclass(frozen=True)
class HoldCommand(BookingRequest):
    """Hold a range for a customer until its deadline (SPEC §6)."""


@dataclass(frozen=True)
class CounterCommand(BookingRequest):
    """Staff book at the counter: confirmed at once, without the advance limits (SPEC §11)."""

    OPERATION: ClassVar[str] = "counterBooking"


@dataclass(frozen=True)
class BestSeats:
    """The best free seats of an event, chosen in the hold's own transaction under advisory locks (a row's of the
    event, or the event's; seed 004's "best available"): `count` seats of the map (of a section, of a row), side by
    side in one row when `together`."""

    event_id: UUID
    seat_map_id: UUID
    count: int
    section: str | None = None
    row: str | None = None
    together: bool = True


@dataclass(frozen=True, kw_only=True)
class SeatHoldCommand(BookingRequest):
    """Hold seats of an event: no grid or advance checks; held until `until` (the event's start) at the latest.
    With `best` (and no resource_ids) the seats are chosen in the same transaction, under its locks."""

    OPERATION: ClassVar[str] = "lockSeats"
    until: datetime
    best: BestSeats | None = None


@dataclass(frozen=True, kw_only=True)
class SaleCommand(BookingRequest):
    """Sell seats of an event at the box office: born confirmed, with the hold type it was sold as (if any)."""

    OPERATION: ClassVar[str] = "sellSeats"
    until: datetime


@dataclass(frozen=True)
class BookingResult:
    """A booking as a mutation returns it; `replayed` when an idempotency key answered."""

    booking: Booking
    replayed: bool = False


@dataclass(frozen=True)
class _Birth:
    """How the new booking is born."""

    confirmed: bool
    deadline: datetime | None = None
    hold_type: str | None = None
    reminds: bool = False


async def hold(deps: Deps, cmd: HoldCommand, before_insert: BeforeInsert | None = None,
               replacing: UUID | None = None) -> BookingResult:
    """Hold a slot for a customer: all or nothing, never twice (SPEC §4, §6). A swap gives the hold it replaces
    (`replacing`: RN-HLD-05 does not count it) and frees it in `before_insert`, in the same transaction."""
    return await _book(deps, cmd, before_insert, replacing)


async def counter_booking(deps: Deps, cmd: CounterCommand) -> BookingResult:
    """Book at the counter: confirmed at once (SPEC §11); a customer's live hold in the way is named."""
    return await _book(deps, cmd)


async def hold_seats(deps: Deps, cmd: SeatHoldCommand) -> BookingResult:
    """Hold seats of an event (seed 004): one booking for all of them, or SlotTaken."""
    return await _book(deps, cmd)


async def sell(deps: Deps, cmd: SaleCommand) -> BookingResult:
    """Sell seats of an event at once (seed 004): one confirmed booking for all of them, or SlotTaken."""
    return await _book(deps, cmd)


async def replayed(deps: Deps, cmd: SeatHoldCommand | SaleCommand) -> BookingResult | None:
    """What the request's idempotency key already answered (a retry: the first answer, `replayed`), or None (no
    key, or a first run: go on). A different request under the key is IdempotencyKeyReused. For seat operations,
    whose state checks come first and would find the retry's own seats taken; the claim this makes is rolled back,
    the run claims the key again in its own transaction (`_book_on`)."""
    if not cmd.idempotency_key:
        return None
    check_key(cmd.idempotency_key)
    starts_at, ends_at = utc_range(cmd.starts_at, cmd.ends_at)
    request = _normalised(replace(cmd, starts_at=starts_at, ends_at=ends_at))
    async with deps.uow() as uow:  # never committed: a first run leaves no claim behind
        stored = await replay(uow, cmd.unit_id, cmd.idempotency_key, cmd.OPERATION, request, deps.clock.now())
    return None if stored is None else BookingResult(stored, replayed=True)


def _on_seats(cmd: BookingRequest) -> bool:
    return isinstance(cmd, SeatHoldCommand | SaleCommand)


async def _book(deps: Deps, cmd: BookingRequest, before_insert: BeforeInsert | None = None,
                replacing: UUID | None = None) -> BookingResult:
    now = deps.clock.now()
    check_key(cmd.idempotency_key)
    cmd = checked_request(cmd, isinstance(cmd, HoldCommand | SeatHoldCommand))
    async with deps.uow() as uow:
        unit = await uow.units.get(cmd.unit_id)
        if isinstance(cmd, HoldCommand | SeatHoldCommand):
            hold_type_for(unit, cmd)  # an unknown or misused hold type is refused before anything else
        service = await _service(uow, unit, cmd)
        best = isinstance(cmd, SeatHoldCommand) and cmd.best is not None
        candidates: list[list[Resource]] = [[]] if best else await _candidates(deps, uow, unit, cmd, now, service)
        # A self-service hold is checked against RN-HLD-05, whose ceiling needs the size of the unit's grid.
        guarded = (isinstance(cmd, HoldCommand) and cmd.customer is not None
                   and fraud.is_self_service(cmd.channel))
        capacity = await uow.units.capacity_by_hours(unit.id) if guarded else None
    last: SlotTaken | None = None
    for picked in candidates:
        try:
            return await _book_on(deps, unit, picked, cmd, now, before_insert, capacity, replacing, service)
        except SlotTaken as refused:
            last = refused
            _contended(unit.id, refused=True)
        except HoldCeilingReached as refusal:
            async with deps.uow() as uow:  # the hold's transaction is gone; the alert is kept on its own
                if await fraud.raise_ceiling_alert(uow, unit, refusal, now):
                    await uow.commit()
            raise
    if _on_seats(cmd) and last is not None:
        raise last  # seats: the seat map's own answer says which seats (domain/seatmaps.py)
    wanted = candidates[0][0]
    taken = last or SlotTaken("no resource of the unit is free for that range", [wanted.id], cmd.starts_at,
                              cmd.ends_at)
    counter = isinstance(cmd, CounterCommand)
    if counter:
        taken = await _held_in_the_way(deps, unit, candidates[0], cmd, now) or taken
    taken.alternatives = await alternatives(deps, unit, wanted, cmd.starts_at, cmd.ends_at, cmd.quantity, now,
                                            counter)
    raise taken


def checked_request(cmd: R, holding: bool) -> R:
    """The request with its range in UTC, refused when its range, quantity or resources are malformed, or (when
    `holding`: a hold, not a sale or the counter) it names no customer and staff do not place it."""
    starts_at, ends_at = utc_range(cmd.starts_at, cmd.ends_at)
    cmd = replace(cmd, starts_at=starts_at, ends_at=ends_at)
    if cmd.quantity < 1:
        raise InvalidInput("quantity", "quantity must be at least 1", code=ErrorCode.INVALID_QUANTITY)
    if cmd.resource_ids is not None and not cmd.resource_ids:
        raise InvalidInput("resourceIds", "give at least one resource, or none for any", code=ErrorCode.NO_RESOURCE)
    if len(set(cmd.resource_ids or ())) != len(cmd.resource_ids or ()):
        raise InvalidInput("resourceIds", "a resource is listed twice", code=ErrorCode.DUPLICATE_RESOURCE)
    if holding and cmd.customer is None and cmd.placed_by is not Releaser.ADMIN:
        raise InvalidInput("customer", "a hold needs the customer's CPF or phone", code=ErrorCode.CUSTOMER_REQUIRED)
    return cmd


async def _service(uow: UnitOfWork, unit: Unit, cmd: BookingRequest) -> Service | None:
    """The service a grid booking names, refused when it is not sold for that length or on those resources."""
    if cmd.service_id is None or _on_seats(cmd):
        return None
    service = await uow.catalog.offered(cmd.service_id)
    if service is None or service.unit_id != unit.id:
        raise NotFound("service", cmd.service_id, field="serviceId")
    service.check_booking(cmd.resource_ids, cmd.starts_at, cmd.ends_at, unit.params.slot_minutes)
    return service


async def _candidates(deps: Deps, uow: UnitOfWork, unit: Unit, cmd: BookingRequest, now: datetime,
                      service: Service | None = None) -> list[list[Resource]]:
    """The resources to try, in order: the ones asked for, or up to 3 free ones ("tanto faz") of those the
    service runs on."""
    if cmd.resource_ids is None:
        resources = [r for r in await uow.units.resources(unit.id) if service is None or service.runs_on(r.id)]
        if not resources:
            raise InvalidInput("resourceIds", "no resource of the unit sells that service",
                               code=ErrorCode.RESOURCE_NOT_OFFERED)
        return await _any_free(uow, unit, resources, cmd, now)
    ids = list(cmd.resource_ids)
    found = await (uow.units.seat_resources(unit.id, ids) if _on_seats(cmd)
                   else uow.units.resources_by_id(unit.id, ids))
    missing = [r for r in cmd.resource_ids if r not in found]
    if missing:
        raise NotFound("resource", missing[0], field="resourceIds")
    picked = [found[r] for r in cmd.resource_ids]
    for r in picked:
        if not _on_seats(cmd):  # seats are sold per event, not per grid slot
            check_on_grid(unit, r, cmd.starts_at, cmd.ends_at)
        check_quantity(r, cmd.quantity)
    return [picked]


async def _any_free(
    uow: UnitOfWork, unit: Unit, resources: list[Resource], cmd: BookingRequest, now: datetime
) -> list[list[Resource]]:
    """Up to 3 resources free for the whole range ("tanto faz"); the first on the grid if none is."""
    fitting = [r for r in resources if (r.kind is ResourceKind.EXCLUSIVE and cmd.quantity == 1)
               or (r.kind is ResourceKind.POOLED and r.capacity >= cmd.quantity)]
    if not fitting:
        raise InvalidInput("quantity", f"no resource of the unit holds {cmd.quantity}", code=ErrorCode.INVALID_QUANTITY)
    occ = await uow.bookings.occupancy(unit.id, None, cmd.starts_at, cmd.ends_at)  # in the caller's transaction
    step = timedelta(minutes=unit.params.slot_minutes)
    n = max(1, round((cmd.ends_at - cmd.starts_at) / step))
    view = window_free(unit) if isinstance(cmd, CounterCommand) else unit
    free = bookable_slots(view, fitting, occ, cmd.starts_at, cmd.ends_at, now, slots=n, quantity=cmd.quantity)
    by_id = {r.id: r for r in fitting}
    chosen = [by_id[o.resource_id] for o in free if o.starts_at == cmd.starts_at and o.ends_at == cmd.ends_at]
    if chosen:
        return [[r] for r in chosen[:3]]
    error: InvalidInput | None = None
    for r in fitting:  # nothing free: is the range even on the grid? (else: a typed input error)
        try:
            check_on_grid(unit, r, cmd.starts_at, cmd.ends_at)
            return [[r]]
        except InvalidInput as e:
            error = error or e
    assert error is not None
    raise error


async def _held_in_the_way(
    deps: Deps, unit: Unit, picked: list[Resource], cmd: BookingRequest, now: datetime
) -> SlotHeld | None:
    """Why a counter booking was refused, when only customers' live holds are in its way: staff must drop the
    hold first (SPEC §11, seed 001 "Derrubar hold"). None when something settled (a booking, a block) is there."""
    async with deps.uow() as uow:
        occ = await uow.bookings.occupancy(unit.id, [r.id for r in picked], cmd.starts_at, cmd.ends_at)
    live = [o for o in occ if o.is_active(now)]
    if not live or any(o.status not in LOCKED for o in live):
        return None
    first = min(live, key=lambda o: (o.starts_at, str(o.booking_id)))
    assert first.booking_id is not None and first.status is not None
    return SlotHeld(first.booking_id, first.status.value, [r.id for r in picked], cmd.starts_at, cmd.ends_at)


def check_quantity(r: Resource, quantity: int) -> None:
    if r.kind is ResourceKind.EXCLUSIVE and quantity != 1:
        raise InvalidInput("quantity", f"{r.name} is exclusive: quantity must be 1", code=ErrorCode.INVALID_QUANTITY)
    if quantity > r.capacity:
        raise InvalidInput("quantity", f"{r.name} holds at most {r.capacity}", code=ErrorCode.INVALID_QUANTITY)


async def _birth(deps: Deps, unit: Unit, cmd: BookingRequest, now: datetime, service: Service | None = None
                 ) -> _Birth:
    """How the booking of this request is born."""
    if isinstance(cmd, CounterCommand):
        if cmd.ends_at <= now:
            raise InvalidInput("endsAt", "a counter booking cannot end in the past", code=ErrorCode.IN_THE_PAST)
        if cmd.starts_at > now + unit.params.max_advance:
            raise InvalidInput("startsAt", f"bookings can be made at most {unit.params.max_advance.days} "
                               "days ahead", code=ErrorCode.TOO_FAR)
        return _Birth(confirmed=True)
    if isinstance(cmd, SaleCommand):  # a sale: born confirmed, with the hold type it was sold as (if any)
        if cmd.hold_type is None:
            return _Birth(confirmed=True)
        sold_as = unit.hold_types.resolve(cmd.hold_type)
        sold_as.check_placement(cmd.placed_by)
        sold_as.check_target(SeatState.SOLD)
        return _Birth(confirmed=True, hold_type=sold_as.name)
    ht = hold_type_for(unit, cmd)
    if not _on_seats(cmd):
        check_booking_window(unit.params, now, cmd.starts_at)
    if ht.skip_locked_state:  # box office: straight to sold
        return _Birth(confirmed=True, hold_type=ht.name)
    due = ht.payment_required and await _payment_due(deps, unit, cmd, service)
    return _Birth(confirmed=False, deadline=hold_deadline_for(unit, ht, cmd, now, due), hold_type=ht.name,
                  reminds=bool(ht.ttl_seconds) or ht.uses_unit_ttl)


async def _book_on(
    deps: Deps, unit: Unit, picked: list[Resource], cmd: BookingRequest, now: datetime,
    before_insert: BeforeInsert | None = None,
    capacity: dict[tuple[OpeningWindow, ...], int] | None = None,
    replacing: UUID | None = None,
    service: Service | None = None,
) -> BookingResult:
    """One transaction on the picked resources. `capacity` (the unit's resource capacity per weekly hours) is
    given for self-service holds (RN-HLD-05); `service`: the one the request names, as `_service` found it."""
    birth = await _birth(deps, unit, cmd, now, service)
    allocations = [Allocation(r.id, cmd.starts_at, cmd.ends_at, cmd.quantity) for r in picked]
    async with deps.uow() as uow:
        request = _normalised(cmd) if replacing is None else {"command": _normalised(cmd), "replacing": replacing}
        stored = await replay(uow, unit.id, cmd.idempotency_key, cmd.OPERATION, request, now)
        if stored is not None:
            return BookingResult(stored, replayed=True)
        if cmd.service_id is not None and _on_seats(cmd):  # NotFound naming serviceId, not the FK's error
            await uow.catalog.table(unit.id, cmd.service_id)
        if isinstance(cmd, SeatHoldCommand) and cmd.best is not None:  # chosen now, under locks of the event
            allocations = [Allocation(s, cmd.starts_at, cmd.ends_at) for s in await _best(uow, unit, cmd, now)]
        elif before_insert is None and _contended(unit.id):
            await _check_not_taken(uow, unit, picked, cmd, now)
        customer: Customer | None = None  # (after the choice: a refusal for want of seats writes nothing)
        if capacity is not None and cmd.customer is not None:  # a self-service hold: RN-HLD-05
            customer = await fraud.admit(uow, unit, cmd.customer, cmd.starts_at, now, capacity, replacing)
        elif cmd.customer is not None:
            customer = await uow.customers.identify(unit.tenant_id, cmd.customer, now)

        async def make() -> Booking:
            details = {"customer_id": customer.id if customer else None, "service_id": cmd.service_id,
                       "hold_type": birth.hold_type, "channel": cmd.channel}
            if birth.confirmed:
                booking = Booking.confirmed(deps.new_id(), unit.id, allocations, now, cmd.actor, **details)
            else:
                assert birth.deadline is not None
                booking = Booking.held(deps.new_id(), unit.id, allocations, now, cmd.actor, birth.deadline,
                                       remind_at=reminder_at(unit.params, now, birth.deadline)
                                       if birth.reminds else None, **details)
            if before_insert is not None:
                await before_insert(uow, booking)
            return booking

        pooled = {r.id: slot_starts(unit, r, cmd.starts_at, cmd.ends_at)
                  for r in picked if r.kind is ResourceKind.POOLED}
        # Nothing to do under the lock first (no swap to free): made now, it is placed in one round trip.
        booking = await place(uow, unit.id, allocations, now, make if before_insert is not None else await make(),
                              pooled)
        if cmd.service_id is not None:  # the hold keeps the price version in force as it is made
            await uow.catalog.pin(unit.id, booking.id, cmd.service_id)
        await remember(uow, unit.id, cmd.idempotency_key, booking)
        await uow.commit()
    return BookingResult(booking)


CONTENDED_SECONDS = 2.0
_refused_at: dict[UUID, float] = {}


def _contended(unit_id: UUID, refused: bool = False) -> bool:
    """Whether this process refused a booking of the unit (SlotTaken) in the last CONTENDED_SECONDS; `refused`
    records one now. Its bookings are then checked against what is visibly taken before anything else is done."""
    t = time.monotonic()
    if refused:
        if len(_refused_at) > 10_000:
            _refused_at.clear()
        _refused_at[unit_id] = t
    return t - _refused_at.get(unit_id, -CONTENDED_SECONDS) < CONTENDED_SECONDS


async def _check_not_taken(uow: UnitOfWork, unit: Unit, picked: list[Resource], cmd: BookingRequest,
                           now: datetime) -> None:
    """SlotTaken, before the customer's checks and the resources' lock, when a live booking or block already
    occupies one of the picked exclusive resources over the range (issue 22: the losers of a hot slot cost one
    read). When the slot is free but another transaction is placing a booking on it — it holds the resource's lock
    or its claim: a single resource's first look takes the claim when it is free, so the slot's winner is known from
    its look on — the look is taken again after a pause, holding no lock, until the winner has committed (SlotTaken:
    the slot is visibly taken now) or given up (go on). Without it those losers ran RN-HLD-05's statements, the
    customer's upsert among them, only to lose at the lock. A claim is never waited for, and looks stop after
    LOOK_PAUSES: sound either way, what proceeds is still decided by the lock and the exclusion constraint."""
    exclusive = [r.id for r in picked if r.kind is ResourceKind.EXCLUSIVE]
    if not exclusive:
        return
    for pause in (*LOOK_PAUSES, None):
        taken, busy = await uow.bookings.taken_or_busy(unit.id, exclusive, cmd.starts_at, cmd.ends_at, now,
                                                       claim=len(exclusive) == 1)
        if taken:
            raise SlotTaken("that slot is taken", [r.id for r in picked], cmd.starts_at, cmd.ends_at)
        if not busy or pause is None:
            return
        await asyncio.sleep(pause)


LOOK_PAUSES = (0.002, 0.004, 0.008, 0.016, 0.032, 0.064)
"""Seconds `_check_not_taken` waits before each new look at a free slot another transaction is placing a booking on
(its winner's whole transaction: the customer's checks, the insert, the commit)."""


def hold_type_for(unit: Unit, cmd: BookingRequest) -> HoldType:
    """The hold type a hold names (CART when omitted), checked for who places it and where it sends the slot."""
    ht = unit.hold_types.resolve(cmd.hold_type)
    ht.check_placement(cmd.placed_by)
    ht.check_target(ht.target_state)
    return ht


def hold_deadline_for(unit: Unit, ht: HoldType, cmd: BookingRequest, now: datetime, payment_due: bool) -> datetime:
    """A hold's deadline by its type (SPEC §6, §10): the type's own TTL, else the unit's when the system may release
    it, else the end of what it holds (only a person releases it). Grid holds end by start − min_advance (RN-HLD-02);
    seat holds by `until` (the event's start)."""
    ttl = timedelta(seconds=ht.ttl_seconds) if ht.ttl_seconds else None
    if ttl is None and not ht.uses_unit_ttl:
        return cmd.ends_at
    until = cmd.until if isinstance(cmd, SeatHoldCommand | SaleCommand) else None
    if until is None:
        return hold_deadline(unit.params, now, cmd.starts_at, payment_due=payment_due, ttl=ttl)
    ttl = ttl or (unit.params.hold_ttl_with_payment if payment_due else unit.params.hold_ttl)
    deadline = min(now + ttl, until)
    if deadline - now < unit.params.hold_min:
        raise InvalidInput("eventId", "the event starts too soon to hold seats; sell them instead",
                           code=ErrorCode.HOLD_TOO_SHORT)
    return deadline


async def _payment_due(deps: Deps, unit: Unit, cmd: BookingRequest, service: Service | None = None) -> bool:
    """Whether accepting this hold will ask for a Pix (its TTL is then the longer one, SPEC §6): at the price of
    `service` as `_service` found it (its current version) when given, else as read now."""
    if cmd.service_id is None:
        return False
    if service is not None and service.id == cmd.service_id:
        quoted = service.table.quote(cmd.starts_at, cmd.ends_at, unit.tz, unit.params.slot_minutes, cmd.quantity)
        return quoted.due_now_cents > 0
    async with deps.uow() as uow:
        priced = await price_of(uow, unit, cmd.service_id, cmd.starts_at, cmd.ends_at, cmd.quantity)
    return priced.due_now_cents > 0


def _normalised(cmd: BookingRequest) -> BookingRequest:
    """What a request's fingerprint is made of: the whole command, its resources in a stable order."""
    return replace(cmd, resource_ids=tuple(sorted(cmd.resource_ids, key=str))) if cmd.resource_ids else cmd


async def _best(uow: UnitOfWork, unit: Unit, cmd: SeatHoldCommand, now: datetime) -> list[UUID]:
    """The best free seats for `cmd.best`, chosen under locks held until the transaction ends (SeatsUnavailable when
    there are not that many free: nothing was changed)."""
    best = cmd.best
    assert best is not None
    seats = await uow.seatmaps.choose_best(unit.id, best, cmd.starts_at, cmd.ends_at, now, best.event_id)
    if len(seats) < best.count:
        where = " ".join(x for x in (f"in section {best.section}" if best.section else "",
                                    f"row {best.row}" if best.row else "") if x)
        together = " side by side in one row" if best.together and best.count > 1 else ""
        raise SeatsUnavailable(f"cannot lock: there are not {best.count} free seats{together}"
                               f"{' ' + where if where else ''}; nothing was changed", [])
    return seats
