"""What the use cases need from the outside world, as Protocols (implemented in store/)."""

from __future__ import annotations

from datetime import date, datetime
from types import TracebackType
from typing import Any, Protocol, Self
from uuid import UUID

from domain.availability import Occupancy, OccupancyColumns
from domain.bookings import Allocation, Booking
from domain.customers import Customer, CustomerIdentity
from domain.events import Fact
from domain.payments import ChargeLookup, ProviderCharge, ReceivedPix
from domain.units import OpeningWindow, Resource, Unit


class Clock(Protocol):
    """Where use cases read the time, once each."""

    def now(self) -> datetime: ...


class UnitRepository(Protocol):
    """Units and their resources (read-mostly configuration)."""

    async def get(self, unit_id: UUID) -> Unit: ...

    async def resources(self, unit_id: UUID) -> list[Resource]: ...

    async def resources_by_id(self, unit_id: UUID, ids: list[UUID]) -> dict[UUID, Resource]: ...

    async def capacity_by_hours(self, unit_id: UUID) -> dict[tuple[OpeningWindow, ...], int]: ...

    async def seat_resources(self, unit_id: UUID, ids: list[UUID]) -> dict[UUID, Resource]: ...


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

    async def history(self, booking_id: UUID, limit: int) -> list[Any]: ...

    async def add(self, booking: Booking, slot_starts: dict[UUID, list[datetime]]) -> None: ...

    async def save(self, booking: Booking) -> None: ...

    async def reoccupy(self, booking: Booking) -> None: ...

    async def link_reschedule(self, old: Booking, new: Booking, move_payments: bool, at: datetime) -> int: ...

    async def occupancy(
        self, unit_id: UUID, resource_ids: list[UUID] | None, start: datetime, end: datetime
    ) -> list[Occupancy]: ...

    async def grid_occupancy(
        self, unit_id: UUID, resource_ids: list[UUID] | None, start: datetime, end: datetime
    ) -> dict[UUID, OccupancyColumns]:
        """The same as occupancy(), as columns per resource (a month's grid reads thousands)."""
        ...


class CustomerRepository(Protocol):
    """Customers of a tenant, found or created by CPF / phone."""

    async def identify(self, tenant_id: UUID, identity: CustomerIdentity) -> Customer:
        """The record a request is for: its proof's own record, else found by CPF or phone (domain/customers)."""
        ...

    async def signed_in(self, tenant_id: UUID, channel: str, address: str, now: datetime, create: bool
                        ) -> UUID | None:
        """The record a sign-in code that reached `address` stands for, its contact now proved."""
        ...


class AntifraudRepository(Protocol):
    """What RN-HLD-05 reads (see store/antifraud.py)."""

    async def lock_customer(self, tenant_id: UUID, identity: CustomerIdentity,
                            also: tuple[frozenset[str], frozenset[str]] = ..., day: Any = None) -> Any: ...

    async def standing(self, tenant_id: UUID, identity: CustomerIdentity, now: datetime, since: datetime,
                       replacing: UUID | None) -> Any: ...

    async def resources(self, unit_id: UUID) -> list[Resource]: ...

    async def set_blacklisted(self, tenant_id: UUID, identity: CustomerIdentity, blacklisted: bool,
                              reason: str | None, actor: str, at: datetime) -> list[Any]: ...


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

    async def notify(self, unit_id: UUID, event: Fact) -> None:
        """Write the event's outbox row in the unit of work's transaction."""
        ...


class PaymentProvider(Protocol):
    """A Pix provider: the sandbox, a bank's standard Pix API, MercadoPago.

    Calls raise ProviderUnavailable when the provider fails; `parse_webhook` raises WebhookRejected
    for anything not authentic.
    """

    name: str

    async def create_charge(
        self, txid: str, amount_cents: int, expires_at: datetime, description: str
    ) -> ProviderCharge: ...

    async def cancel_charge(self, txid: str, provider_ref: str) -> None: ...

    async def lookup_charge(self, txid: str, provider_ref: str) -> ChargeLookup: ...

    async def parse_webhook(
        self, headers: dict[str, str], query: dict[str, str], body: bytes
    ) -> list[ReceivedPix]: ...

    async def refund(self, payment: ReceivedPix, amount_cents: int, refund_id: str) -> str: ...


class PaymentsRepository(Protocol):
    """Prices, policies, charges, payments, failure streaks, credits (see store/payments.py)."""

    async def current_price(self, unit_id: UUID, service_id: UUID) -> Any: ...

    async def current_policy(self, unit_id: UUID) -> Any: ...

    async def add_charge(self, c: Any) -> None: ...

    async def save_charge(self, c: Any, at: datetime) -> None: ...

    async def charge(self, charge_id: UUID) -> Any: ...

    async def charge_by_txid(self, txid: str) -> Any: ...

    async def charges_of(self, booking_id: UUID, limit: int | None = None) -> list[Any]: ...

    async def record_payment(self, provider: str, pix: ReceivedPix, unit_id: UUID | None, charge_id: UUID | None,
                             booking_id: UUID | None, outcome: str) -> UUID | None: ...

    async def set_outcome(self, payment_id: UUID, outcome: str, unit_id: UUID | None = None,
                          charge_id: UUID | None = None, booking_id: UUID | None = None) -> None: ...

    async def payment(self, payment_id: UUID) -> dict[str, Any]: ...

    async def add_credit(
        self, unit_id: UUID, customer_id: UUID | None, payment_id: UUID, amount_cents: int
    ) -> None: ...

    async def charge_failed(self, unit_id: UUID, today: Any, threshold: int) -> bool: ...

    async def charge_succeeded(self, unit_id: UUID) -> None: ...

    async def record_webhook(self, provider: str, authentic: bool, detail: str, payload: str) -> None: ...

    async def publish_price(self, unit_id: UUID, price: Any) -> int: ...

    async def publish_policy(self, unit_id: UUID, tiers: Any) -> int: ...

    async def verifying_charges(self) -> list[Any]: ...

    async def policy(self, unit_id: UUID, version: int) -> Any: ...

    async def refundable_payments(self, booking_id: UUID) -> list[dict[str, Any]]: ...

    async def add_refund(self, r: Any) -> bool: ...

    async def refunds_of(self, booking_id: UUID) -> list[Any]: ...

    async def refund(self, refund_id: UUID) -> Any: ...

    async def claim_refund(self, refund_id: UUID, now: datetime, lease_until: datetime) -> Any: ...

    async def stale_refunds(self, before: datetime, now: datetime, limit: int = 100) -> list[UUID]: ...

    async def finish_refund(self, refund_id: UUID, status: Any, now: datetime, provider_ref: str | None = None,
                            error: str | None = None) -> None: ...


class QueueRepository(Protocol):
    """The staff queue (see store/queue.py)."""

    async def open(self, unit_id: UUID, type_: Any, at: datetime, booking_id: UUID | None = None,
                   payload: dict[str, Any] | None = None) -> Any: ...

    async def acknowledge(self, item_id: UUID, actor: str, at: datetime) -> Any: ...

    async def resolve(self, item_id: UUID, actor: str, at: datetime, note: str | None = None) -> Any: ...

    async def resolve_for_booking(self, booking_id: UUID, type_: Any, actor: str, at: datetime, note: str) -> None: ...

    async def list(self, unit_id: UUID, statuses: list[str], limit: int = 200) -> list[Any]: ...

    async def open_daily(self, unit_id: UUID, type_: Any, day: date, at: datetime,
                         payload: dict[str, Any]) -> Any: ...


class UnitOfWork(Protocol):
    """One database transaction; nothing is kept unless `commit` is called."""

    units: UnitRepository
    bookings: BookingRepository
    customers: CustomerRepository
    idempotency: IdempotencyKeys
    events: Events
    payments: PaymentsRepository
    queue: QueueRepository
    antifraud: AntifraudRepository
    waitlists: Any
    """Slot and capacity waitlists and walk-in queues (store/waitlists.py)."""
    seatmaps: Any
    """Seat maps, events and seat blocks (domain.seatmaps.SeatMapRepository)."""

    def savepoint(self) -> Any: ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...

    async def commit(self) -> None: ...
