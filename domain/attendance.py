"""After the start (SPEC §11): no-show suggestions, a person marking the no-show, appointment reminders.

A job raises a "Possível falta" staff-queue item once start + `no_show_grace` passed with no check-in; only a
person moves the booking to `no_show` (`mark_no_show`), which closes the suggestion in the same transaction.
"""

from __future__ import annotations

from uuid import UUID

from domain.errors import ErrorCode, InvalidInput, InvalidTransition
from domain.services import BookingResult, Deps, released
from domain.staff_queue import QueueItemType


async def mark_no_show(deps: Deps, booking_id: UUID, actor: str = "staff") -> BookingResult:
    """Staff: the customer of a confirmed booking did not come. Refused before the start (InvalidInput
    `not_started`) and from any state but confirmed (InvalidTransition). Frees the resources at once."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        booking = await uow.bookings.get(booking_id)
        if now < booking.starts_at:
            raise InvalidInput("bookingId", "a booking can be marked as a no-show only after it starts",
                               code=ErrorCode.NOT_STARTED)
        booking.mark_no_show(now, actor)
        await uow.bookings.save(booking)
        await uow.queue.resolve_for_booking(booking.id, QueueItemType.NO_SHOW_SUGGESTION, actor, now,
                                            "falta confirmada")
        await uow.commit()
    await released(deps, booking)
    return BookingResult(booking)


async def close_stale_suggestions(deps: Deps, stale: list[tuple[UUID, str]]) -> int:
    """Resolve suggestions whose booking moved on (checked in after all, cancelled): nobody needs to decide."""
    now = deps.clock.now()
    closed = 0
    for item_id, status in stale:
        async with deps.uow() as uow:
            try:
                await uow.queue.resolve(item_id, "system", now, f"a reserva ficou {status}")
            except InvalidTransition:
                continue  # resolved meanwhile
            await uow.commit()
            closed += 1
    return closed
