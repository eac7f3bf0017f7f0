"""What runs by the clock: lapsed holds expired, one-time reminders, checked-in bookings completed (SPEC §6, §11)."""

from __future__ import annotations

from uuid import UUID

from domain.bookings import BookingStatus
from domain.errors import NotFound
from domain.events import HoldReminderDue
from domain.services.deps import Deps, released
from domain.services.placing import expire_booking


async def expire_lapsed(deps: Deps, limit: int = 200) -> int:
    """Mark holds past their deadline as expired (the sweep; availability never waits for it)."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        due = await uow.bookings.lapsed(now, limit)
        for b in due:
            await expire_booking(uow, b, now)
        await uow.commit()
    for b in due:
        await released(deps, b)
    return len(due)


async def expire_hold(deps: Deps, booking_id: UUID) -> bool:
    """Expire one hold at its deadline; a no-op when it was settled or its deadline moved."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        try:
            booking = await uow.bookings.get(booking_id)
        except NotFound:
            return False
        if not booking.is_lapsed(now):
            return False
        await expire_booking(uow, booking, now)
        await uow.commit()
    await released(deps, booking)
    return True


HOLD_REMINDER_TEXT = "Pagamento perto de expirar"


async def remind_hold(deps: Deps, booking_id: UUID) -> bool:
    """Tell the customer once that the hold is about to expire (RN-HLD-08)."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        booking = await uow.bookings.claim_reminder(booking_id, now)
        if booking is None:
            return False
        await uow.events.notify(booking.unit_id, HoldReminderDue(booking.id, booking.customer_id,
                                                                 booking.hold_expires_at, HOLD_REMINDER_TEXT))
        await uow.commit()
    return True


async def complete_past(deps: Deps, limit: int = 200) -> int:
    """Complete checked-in bookings whose time is over (SPEC §11), and the confirmed ones of units without a
    check-in step (`check_in_required` off, issue 18)."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        due = await uow.bookings.past_checked_in(now, limit)
        for b in due:
            if b.status is BookingStatus.CONFIRMED:
                b.complete_unattended(now)
            else:
                b.complete(now, "system")
            await uow.bookings.save(b)
        await uow.commit()
    return len(due)
