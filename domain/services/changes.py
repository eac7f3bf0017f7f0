"""Changes of one booking's state (SPEC §3, §11): cancel, drop, check-in, completion."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from domain import refunds
from domain.bookings import Booking, BookingStatus
from domain.errors import CheckInOutsideWindow, ErrorCode, InvalidInput, InvalidTransition
from domain.hold_types import Releaser
from domain.ports import UnitOfWork
from domain.services.checks import check_key
from domain.services.deps import Deps, released
from domain.services.holds import BookingResult
from domain.services.idempotency import remember, replay
from domain.services.placing import expire_booking


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
                  after: Callable[[UnitOfWork, Booking, datetime], Awaitable[object]] | None = None,
                  before: Callable[[UnitOfWork, Booking, datetime], Awaitable[None]] | None = None) -> BookingResult:
    now = deps.clock.now()
    check_key(cmd.idempotency_key)
    async with deps.uow() as uow:
        booking = await uow.bookings.get(cmd.booking_id)
        stored = await replay(uow, booking.unit_id, cmd.idempotency_key, operation, cmd, now)
        if stored is not None:
            return BookingResult(stored, replayed=True)
        if booking.is_lapsed(now):
            # Guarantee 5: past its deadline the hold is over, whatever the jobs have done so far.
            await expire_booking(uow, booking, now)
            await uow.commit()
            raise InvalidTransition(BookingStatus.EXPIRED.value, TARGETS[operation].value, operation)
        if operation in RELEASES:
            await check_release(uow, booking, cmd.releaser)
        if before is not None:
            await before(uow, booking, now)
        apply(booking, now)
        await uow.bookings.save(booking)
        if after is not None:
            await after(uow, booking, now)
        await remember(uow, booking.unit_id, cmd.idempotency_key, booking)
        await uow.commit()
    await released(deps, booking)
    return BookingResult(booking)


RELEASES = frozenset({"cancel", "drop"})
TARGETS = {"cancel": BookingStatus.CANCELLED, "drop": BookingStatus.CANCELLED, "checkIn": BookingStatus.CHECKED_IN,
           "complete": BookingStatus.COMPLETED}
"""The state each change leads to (what an InvalidTransition names as its target)."""


async def cancel(deps: Deps, cmd: ChangeCommand) -> BookingResult:
    """Cancel a booking; its slot is free at once. A paid booking's refund is recorded in the same transaction by
    the policy version the customer accepted, and asked of the provider after commit (domain/refunds.py)."""

    async def refund(uow: UnitOfWork, b: Booking, now: datetime) -> object:
        made = await refunds.on_cancel(uow, b, now, deps.new_id)
        if b.series_id is not None:  # the period's Pix may have gone with it (it hangs on the period's first booking)
            from domain.services.series import recharge_moved  # (series builds on this module)

            await recharge_moved(uow, [b])
        return made

    return await _change(deps, cmd, "cancel", lambda b, now: b.cancel(now, cmd.actor, cmd.reason), refund)


async def drop(deps: Deps, cmd: ChangeCommand) -> BookingResult:
    """Staff drop a hold ("Derrubar hold") with a reason."""
    if not cmd.reason or not cmd.reason.strip():
        raise InvalidInput("reason", "dropping a hold needs a reason", code=ErrorCode.REASON_REQUIRED)
    return await _change(deps, cmd, "drop", lambda b, now: b.drop(now, cmd.actor, cmd.reason or ""))


async def check_in(deps: Deps, cmd: ChangeCommand) -> BookingResult:
    """The customer arrived: only inside the unit's check-in window, from `check_in_opens` before the start until
    the end (CheckInOutsideWindow otherwise; issue 20)."""

    async def inside_window(uow: UnitOfWork, b: Booking, now: datetime) -> None:
        if b.status is not BookingStatus.CONFIRMED:
            return  # the move itself refuses it, as InvalidTransition
        opens = b.starts_at - (await uow.units.get(b.unit_id)).params.check_in_opens
        if not opens <= now < b.ends_at:
            raise CheckInOutsideWindow(b.status.value, opens, b.ends_at, now)

    return await _change(deps, cmd, "checkIn", lambda b, now: b.check_in(now, cmd.actor), before=inside_window)


async def complete(deps: Deps, cmd: ChangeCommand) -> BookingResult:
    """The customer was attended."""
    return await _change(deps, cmd, "complete", lambda b, now: b.complete(now, cmd.actor))
