"""Grid blocks (issue 18): a resource taken out of sale over a range (maintenance, a tournament) and put back.

A block is an allocation without a booking, so the exclusion constraint (exclusive resources) and the pooled
counters (a block takes a pooled resource's whole capacity) make a block and a concurrent hold race-safe: one of
them wins. A block over live bookings is refused listing them. Blocks show as BLOCKED on the grid, are not
bookable, and arrive live on slotChanged (resource.blocked / resource.unblocked) and in the venue log."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from uuid import UUID

from domain.availability import slot_ranges
from domain.errors import ErrorCode, InvalidInput, NotFound
from domain.events import SeatsBlockChanged, SlotSpan
from domain.layout.common import live_over, note
from domain.layout.errors import BookingsInTheWay
from domain.layout.ports import AlreadyBlocked, GridBlock
from domain.ports import UnitOfWork
from domain.services.checks import require_aware
from domain.services.deps import Deps
from domain.units import Resource, ResourceKind, Unit
from domain.venue_log import ChangeAction

BLOCK_MAX = timedelta(days=366)
REASON_MAX = 2_000
"""As the API's text limit for reasons (api/graphql/text_limits.py)."""
LIST_MAX = timedelta(days=400)


def pool_slots(unit: Unit, resource: Resource, start: datetime, end: datetime) -> list[datetime]:
    """The starts of the resource's grid slots that overlap [start, end): a pooled block takes them whole."""
    day = timedelta(days=1)
    return [s for group in slot_ranges(unit, resource, start - day, end + day) for s, e in group
            if s < end and e > start]


def _event(block: GridBlock, blocked: bool, quantity: int, now: datetime) -> SeatsBlockChanged:
    return SeatsBlockChanged(block.unit_id, blocked, now, block.reason,
                             (SlotSpan(block.resource_id, block.starts_at, block.ends_at, quantity),),
                             scope="resource")


def _checked(starts_at: datetime, ends_at: datetime, reason: str, now: datetime) -> tuple[datetime, datetime, str]:
    require_aware(starts_at, "from")
    require_aware(ends_at, "to")
    start, end = starts_at.astimezone(UTC), ends_at.astimezone(UTC)
    if end <= start:
        raise InvalidInput("to", "`to` must be after `from`", code=ErrorCode.INVALID_RANGE)
    if end <= now:
        raise InvalidInput("to", "that range is over", code=ErrorCode.IN_THE_PAST)
    if end - start > BLOCK_MAX:
        raise InvalidInput("to", "a block spans at most 366 days", code=ErrorCode.RANGE_TOO_LONG)
    if len(reason) > REASON_MAX:
        raise InvalidInput("reason", f"a reason is at most {REASON_MAX} characters", code=ErrorCode.TOO_LONG)
    return start, end, reason.strip()


async def _resource(uow: UnitOfWork, resource_id: UUID) -> tuple[Unit, Resource]:
    row = await uow.layout.resource_row(resource_id)
    if row is None:
        raise NotFound("resource", resource_id, field="resourceId")
    return await uow.layout.fresh_unit(row.unit_id), row.resource()


async def block_resource(deps: Deps, resource_id: UUID, starts_at: datetime, ends_at: datetime, reason: str,
                         session: str) -> GridBlock:
    """Take the resource out of sale over [from, to); refused over live bookings (listing them) or another
    block."""
    now = deps.clock.now()
    start, end, why = _checked(starts_at, ends_at, reason, now)
    async with deps.uow() as uow:
        unit, resource = await _resource(uow, resource_id)
        await uow.bookings.lock_resources(unit.id, [resource.id])
        live = await live_over(uow, unit.id, [resource.id], start, end, now)
        if live:
            raise BookingsInTheWay("from", f"{resource.name} is booked in that range",
                                   [a.booking_id for a in sorted(live, key=lambda a: a.starts_at)])
        block = GridBlock(deps.new_id(), unit.id, resource.id, start, end, why, session, now)
        pooled = resource.kind is ResourceKind.POOLED
        try:
            await uow.layout.add_block(block, (resource.capacity, pool_slots(unit, resource, start, end))
                                       if pooled else None)
        except AlreadyBlocked:
            raise InvalidInput("from", f"{resource.name} is already blocked in part of that range",
                               code=ErrorCode.ALREADY_BLOCKED) from None
        await uow.events.notify(unit.id, _event(block, True, resource.capacity, now))
        await note(uow, unit.id, "block", block.id, ChangeAction.CREATED, session, now, after=dict(block.logged()))
        await uow.commit()
    return block


async def unblock_resource(deps: Deps, block_id: UUID, session: str) -> GridBlock:
    """Put the range back on sale."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        block = await uow.layout.block(block_id)
        if block is None:
            raise NotFound("block", block_id, field="blockId")
        unit, resource = await _resource(uow, block.resource_id)
        await uow.bookings.lock_resources(unit.id, [resource.id])
        await uow.layout.remove_block(block)
        await uow.events.notify(unit.id, _event(block, False, resource.capacity, now))
        await note(uow, unit.id, "block", block.id, ChangeAction.REMOVED, session, now, before=dict(block.logged()))
        await uow.commit()
    return block


async def blocks(deps: Deps, unit_id: UUID, starts_at: datetime, ends_at: datetime) -> list[GridBlock]:
    """The unit's grid blocks that overlap [from, to)."""
    require_aware(starts_at, "from")
    require_aware(ends_at, "to")
    if ends_at <= starts_at:
        raise InvalidInput("to", "`to` must be after `from`", code=ErrorCode.INVALID_RANGE)
    if ends_at - starts_at > LIST_MAX:
        raise InvalidInput("to", "the range may span at most 400 days", code=ErrorCode.RANGE_TOO_LONG)
    async with deps.uow() as uow:
        return await uow.layout.blocks(unit_id, starts_at, ends_at)


async def refuse_blocked(uow: UnitOfWork, unit_id: UUID, resource_id: UUID, starts_at: datetime,
                         ends_at: datetime) -> None:
    """Refuse a waitlist for a slot a block takes (no booking can free it)."""
    for o in await uow.bookings.occupancy(unit_id, [resource_id], starts_at, ends_at):
        if o.is_block:
            raise InvalidInput("startsAt", "that slot is blocked (out of sale): it has no waitlist",
                               code=ErrorCode.SLOT_BLOCKED)


async def retake_pools(uow: UnitOfWork, after: Unit, resources: list[Resource], now: datetime) -> None:
    """After the hours changed: each future block of a pooled resource takes whole the slots its range covers under
    the new hours (a newly opened slot inside a block is not for sale either)."""
    pooled = {r.id: r for r in resources if r.kind is ResourceKind.POOLED}
    if not pooled:
        return
    for block, taken in await uow.layout.pooled_blocks(after.id, list(pooled), now):
        r = pooled[block.resource_id]
        slots = pool_slots(after, r, block.starts_at, block.ends_at)
        if slots != taken:
            await uow.layout.retake(block, r.capacity, slots)
