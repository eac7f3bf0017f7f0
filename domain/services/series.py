"""Recurring bookings (issue 23): ask for a series, accept it once, change it (domain/series.py has the rules).

A series is held in ONE transaction: the resources it may use are locked (ascending order, as every hold does),
then each occurrence is placed through `placing.place` in a savepoint, so a taken occurrence leaves the rest of the
transaction usable. ALL_OR_NOTHING rolls everything back on any conflict; FREE_ONLY keeps the free ones. Closed
days and grid blocks are skipped and reported, never conflicts. The alternatives of each conflict are computed
after the transaction (they read on their own unit of work).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from uuid import UUID, uuid5

from domain import fraud, refunds
from domain.availability import check_on_grid, slot_starts
from domain.availability.occupancy import Occupancy
from domain.bookings import Allocation, Booking, BookingStatus
from domain.customers import Customer
from domain.errors import (
    ErrorCode,
    InvalidInput,
    InvalidTransition,
    NotFound,
    OccurrenceConflict,
    SeriesConflicts,
    SlotTaken,
)
from domain.holds import reminder_at
from domain.payments import ChargeStatus
from domain.ports import UnitOfWork
from domain.pricing import Service
from domain.series import (
    Occurrence,
    Period,
    Series,
    SeriesMode,
    SeriesOutcome,
    SeriesStatus,
    Skipped,
    SkipReason,
    month_periods,
    occurrences,
    period_deadline,
    period_due,
)
from domain.services.alternatives import alternatives
from domain.services.changes import check_release
from domain.services.checks import check_key
from domain.services.deps import Deps, released
from domain.services.holds import (
    BookingRequest,
    CounterCommand,
    HoldCommand,
    _birth,
    _service,
    check_quantity,
    checked_request,
    hold_type_for,
)
from domain.services.idempotency import claim
from domain.services.placing import expire_booking, place
from domain.units import Resource, ResourceKind, Unit

CHANGEABLE = frozenset({BookingStatus.HELD, BookingStatus.PENDING_PAYMENT, BookingStatus.CONFIRMED})
"""The states of an occurrence a series change (cancel from a date, retime) acts on."""


@dataclass(frozen=True, kw_only=True)
class SeriesCommand(BookingRequest):
    """Ask for a series whose first occurrence is [starts_at, ends_at): every `every_weeks` weeks, `occurrences`
    of them or until the local date `until`; on `resource_ids` (all of them each time) or, with None, on any
    free resource (of `group_id` when given), the same one each time where possible."""

    OPERATION = "holdSeries"
    every_weeks: int = 1
    occurrences: int | None = None
    until: date | None = None
    group_id: UUID | None = None
    mode: SeriesMode = SeriesMode.ALL_OR_NOTHING
    counter: bool = False
    """Staff at the counter: confirmed at once, no payment, no anti-fraud (SPEC §11)."""


def _single(cmd: SeriesCommand, o: Occurrence) -> HoldCommand | CounterCommand:
    """The one-booking request of an occurrence, for the checks every booking goes through."""
    kind = CounterCommand if cmd.counter else HoldCommand
    return kind(unit_id=cmd.unit_id, starts_at=o.starts_at, ends_at=o.ends_at, resource_ids=cmd.resource_ids,
                quantity=cmd.quantity, customer=cmd.customer, service_id=cmd.service_id,
                hold_type=None if cmd.counter else cmd.hold_type, channel=cmd.channel, actor=cmd.actor,
                placed_by=cmd.placed_by)


async def hold_series(deps: Deps, cmd: SeriesCommand) -> SeriesOutcome:
    """Hold (or, at the counter, book) every occurrence of a series in one transaction (issue 23)."""
    now = deps.clock.now()
    check_key(cmd.idempotency_key)
    cmd = checked_request(cmd, not cmd.counter)
    async with deps.uow() as uow:
        unit = await uow.units.get(cmd.unit_id)
        occs = occurrences(unit.tz, cmd.starts_at, cmd.ends_at, cmd.every_weeks, cmd.occurrences, cmd.until)
        first = _single(cmd, occs[0])
        if not cmd.counter:
            hold_type_for(unit, first)
        service = await _service(uow, unit, first)
        pool = await _resources(uow, unit, cmd, service)
        guarded = not cmd.counter and cmd.customer is not None and fraud.is_self_service(cmd.channel)
        capacity = await uow.units.capacity_by_hours(unit.id) if guarded else None
    on_grid = {o.index: [r for r in pool if _fits(unit, r, o)] for o in occs}
    births = {o.index: await _birth(deps, unit, _single(cmd, o), now, service) for o in occs if on_grid[o.index]}
    if not births:
        raise InvalidInput("startsAt", "every occurrence falls on a closed day or outside the opening hours",
                           code=ErrorCode.NO_OCCURRENCES)
    deadline = min((b.deadline for b in births.values() if b.deadline is not None), default=None)
    series = Series(
        id=deps.new_id(), unit_id=unit.id,
        status=SeriesStatus.CONFIRMED if all(b.confirmed for b in births.values()) else SeriesStatus.HELD,
        mode=cmd.mode, every_weeks=cmd.every_weeks, local_start=cmd.starts_at.astimezone(unit.tz).time(),
        minutes=int((cmd.ends_at - cmd.starts_at).total_seconds() // 60),
        first_day=cmd.starts_at.astimezone(unit.tz).date(), channel=cmd.channel, created_by=cmd.actor,
        created_at=now, updated_at=now, service_id=cmd.service_id, occurrences_asked=cmd.occurrences,
        until_day=cmd.until, resource_ids=cmd.resource_ids, group_id=cmd.group_id, quantity=cmd.quantity,
        hold_type=next(iter(births.values())).hold_type)
    skipped: list[Skipped] = []
    conflicts: list[tuple[Occurrence, list[Resource]]] = []
    placed: list[Booking] = []
    operation = "counterSeries" if cmd.counter else "holdSeries"
    request = replace(cmd, resource_ids=tuple(sorted(cmd.resource_ids, key=str))) if cmd.resource_ids else cmd
    async with deps.uow() as uow:
        stored = await claim(uow, unit.id, cmd.idempotency_key, operation, request, now)
        if stored is not None:  # a retry of a series that was held: the series as it is now
            again = await uow.series.get(UUID(str(stored["series_id"])))
            return SeriesOutcome(again, await uow.series.bookings(again.id), replayed=True)
        # The customer's lock first, then the resources' (the order a single hold takes them in: no deadlock).
        customer: Customer | None = None
        if capacity is not None and cmd.customer is not None:  # a self-service series: RN-HLD-05, as ONE hold
            customer = await fraud.admit(uow, unit, cmd.customer, occs[0].starts_at, now, capacity)
        elif cmd.customer is not None:
            customer = await uow.customers.identify(unit.tenant_id, cmd.customer, now)
        await uow.bookings.lock_resources(unit.id, [r.id for r in pool])
        occupancy = await uow.bookings.occupancy(unit.id, [r.id for r in pool], occs[0].starts_at,
                                                 occs[-1].ends_at)
        series.customer_id = customer.id if customer else None
        await uow.series.add(series)
        preferred: Resource | None = None
        for o in occs:
            fitting = on_grid[o.index]
            if not fitting:
                skipped.append(Skipped(o.index, o.starts_at, o.ends_at, SkipReason.CLOSED))
                continue
            clear = [r for r in fitting if not _blocked(occupancy, r, o)]
            if not clear or (cmd.resource_ids is not None and len(clear) < len(fitting)):
                skipped.append(Skipped(o.index, o.starts_at, o.ends_at, SkipReason.BLOCKED))
                continue
            tries = [clear] if cmd.resource_ids is not None else _order(clear, preferred, occupancy, o, now)
            booking = await _place_one(deps, uow, unit, cmd, series, o, tries, births[o.index], deadline,
                                       customer, now, remind=not placed)
            if booking is None:
                conflicts.append((o, clear))
                continue
            placed.append(booking)
            if cmd.resource_ids is None and preferred is None:
                preferred = next(r for r in clear if r.id == booking.allocations[0].resource_id)
        if placed and not (conflicts and cmd.mode is SeriesMode.ALL_OR_NOTHING):
            await uow.series.link(series.id, unit.id, [b.id for b in placed], [b.series_index or 0 for b in placed])
            if series.status is SeriesStatus.CONFIRMED:  # the counter (or a type born sold): no acceptance
                await _add_periods(uow, unit, series, placed, now)
            if cmd.idempotency_key:
                await uow.idempotency.complete(unit.id, cmd.idempotency_key, {"series_id": str(series.id)})
            await uow.commit()
    reported = [await _conflict(deps, unit, cmd, o, rs, now) for o, rs in conflicts]
    if not placed or (conflicts and cmd.mode is SeriesMode.ALL_OR_NOTHING):
        if reported:
            raise SeriesConflicts(reported)
        raise InvalidInput("startsAt", "every occurrence falls on a closed day or a block: nothing to hold",
                           code=ErrorCode.NO_OCCURRENCES)
    return SeriesOutcome(series, placed, skipped, reported)


async def _resources(uow: UnitOfWork, unit: Unit, cmd: SeriesCommand, service: Service | None) -> list[Resource]:
    """The resources the series may use: the ones asked for, or those of the unit (of its group) that sell the
    service and hold the quantity."""
    if cmd.resource_ids is not None:
        found = await uow.units.resources_by_id(unit.id, list(cmd.resource_ids))
        missing = [r for r in cmd.resource_ids if r not in found]
        if missing:
            raise NotFound("resource", missing[0], field="resourceIds")
        picked = [found[r] for r in cmd.resource_ids]
        for r in picked:
            check_quantity(r, cmd.quantity)
        return picked
    resources = [r for r in await uow.units.resources(unit.id)
                 if (service is None or service.runs_on(r.id)) and (cmd.group_id is None or r.group_id == cmd.group_id)
                 and ((r.kind is ResourceKind.EXCLUSIVE and cmd.quantity == 1)
                      or (r.kind is ResourceKind.POOLED and r.capacity >= cmd.quantity))]
    if not resources:
        raise InvalidInput("resourceIds", "no resource of the unit (or of the group) fits the series",
                           code=ErrorCode.RESOURCE_NOT_OFFERED)
    return resources


def _fits(unit: Unit, r: Resource, o: Occurrence) -> bool:
    """Whether the occurrence is on the resource's grid that day (a closed day, or hours that do not cover it:
    not)."""
    try:
        check_on_grid(unit, r, o.starts_at, o.ends_at)
        return True
    except InvalidInput:
        return False


def _blocked(occupancy: list[Occupancy], r: Resource, o: Occurrence) -> bool:
    return any(x.is_block and x.resource_id == r.id and x.starts_at < o.ends_at and o.starts_at < x.ends_at
               for x in occupancy)


def _order(clear: list[Resource], preferred: Resource | None, occupancy: list[Occupancy], o: Occurrence,
           now: datetime) -> list[list[Resource]]:
    """The resources to try for an occurrence of "any": the series' own first, then the others free (as read
    under the locks), in the unit's order; taken exclusive ones are not tried."""
    def taken(r: Resource) -> bool:
        return r.kind is ResourceKind.EXCLUSIVE and any(
            x.resource_id == r.id and x.starts_at < o.ends_at and o.starts_at < x.ends_at and x.is_active(now)
            for x in occupancy)

    ordered = ([preferred] if preferred in clear else []) + [r for r in clear if r != preferred]
    return [[r] for r in ordered if not taken(r)]


async def _place_one(deps: Deps, uow: UnitOfWork, unit: Unit, cmd: SeriesCommand, series: Series, o: Occurrence,
                     tries: list[list[Resource]], birth: Any, deadline: datetime | None, customer: Customer | None,
                     now: datetime, remind: bool) -> Booking | None:
    """Place one occurrence on the first of `tries` that is free (savepoints: a SlotTaken undoes only itself).
    Only the first occurrence placed carries the hold's reminder (`remind`): one hold, one reminder."""
    details = {"customer_id": customer.id if customer else None, "service_id": cmd.service_id,
               "hold_type": birth.hold_type, "channel": cmd.channel}
    for picked in tries:
        allocations = [Allocation(r.id, o.starts_at, o.ends_at, cmd.quantity) for r in picked]
        if birth.confirmed:
            booking = Booking.confirmed(deps.new_id(), unit.id, allocations, now, cmd.actor, **details)
        else:
            assert deadline is not None
            booking = Booking.held(deps.new_id(), unit.id, allocations, now, cmd.actor, deadline,
                                   remind_at=reminder_at(unit.params, now, deadline) if birth.reminds and remind
                                   else None,
                                   **details)
        booking.series_id, booking.series_index = series.id, o.index
        pooled = {r.id: slot_starts(unit, r, o.starts_at, o.ends_at) for r in picked if r.kind is ResourceKind.POOLED}
        try:
            await place(uow, unit.id, allocations, now, booking, pooled, savepoint=True)
        except SlotTaken:
            continue
        if cmd.service_id is not None:
            await uow.catalog.pin(unit.id, booking.id, cmd.service_id)
        return booking
    return None


async def _conflict(deps: Deps, unit: Unit, cmd: SeriesCommand, o: Occurrence, tried: list[Resource], now: datetime
                    ) -> OccurrenceConflict:
    options = await alternatives(deps, unit, tried[0], o.starts_at, o.ends_at, cmd.quantity, now, cmd.counter)
    return OccurrenceConflict(o.index, o.starts_at, o.ends_at, tuple(r.id for r in tried), tuple(options))


def _cut_periods(unit: Unit, series: Series, bookings: list[Booking], now: datetime,
                 amounts: dict[UUID, int] | None = None, first_deadline: datetime | None = None
                 ) -> list[tuple[Period, list[Booking]]]:
    """Cut the series into calendar months (the periods paying by period charges; domain/series.py): the first
    due now (its deadline the hold's), later ones `series_charge_days_ahead` before they start."""
    cut: list[tuple[Period, list[Booking]]] = []
    for i, (starts_on, ends_on) in enumerate(month_periods(unit.tz, [b.starts_at for b in bookings])):
        inside = [b for b in bookings if starts_on <= b.starts_at.astimezone(unit.tz).date() < ends_on]
        due = period_due(unit.tz, starts_on, unit.params.series_charge_days_ahead, i == 0, now)
        deadline = first_deadline if i == 0 and first_deadline is not None else period_deadline(unit.tz, starts_on,
                                                                                                 due)
        cut.append((Period(id=uuid_of(series.id, starts_on), series_id=series.id, starts_on=starts_on,
                           ends_on=ends_on, due_at=due, deadline_at=deadline, unit_id=unit.id,
                           amount_cents=sum((amounts or {}).get(b.id, 0) for b in inside)), inside))
    return cut


async def _add_periods(uow: UnitOfWork, unit: Unit, series: Series, bookings: list[Booking], now: datetime,
                       amounts: dict[UUID, int] | None = None, first_deadline: datetime | None = None
                       ) -> list[tuple[Period, list[Booking]]]:
    """Store the series' periods (_cut_periods) and point each occurrence at its own."""
    cut = _cut_periods(unit, series, bookings, now, amounts, first_deadline)
    await uow.series.add_periods(unit.id, [p for p, _ in cut], {p.id: [b.id for b in bs] for p, bs in cut})
    return cut


def uuid_of(series_id: UUID, starts_on: date) -> UUID:
    """A period's id: derived from its series and month (one period per month and series, stable)."""
    return uuid5(series_id, starts_on.isoformat())


@dataclass(frozen=True)
class ConfirmSeriesCommand:
    """The customer accepts a held series once: the policy, and the price of each occurrence."""

    series_id: UUID
    actor: str = "customer"
    channel: str = "api"
    contact: str | None = None


@dataclass(frozen=True)
class SeriesChange:
    """A series after a change, with its occurrences' bookings that the change touched."""

    series: Series
    bookings: list[Booking]


async def confirm_series(deps: Deps, cmd: ConfirmSeriesCommand) -> SeriesChange:
    """One acceptance for the whole series: each held occurrence records the terms (price version and band,
    policy version); the series keeps the total. Nothing due by Pix: every occurrence is confirmed. Something due
    (paying by period, domain/series_pay.py): each occurrence with an amount due awaits its period's Pix until the
    period's deadline (the first period's is the hold's), and the first period is charged now in ONE Pix."""
    from domain.checkout import _terms as terms_for
    from domain.series_pay import charge_at_provider, open_period_charge

    now = deps.clock.now()
    async with deps.uow() as uow:
        series = await uow.series.get(cmd.series_id, lock=True)
        if series.status is not SeriesStatus.HELD:
            raise InvalidTransition(series.status.value, SeriesStatus.CONFIRMED.value, "confirm")
        bookings = await uow.series.bookings(series.id, lock=True)
        held = [b for b in bookings if b.status is BookingStatus.HELD]
        if not held or any(b.is_lapsed(now) for b in held):
            for b in held:
                if b.is_lapsed(now):
                    await expire_booking(uow, b, now)
            series.status, series.updated_at = SeriesStatus.EXPIRED, now
            await uow.series.save(series)
            await uow.commit()
            raise InvalidTransition("expired", SeriesStatus.CONFIRMED.value, "confirm")
        unit = await uow.units.get(series.unit_id)
        terms = [await terms_for(uow, unit, b, now, cmd.channel, cmd.contact) for b in held]
        by_pix = any(t.due_now_cents > 0 for t in terms)
        first_deadline = min(b.hold_expires_at for b in held if b.hold_expires_at is not None)
        if by_pix:
            if deps.provider is None:
                raise InvalidInput("seriesId", "this series has an amount due by Pix and payments are not set up "
                                   "here", code=ErrorCode.SERIES_PAID_BY_PERIOD)
            if first_deadline <= now + timedelta(seconds=30):
                raise InvalidInput("seriesId", "the hold ends too soon to pay by Pix; ask for the series again",
                                   code=ErrorCode.HOLD_TOO_SHORT)
        cut = _cut_periods(unit, series, held, now, {b.id: t.total_cents for b, t in zip(held, terms, strict=True)},
                           first_deadline)
        deadline_of = {b.id: p.deadline_at for p, bs in cut for b in bs}
        for b, t in zip(held, terms, strict=True):
            b.accept(t.as_json(), t.due_now_cents)
            if t.due_now_cents > 0:  # held for the series until its period's deadline
                deadline = deadline_of[b.id]
                assert deadline is not None
                b.await_payment(now, cmd.actor, deadline=deadline)
                if deadline != first_deadline:  # a later period: reminded by its own charge, not the hold's
                    b.remind_at = None
            else:
                b.confirm(now, cmd.actor)
            await uow.bookings.save(b)
        series.acceptance = {
            "at": now.isoformat(), "channel": cmd.channel, "contact": cmd.contact,
            "policy_version": terms[0].policy_version, "total_cents": sum(t.total_cents for t in terms),
            "at_venue_cents": sum(t.at_venue_cents for t in terms),
            "due_now_cents": sum(t.due_now_cents for t in terms),
            "occurrences": [{"booking_id": str(b.id), "starts_at": b.starts_at.isoformat(),
                             "total_cents": t.total_cents} for b, t in zip(held, terms, strict=True)],
        }
        series.status, series.updated_at = SeriesStatus.CONFIRMED, now
        await uow.series.save(series)
        await uow.series.add_periods(unit.id, [p for p, _ in cut], {p.id: [b.id for b in bs] for p, bs in cut})
        first = cut[0][0]
        charge = await open_period_charge(deps, uow, unit, first, now) if by_pix else None
        await uow.commit()
    if charge is not None:
        await charge_at_provider(deps, first.id, charge, notify=False)
    return SeriesChange(series, held)


async def recharge_moved(uow: UnitOfWork, moved: list[Booking]) -> None:
    """After occurrences awaiting their period's Pix were moved or cancelled: a period with nothing left of it is
    cancelled; one whose charge went with its first occurrence (a cancelled booking's open charges are cancelled)
    is open again, so the charging cron opens a new Pix for what is left of it."""
    gone = {b.id for b in moved}
    for period in await uow.series.periods(moved[0].series_id) if moved and moved[0].series_id else []:
        if period.status not in ("open", "charged"):
            continue
        if all(b.status is BookingStatus.CANCELLED for b in await uow.series.period_bookings(period.id)):
            await uow.series.save_period(replace(period, status="cancelled"))
        elif period.status == "charged" and period.charge_id is not None:
            charge = await uow.payments.charge(period.charge_id)
            if charge.booking_id in gone and charge.status is ChargeStatus.CANCELLED:
                await uow.series.save_period(replace(period, status="open", charge_id=None))


async def series_bookings(deps: Deps, series_id: UUID) -> tuple[Series, list[Booking]]:
    """A series and its occurrences' bookings (every state), by index."""
    async with deps.uow() as uow:
        series = await uow.series.get(series_id)
        return series, await uow.series.bookings(series_id)


async def bookings_of_series(deps: Deps, series_ids: list[UUID]) -> dict[UUID, list[Booking]]:
    """Several series' occurrences' bookings (every state), by index, in one read (a page of the unit's series)."""
    async with deps.uow() as uow:
        return await uow.series.bookings_of(series_ids)


async def series_of(deps: Deps, booking_ids: list[UUID]) -> dict[UUID, UUID]:
    """booking id → series id, for those of the bookings that are occurrences of a series (the staff grid)."""
    async with deps.uow() as uow:
        return await uow.series.series_of(booking_ids)


async def cancel_series_from(deps: Deps, series_id: UUID, since: datetime, actor: str, releaser: Any = None,
                             reason: str | None = None) -> SeriesChange:
    """Cancel every occurrence that starts at or after `since` (held, pending or confirmed), each with the refund
    its accepted policy gives (domain/refunds.py), in one transaction; the series is cancelled when nothing of it
    is left."""
    now = deps.clock.now()
    since = since.astimezone(UTC)
    why = reason or f"series cancelled from {since.isoformat()}"
    async with deps.uow() as uow:
        series = await uow.series.get(series_id, lock=True)
        bookings = await uow.series.bookings(series_id, lock=True)
        touched = []
        for b in bookings:
            if b.starts_at < since or b.status not in CHANGEABLE:
                continue
            if b.is_lapsed(now):
                await expire_booking(uow, b, now)
                continue
            await check_release(uow, b, releaser)
            b.cancel(now, actor, why)
            await uow.bookings.save(b)
            await refunds.on_cancel(uow, b, now, deps.new_id)
            touched.append(b)
        if not any(b.occupies for b in bookings):
            series.status = SeriesStatus.CANCELLED if series.status is not SeriesStatus.EXPIRED else series.status
        series.updated_at = now
        await uow.series.save(series)
        await recharge_moved(uow, touched)
        await uow.commit()
    for b in touched:
        await released(deps, b)
    return SeriesChange(series, touched)


async def retime_series(deps: Deps, series_id: UUID, local_start: time, minutes: int | None, since: datetime | None,
                        actor: str, staff: bool) -> SeriesChange:
    """Move every future occurrence (from `since`, default now) to `local_start` (and `minutes` long) on its own
    day and resources: each as a reschedule (the old one cancelled, reason rescheduled, the new one in the same
    state with its acceptance and payments, linked both ways), all or nothing — any taken occurrence: nothing
    changes, each conflict reported (SeriesConflicts)."""
    now = deps.clock.now()
    since = max(since.astimezone(UTC), now) if since is not None else now
    async with deps.uow() as uow:
        series = await uow.series.get(series_id, lock=True)
        unit = await uow.units.get(series.unit_id)
        length = timedelta(minutes=minutes if minutes is not None else series.minutes)
        if length <= timedelta(0):
            raise InvalidInput("minutes", "minutes must be positive", code=ErrorCode.INVALID_DURATION)
        olds = [b for b in await uow.series.bookings(series_id, lock=True)
                if b.starts_at >= since and b.status in (BookingStatus.HELD, BookingStatus.PENDING_PAYMENT,
                                                         BookingStatus.CONFIRMED)
                and not b.is_lapsed(now)]
        if not olds:
            raise InvalidInput("since", "no future occurrence to move", code=ErrorCode.NO_OCCURRENCES)
        moves: list[tuple[Booking, Occurrence]] = []
        resources = await uow.units.resources_by_id(unit.id, list({a.resource_id for b in olds
                                                                     for a in b.allocations}))
        for b in olds:
            day = b.starts_at.astimezone(unit.tz).date()
            start = datetime.combine(day, local_start, tzinfo=unit.tz).astimezone(UTC)
            o = Occurrence(b.series_index or 0, start, start + length)
            for a in b.allocations:
                check_on_grid(unit, resources[a.resource_id], o.starts_at, o.ends_at)
            if not staff and o.starts_at - now < unit.params.min_advance:
                raise InvalidInput("localStart", "an occurrence would start too soon", code=ErrorCode.TOO_SOON)
            moves.append((b, o))
        await uow.bookings.lock_resources(unit.id, list(resources))
        conflicts: list[tuple[Occurrence, list[Resource], int]] = []
        pairs: list[tuple[Booking, Booking]] = []
        for old, o in moves:
            quantity = max(a.quantity for a in old.allocations)
            allocations = [Allocation(a.resource_id, o.starts_at, o.ends_at, a.quantity) for a in old.allocations]
            was_pending = old.status is BookingStatus.PENDING_PAYMENT  # awaiting its period's Pix: it still does
            was_held, deadline = old.status is BookingStatus.HELD or was_pending, old.hold_expires_at
            old.cancel(now, actor, "rescheduled")
            await uow.bookings.save(old)
            details = {"customer_id": old.customer_id, "service_id": old.service_id, "hold_type": old.hold_type
                       if was_held else None, "channel": old.channel}
            if was_held:
                assert deadline is not None
                new = Booking.held(deps.new_id(), unit.id, allocations, now, actor, deadline, **details)
                if was_pending:
                    new.await_payment(now, actor, deadline)
            else:
                new = Booking.confirmed(deps.new_id(), unit.id, allocations, now, actor, **details)
            new.acceptance, new.due_now_cents, new.paid_cents = old.acceptance, old.due_now_cents, old.paid_cents
            new.series_id, new.series_index = old.series_id, old.series_index
            pooled = {r: slot_starts(unit, resources[r], o.starts_at, o.ends_at)
                      for r in {a.resource_id for a in allocations} if resources[r].kind is ResourceKind.POOLED}
            try:
                await place(uow, unit.id, allocations, now, new, pooled, spare=old.id, savepoint=True)
            except SlotTaken:
                conflicts.append((o, [resources[a.resource_id] for a in old.allocations], quantity))
                continue
            old.rescheduled_to, new.rescheduled_from = new.id, old.id
            await uow.bookings.link_reschedule(old, new, True, now)
            if old.service_id is not None:
                await uow.catalog.pin(unit.id, new.id, old.service_id)
            pairs.append((old, new))
        if not conflicts:
            series.local_start, series.minutes = local_start, int(length.total_seconds() // 60)
            series.updated_at = now
            await uow.series.save(series)
            await recharge_moved(uow, [old for old, _ in pairs if old.due_now_cents > 0 and old.paid_cents == 0])
            await uow.commit()
    if conflicts:
        raise SeriesConflicts([OccurrenceConflict(
            o.index, o.starts_at, o.ends_at, tuple(r.id for r in rs),
            tuple(await alternatives(deps, unit, rs[0], o.starts_at, o.ends_at, q, now, staff)))
            for o, rs, q in conflicts])
    for old, _ in pairs:
        await released(deps, old)
    return SeriesChange(series, [new for _, new in pairs])
