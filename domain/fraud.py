"""Anti-fraud (SPEC §9, RN-HLD-05): open holds per customer, cooldown, the unit's hold ceiling, the blacklist.

The rules here are pure; `admit` and `check_ceiling` apply them inside the hold's own transaction. The counter
is exempt from all of them: only self-service channels (web, bot, WhatsApp, api, waitlist) are limited.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import TYPE_CHECKING, Any
from uuid import UUID, uuid4

from domain.availability import Occupancy, grid_rows, slot_ranges
from domain.bookings import LOCKED
from domain.customers import Customer, CustomerIdentity
from domain.errors import CooldownActive, CustomerBlacklisted, HoldCeilingReached, HoldLimitReached
from domain.events import OwnerAlerted
from domain.ports import UnitOfWork
from domain.staff_queue import TITLES, QueueItemType
from domain.units import OpeningWindow, Resource, Unit, UnitParameters

if TYPE_CHECKING:
    from domain.services import Deps

COUNTER = "counter"
OWNER_CEILING_ALERT = ("Alerta: teto de holds atingido na unidade {unit} ({day}): {open_holds} holds abertos para "
                       "{free} blocos livres. Pode ser um ataque.")


def is_self_service(channel: str) -> bool:
    """Every channel but the counter is self-service (web, bot, WhatsApp, api, waitlist offers)."""
    return channel != COUNTER


@dataclass(frozen=True)
class Standing:
    """What the tenant knows of a customer: every record sharing its CPF or phone, taken together."""

    blacklisted: bool = False
    open_holds: tuple[UUID, ...] = ()
    """The customer's open holds, oldest first (capacity offers not yet claimed are not theirs yet)."""
    expirations: tuple[datetime, ...] = ()
    """When their holds expired or they cancelled one themselves, in the counting window, ascending."""
    owners: Mapping[UUID, tuple[UUID, str | None]] = field(default_factory=dict)
    """Each hold's customer record and that record's phone (who may be told of it)."""
    cpfs: frozenset[str] = frozenset()
    phones: frozenset[str] = frozenset()
    """The CPFs and phones of the records with the asked CPF or phone (one may know a phone the request did not
    give: holds under that phone count too)."""


@dataclass(frozen=True)
class Locked:
    """What `lock_customer` locked, and the pressure on the day it was asked about."""

    cpfs: frozenset[str]
    phones: frozenset[str]
    open_holds: int = 0
    """The day's open holds (but the one a swap replaces)."""
    taken_at_most: int = 0
    """An upper bound of the slot units bookings and blocks take on the day (from its start)."""


@dataclass(frozen=True)
class DayWindow:
    """The day a hold falls on: [day_start, end), measured from `start` (now, on the current day)."""

    unit_id: UUID
    day_start: datetime
    start: datetime
    end: datetime
    step: timedelta
    now: datetime
    replacing: UUID | None = None
    day: date | None = None
    """The day itself, in the unit's time zone (None: not said)."""


def cooldown_until(expirations: Iterable[datetime], params: UnitParameters, now: datetime) -> datetime | None:
    """The end of the cooldown in force at `now`, if any.

    Each expiration that makes `cooldown_expirations` within `cooldown_window` starts `cooldown_duration` from
    itself (seed: expired Monday, Wednesday, Saturday 16h → cooldown until Monday 16h).
    """
    times = sorted(t for t in expirations if t <= now)
    n = params.cooldown_expirations
    ends = [times[k] + params.cooldown_duration for k in range(n - 1, len(times))
            if times[k] - times[k - n + 1] < params.cooldown_window]
    until = max(ends, default=None)
    return until if until is not None and until > now else None


def ceiling_reached(open_holds: int, free_slots: int, percent: int) -> bool:
    """Whether a day's open holds reached `percent` of its free slots (seed: 40 free → refused from 12 open)."""
    return open_holds > 0 and open_holds * 100 >= percent * free_slots


def check_standing(standing: Standing, params: UnitParameters, local_now: datetime, holding: bool = True,
                   asker: Customer | None = None) -> None:
    """Refuse a self-service hold (or, with `holding` False, joining a waitlist): blacklisted, then cooldown,
    then too many open holds (the swap is offered). `local_now` is now in the unit's time zone.

    `asker` is the customer when the customer asks (a session, WhatsApp): the open hold is named only if it is
    theirs (`Customer.owns`); a hold of a record linked to them only through typed identifiers still counts but
    is not named."""
    if standing.blacklisted:
        raise CustomerBlacklisted()
    until = cooldown_until(standing.expirations, params, local_now)
    if until is not None:
        raise CooldownActive(until, until.astimezone(local_now.tzinfo))
    if holding and len(standing.open_holds) >= params.open_holds_per_customer:
        shown = (standing.open_holds if asker is None
                 else [b for b in standing.open_holds if asker.owns(*standing.owners.get(b, (None, None)))])
        raise HoldLimitReached(shown[0] if shown else None, params.open_holds_per_customer)


def day_range(unit: Unit, day: date) -> tuple[datetime, datetime]:
    """[local midnight, next local midnight) of `day` in the unit's time zone, in UTC."""
    start = datetime.combine(day, time(), tzinfo=unit.tz).astimezone(UTC)
    return start, datetime.combine(day + timedelta(days=1), time(), tzinfo=unit.tz).astimezone(UTC)


_day_slots: dict[tuple[object, ...], list[datetime]] = {}


def grid_units(unit: Unit, capacity_by_hours: Mapping[tuple[OpeningWindow, ...], int], start: datetime,
               end: datetime) -> int:
    """How many slot units the unit's grid has in [start, end): a slot of an exclusive resource is one, a slot
    of a pooled one is its places. `capacity_by_hours` sums the resources' capacities per weekly hours (empty
    hours: the unit's). The slot starts of a day are remembered (every hold of that day asks again)."""
    total = 0
    for hours, capacity in capacity_by_hours.items():
        key = (unit.id, unit.timezone, unit.hours, unit.params.slot_minutes, hours, end)
        starts = _day_slots.get(key)
        if starts is None:
            probe = Resource(id=uuid4(), unit_id=unit.id, name="-", hours=hours)
            starts = [s for group in slot_ranges(unit, probe, end - timedelta(days=1), end) for s, _ in group]
            if len(_day_slots) > 10_000:
                _day_slots.clear()
            _day_slots[key] = starts
        total += capacity * (len(starts) - bisect_left(starts, start))
    return total


def free_units(unit: Unit, resources: Sequence[Resource], occupancies: Iterable[Occupancy], start: datetime,
               end: datetime, now: datetime) -> int:
    """The slot units of [start, end) not taken by bookings or blocks; a slot under an open hold counts as free
    (the holds are what the ceiling measures, so they are not taken off the slots they are compared with)."""
    settled = [o for o in occupancies if o.status not in LOCKED]
    rows = grid_rows(unit, resources, settled, start, end, now)
    return sum(sum(row.available) for window in rows.values() for row in window)


def day_window(unit: Unit, starts_at: datetime, now: datetime, replacing: UUID | None = None) -> DayWindow:
    """The day a hold starting at `starts_at` falls on (in the unit's time zone), measured from now on today."""
    day = starts_at.astimezone(unit.tz).date()
    day_start, day_end = day_range(unit, day)
    lo = min(max(day_start, now), day_end)
    return DayWindow(unit.id, day_start, lo, day_end, timedelta(minutes=unit.params.slot_minutes), now, replacing,
                     day)


def counting_since(unit: Unit, now: datetime) -> datetime:
    """From when a customer's expirations are read: far enough back for any cooldown still in force."""
    return now - unit.params.cooldown_window - unit.params.cooldown_duration


async def admit(uow: UnitOfWork, unit: Unit, identity: CustomerIdentity, starts_at: datetime, now: datetime,
                capacity_by_hours: Mapping[tuple[OpeningWindow, ...], int], replacing: UUID | None = None) -> Customer:
    """Identify the customer of a self-service hold and refuse the hold if RN-HLD-05 says so.

    Takes a per-customer lock (each CPF and phone) held until the transaction ends, *before* counting, so that
    two simultaneous holds of one customer are counted one after the other: exactly one gets through. The same
    round trip measures the pressure on the hold's day (see `check_ceiling`). `replacing` is the hold a swap
    cancels in the same transaction: it counts neither for the customer nor for the ceiling (a swap never adds
    an open hold).
    """
    window = day_window(unit, starts_at, now, replacing)
    locked = await uow.antifraud.lock_customer(unit.tenant_id, identity, day=window)
    customer = await uow.customers.identify(unit.tenant_id, identity, now)
    since = counting_since(unit, now)
    standing = await uow.antifraud.standing(unit.tenant_id, identity, now, since, replacing)
    if not (standing.cpfs <= locked.cpfs and standing.phones <= locked.phones):
        # A record linked another CPF or phone to this customer while we waited for the lock (rare): take its
        # lock too and count again now that nobody else can be adding a hold under it.
        await uow.antifraud.lock_customer(unit.tenant_id, identity, also=(standing.cpfs, standing.phones))
        standing = await uow.antifraud.standing(unit.tenant_id, identity, now, since, replacing)
    check_standing(standing, unit.params, now.astimezone(unit.tz),
                   asker=customer if identity.proof is not None else None)
    free_at_least = grid_units(unit, capacity_by_hours, window.start, window.end) - locked.taken_at_most
    assert window.day is not None
    await check_ceiling(uow, unit, window.day, window.start, window.end, now, locked.open_holds, free_at_least)
    return customer


async def check_standing_of(uow: UnitOfWork, unit: Unit, identity: CustomerIdentity, now: datetime) -> None:
    """Refuse a blacklisted customer or one in cooldown (joining a waitlist: open holds do not matter there)."""
    standing = await uow.antifraud.standing(unit.tenant_id, identity, now, counting_since(unit, now), None)
    check_standing(standing, unit.params, now.astimezone(unit.tz), holding=False)


async def check_ceiling(uow: UnitOfWork, unit: Unit, day: date, start: datetime, end: datetime, now: datetime,
                        open_holds: int, free_at_least: int) -> None:
    """Refuse a self-service hold when the open holds of its day reached the unit's ceiling (RN-HLD-05).

    Cheap first: `free_at_least` (the grid's size from opening hours alone, less an upper bound of what bookings
    and blocks take, both from one aggregate) settles almost every hold. Only near the ceiling is the grid of
    [start, end) computed exactly, and a refusal is always decided on the exact count. It is read on the
    transaction's own connection (waiting for the pool while holding a connection could starve it).
    """
    percent = unit.params.hold_ceiling_percent
    if not ceiling_reached(open_holds, free_at_least, percent):
        return
    resources = await uow.antifraud.resources(unit.id)
    occupancies = await uow.bookings.occupancy(unit.id, None, start, end)
    free = free_units(unit, resources, occupancies, start, end, now)
    if ceiling_reached(open_holds, free, percent):
        raise HoldCeilingReached(day, open_holds, free)


async def raise_ceiling_alert(uow: UnitOfWork, unit: Unit, refusal: HoldCeilingReached, now: datetime) -> bool:
    """Open the "Teto de holds atingido" alert, at most once per unit and day; tell the owner's WhatsApp too.

    Returns whether an alert was opened (False: today's was already raised).
    """
    today = now.astimezone(unit.tz).date()
    item = await uow.queue.open_daily(unit.id, QueueItemType.HOLD_CEILING, today, now, {
        "reason": TITLES[QueueItemType.HOLD_CEILING], "day": refusal.day.isoformat(),
        "open_holds": refusal.open_holds, "free_slots": refusal.free_slots,
        "percent": unit.params.hold_ceiling_percent,
    })
    if item is None:
        return False
    if unit.params.owner_alert_whatsapp:
        await uow.events.notify(unit.id, OwnerAlerted(
            channel="whatsapp", to=unit.params.owner_alert_whatsapp,
            text=OWNER_CEILING_ALERT.format(unit=unit.name, day=refusal.day.strftime("%d/%m"),
                                            open_holds=refusal.open_holds, free=refusal.free_slots)))
    return True


async def set_blacklisted(deps: Deps, unit_id: UUID, identity: CustomerIdentity, blacklisted: bool,
                          reason: str | None = None, actor: str = "staff") -> list[dict[str, Any]]:
    """Put a customer on the tenant's blacklist, or take them off it: every record with the CPF or phone.

    Returns the records as they are now. The reason, who and when are kept on the records.
    """
    now = deps.clock.now()
    async with deps.uow() as uow:
        unit = await uow.units.get(unit_id)
        records = await uow.antifraud.set_blacklisted(unit.tenant_id, identity, blacklisted,
                                                      reason.strip() if reason and reason.strip() else None,
                                                      actor, now)
        await uow.commit()
    return records
