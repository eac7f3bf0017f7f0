"""What the layout's use cases share: names, the lapsed holds a change must not count, the live bookings it must
not orphan, and the venue log."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

from domain import venue_log
from domain.bookings import Allocation
from domain.errors import ErrorCode, InvalidInput
from domain.layout.ports import LayoutRow, LiveAllocation
from domain.ports import UnitOfWork
from domain.services.deps import Deps
from domain.services.placing import expire_booking
from domain.venue_log import ChangeAction, JsonValue, VenueChange

NAME_MAX = 120
"""As the set-up's names (domain/setup.py); the API's own text limit (too_long) is wider."""


def checked_name(value: str, field: str) -> str:
    """A resource's or group's name: trimmed, 1 to NAME_MAX characters."""
    name = value.strip()
    if not name:
        raise InvalidInput(field, "a name is required", code=ErrorCode.REQUIRED)
    if len(name) > NAME_MAX:
        raise InvalidInput(field, f"a name is at most {NAME_MAX} characters", code=ErrorCode.INVALID_NAME)
    return name


async def live_over(uow: UnitOfWork, unit_id: UUID, resource_ids: list[UUID], start: datetime, end: datetime,
                    now: datetime) -> list[LiveAllocation]:
    """The live bookings over [start, end) of the (locked) resources, once the lapsed holds there are expired
    (guarantee 5: a hold past its deadline is not in anyone's way)."""
    if not resource_ids:
        return []
    wanted = [Allocation(r, start, end) for r in resource_ids]
    for stale in await uow.bookings.lapsed_overlapping(unit_id, wanted, now):
        if stale.is_lapsed(now):
            await expire_booking(uow, stale, now)
    return await uow.layout.live_allocations(unit_id, resource_ids, start, end)


async def note(uow: UnitOfWork, unit_id: UUID, entity: str, entity_id: UUID | str, action: ChangeAction,
               session: str, now: datetime, before: dict[str, JsonValue] | None = None,
               after: dict[str, JsonValue] | None = None) -> None:
    """Record the change in the venue log (and its live event), in this unit of work."""
    await venue_log.note(uow, unit_id, VenueChange(entity, str(entity_id), action, session, before, after), now)


async def unit_of(deps: Deps, kind: LayoutRow, row_id: UUID) -> UUID | None:
    """The unit of a layout row, for authorization (None: there is no such row)."""
    async with deps.uow() as uow:
        return await uow.layout.unit_of(kind, row_id)
