"""The lists that grow, read a page at a time (issue 19): their orders, the bookings search, the reads.

Each list's order is an `Ordering` (domain/pages.py) whose key ends with the row's id. The orders, as the API
describes them:

* bookings: by start time, then id (oldest start first);
* the staff queue: most urgent first (critical, high, then the rest), then oldest, then id;
* a booking's charges, a unit's or customer's notifications, an endpoint's webhook deliveries: newest first
  (created, then id);
* a unit's slot waitlists: by slot start, resource, place in line, then id; its walk-ins by area, place, then id;
* a booking's audit trail: oldest first (the audit row's sequence); a unit's: newest first;
* a unit's or a customer's calendar feeds: newest first (created, then id).
* a unit's series (recurring bookings): newest first (created, then id).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TypeVar
from uuid import UUID

from domain.bookings import BookingStatus
from domain.customers import normalize_cpf, normalize_phone
from domain.errors import ErrorCode, InvalidInput
from domain.pages import Ordering, Page
from domain.ports.listings import Listings
from domain.services import Deps, require_aware

T = TypeVar("T")

BOOKINGS = Ordering("bookings", (datetime, UUID))
QUEUE = Ordering("queue", (int, datetime, UUID))
CHARGES = Ordering("charges", (datetime, UUID), descending=True)
SLOT_WAITLIST = Ordering("slot_waitlist", (datetime, UUID, int, UUID))
WALK_INS = Ordering("walk_ins", (str, int, UUID))
NOTIFICATIONS = Ordering("notifications", (datetime, UUID), descending=True)
WEBHOOK_DELIVERIES = Ordering("webhook_deliveries", (datetime, UUID), descending=True)
BOOKING_HISTORY = Ordering("booking_history", (int,))
UNIT_HISTORY = Ordering("unit_history", (int,), descending=True)
CUSTOMERS = Ordering("customers", (str, UUID))
CALENDAR_FEEDS = Ordering("calendar_feeds", (datetime, UUID), descending=True)
SERIES = Ordering("series", (datetime, UUID), descending=True)


@dataclass(frozen=True)
class CustomerSearch:
    """Staff finding a customer at the counter: the tenant's customers who booked at the unit, whose name holds
    `name` (case and accents aside), or whose phone is `phone`, or whose CPF is `cpf` (any that is given)."""

    tenant_id: UUID
    unit_id: UUID
    name: str | None = None
    phone: str | None = None
    cpf: str | None = None


def customer_search(deps: Deps, tenant_id: UUID, unit_id: UUID, text: str) -> CustomerSearch:
    """What the receptionist typed: letters are part of a name (at least 2 characters); digits are a phone (the
    venue's phone reader, else E.164) and, when they make a valid CPF, that CPF too."""
    typed = text.strip()
    if any(ch.isalpha() for ch in typed):
        if len(typed) < 2:
            raise InvalidInput("search", "type at least 2 letters of the name")
        return CustomerSearch(tenant_id, unit_id, name=typed)
    digits = "".join(ch for ch in typed if ch.isdigit())
    if len(digits) < 8:
        raise InvalidInput("search", "type part of a name, a phone or a CPF")
    try:
        phone = deps.phones.normalize(typed, "search") if deps.phones is not None else normalize_phone(typed, "search")
    except InvalidInput:
        phone = None
    try:
        cpf = normalize_cpf(typed, "search")
    except InvalidInput:
        cpf = None
    if phone is None and cpf is None:
        raise InvalidInput("search", "the digits are neither a phone nor a valid CPF")
    return CustomerSearch(tenant_id, unit_id, phone=phone, cpf=cpf)


@dataclass(frozen=True)
class OwnBookings:
    """What a customer's session reaches: the records of the tenant that are theirs — the session's own, and those
    with a phone or e-mail the session proved (as `booking(id)` decides, store/access.py `is_same_person`)."""

    customer_id: UUID
    phone: str | None = None
    email: str | None = None


@dataclass(frozen=True)
class BookingSearch:
    """Which bookings to find; every criterion given must hold. Customers are looked for in `tenant_id` only;
    `unit_id` None only with `own` (a customer's bookings in every unit of their tenant)."""

    tenant_id: UUID
    unit_id: UUID | None
    own: OwnBookings | None = None
    statuses: tuple[BookingStatus, ...] | None = None
    starts_before: datetime | None = None
    """The bookings overlapping [from, to): those that start before `to`..."""
    ends_after: datetime | None = None
    """... and end after `from`."""
    resource_id: UUID | None = None
    name: str | None = None
    """Part of the customer's name, matched without regard to case or accents."""
    phone: str | None = None
    """The customer's phone in E.164."""
    cpf: str | None = None
    """The customer's CPF, its 11 digits."""


def booking_search(deps: Deps, tenant_id: UUID, unit_id: UUID | None, own: OwnBookings | None, *,
                   statuses: list[BookingStatus] | None = None, from_: datetime | None = None,
                   to: datetime | None = None, resource_id: UUID | None = None, name: str | None = None,
                   phone: str | None = None, cpf: str | None = None) -> BookingSearch:
    """A search from what a caller typed: no statuses (or an empty list) is any status; the range is checked; the
    phone is read as the project reads phones (the venue's phone reader, else E.164); the CPF is its 11 digits; an
    empty name is no criterion."""
    if from_ is not None:
        require_aware(from_, "filter.from")
        from_ = from_.astimezone(UTC)
    if to is not None:
        require_aware(to, "filter.to")
        to = to.astimezone(UTC)
    if from_ is not None and to is not None and to <= from_:
        raise InvalidInput("filter.to", "`to` must be after `from`", code=ErrorCode.INVALID_RANGE)
    if phone is not None:
        field = "filter.customer.phone"
        phone = deps.phones.normalize(phone, field) if deps.phones is not None else normalize_phone(phone, field)
    return BookingSearch(
        tenant_id=tenant_id, unit_id=unit_id, own=own, statuses=tuple(dict.fromkeys(statuses)) if statuses else None,
        starts_before=to, ends_after=from_, resource_id=resource_id,
        name=name.strip() or None if name is not None else None, phone=phone,
        cpf=normalize_cpf(cpf, "filter.customer.cpf") if cpf is not None else None)


async def read(deps: Deps, pick: Callable[[Listings], Awaitable[Page[T]]]) -> Page[T]:
    """One page of a list, read in its own unit of work (nothing is written)."""
    async with deps.uow() as uow:
        return await pick(uow.listings)
