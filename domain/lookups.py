"""Objects read one at a time by id, for `node(id)` (resolvers/nodes.py), which checks access on the owner each
one names (its unit or its booking): each is None when there is no such object."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar
from uuid import UUID

from domain.errors import NotFound
from domain.layout.ports import GridBlock, GroupRow
from domain.payments import Charge
from domain.ports import UnitOfWork
from domain.refunds import Refund
from domain.seatmaps import SeatEvent, SeatMap
from domain.services.deps import Deps
from domain.staff_queue import QueueItem
from domain.staff_tokens import StaffToken
from domain.units import HoursException, Resource

T = TypeVar("T")


async def _read(deps: Deps, get: Callable[[UnitOfWork], Awaitable[T | None]]) -> T | None:
    try:
        async with deps.uow() as uow:
            return await get(uow)
    except NotFound:
        return None


async def charge(deps: Deps, charge_id: UUID) -> Charge | None:
    return await _read(deps, lambda uow: uow.payments.charge(charge_id))


async def refund(deps: Deps, refund_id: UUID) -> Refund | None:
    return await _read(deps, lambda uow: uow.payments.refund(refund_id))


async def queue_item(deps: Deps, item_id: UUID) -> QueueItem | None:
    return await _read(deps, lambda uow: uow.queue.get(item_id))


async def seat_map(deps: Deps, seat_map_id: UUID) -> SeatMap | None:
    return await _read(deps, lambda uow: uow.seatmaps.seat_map(seat_map_id))


async def seat_event(deps: Deps, event_id: UUID) -> SeatEvent | None:
    return await _read(deps, lambda uow: uow.seatmaps.event(event_id))


async def staff_token(deps: Deps, token_id: UUID) -> StaffToken | None:
    return await _read(deps, lambda uow: uow.staff_tokens.get(token_id))


async def tenant_unit(deps: Deps, tenant_id: UUID) -> UUID | None:
    """One unit of the tenant (the first), where its tenant-wide tokens are listed."""
    async with deps.uow() as uow:
        units = await uow.staff_tokens.tenant_units(tenant_id)
    return units[0] if units else None


async def hours_exception(deps: Deps, exception_id: UUID) -> tuple[UUID, HoursException] | None:
    """(its unit, the exception)."""
    return await _read(deps, lambda uow: uow.layout.exception(exception_id))


async def grid_block(deps: Deps, block_id: UUID) -> GridBlock | None:
    return await _read(deps, lambda uow: uow.layout.block(block_id))


async def resource_group(deps: Deps, group_id: UUID) -> GroupRow | None:
    return await _read(deps, lambda uow: uow.layout.group(group_id))


async def resource(deps: Deps, unit_id: UUID, resource_id: UUID) -> Resource | None:
    """An active resource of the unit: on its grid, or a seat of one of its seat maps."""
    async with deps.uow() as uow:
        found = await uow.units.resources_by_id(unit_id, [resource_id])
        if not found:
            found = await uow.units.seat_resources(unit_id, [resource_id])
    return found.get(resource_id)


async def walk_in(deps: Deps, entry_id: UUID) -> dict[str, Any] | None:
    """A walk-in entry's row."""
    return await _read(deps, lambda uow: uow.waitlists.walk_in(entry_id))
