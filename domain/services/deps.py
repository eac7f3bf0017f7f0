"""What every use case is handed (`Deps`), and the hook a use case calls after freeing a booking's resources."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from uuid import UUID, uuid4

from domain.bookings import Booking
from domain.ports import Clock, PaymentProvider, PhoneNumbers, UnitOfWork

UowFactory = Callable[[], UnitOfWork]
"""`async with deps.uow() as uow:` is one transaction: nothing is written unless `await uow.commit()` runs in it."""


@dataclass(frozen=True)
class Deps:
    """What every use case is handed: a unit-of-work factory, a clock and an id source."""

    uow: UowFactory
    clock: Clock
    new_id: Callable[[], UUID] = uuid4
    provider: PaymentProvider | None = None
    """The Pix provider charges go to (None: no payments can be taken)."""
    on_release: Callable[[Deps, Booking], Awaitable[None]] | None = None
    """Called after a transaction that freed a booking's resources (the waitlists promote the next in line)."""
    phones: PhoneNumbers | None = None
    """Reads typed phone numbers (None: only E.164 as typed is accepted, domain.customers.normalize_phone)."""
    public_base_url: str = "http://127.0.0.1:8000"
    """Where customers reach the server, without a trailing slash: the claim links of offers start with it."""


async def released(deps: Deps, booking: Booking) -> None:
    """Tell whoever waits for freed resources (best effort: a sweep catches anything missed)."""
    if deps.on_release is not None and not booking.occupies:
        await deps.on_release(deps, booking)
