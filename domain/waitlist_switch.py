"""Waitlists on or off per resource and per seat event (issue 18, seed 003's `waitlist_enabled`).

Owners turn a waitlist off: joining it is then refused (`waitlist_disabled`) and no offer is made from its line;
turned on again, the sweep (domain/waitlist.sweep_waitlists) offers what is free to those still waiting.
"""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from domain import venue_log
from domain.errors import ErrorCode, InvalidInput, NotFound
from domain.ports import UnitOfWork
from domain.services import Deps
from domain.venue_log import ChangeAction, VenueChange

TARGETS = {"resource": "resourceId", "seat_event": "seatEventId"}
"""What has a waitlist switch, and the argument naming it."""


@dataclass(frozen=True)
class WaitlistSwitch:
    """Turn the waitlist of one resource or seat event (`target`) of `unit_id` on or off."""

    unit_id: UUID
    target: str
    target_id: UUID
    enabled: bool
    session: str


async def unit_of(deps: Deps, target: str, target_id: UUID) -> UUID:
    """The unit of a resource or a seat event (to authorize the caller before the change); NotFound naming it."""
    async with deps.uow() as uow:
        found = await uow.waitlists.unit_of(target, target_id)
    if found is None:
        raise NotFound(target.replace("_", " "), target_id, field=TARGETS[target])
    return found


async def set_waitlist_enabled(deps: Deps, cmd: WaitlistSwitch) -> bool:
    """Apply the switch, logged with who made it when it changes something (domain/venue_log.py); returns the new
    value."""
    async with deps.uow() as uow:
        found = await uow.waitlists.switch(cmd.target, cmd.target_id, cmd.enabled)
        if found is None or found[0] != cmd.unit_id:
            raise NotFound(cmd.target.replace("_", " "), cmd.target_id, field=TARGETS[cmd.target])
        if found[1] != cmd.enabled:
            await venue_log.note(uow, cmd.unit_id, VenueChange(
                cmd.target, str(cmd.target_id), ChangeAction.UPDATED, cmd.session,
                {"waitlistEnabled": found[1]}, {"waitlistEnabled": cmd.enabled}), deps.clock.now())
        await uow.commit()
    return cmd.enabled


async def require_enabled(uow: UnitOfWork, unit_id: UUID, resource_id: UUID) -> None:
    """Refuse to join the waitlist of a resource whose owner turned it off."""
    if not await uow.waitlists.enabled(unit_id, resource_id):
        raise InvalidInput("resourceId", "this resource's waitlist is turned off by the venue",
                           code=ErrorCode.WAITLIST_DISABLED)
