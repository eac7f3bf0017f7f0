"""After the hold: rescheduling a booking to another slot (SPEC §11, seed 000 "Reagendar e cancelar").

A reschedule is one transaction: the old booking is cancelled (reason `rescheduled`), a new booking takes the new
slot, and the two are linked both ways (`rescheduled_to` / `rescheduled_from`) — or, when the new slot is taken,
nothing changes (`SlotTaken` with alternatives, as for a hold). The new booking keeps the old one's class of state:

* a **confirmed** booking (paid or not) is born confirmed on the new slot, with its acceptance, what was due and
  what was paid; the paid charges and their payments move to it (the money follows the booking);
* an **open hold** (held or awaiting payment) moves as a swap does (RN-HLD-07): a new hold with its own deadline,
  the old charge cancelled and, when the customer had accepted a payment, a new charge for the new slot. The swap
  links are set too, so a late Pix of the old charge follows the rules of a swap.

The freed slot promotes its waitlist like any release (Deps.on_release). For anti-fraud, a reschedule never adds
an open hold (the old one is replaced) and its cancel is not counted as the customer's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from uuid import UUID

from domain import fraud
from domain.availability import check_on_grid, slot_starts
from domain.bookings import Allocation, Booking, BookingStatus
from domain.checkout import CheckoutResult, ConfirmCommand, confirm
from domain.customers import CustomerIdentity
from domain.errors import ErrorCode, HoldCeilingReached, InvalidInput, InvalidTransition, NotFound, SlotTaken
from domain.holds import check_booking_window, hold_deadline, reminder_at
from domain.ports import UnitOfWork
from domain.pricing import price_of
from domain.services import (
    Deps,
    alternatives,
    check_key,
    check_quantity,
    expire_booking,
    place,
    released,
    remember,
    replay,
    require_aware,
)
from domain.units import OpeningWindow, Resource, ResourceKind, Unit

S = BookingStatus
OPEN_HOLD = frozenset({S.HELD, S.PENDING_PAYMENT})
RESCHEDULABLE = OPEN_HOLD | {S.CONFIRMED}
"""Verifying bookings are frozen while staff check the payment (RN-HLD-06); the rest have ended or begun."""
REASON = "rescheduled"


@dataclass(frozen=True)
class RescheduleCommand:
    """Move a booking to [starts_at, ends_at) on `resource_ids` (None: its own resources)."""

    booking_id: UUID
    starts_at: datetime
    ends_at: datetime
    resource_ids: tuple[UUID, ...] | None = None
    quantity: int | None = None
    """None: the booking's own quantity."""
    actor: str = "customer"
    staff: bool = False
    """Staff move bookings as at the counter: no minimum advance and no anti-fraud (the maximum advance holds)."""
    customer: CustomerIdentity | None = None
    """The booking's customer, counted by RN-HLD-05 when a self-service reschedule moves an open hold."""
    contact: str | None = None
    idempotency_key: str | None = None


class _Started(InvalidTransition):
    def __init__(self, status: str) -> None:
        super().__init__(status, S.CANCELLED.value, "reschedule")
        self.message = f"cannot reschedule a booking that has already started (it is {status})"
        self.args = (self.message,)


def _validated(cmd: RescheduleCommand) -> RescheduleCommand:
    require_aware(cmd.starts_at, "startsAt")
    require_aware(cmd.ends_at, "endsAt")
    check_key(cmd.idempotency_key)
    cmd = replace(cmd, starts_at=cmd.starts_at.astimezone(UTC), ends_at=cmd.ends_at.astimezone(UTC))
    if cmd.ends_at <= cmd.starts_at:
        raise InvalidInput("endsAt", "endsAt must be after startsAt", code=ErrorCode.INVALID_RANGE)
    if cmd.quantity is not None and cmd.quantity < 1:
        raise InvalidInput("quantity", "quantity must be at least 1", code=ErrorCode.INVALID_QUANTITY)
    if cmd.resource_ids is not None and not cmd.resource_ids:
        raise InvalidInput("resourceIds", "give at least one resource, or none for the booking's own",
                           code=ErrorCode.NO_RESOURCE)
    if len(set(cmd.resource_ids or ())) != len(cmd.resource_ids or ()):
        raise InvalidInput("resourceIds", "a resource is listed twice", code=ErrorCode.DUPLICATE_RESOURCE)
    return cmd


async def reschedule(deps: Deps, cmd: RescheduleCommand) -> CheckoutResult:
    """Move a booking (confirmed, or an open hold) to another slot of its unit in one step (SPEC §11)."""
    now = deps.clock.now()
    cmd = _validated(cmd)
    async with deps.uow() as uow:
        seen = await uow.bookings.find(cmd.booking_id)
        unit = await uow.units.get(seen.unit_id)
        ids = list(cmd.resource_ids) if cmd.resource_ids is not None else list(
            dict.fromkeys(a.resource_id for a in seen.allocations))
        quantity = cmd.quantity or max(a.quantity for a in seen.allocations)
        found = await uow.units.resources_by_id(unit.id, ids)
        missing = [r for r in ids if r not in found]
        if missing:
            raise NotFound("resource", missing[0], field="resourceIds")
        picked = [found[r] for r in ids]
        for r in picked:
            check_on_grid(unit, r, cmd.starts_at, cmd.ends_at)
            check_quantity(r, quantity)
        counted = (seen.status in OPEN_HOLD and not cmd.staff and cmd.customer is not None
                   and fraud.is_self_service(seen.channel))
        capacity = await uow.units.capacity_by_hours(unit.id) if counted else None
    try:
        new, old = await _move(deps, unit, picked, quantity, cmd, now, capacity)
    except SlotTaken as taken:
        taken.alternatives = await alternatives(deps, unit, picked[0], cmd.starts_at, cmd.ends_at, quantity, now,
                                                counter=cmd.staff)
        raise
    except HoldCeilingReached as refusal:
        async with deps.uow() as uow:  # the reschedule's transaction is gone; the alert is kept on its own
            if await fraud.raise_ceiling_alert(uow, unit, refusal, now):
                await uow.commit()
        raise
    if old is None:  # a retried reschedule: the new booking as it is now, and its charge
        async with deps.uow() as uow:
            current = await uow.bookings.find(new.id)
            charges = await uow.payments.charges_of(new.id)
        return CheckoutResult(current, charges[0] if charges else None, replayed=True)
    await released(deps, old)
    if old.status is S.CANCELLED and new.status is S.HELD and old.acceptance is not None and old.due_now_cents > 0:
        # The customer had accepted and was paying: the new slot gets its own charge at once (as a swap does).
        return await confirm(deps, ConfirmCommand(new.id, actor=cmd.actor, channel=new.channel, contact=cmd.contact))
    return CheckoutResult(new)


def _payload(cmd: RescheduleCommand, picked: list[Resource], quantity: int) -> RescheduleCommand:
    """What a reschedule's fingerprint is made of: the whole command, with the resources and quantity it resolved
    to (omitted ones are the booking's own), the resources in a stable order."""
    return replace(cmd, resource_ids=tuple(sorted((r.id for r in picked), key=str)), quantity=quantity)


async def _move(
    deps: Deps, unit: Unit, picked: list[Resource], quantity: int, cmd: RescheduleCommand, now: datetime,
    capacity: dict[tuple[OpeningWindow, ...], int] | None,
) -> tuple[Booking, Booking | None]:
    """The transaction: (new booking, old booking); old None when an idempotency key replayed."""
    allocations = [Allocation(r.id, cmd.starts_at, cmd.ends_at, quantity) for r in picked]
    key = cmd.idempotency_key
    async with deps.uow() as uow:
        stored = await replay(uow, unit.id, key, "reschedule", _payload(cmd, picked, quantity), now)
        if stored is not None:
            return stored, None
        if capacity is not None and cmd.customer is not None:
            # RN-HLD-05 as for a swap: the hold being replaced counts neither for the customer nor the ceiling.
            await fraud.admit(uow, unit, cmd.customer, cmd.starts_at, now, capacity, cmd.booking_id)
        moved: list[Booking] = []

        async def make() -> Booking:
            old = await uow.bookings.get(cmd.booking_id)
            if old.is_lapsed(now):
                # Guarantee 5: past its deadline the hold is over, whatever the jobs have done so far.
                await expire_booking(uow, old, now)
                await uow.commit()
                raise InvalidTransition(S.EXPIRED.value, S.CANCELLED.value, "reschedule")
            if old.status not in RESCHEDULABLE:
                raise InvalidTransition(old.status.value, S.CANCELLED.value, "reschedule")
            if old.starts_at <= now:
                raise _Started(old.status.value)
            if sorted(old.allocations, key=lambda a: a.resource_id) == sorted(allocations,
                                                                               key=lambda a: a.resource_id):
                raise InvalidInput("startsAt", "that is the booking's current slot", code=ErrorCode.SAME_SLOT)
            new = await _replacement(uow, unit, old, deps.new_id(), allocations, cmd, now)
            old.rescheduled_to = new.id
            old.cancel(now, cmd.actor, REASON)
            await uow.bookings.save(old)  # frees the old slot first: the new one may overlap it
            moved.append(old)
            return new

        pooled = {r.id: slot_starts(unit, r, cmd.starts_at, cmd.ends_at)
                  for r in picked if r.kind is ResourceKind.POOLED}
        # SlotTaken on adding the new booking rolls everything back (the old one included).
        new = await place(uow, unit.id, allocations, now, make, pooled, spare=cmd.booking_id)
        old = moved[0]
        await uow.bookings.link_reschedule(old, new, move_payments=new.status is S.CONFIRMED, at=now)
        new.series_id, new.series_index = old.series_id, old.series_index  # an occurrence stays in its series
        pinned = await uow.catalog.pinned(unit.id, old.id)
        if pinned is not None and new.service_id is not None:  # the price version its hold was made at goes along
            await uow.catalog.pin(unit.id, new.id, new.service_id, pinned)
        await remember(uow, unit.id, key, new)
        await uow.commit()
    return new, old


async def _replacement(uow: UnitOfWork, unit: Unit, old: Booking, new_id: UUID, allocations: list[Allocation],
                       cmd: RescheduleCommand, now: datetime) -> Booking:
    """The new booking, in the old one's class of state (an open hold stays a hold; confirmed stays confirmed)."""
    starts_at = cmd.starts_at
    if cmd.staff:
        if starts_at <= now:
            raise InvalidInput("startsAt", "a booking cannot be moved into the past", code=ErrorCode.IN_THE_PAST)
        if starts_at > now + unit.params.max_advance:
            raise InvalidInput("startsAt", f"bookings can be made at most {unit.params.max_advance.days} days ahead",
                               code=ErrorCode.TOO_FAR)
    else:
        check_booking_window(unit.params, now, starts_at)
    details = {"customer_id": old.customer_id, "service_id": old.service_id, "hold_type": old.hold_type,
               "channel": old.channel, "rescheduled_from": old.id}
    if old.status in OPEN_HOLD:
        due = old.due_now_cents > 0 or await _payment_due(uow, unit, old, allocations)
        deadline = hold_deadline(unit.params, now, starts_at, payment_due=due)
        new = Booking.held(new_id, unit.id, allocations, now, cmd.actor, deadline,
                           remind_at=reminder_at(unit.params, now, deadline), swapped_from=old.id, **details)
        old.swapped_to = new.id  # RN-HLD-07: a late Pix of the old charge
    else:
        accepted = (old.acceptance or {}).get("total_cents") or 0
        if accepted and not cmd.staff and _size(allocations) != _size(old.allocations):
            # What was accepted and paid was for that length and quantity; the venue may change them (staff).
            raise InvalidInput("endsAt", "a reschedule keeps the length and quantity that were accepted and paid; "
                               "ask the venue to change them", code=ErrorCode.ACCEPTED_SIZE_CHANGED)
        # The money follows the booking: what was accepted, due and paid (the old one keeps its acceptance).
        new = Booking.confirmed(new_id, unit.id, allocations, now, cmd.actor, acceptance=old.acceptance,
                                due_now_cents=old.due_now_cents, paid_cents=old.paid_cents, **details)
        old.paid_cents = 0
    new.events[-1] = replace(new.events[-1], reason=f"rescheduled from {old.id}")
    return new


def _size(allocations: list[Allocation]) -> tuple[object, ...]:
    """Length and quantity per resource, wherever and whenever."""
    return tuple(sorted((a.ends_at - a.starts_at, a.quantity) for a in allocations))


async def _payment_due(uow: UnitOfWork, unit: Unit, old: Booking, allocations: list[Allocation]) -> bool:
    if old.service_id is None:
        return False
    first = allocations[0]
    priced = await price_of(uow, unit, old.service_id, first.starts_at, first.ends_at, first.quantity, old.id)
    return priced.due_now_cents > 0
