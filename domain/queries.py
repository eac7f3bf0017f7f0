"""Read use cases: the grid, bookable slots, a unit, a booking."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Literal
from uuid import UUID

from domain.availability import WindowRow, bookable_slots, grid_rows, mark_past
from domain.bookings import Booking
from domain.customers import CustomerIdentity
from domain.errors import ErrorCode, InvalidInput, NotFound, SlotOption
from domain.payments import Charge
from domain.services import Deps, require_aware
from domain.staff_queue import QueueItem, QueueStatus
from domain.units import Resource, Unit

MAX_GRID_RANGE = timedelta(days=31)


def _range(start: datetime, end: datetime, limit: timedelta) -> None:
    require_aware(start, "from")
    require_aware(end, "to")
    if end <= start:
        raise InvalidInput("to", "`to` must be after `from`", code=ErrorCode.INVALID_RANGE)
    if end - start > limit:
        raise InvalidInput("to", f"the range may span at most {limit.days} days", code=ErrorCode.RANGE_TOO_LONG)


def _select(resources: list[Resource], ids: list[UUID] | None) -> list[Resource]:
    if ids is None:
        return resources
    by_id = {r.id: r for r in resources}
    missing = [i for i in ids if i not in by_id]
    if missing:
        raise NotFound("resource", missing[0], field="resourceIds")
    return [by_id[i] for i in ids]


async def unit_with_resources(deps: Deps, unit_id: UUID) -> tuple[Unit, list[Resource]]:
    """A unit and its resources."""
    async with deps.uow() as uow:
        return await uow.units.get(unit_id), await uow.units.resources(unit_id)


async def availability_grid(
    deps: Deps, unit_id: UUID, start: datetime, end: datetime, resource_ids: list[UUID] | None = None
) -> tuple[Unit, list[tuple[Resource, list[WindowRow]]]]:
    """The staff grid: every slot of every (chosen) resource with its state."""
    unit, rows, _ = await availability_grid_at(deps, unit_id, start, end, resource_ids, with_seq=False)
    return unit, rows


async def availability_grid_at(
    deps: Deps, unit_id: UUID, start: datetime, end: datetime, resource_ids: list[UUID] | None = None,
    with_seq: bool = True,
) -> tuple[Unit, list[tuple[Resource, list[WindowRow]]], int]:
    """The staff grid and the unit's event sequence number it reflects (0 without `with_seq`). The number is read
    first, and the relay numbers only committed events: every change numbered up to it is in the grid, and any
    change the grid misses is numbered after it — so a subscription with since: seq loses nothing between the read
    and its start (its first events may be in the grid already)."""
    _range(start, end, MAX_GRID_RANGE)
    now = deps.clock.now()
    async with deps.uow() as uow:
        unit = await uow.units.get(unit_id)
        resources = _select(await uow.units.resources(unit_id), resource_ids)
        seq = await uow.events.last_seq(unit_id) if with_seq else 0
        occ = await uow.bookings.grid_occupancy(unit_id, resource_ids, start, end)
    rows = grid_rows(unit, resources, occ, start, end, now)
    mark_past(rows, now)
    return unit, [(r, rows[r.id]) for r in resources], seq


async def bookable(
    deps: Deps, unit_id: UUID, start: datetime, end: datetime, resource_id: UUID | None = None,
    slots: int = 1, quantity: int = 1,
) -> list[SlotOption]:
    """Slots a customer may hold: free, inside hours and the booking window (SPEC §5)."""
    _range(start, end, timedelta(days=62))
    if not 1 <= slots <= 48:
        raise InvalidInput("slots", "slots must be between 1 and 48", code=ErrorCode.INVALID_DURATION)
    if quantity < 1:
        raise InvalidInput("quantity", "quantity must be at least 1", code=ErrorCode.INVALID_QUANTITY)
    now = deps.clock.now()
    async with deps.uow() as uow:
        unit = await uow.units.get(unit_id)
        resources = _select(await uow.units.resources(unit_id), [resource_id] if resource_id else None)
        occ = await uow.bookings.occupancy(unit_id, [resource_id] if resource_id else None, start, end)
    return bookable_slots(unit, resources, occ, start, end, now, slots=slots, quantity=quantity)


async def booking(deps: Deps, booking_id: UUID) -> Booking:
    """One booking as it is now."""
    async with deps.uow() as uow:
        return await uow.bookings.find(booking_id)


async def events_since(deps: Deps, unit_id: UUID, seq: int, limit: int = 1000) -> list[Any]:
    """The unit's committed events after `seq`, in order (for subscribers catching up)."""
    async with deps.uow() as uow:
        return await uow.events.since(unit_id, seq, limit)


async def last_seq(deps: Deps, unit_id: UUID) -> int:
    """The unit's latest event sequence number."""
    async with deps.uow() as uow:
        return await uow.events.last_seq(unit_id)


async def customer_identity(deps: Deps, booking: Booking) -> CustomerIdentity | None:
    """The identity of the booking's customer."""
    if booking.customer_id is None:
        return None
    async with deps.uow() as uow:
        return await uow.customers.identity_of(booking.customer_id)


async def units_and_identities(deps: Deps, keys: list[tuple[UUID, UUID]]
                               ) -> list[tuple[Unit, CustomerIdentity | None]]:
    """For each (unit, customer record) of a list's rows (bookings, waitlist entries): the unit and the customer's
    identity — what a row's customer field needs to authorize and answer — all in one transaction."""
    async with deps.uow() as uow:
        units = {u: await uow.units.get(u) for u in {unit for unit, _ in keys}}
        identities = await uow.customers.identities_of(sorted({customer for _, customer in keys}))
    return [(units[unit], identities.get(customer)) for unit, customer in keys]


async def queue_items(deps: Deps, unit_id: UUID, statuses: list[str], limit: int = 200) -> list[QueueItem]:
    """The unit's staff queue: its `limit` most urgent items."""
    bad = [s for s in statuses if s not in {q.value for q in QueueStatus}]
    if bad:
        raise InvalidInput("statuses", f"unknown queue status {bad[0]!r}", code=ErrorCode.INVALID_STATUS)
    async with deps.uow() as uow:
        return await uow.queue.list(unit_id, statuses, limit)


async def acknowledge_queue_item(deps: Deps, item_id: UUID, actor: str) -> QueueItem:
    """"Registrar ciência"."""
    async with deps.uow() as uow:
        item = await uow.queue.acknowledge(item_id, actor, deps.clock.now())
        await uow.commit()
    return item


async def resolve_queue_item(deps: Deps, item_id: UUID, actor: str, note: str | None) -> QueueItem:
    """Close a queue item."""
    async with deps.uow() as uow:
        item = await uow.queue.resolve(item_id, actor, deps.clock.now(), note)
        await uow.commit()
    return item


async def charges_of(deps: Deps, booking_id: UUID, limit: int | None = None) -> list[Charge]:
    """A booking's Pix charges, newest first (the `limit` newest; None: all)."""
    async with deps.uow() as uow:
        return await uow.payments.charges_of(booking_id, limit)


async def unit(deps: Deps, unit_id: UUID) -> Unit:
    """A unit: its parameters and its organization's hold-type catalog."""
    async with deps.uow() as uow:
        return await uow.units.get(unit_id)


OwnedRow = Literal["slot_waitlist", "capacity_waitlist", "walk_in", "queue_item"]
"""A row of a unit that authorization looks up: waitlist entries (a customer's own), walk-ins, staff-queue items."""


async def row_owner(deps: Deps, kind: OwnedRow, row_id: UUID) -> tuple[UUID, UUID | None] | None:
    """(unit, customer) of a waitlist entry, a walk-in or a staff-queue item (None: there is no such row)."""
    async with deps.uow() as uow:
        if kind == "queue_item":
            unit_id = await uow.queue.unit_of(row_id)
            return (unit_id, None) if unit_id is not None else None
        found: tuple[UUID, UUID | None] | None = await uow.waitlists.owner(kind, row_id)
        return found
