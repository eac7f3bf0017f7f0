"""What the use cases need from the outside world, as Protocols (implemented in store/)."""

from __future__ import annotations

from datetime import datetime
from types import TracebackType
from typing import Any, Protocol, Self
from uuid import UUID

from domain.availability import Occupancy
from domain.bookings import Allocation, Booking
from domain.customers import Customer, CustomerIdentity
from domain.units import Resource, Unit


class Clock(Protocol):
    """Where use cases read the time, once each."""

    def now(self) -> datetime: ...


class UnitRepository(Protocol):
    """Units and their resources (read-mostly configuration)."""

    async def get(self, unit_id: UUID) -> Unit: ...

    async def resources(self, unit_id: UUID) -> list[Resource]: ...

    async def resources_by_id(self, unit_id: UUID, ids: list[UUID]) -> dict[UUID, Resource]: ...


class BookingRepository(Protocol):
    """Bookings and the allocations that occupy resources."""

    async def get(self, booking_id: UUID) -> Booking: ...

    async def find(self, booking_id: UUID) -> Booking: ...

    async def lock_resources(self, unit_id: UUID, resource_ids: list[UUID]) -> None: ...

    async def lapsed_overlapping(
        self, unit_id: UUID, allocations: list[Allocation], now: datetime
    ) -> list[Booking]: ...

    async def lapsed(self, now: datetime, limit: int) -> list[Booking]: ...

    async def past_checked_in(self, now: datetime, limit: int) -> list[Booking]: ...

    async def claim_reminder(self, booking_id: UUID, now: datetime) -> Booking | None: ...

    async def add(self, booking: Booking, slot_starts: dict[UUID, list[datetime]]) -> None: ...

    async def save(self, booking: Booking) -> None: ...

    async def occupancy(
        self, unit_id: UUID, resource_ids: list[UUID] | None, start: datetime, end: datetime
    ) -> list[Occupancy]: ...


class CustomerRepository(Protocol):
    """Customers of a tenant, found or created by CPF / phone."""

    async def identify(self, tenant_id: UUID, identity: CustomerIdentity) -> Customer: ...


class IdempotencyKeys(Protocol):
    """Stored results of requests that carried an idempotency key."""

    async def claim(
        self, unit_id: UUID, key: str, operation: str, fingerprint: str, expires_at: datetime
    ) -> dict[str, Any] | None: ...

    async def complete(self, unit_id: UUID, key: str, response: dict[str, Any]) -> None: ...


class Events(Protocol):
    """A unit's numbered events, and new outbox rows."""

    async def since(self, unit_id: UUID, seq: int, limit: int = 1000) -> list[Any]: ...

    async def last_seq(self, unit_id: UUID) -> int: ...

    async def notify(self, unit_id: UUID, topic: str, payload: dict[str, Any]) -> None: ...


class UnitOfWork(Protocol):
    """One database transaction; nothing is kept unless `commit` is called."""

    units: UnitRepository
    bookings: BookingRepository
    customers: CustomerRepository
    idempotency: IdempotencyKeys
    events: Events

    async def __aenter__(self) -> Self: ...

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...

    async def commit(self) -> None: ...
