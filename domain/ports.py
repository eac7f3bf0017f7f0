"""What the use cases and jobs need from the outside world, as Protocols (implemented in store/ — store/conformance.py
has mypy check each implementation — and providers/)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from datetime import date, datetime, timedelta
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol, Self
from uuid import UUID

from domain.availability import Occupancy, OccupancyColumns
from domain.bookings import Allocation, Booking, HistoryEntry
from domain.customers import Customer, CustomerIdentity
from domain.events import Fact, LoginCodeSent
from domain.notifications import Delivery
from domain.notifications import DeliveryStore as NotificationDeliveryStore
from domain.outbox import OutboxEvent
from domain.payments import Charge, ChargeLookup, PaymentRow, Price, ProviderCharge, ReceivedPix
from domain.policies import CancellationPolicy, Tier
from domain.staff_queue import QueueItem, QueueItemType
from domain.units import OpeningWindow, Resource, Unit
from domain.webhooks_out import DeliveryStore as WebhookDeliveryStore

if TYPE_CHECKING:  # these modules use the ports themselves
    from domain.fraud import DayWindow, Locked, Standing
    from domain.refunds import Refund, RefundStatus
    from domain.seatmaps import SeatMapRepository


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

    async def history(self, booking_id: UUID, limit: int) -> list[HistoryEntry]: ...

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

    async def identity_of(self, customer_id: UUID) -> CustomerIdentity | None:
        """The stored identity of a customer (None: no such record)."""
        ...


class WaitlistRepository(Protocol):
    """Slot and capacity waitlists and walk-in queues (store/waitlists.py). Entries are rows as the API shows them:
    their columns, with `during` as starts_at/ends_at."""

    async def owner(self, line: str, entry_id: UUID) -> tuple[UUID, UUID | None] | None:
        """(unit, customer) of an entry of `line` (slot_waitlist, capacity_waitlist, walk_in); None: no such entry."""
        ...

    async def join_slot(self, unit_id: UUID, resource_id: UUID, starts_at: datetime, ends_at: datetime,
                        customer_id: UUID, at: datetime) -> dict[str, Any]: ...

    async def slot_line(self, unit_id: UUID, resource_id: UUID, starts_at: datetime, ends_at: datetime
                        ) -> list[dict[str, Any]]: ...

    async def slot_offer_of(self, booking_id: UUID) -> dict[str, Any] | None: ...

    async def set_slot_status(self, entry_id: UUID, status: str, at: datetime,
                              offer_booking_id: UUID | None = None) -> None: ...

    async def waiting_slots(self, now: datetime, limit: int = 200) -> list[dict[str, Any]]: ...

    async def slot_position(self, entry_id: UUID) -> dict[str, Any]: ...

    async def unit_slot_lists(self, unit_id: UUID, limit: int | None = None) -> list[dict[str, Any]]: ...

    async def set_service(self, entry_id: UUID, service_id: UUID) -> None: ...

    async def waiting_slots_overlapping(self, unit_id: UUID, resource_id: UUID, starts_at: datetime,
                                        ends_at: datetime) -> list[dict[str, Any]]: ...

    async def join_capacity(self, unit_id: UUID, resource_id: UUID, starts_at: datetime, ends_at: datetime,
                            user_ref: str, customer_id: UUID | None, service_id: UUID | None, party_size: int,
                            at: datetime) -> dict[str, Any]: ...

    async def capacity_entry(self, entry_id: UUID) -> dict[str, Any]: ...

    async def capacity_line(self, unit_id: UUID, resource_id: UUID, starts_at: datetime, ends_at: datetime
                            ) -> list[dict[str, Any]]: ...

    async def capacity_lines(self, now: datetime) -> list[dict[str, Any]]: ...

    async def set_capacity(self, entry_id: UUID, status: str) -> None: ...

    async def offer_capacity(self, entry_id: UUID, token: str, expires_at: datetime, booking_id: UUID) -> None: ...

    async def capacity_by_token(self, unit_id: UUID, token: str) -> dict[str, Any] | None: ...

    async def add_walk_in(self, unit_id: UUID, area: str, name: str, phone: str, party_size: int,
                          at: datetime) -> dict[str, Any]: ...

    async def walk_in(self, entry_id: UUID) -> dict[str, Any]: ...

    async def walk_in_by_token(self, unit_id: UUID, token: str) -> dict[str, Any] | None: ...

    async def set_walk_in(self, entry_id: UUID, status: str, at: datetime, token: str | None = None
                          ) -> dict[str, Any]: ...

    async def walk_ins(self, unit_id: UUID, limit: int | None = None) -> list[dict[str, Any]]: ...


class AntifraudRepository(Protocol):
    """What RN-HLD-05 reads (see store/antifraud.py)."""

    async def lock_customer(self, tenant_id: UUID, identity: CustomerIdentity,
                            also: tuple[frozenset[str], frozenset[str]] = ..., day: DayWindow | None = None
                            ) -> Locked: ...

    async def standing(self, tenant_id: UUID, identity: CustomerIdentity, now: datetime, since: datetime,
                       replacing: UUID | None) -> Standing: ...

    async def resources(self, unit_id: UUID) -> list[Resource]: ...

    async def set_blacklisted(self, tenant_id: UUID, identity: CustomerIdentity, blacklisted: bool,
                              reason: str | None, actor: str, at: datetime) -> list[dict[str, Any]]:
        """The customer records as they are now (id, cpf, phone, name and the blacklist columns), for the API."""
        ...


class IdempotencyKeys(Protocol):
    """Stored results of requests that carried an idempotency key."""

    async def claim(
        self, unit_id: UUID, key: str, operation: str, fingerprint: str, expires_at: datetime
    ) -> dict[str, Any] | None: ...

    async def complete(self, unit_id: UUID, key: str, response: dict[str, Any]) -> None: ...


class Events(Protocol):
    """A unit's numbered events, and new outbox rows."""

    async def since(self, unit_id: UUID, seq: int, limit: int = 1000) -> list[OutboxEvent]: ...

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

    async def current_price(self, unit_id: UUID, service_id: UUID) -> Price: ...

    async def current_policy(self, unit_id: UUID) -> CancellationPolicy: ...

    async def add_charge(self, c: Charge) -> None: ...

    async def save_charge(self, c: Charge, at: datetime) -> None: ...

    async def charge(self, charge_id: UUID) -> Charge: ...

    async def charge_by_txid(self, txid: str) -> Charge | None: ...

    async def charges_of(self, booking_id: UUID, limit: int | None = None) -> list[Charge]: ...

    async def record_payment(self, provider: str, pix: ReceivedPix, unit_id: UUID | None, charge_id: UUID | None,
                             booking_id: UUID | None, outcome: str) -> UUID | None: ...

    async def set_outcome(self, payment_id: UUID, outcome: str, unit_id: UUID | None = None,
                          charge_id: UUID | None = None, booking_id: UUID | None = None) -> None: ...

    async def payment(self, payment_id: UUID) -> PaymentRow: ...

    async def add_credit(
        self, unit_id: UUID, customer_id: UUID | None, payment_id: UUID, amount_cents: int
    ) -> None: ...

    async def charge_failed(self, unit_id: UUID, today: date, threshold: int) -> bool: ...

    async def charge_succeeded(self, unit_id: UUID) -> None: ...

    async def record_webhook(self, provider: str, authentic: bool, detail: str, payload: str) -> None: ...

    async def publish_price(self, unit_id: UUID, price: Price) -> int: ...

    async def publish_policy(self, unit_id: UUID, tiers: tuple[Tier, ...]) -> int: ...

    async def verifying_charges(self) -> list[Charge]: ...

    async def policy(self, unit_id: UUID, version: int) -> CancellationPolicy: ...

    async def refundable_payments(self, booking_id: UUID) -> list[PaymentRow]: ...

    async def add_refund(self, r: Refund) -> bool: ...

    async def refunds_of(self, booking_id: UUID) -> list[Refund]: ...

    async def refund(self, refund_id: UUID) -> Refund: ...

    async def claim_refund(self, refund_id: UUID, now: datetime, lease_until: datetime) -> Refund | None: ...

    async def stale_refunds(self, before: datetime, now: datetime, limit: int = 100) -> list[UUID]: ...

    async def finish_refund(self, refund_id: UUID, status: RefundStatus, now: datetime, provider_ref: str | None = None,
                            error: str | None = None) -> None: ...


class QueueRepository(Protocol):
    """The staff queue (see store/queue.py)."""

    async def open(self, unit_id: UUID, type_: QueueItemType, at: datetime, booking_id: UUID | None = None,
                   payload: dict[str, Any] | None = None) -> QueueItem: ...

    async def acknowledge(self, item_id: UUID, actor: str, at: datetime) -> QueueItem: ...

    async def resolve(self, item_id: UUID, actor: str, at: datetime, note: str | None = None) -> QueueItem: ...

    async def resolve_for_booking(self, booking_id: UUID, type_: QueueItemType, actor: str, at: datetime,
                                 note: str) -> None: ...

    async def list(self, unit_id: UUID, statuses: list[str], limit: int = 200) -> list[QueueItem]: ...

    async def unit_of(self, item_id: UUID) -> UUID | None:
        """The unit of a queue item (None: there is no such item)."""
        ...

    async def open_daily(self, unit_id: UUID, type_: QueueItemType, day: date, at: datetime,
                         payload: dict[str, Any]) -> QueueItem | None: ...


class UnitOfWork(Protocol):
    """One database transaction; nothing is kept unless `commit` is called."""

    # Read-only (properties): a use case reads its repositories from the unit of work and never replaces one, and
    # an implementation may then offer a subtype of each (a mutable attribute would have to be exactly this type).
    @property
    def units(self) -> UnitRepository: ...
    @property
    def bookings(self) -> BookingRepository: ...
    @property
    def customers(self) -> CustomerRepository: ...
    @property
    def idempotency(self) -> IdempotencyKeys: ...
    @property
    def events(self) -> Events: ...
    @property
    def payments(self) -> PaymentsRepository: ...
    @property
    def queue(self) -> QueueRepository: ...
    @property
    def antifraud(self) -> AntifraudRepository: ...
    @property
    def waitlists(self) -> WaitlistRepository:
        """Slot and capacity waitlists and walk-in queues (store/waitlists.py)."""
        ...
    @property
    def seatmaps(self) -> SeatMapRepository:
        """Seat maps, events and seat blocks (domain.seatmaps.SeatMapRepository)."""
        ...

    def savepoint(self) -> AbstractAsyncContextManager[object]:
        """A nested transaction (a SAVEPOINT): leaving it by an exception undoes only what was done in it."""
        ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...

    async def commit(self) -> None: ...


# --- outside a unit of work: sign-in, the jobs' stores, the relay's outbox ------------------------------------------

class LoginCode(Protocol):
    """The newest open login code of a destination (store/access.py keeps only its HMAC)."""

    @property
    def id(self) -> UUID: ...
    @property
    def attempts(self) -> int: ...

    def matches(self, code: str) -> bool: ...


class LoginAccess(Protocol):
    """Customer sign-in codes and sessions (store/access.py's PgAccess), each call committed on its own."""

    async def codes_sent_since(self, unit_id: UUID, destination: str, since: datetime) -> int: ...

    async def add_code(self, unit_id: UUID, destination: str, code: str, now: datetime, ttl: timedelta,
                       message: LoginCodeSent | None) -> None:
        """Store a code (earlier open ones of the destination stop working) and its message in the outbox."""
        ...

    async def open_code(self, unit_id: UUID, destination: str, now: datetime) -> LoginCode | None: ...

    async def count_attempt(self, code_id: UUID) -> None: ...

    async def use_code(self, code_id: UUID, now: datetime) -> bool:
        """Mark the code used; False when another request used it first."""
        ...

    async def customer_by_email(self, tenant_id: UUID, email: str) -> UUID | None: ...

    async def open_session(self, unit_id: UUID, tenant_id: UUID, customer_id: UUID, now: datetime,
                           ttl: timedelta) -> tuple[UUID, str]:
        """A new customer session: (its id, its bearer token — returned this once)."""
        ...


class NotificationDeliveries(NotificationDeliveryStore, Protocol):
    """The record of notification deliveries as the jobs use it (store/notifications.py's PgDeliveries)."""

    async def due(self, now: datetime, limit: int = 200) -> list[UUID]:
        """Deliveries due now (claims whose worker died are released first: they are due again)."""
        ...

    async def prune(self, before: datetime) -> int:
        """Forget sent and failed deliveries created before `before`; returns how many."""
        ...

    async def get(self, delivery_id: UUID) -> dict[str, Any] | None:
        """The delivery's row (notification_deliveries' columns), or None."""
        ...


class InAppNotifications(Protocol):
    """Where in-app notifications are kept (store/in_app.py)."""

    async def add(self, delivery: Delivery, now: datetime) -> UUID | None:
        """Keep the delivery's notification (once per delivery) and announce it on the unit's live feed; None when
        it was already kept."""
        ...


class WebhookDeliveries(WebhookDeliveryStore, Protocol):
    """The log of outgoing webhook deliveries as the jobs use it (store/webhooks_out.py's PgWebhooks)."""

    async def delivery(self, delivery_id: UUID) -> dict[str, Any] | None:
        """The delivery as its log shows it (status, attempts, next attempt, last response...), or None."""
        ...

    async def due(self, now: datetime, limit: int = 500) -> list[tuple[UUID, int]]:
        """Deliveries whose attempt is due (or whose sender died): (id, attempts done)."""
        ...

    async def prune(self, before: datetime) -> int:
        """Forget finished deliveries created before `before`; returns how many."""
        ...


class AttendanceSweeps(Protocol):
    """The attendance sweeps (store/attendance.py): each one keyed statement, so a sweep run twice does nothing
    twice."""

    async def raise_no_show_suggestions(self, now: datetime, limit: int = 500) -> int:
        """Open a "Possível falta" item for each confirmed booking past start + grace with no check-in; how many."""
        ...

    async def stale_suggestions(self, limit: int = 500) -> list[tuple[UUID, str]]:
        """Open suggestions whose booking is no longer confirmed: (item, booking status)."""
        ...

    async def send_appointment_reminders(self, now: datetime, limit: int = 500) -> int:
        """Write the appointment reminders that are due (outbox `notification` rows); how many."""
        ...


class Retention(Protocol):
    """Forgetting what has served its purpose (store/outbox.py)."""

    async def prune(self, published_before: datetime, now: datetime) -> tuple[int, int]:
        """Delete published outbox rows created before `published_before` and idempotency keys expired at `now`:
        (outbox rows, keys) deleted."""
        ...


class StoreError(Exception):
    """The database failed or refused a statement: what an adapter raises in place of its driver's errors where
    its caller goes on without what failed (the relay: an event's webhooks, or its next pass)."""


class OutboxFeed(Protocol):
    """The relay's own connection to the outbox (store/relay.py). Raises StoreError when the database fails or
    refuses a statement, ConnectionError (an OSError) when the connection is gone."""

    async def lead(self) -> bool:
        """Try to become the one relay that leads (True: this feed leads until it closes)."""
        ...

    async def listen(self, wake: Callable[[], object]) -> None:
        """Call `wake` whenever outbox rows are committed."""
        ...

    async def sequence_pending(self) -> int:
        """Number committed, unnumbered rows per unit (in a transaction of its own); how many."""
        ...

    async def unpublished(self) -> list[OutboxEvent]:
        """Numbered rows not yet published, oldest first (a batch)."""
        ...

    async def mark_published(self, ids: list[int], at: datetime) -> None: ...

    async def schedule_webhooks(self, events: list[OutboxEvent], now: datetime) -> list[tuple[UUID, int]]:
        """A pending delivery per subscribed endpoint and event, in one transaction (an event relayed twice is
        scheduled once): the new deliveries as (id, attempts done)."""
        ...

    async def plan_notifications(self, event: OutboxEvent, now: datetime) -> list[UUID]:
        """The notification deliveries the event asks for, planned once; the new ones' ids. Raises MalformedEvent
        (a ValueError) on a row whose notice cannot be planned."""
        ...


class OutboxSource(Protocol):
    """Where the relay finds the outbox and where it publishes its rows (store/relay.py)."""

    @property
    def channel(self) -> str:
        """The Redis channel the rows are published on (every API process listens there)."""
        ...

    def open(self) -> AbstractAsyncContextManager[OutboxFeed]:
        """A feed on a connection of its own, closed on leaving (raises as OutboxFeed's methods do)."""
        ...
