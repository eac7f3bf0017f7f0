"""A unit (venue) with its clock, opening hours and parameters (SPEC §17)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from enum import StrEnum
from uuid import UUID
from zoneinfo import ZoneInfo

from domain.hold_types import PLATFORM_CATALOG, HoldTypeCatalog
from domain.notice_matrix import Matrix, effective


@dataclass(frozen=True)
class UnitParameters:
    """The knobs of a unit, with the defaults of SPEC §17."""

    min_advance: timedelta = timedelta(minutes=60)
    max_advance: timedelta = timedelta(days=30)
    slot_minutes: int = 60
    hold_ttl: timedelta = timedelta(minutes=10)
    hold_ttl_with_payment: timedelta = timedelta(minutes=15)
    hold_min: timedelta = timedelta(minutes=5)
    waitlist_hold: timedelta = timedelta(minutes=10)
    capacity_offer_ttl: timedelta = timedelta(hours=24)
    charge_margin: timedelta = timedelta(minutes=2)
    pix_failures_before_alert: int = 3
    owner_alert_whatsapp: str | None = None
    open_holds_per_customer: int = 1
    cooldown_expirations: int = 3
    cooldown_window: timedelta = timedelta(days=7)
    cooldown_duration: timedelta = timedelta(hours=48)
    hold_ceiling_percent: int = 30
    verification_wait: timedelta = timedelta(minutes=30)
    hold_reminder: timedelta = timedelta(minutes=5)
    sweep_interval: timedelta = timedelta(seconds=30)
    payment_rule: str = "full"
    no_show_grace: timedelta = timedelta(minutes=15)
    check_in_opens: timedelta = timedelta(hours=2)
    series_charge_days_ahead: int = 7
    """How many days before a later period of a series starts its Pix is charged (issue 23)."""
    """Check-in is accepted from this long before a booking's start until its end (issue 20)."""
    """After start + this with no check-in, a confirmed booking raises a no-show suggestion (SPEC §11)."""
    appointment_reminders: tuple[int, ...] = (1440, 120)
    """Minutes before the start at which the customer of a confirmed booking is reminded (SPEC §11)."""
    manual_payments_enabled: bool = True
    """Staff with the right may record a payment taken outside Pix (domain/manual_payments.py)."""
    check_in_required: bool = True
    """False: confirmed bookings complete by themselves after their end, and no no-show suggestion is raised."""
    notification_matrix: Matrix = field(default_factory=lambda: effective(None))
    """(event, customer told, staff told) per event of domain.notice_matrix.MATRIX_EVENTS (seed 002's by default)."""
    owner_email: str | None = None
    """Where the owner's notifications go by e-mail (set with updateUnitContacts; None: nowhere)."""


class ResourceKind(StrEnum):
    """Exclusive: one booking at a time. Pooled: `capacity` at a time."""

    EXCLUSIVE = "exclusive"
    POOLED = "pooled"


@dataclass(frozen=True)
class OpeningWindow:
    """Open on `weekday` (0 = Monday) from `opens` to `closes` minutes after local midnight."""

    weekday: int
    opens: int
    closes: int


@dataclass(frozen=True)
class HoursException:
    """A dated exception to weekly hours, unit-wide (`resource_id` None) or for one resource: closed that local
    date (`windows` empty: a holiday) or open only in `windows` ((opens, closes) minutes after local midnight)."""

    id: UUID
    day: date
    resource_id: UUID | None = None
    windows: tuple[tuple[int, int], ...] = ()
    reason: str = ""

    @property
    def closed(self) -> bool:
        return not self.windows


DayHours = tuple[tuple[date, tuple[tuple[int, int], ...]], ...]
"""Dated hours that replace the weekly ones: (local date, its windows; none: closed), by date."""


@dataclass(frozen=True)
class Resource:
    """Something bookable in a unit."""

    id: UUID
    unit_id: UUID
    name: str
    kind: ResourceKind = ResourceKind.EXCLUSIVE
    capacity: int = 1
    group_id: UUID | None = None
    hours: tuple[OpeningWindow, ...] = ()
    """Own opening hours; empty means the unit's."""


@dataclass(frozen=True)
class Unit:
    """One venue with its own clock, hours and parameters."""

    id: UUID
    organization_id: UUID
    tenant_id: UUID
    name: str
    timezone: str
    params: UnitParameters = field(default_factory=UnitParameters)
    hours: tuple[OpeningWindow, ...] = ()
    hold_types: HoldTypeCatalog = field(default=PLATFORM_CATALOG, compare=False)
    """The hold types of the unit's organization (SPEC §10)."""
    currency: str = "BRL"
    """The ISO 4217 code of the unit's prices."""
    exceptions: tuple[HoursException, ...] = field(default=(), compare=False)
    """Dated exceptions to the hours (closed days, special hours), unit-wide and per resource (issue 18)."""

    @property
    def tz(self) -> ZoneInfo:
        """The unit's IANA time zone."""
        return ZoneInfo(self.timezone)

    def hours_of(self, resource: Resource) -> tuple[OpeningWindow, ...]:
        """The weekly hours that apply to a resource: its own, else the unit's."""
        return resource.hours or self.hours

    def days_of(self, resource: Resource) -> DayHours:
        """The dated hours that replace a resource's weekly ones: its own exception for a date, else the unit's
        (a unit-wide closed day or special hours apply to every resource)."""
        if not self.exceptions:
            return ()
        found: dict[date, tuple[tuple[int, int], ...]] = {}
        for e in self.exceptions:
            if e.resource_id is None:
                found.setdefault(e.day, e.windows)
        for e in self.exceptions:
            if e.resource_id == resource.id:
                found[e.day] = e.windows
        return tuple(sorted(found.items()))
