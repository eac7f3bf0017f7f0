"""Use cases: one async function each; only these open a unit of work and commit."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import MISSING, Field, dataclass, field, fields, is_dataclass, replace
from datetime import UTC, date, datetime, timedelta
from datetime import time as time_of_day
from enum import Enum
from typing import Any
from uuid import UUID, uuid4

from domain import fraud, refunds
from domain.availability import (
    bookable_slots,
    check_on_grid,
    nearest_alternatives,
    slot_starts,
)
from domain.bookings import (
    LOCKED,
    Allocation,
    Booking,
    BookingStatus,
    HistoryEntry,
    booking_from_snapshot,
    booking_snapshot,
)
from domain.customers import CustomerIdentity
from domain.errors import (
    HoldCeilingReached,
    InvalidInput,
    InvalidTransition,
    NotFound,
    SlotHeld,
    SlotOption,
    SlotTaken,
)
from domain.hold_types import HoldType, Releaser, SeatState
from domain.holds import check_booking_window, hold_deadline, reminder_at
from domain.ports import Clock, PaymentProvider, UnitOfWork
from domain.staff_queue import QueueItemType
from domain.units import OpeningWindow, Resource, ResourceKind, Unit

UowFactory = Callable[[], UnitOfWork]
IDEMPOTENCY_RETENTION = timedelta(hours=24)


@dataclass(frozen=True)
class Deps:
    """What every use case is handed: a unit-of-work factory, a clock and an id source."""

    uow: UowFactory
    clock: Clock
    new_id: Callable[[], UUID] = uuid4
    provider: PaymentProvider | None = None
    """The Pix provider charges go to (None: no payments can be taken)."""
    on_release: Callable[[Deps, Booking], Awaitable[None]] | None = None
    """Called after a transaction that freed a booking's resources (the waitlists promote the next in line)."""


async def released(deps: Deps, booking: Booking) -> None:
    """Tell whoever waits for freed resources (best effort: a sweep catches anything missed)."""
    if deps.on_release is not None and not booking.occupies:
        await deps.on_release(deps, booking)


@dataclass(frozen=True)
class HoldCommand:
    """Hold a range on one or more resources (None: any free resource of the unit)."""

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
    counter: bool = field(default=False)
    replaces: UUID | None = None
    """The open hold a swap cancels in the same transaction (RN-HLD-05 does not count it)."""
    placed_by: Releaser | None = None
    """Who places the hold, for its hold type's rules (None: the platform itself)."""
    sell: bool = False
    """Place the thing straight in SOLD (a sale at the box office): the hold type, if any, must be valid there."""
    until: datetime | None = None
    """Seat maps: the hold is for an event, not for grid slots — no grid or advance checks, and it may be held
    until this instant (the event's start) at the latest."""


@dataclass(frozen=True)
class BookingResult:
    """A booking as a mutation returns it; `replayed` when an idempotency key answered."""

    booking: Booking
    replayed: bool = False


def fingerprint(operation: str, request: object) -> str:
    """A stable hash of a request, to tell a retry from a different request under the same idempotency key.

    `request` is the use case's whole command (a frozen dataclass, normalised by the caller where two spellings mean
    the same request, e.g. resources in another order), so no field of it can be left out: every field counts,
    nested dataclasses (the customer) included, except the idempotency key itself. A field at its default value is
    left out, so that adding a field (with a default) to a command keeps the fingerprints of the requests that do
    not use it: a retry across a deploy still replays. Values are encoded by `canonical`.
    """
    raw = json.dumps({"op": operation, "request": canonical(request)}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(raw.encode()).hexdigest()


FINGERPRINT_LEAVES_OUT = frozenset({"idempotency_key"})
"""Command fields that are not part of the request they name."""


def canonical(value: object) -> object:
    """A JSON value that stands for `value` the same way in every process: dataclasses as objects of their fields
    (defaults and FINGERPRINT_LEAVES_OUT left out), UUIDs as text, aware datetimes in UTC (ISO 8601), enums by
    value, sets sorted. Anything else is a TypeError: a command field must get a stable encoding here, never a
    repr that could differ between two processes (a retry would then look like another request)."""
    if isinstance(value, Enum):
        return canonical(value.value)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, datetime):
        return (value.astimezone(UTC) if value.utcoffset() is not None else value).isoformat()
    if isinstance(value, date | time_of_day):
        return value.isoformat()
    if isinstance(value, timedelta):
        return value.total_seconds()
    if is_dataclass(value) and not isinstance(value, type):
        out: dict[str, object] = {}
        for f in fields(value):
            item = getattr(value, f.name)
            if f.name in FINGERPRINT_LEAVES_OUT or _is_default(f, item):
                continue
            out[f.name] = canonical(item)
        return out
    if isinstance(value, Mapping):
        return {str(k): canonical(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [canonical(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((canonical(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
    raise TypeError(f"no stable encoding for a {type(value).__name__} in an idempotency fingerprint")


def _is_default(f: Field[Any], value: object) -> bool:
    if f.default is not MISSING:
        return bool(value == f.default)
    if f.default_factory is not MISSING:
        return bool(value == f.default_factory())
    return False


async def expire_booking(uow: UnitOfWork, booking: Booking, now: datetime, actor: str = "system") -> None:
    """Expire a booking and close what waited on it (a "paguei" item: the claim ran out)."""
    was_verifying = booking.status is BookingStatus.VERIFYING
    booking.expire(now, actor)
    await uow.bookings.save(booking)
    if was_verifying:
        await uow.queue.resolve_for_booking(booking.id, QueueItemType.CUSTOMER_SAYS_PAID, actor, now,
                                            "expirou sem o PIX aparecer")


MAX_BOOKING_LENGTH = timedelta(days=366)
"""The longest range one booking may cover (a season at the counter); beyond it the grid arithmetic overflows."""


def _check_key(key: str | None) -> None:
    if key is not None and not (1 <= len(key) <= 255):
        raise InvalidInput("idempotencyKey", "idempotency key must be 1 to 255 characters",
                           code="too_long" if len(key) > 255 else "invalid_idempotency_key")


def require_aware(value: datetime, field_name: str) -> None:
    """Refuse a naive datetime, naming the field."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise InvalidInput(field_name, f"{field_name} must carry a UTC offset (ISO 8601, e.g. "
                           "2026-12-01T19:00:00-03:00)", code="naive_datetime")
    try:
        value.astimezone(UTC)
    except OverflowError:  # e.g. 0001-01-01T00:00:00+14:00: before year 1 in UTC
        raise InvalidInput(field_name, f"{field_name} is out of range", code="datetime_out_of_range") from None



BeforeInsert = Callable[[UnitOfWork, Booking], Awaitable[None]]


async def hold(deps: Deps, cmd: HoldCommand, before_insert: BeforeInsert | None = None) -> BookingResult:
    """Hold a slot for a customer (or book it at the counter): all or nothing, never twice (SPEC §4, §6).

    `before_insert` runs in the same transaction just before the new booking is written (a swap frees
    the old hold there), so that both happen or neither does.
    """
    now = deps.clock.now()
    require_aware(cmd.starts_at, "startsAt")
    require_aware(cmd.ends_at, "endsAt")
    _check_key(cmd.idempotency_key)
    # Instants in UTC from here on (comparisons across zones misbehave in repeated hours).
    cmd = replace(cmd, starts_at=cmd.starts_at.astimezone(UTC), ends_at=cmd.ends_at.astimezone(UTC))
    if cmd.ends_at <= cmd.starts_at:
        raise InvalidInput("endsAt", "endsAt must be after startsAt", code="invalid_range")
    if cmd.ends_at - cmd.starts_at > MAX_BOOKING_LENGTH:  # longer ranges overflowed the slot arithmetic
        raise InvalidInput("endsAt", f"a booking may last at most {MAX_BOOKING_LENGTH.days} days",
                           code="range_too_long")
    if cmd.quantity < 1:
        raise InvalidInput("quantity", "quantity must be at least 1", code="invalid_quantity")
    if cmd.resource_ids is not None and not cmd.resource_ids:
        raise InvalidInput("resourceIds", "give at least one resource, or none for any", code="no_resource")
    if len(set(cmd.resource_ids or ())) != len(cmd.resource_ids or ()):
        raise InvalidInput("resourceIds", "a resource is listed twice", code="duplicate_resource")
    if not cmd.counter and not cmd.sell and cmd.customer is None and cmd.placed_by is not Releaser.ADMIN:
        raise InvalidInput("customer", "a hold needs the customer's CPF or phone", code="customer_required")

    async with deps.uow() as uow:
        unit = await uow.units.get(cmd.unit_id)
        if not cmd.counter and not cmd.sell:
            hold_type_for(unit, cmd)  # an unknown or misused hold type is refused before anything else
        if cmd.resource_ids is not None:
            ids = list(cmd.resource_ids)
            found = await (uow.units.seat_resources(unit.id, ids) if cmd.until is not None
                           else uow.units.resources_by_id(unit.id, ids))
            missing = [r for r in cmd.resource_ids if r not in found]
            if missing:
                raise NotFound("resource", missing[0], field="resourceIds")
            candidates = [[found[r] for r in cmd.resource_ids]]
            for r in candidates[0]:
                if cmd.until is None:  # seats are sold per event, not per grid slot
                    check_on_grid(unit, r, cmd.starts_at, cmd.ends_at)
                _check_quantity(r, cmd.quantity)
        else:
            candidates = await _any_free(deps, unit, await uow.units.resources(unit.id), cmd, now)
        # A self-service hold is checked against RN-HLD-05, whose ceiling needs the size of the unit's grid.
        capacity = (await uow.units.capacity_by_hours(unit.id) if cmd.customer is not None and not cmd.counter
                    and cmd.until is None and fraud.is_self_service(cmd.channel) else None)
    last: SlotTaken | None = None
    for picked in candidates:
        try:
            return await _hold_on(deps, unit, picked, cmd, now, before_insert, capacity)
        except SlotTaken as taken:
            last = taken
        except HoldCeilingReached as refusal:
            async with deps.uow() as uow:  # the hold's transaction is gone; the alert is kept on its own
                if await fraud.raise_ceiling_alert(uow, unit, refusal, now):
                    await uow.commit()
            raise
    if cmd.until is not None and last is not None:
        raise last  # seats: the seat map's own answer says which seats (domain/seatmaps.py)
    wanted = candidates[0][0]
    taken = last or SlotTaken("no resource of the unit is free for that range", [wanted.id], cmd.starts_at,
                              cmd.ends_at)
    if cmd.counter:
        taken = await _held_in_the_way(deps, unit, candidates[0], cmd, now) or taken
    taken.alternatives = await _alternatives(deps, unit, wanted, cmd, now)
    raise taken


async def _any_free(
    deps: Deps, unit: Unit, resources: list[Resource], cmd: HoldCommand, now: datetime
) -> list[list[Resource]]:
    """Up to 3 resources free for the whole range ("tanto faz"); the first on the grid if none is."""
    fitting = [r for r in resources if (r.kind is ResourceKind.EXCLUSIVE and cmd.quantity == 1)
               or (r.kind is ResourceKind.POOLED and r.capacity >= cmd.quantity)]
    if not fitting:
        raise InvalidInput("quantity", f"no resource of the unit holds {cmd.quantity}", code="invalid_quantity")
    async with deps.uow() as uow:
        occ = await uow.bookings.occupancy(unit.id, None, cmd.starts_at, cmd.ends_at)
    step = timedelta(minutes=unit.params.slot_minutes)
    n = max(1, round((cmd.ends_at - cmd.starts_at) / step))
    view = _window_free(unit) if cmd.counter else unit
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
    deps: Deps, unit: Unit, picked: list[Resource], cmd: HoldCommand, now: datetime
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


def _window_free(unit: Unit) -> Unit:
    """The unit as seen from the counter: no advance limits."""
    return replace(unit, params=replace(unit.params, min_advance=timedelta(0), hold_min=timedelta(0)))


def _check_quantity(r: Resource, quantity: int) -> None:
    if r.kind is ResourceKind.EXCLUSIVE and quantity != 1:
        raise InvalidInput("quantity", f"{r.name} is exclusive: quantity must be 1", code="invalid_quantity")
    if quantity > r.capacity:
        raise InvalidInput("quantity", f"{r.name} holds at most {r.capacity}", code="invalid_quantity")


async def _hold_on(
    deps: Deps, unit: Unit, picked: list[Resource], cmd: HoldCommand, now: datetime,
    before_insert: BeforeInsert | None = None,
    capacity: dict[tuple[OpeningWindow, ...], int] | None = None,
) -> BookingResult:
    """`capacity` (the unit's resource capacity per weekly hours) is given for self-service holds (RN-HLD-05)."""
    service_known = False  # whether the service (if any) was looked up on the way (it must be the unit's)
    if cmd.counter:
        if cmd.ends_at <= now:
            raise InvalidInput("endsAt", "a counter booking cannot end in the past", code="in_the_past")
        if cmd.starts_at > now + unit.params.max_advance:
            raise InvalidInput("startsAt", f"bookings can be made at most {unit.params.max_advance.days} "
                               "days ahead", code="too_far")
        status, deadline, hold_type = BookingStatus.CONFIRMED, None, None
        expires = False
    elif cmd.sell:  # a sale: born confirmed, with the hold type it was sold as (if any)
        expires, deadline, status = False, None, BookingStatus.CONFIRMED
        hold_type = None
        if cmd.hold_type is not None:
            sold_as = unit.hold_types.resolve(cmd.hold_type)
            sold_as.check_placement(cmd.placed_by)
            sold_as.check_target(SeatState.SOLD)
            hold_type = sold_as.name
    else:
        expires = False
        ht = hold_type_for(unit, cmd)
        if cmd.until is None:
            check_booking_window(unit.params, now, cmd.starts_at)
        if ht.skip_locked_state:  # box office: straight to sold
            status, deadline, hold_type = BookingStatus.CONFIRMED, None, ht.name
        else:
            due = ht.payment_required and await _payment_due(deps, unit, cmd)
            service_known = ht.payment_required
            status, deadline, hold_type = BookingStatus.HELD, hold_deadline_for(unit, ht, cmd, now, due), ht.name
            expires = bool(ht.ttl_seconds) or ht.uses_unit_ttl
    allocations = [Allocation(r.id, cmd.starts_at, cmd.ends_at, cmd.quantity) for r in picked]
    key = cmd.idempotency_key
    async with deps.uow() as uow:
        if key:
            stored = await uow.idempotency.claim(
                unit.id, key, "counterBooking" if cmd.counter else "hold",
                fingerprint("hold", _hold_payload(cmd)), now + IDEMPOTENCY_RETENTION,
            )
            if stored is not None:
                return BookingResult(booking_from_snapshot(stored), replayed=True)
        if cmd.service_id is not None and not service_known:  # NotFound naming serviceId, not the foreign key's error
            await uow.payments.current_price(unit.id, cmd.service_id)
        customer = None
        if capacity is not None and cmd.customer is not None:  # a self-service hold: RN-HLD-05
            customer = await fraud.admit(uow, unit, cmd.customer, cmd.starts_at, now, capacity, cmd.replaces)
        elif cmd.customer is not None:
            customer = await uow.customers.identify(unit.tenant_id, cmd.customer)
        await uow.bookings.lock_resources(unit.id, [r.id for r in picked])
        for stale in await uow.bookings.lapsed_overlapping(unit.id, allocations, now):
            if stale.is_lapsed(now):  # a sweep may have expired it while we waited for its row lock
                await expire_booking(uow, stale, now)
        booking = Booking(
            id=deps.new_id(), unit_id=unit.id, status=status, allocations=allocations, created_at=now,
            customer_id=customer.id if customer else None, service_id=cmd.service_id,
            hold_type=hold_type, channel=cmd.channel, hold_expires_at=deadline,
            remind_at=reminder_at(unit.params, now, deadline) if deadline and expires else None,
        )
        booking.record_creation(now, cmd.actor)
        if before_insert is not None:
            await before_insert(uow, booking)
        pooled = {r.id: slot_starts(unit, r, cmd.starts_at, cmd.ends_at)
                  for r in picked if r.kind is ResourceKind.POOLED}
        await uow.bookings.add(booking, pooled)
        if key:
            await uow.idempotency.complete(unit.id, key, booking_snapshot(booking))
        await uow.commit()
    return BookingResult(booking)


def hold_type_for(unit: Unit, cmd: HoldCommand) -> HoldType:
    """The hold type a hold names (CART when omitted), checked for who places it and where it sends the slot."""
    ht = unit.hold_types.resolve(cmd.hold_type)
    ht.check_placement(cmd.placed_by)
    ht.check_target(ht.target_state)
    return ht


def hold_deadline_for(unit: Unit, ht: HoldType, cmd: HoldCommand, now: datetime, payment_due: bool) -> datetime:
    """A hold's deadline by its type (SPEC §6, §10): the type's own TTL, else the unit's when the system may release
    it, else the end of what it holds (only a person releases it). Grid holds end by start − min_advance (RN-HLD-02);
    seat holds by `cmd.until` (the event's start)."""
    ttl = timedelta(seconds=ht.ttl_seconds) if ht.ttl_seconds else None
    if ttl is None and not ht.uses_unit_ttl:
        return cmd.ends_at
    if cmd.until is None:
        return hold_deadline(unit.params, now, cmd.starts_at, payment_due=payment_due, ttl=ttl)
    ttl = ttl or (unit.params.hold_ttl_with_payment if payment_due else unit.params.hold_ttl)
    deadline = min(now + ttl, cmd.until)
    if deadline - now < unit.params.hold_min:
        raise InvalidInput("eventId", "the event starts too soon to hold seats; sell them instead",
                           code="hold_too_short")
    return deadline


async def _payment_due(deps: Deps, unit: Unit, cmd: HoldCommand) -> bool:
    """Whether accepting this hold will ask for a Pix (its TTL is then the longer one, SPEC §6)."""
    if cmd.service_id is None:
        return False
    async with deps.uow() as uow:
        price = await uow.payments.current_price(unit.id, cmd.service_id)
    return price.due(cmd.quantity)[0] > 0


def _hold_payload(cmd: HoldCommand) -> HoldCommand:
    """What a hold's fingerprint is made of: the whole command, its resources in a stable order."""
    return replace(cmd, resource_ids=tuple(sorted(cmd.resource_ids, key=str))) if cmd.resource_ids else cmd


ALTERNATIVE_RESOURCES = 50
ALTERNATIVES_TTL = 1.0
_alternatives_memo: dict[tuple[object, ...], tuple[float, list[SlotOption]]] = {}


async def _alternatives(
    deps: Deps, unit: Unit, wanted: Resource, cmd: HoldCommand, now: datetime
) -> list[SlotOption]:
    """The 3 nearest free options (RN-ATD-07) among the wanted resource and its nearest siblings.

    Siblings are the resources of the same group (else of the unit) of the same kind, at most
    ALTERNATIVE_RESOURCES of them nearest in display order, so a losing hold costs the same on a
    venue of 4 fields or of 10,000 seats. Suggestions are not promises (a hold on one is checked like
    any other), so the losers of one hot slot share one computation for ALTERNATIVES_TTL seconds.
    """
    key = (unit.id, wanted.id, cmd.starts_at, cmd.ends_at, cmd.quantity, cmd.counter)
    hit = _alternatives_memo.get(key)
    if hit and hit[0] > time.monotonic():
        return hit[1]
    async with deps.uow() as uow:
        resources = await uow.units.resources(unit.id)
        kin = [r for r in resources
               if r.kind is wanted.kind and (wanted.group_id is None or r.group_id == wanted.group_id)]
        at = next((i for i, r in enumerate(kin) if r.id == wanted.id), 0)
        lo = max(0, min(at - ALTERNATIVE_RESOURCES // 2, len(kin) - ALTERNATIVE_RESOURCES))
        kin = kin[lo : lo + ALTERNATIVE_RESOURCES]
        if wanted not in kin:
            kin.append(wanted)
        day = timedelta(days=1)
        occ = await uow.bookings.occupancy(unit.id, [r.id for r in kin], cmd.starts_at - day,
                                           cmd.ends_at + day)
    view = _window_free(unit) if cmd.counter else unit
    found = nearest_alternatives(view, kin, occ, wanted, cmd.starts_at, cmd.ends_at, now, cmd.quantity)
    if len(_alternatives_memo) > 10_000:
        _alternatives_memo.clear()
    _alternatives_memo[key] = (time.monotonic() + ALTERNATIVES_TTL, found)
    return found


@dataclass(frozen=True)
class ChangeCommand:
    """Change the state of one booking."""

    booking_id: UUID
    actor: str = "customer"
    channel: str = "api"
    reason: str | None = None
    idempotency_key: str | None = None
    releaser: Releaser | frozenset[Releaser] | None = None
    """Who releases, for the hold type's releaseApi (None: the platform itself)."""


async def check_release(uow: UnitOfWork, booking: Booking, releaser: Releaser | frozenset[Releaser] | None) -> None:
    """Refuse to free a booking held with a type whose releaseApi does not list this caller (SPEC §10)."""
    if booking.hold_type is not None and releaser is not None:
        unit = await uow.units.get(booking.unit_id)
        unit.hold_types.for_release(booking.hold_type).check_release(releaser)


async def _change(deps: Deps, cmd: ChangeCommand, operation: str,
                  apply: Callable[[Booking, datetime], None],
                  after: Callable[[UnitOfWork, Booking, datetime], Awaitable[object]] | None = None) -> BookingResult:
    now = deps.clock.now()
    _check_key(cmd.idempotency_key)
    async with deps.uow() as uow:
        booking = await uow.bookings.get(cmd.booking_id)
        key = cmd.idempotency_key
        if key:
            stored = await uow.idempotency.claim(
                booking.unit_id, key, operation,
                fingerprint(operation, cmd),
                now + IDEMPOTENCY_RETENTION,
            )
            if stored is not None:
                return BookingResult(booking_from_snapshot(stored), replayed=True)
        if booking.is_lapsed(now):
            # Guarantee 5: past its deadline the hold is over, whatever the jobs have done so far.
            await expire_booking(uow, booking, now)
            await uow.commit()
            raise InvalidTransition(BookingStatus.EXPIRED.value, "", operation)
        if operation in RELEASES:
            await check_release(uow, booking, cmd.releaser)
        apply(booking, now)
        await uow.bookings.save(booking)
        if after is not None:
            await after(uow, booking, now)
        if key:
            await uow.idempotency.complete(booking.unit_id, key, booking_snapshot(booking))
        await uow.commit()
    await released(deps, booking)
    return BookingResult(booking)


RELEASES = frozenset({"cancel", "drop"})


async def cancel(deps: Deps, cmd: ChangeCommand) -> BookingResult:
    """Cancel a booking; its slot is free at once. A paid booking's refund is recorded in the same transaction by
    the policy version the customer accepted, and asked of the provider after commit (domain/refunds.py)."""

    async def refund(uow: UnitOfWork, b: Booking, now: datetime) -> object:
        return await refunds.on_cancel(uow, b, now, deps.new_id)

    return await _change(deps, cmd, "cancel", lambda b, now: b.cancel(now, cmd.actor, cmd.reason), refund)


async def drop(deps: Deps, cmd: ChangeCommand) -> BookingResult:
    """Staff drop a hold ("Derrubar hold") with a reason."""
    if not cmd.reason or not cmd.reason.strip():
        raise InvalidInput("reason", "dropping a hold needs a reason", code="reason_required")
    return await _change(deps, cmd, "drop", lambda b, now: b.drop(now, cmd.actor, cmd.reason or ""))


async def check_in(deps: Deps, cmd: ChangeCommand) -> BookingResult:
    """The customer arrived."""
    return await _change(deps, cmd, "checkIn", lambda b, now: b.check_in(now, cmd.actor))


async def complete(deps: Deps, cmd: ChangeCommand) -> BookingResult:
    """The customer was attended."""
    return await _change(deps, cmd, "complete", lambda b, now: b.complete(now, cmd.actor))


async def expire_lapsed(deps: Deps, limit: int = 200) -> int:
    """Mark holds past their deadline as expired (the sweep; availability never waits for it)."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        due = await uow.bookings.lapsed(now, limit)
        for b in due:
            await expire_booking(uow, b, now)
        await uow.commit()
    for b in due:
        await released(deps, b)
    return len(due)


async def expire_hold(deps: Deps, booking_id: UUID) -> bool:
    """Expire one hold at its deadline; a no-op when it was settled or its deadline moved."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        try:
            booking = await uow.bookings.get(booking_id)
        except NotFound:
            return False
        if not booking.is_lapsed(now):
            return False
        await expire_booking(uow, booking, now)
        await uow.commit()
    await released(deps, booking)
    return True


HOLD_REMINDER_TEXT = "Pagamento perto de expirar"


async def remind_hold(deps: Deps, booking_id: UUID) -> bool:
    """Tell the customer once that the hold is about to expire (RN-HLD-08)."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        booking = await uow.bookings.claim_reminder(booking_id, now)
        if booking is None:
            return False
        await uow.events.notify(booking.unit_id, "notification", {
            "kind": "hold_reminder", "booking_id": str(booking.id),
            "customer_id": str(booking.customer_id) if booking.customer_id else None,
            "hold_expires_at": booking.hold_expires_at.isoformat() if booking.hold_expires_at else None,
            "text": HOLD_REMINDER_TEXT,
        })
        await uow.commit()
    return True


async def complete_past(deps: Deps, limit: int = 200) -> int:
    """Complete checked-in bookings whose time is over (SPEC §11)."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        due = await uow.bookings.past_checked_in(now, limit)
        for b in due:
            b.complete(now, "system")
            await uow.bookings.save(b)
        await uow.commit()
    return len(due)


HISTORY_MAX = 500


async def booking_history(deps: Deps, booking_id: UUID, first: int = 100) -> list[HistoryEntry]:
    """A booking's audit trail, oldest first: its first `first` (1..500) booking_events rows (SPEC §15)."""
    if not 1 <= first <= HISTORY_MAX:
        raise InvalidInput("first", f"first must be between 1 and {HISTORY_MAX}")
    async with deps.uow() as uow:
        return list(await uow.bookings.history(booking_id, first))
