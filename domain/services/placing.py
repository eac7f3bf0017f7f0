"""Placing a booking: the one path every new booking takes inside its transaction (SPEC §4).

`place` locks the resources (always in the same order: resources, then bookings), expires the lapsed holds that
overlap (guarantee 5: a hold past its deadline is free to others even before a job expires it), lets the caller
make the booking under the lock, and adds it; the exclusion constraint and the pooled counters refuse a double
booking with SlotTaken. Holds, counter bookings, box-office sales, seat holds, swaps, reschedules and waitlist
offers all come through here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from datetime import datetime
from uuid import UUID

from domain.bookings import Allocation, Booking, BookingStatus
from domain.ports import UnitOfWork
from domain.staff_queue import QueueItemType

Make = Callable[[], Awaitable[Booking]]
"""Makes the new booking once the resources are locked and lapsed holds expired (and may change other rows of
the transaction first: a swap cancels the old hold there, a reschedule the old booking)."""


async def place(uow: UnitOfWork, unit_id: UUID, allocations: list[Allocation], now: datetime,
                make: Make | Booking, pooled: Mapping[UUID, list[datetime]], *, spare: UUID | None = None,
                savepoint: bool = False) -> Booking:
    """Lock → expire lapsed → make → add; returns the booking added. `pooled` gives the slot starts per pooled
    resource (their counters); `spare` is a booking the caller handles itself (a reschedule's old one); with
    `savepoint` a SlotTaken leaves the rest of the transaction usable (a waitlist tries the next in line).

    A booking made beforehand (`make` a Booking) takes one round trip when no lapsed hold is in its way: the lock,
    the lapsed check and the insert are one statement (`lock_and_add`)."""
    if isinstance(make, Booking) and not savepoint:
        in_the_way = await uow.bookings.lock_and_add(make, dict(pooled), now)
        if not in_the_way:
            return make
        await _expire_lapsed(uow, in_the_way, now, spare)
        await uow.bookings.add(make, dict(pooled))
        return make
    await uow.bookings.lock_resources(unit_id, list(dict.fromkeys(a.resource_id for a in allocations)))
    await _expire_lapsed(uow, await uow.bookings.lapsed_overlapping(unit_id, allocations, now), now, spare)
    booking = make if isinstance(make, Booking) else await make()
    if savepoint:
        async with uow.savepoint():
            await uow.bookings.add(booking, dict(pooled))
    else:
        await uow.bookings.add(booking, dict(pooled))
    return booking


async def _expire_lapsed(uow: UnitOfWork, found: list[Booking], now: datetime, spare: UUID | None) -> None:
    for stale in found:
        if stale.id != spare and stale.is_lapsed(now):  # a sweep may have expired it while we waited for the lock
            await expire_booking(uow, stale, now)


async def expire_booking(uow: UnitOfWork, booking: Booking, now: datetime, actor: str = "system") -> None:
    """Expire a booking and close what waited on it (a "paguei" item: the claim ran out)."""
    was_verifying = booking.status is BookingStatus.VERIFYING
    booking.expire(now, actor)
    await uow.bookings.save(booking)
    if was_verifying:
        await uow.queue.resolve_for_booking(booking.id, QueueItemType.CUSTOMER_SAYS_PAID, actor, now,
                                            "expirou sem o PIX aparecer")
