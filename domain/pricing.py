"""Price bands ("faixas", seed 001): a service's price by weekday and time of day, and what a booking costs.

A price version of a service is its base price and payment rule (domain.payments.Price) plus its bands. Prices are
per slot of the unit's grid (per hour with 60-minute slots), per place (quantity):

- each slot of a booking costs the price of the band it starts in (the unit's local time), or the base price when
  it starts in no band; the booking's total is the sum over its slots, times the quantity. A booking from 17:00 to
  19:00 with a band from 18:00 pays one slot at the base price and one at the band's price;
- the payment rule (full, deposit %, deposit cents) is the one of the band the booking starts in (the base rule
  outside every band): a deposit % is taken of the whole total, a deposit in cents is per place, at most the total.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING
from uuid import UUID
from zoneinfo import ZoneInfo

from domain.errors import ErrorCode, InvalidInput
from domain.payments import PaymentRule, Price

if TYPE_CHECKING:  # the ports name this module's types
    from domain.ports import UnitOfWork
    from domain.units import Unit

WEEKDAYS = range(7)
"""0 = Monday … 6 = Sunday, as the unit's opening hours (OpeningWindow.weekday)."""


@dataclass(frozen=True)
class PriceBand:
    """One band: on `weekdays`, slots starting in [from_minute, to_minute) of the local day cost `price_cents`,
    paid by its own rule."""

    weekdays: tuple[int, ...]
    from_minute: int
    to_minute: int
    price_cents: int
    rule: PaymentRule = PaymentRule.FULL
    deposit_percent: int | None = None
    deposit_cents: int | None = None

    def covers(self, local: datetime) -> bool:
        """Whether a slot starting at this local time is in the band."""
        minute = local.hour * 60 + local.minute
        return local.weekday() in self.weekdays and self.from_minute <= minute < self.to_minute

    def terms(self, base: Price) -> Price:
        """The band as a Price of the base's service and version."""
        return Price(base.service_id, base.version, self.price_cents, self.rule, self.deposit_percent,
                     self.deposit_cents)


@dataclass(frozen=True)
class Priced:
    """What a booking costs under one price version: what the quote shows and the acceptance records."""

    version: int
    rule: PaymentRule
    total_cents: int
    due_now_cents: int
    band: int | None
    """The index of the band the booking starts in (None: the base price)."""

    @property
    def at_venue_cents(self) -> int:
        return self.total_cents - self.due_now_cents


@dataclass(frozen=True)
class PriceTable:
    """One price version of a service: its base price and rule, and its bands."""

    base: Price
    bands: tuple[PriceBand, ...] = ()

    def terms_at(self, local: datetime) -> tuple[int | None, Price]:
        """(band index or None, the price and rule) for a slot starting at this local time."""
        for i, band in enumerate(self.bands):
            if band.covers(local):
                return i, band.terms(self.base)
        return None, self.base

    def quote(self, starts_at: datetime, ends_at: datetime, tz: ZoneInfo, slot_minutes: int,
              quantity: int = 1) -> Priced:
        """The price of [starts_at, ends_at) for `quantity` places: each slot at its band's price, the rule of the
        band the booking starts in (see the module's docstring)."""
        step = timedelta(minutes=slot_minutes)
        slots = max(1, -(-(ends_at - starts_at) // step))
        band, first = self.terms_at(starts_at.astimezone(tz))
        per_place = first.price_cents + sum(self.terms_at((starts_at + k * step).astimezone(tz))[1].price_cents
                                            for k in range(1, slots))
        total = per_place * quantity
        rule = Price(first.service_id, first.version, total, first.rule, first.deposit_percent,
                     None if first.deposit_cents is None else first.deposit_cents * quantity)
        due_now, _ = rule.due(1)
        return Priced(self.base.version, first.rule, total, due_now, band)


def parse_clock(text: str, field: str) -> int:
    """"HH:MM" → minutes after midnight ("24:00" is the end of the day)."""
    hh, sep, mm = text.partition(":")
    if sep != ":" or len(hh) != 2 or len(mm) != 2 or not (hh + mm).isdigit():
        raise InvalidInput(field, f'{text!r} is not a time as "HH:MM"', code=ErrorCode.INVALID_TIME)
    minute = int(hh) * 60 + int(mm)
    if int(mm) >= 60 or minute > 24 * 60:
        raise InvalidInput(field, f"{text!r} is not a time of the day", code=ErrorCode.INVALID_TIME)
    return minute


def clock_text(minute: int) -> str:
    """Minutes after midnight → "HH:MM"."""
    return f"{minute // 60:02d}:{minute % 60:02d}"


def check_terms(price_cents: int, rule: PaymentRule, deposit_percent: int | None, deposit_cents: int | None,
                prefix: str = "") -> None:
    """Refuse a price or payment rule that cannot be charged, naming the field (`prefix` for a band's)."""
    if price_cents < 0:
        raise InvalidInput(f"{prefix}priceCents", "a price cannot be negative", code=ErrorCode.INVALID_PRICE)
    if deposit_percent is not None and not 1 <= deposit_percent <= 100:
        raise InvalidInput(f"{prefix}depositPercent", "a deposit percentage must be 1–100",
                           code=ErrorCode.INVALID_PRICE)
    if deposit_cents is not None and deposit_cents < 0:
        raise InvalidInput(f"{prefix}depositCents", "a deposit in cents cannot be negative",
                           code=ErrorCode.INVALID_PRICE)
    if rule is PaymentRule.DEPOSIT_PERCENT and deposit_percent is None:
        raise InvalidInput(f"{prefix}depositPercent", "a DEPOSIT_PERCENT rule needs depositPercent",
                           code=ErrorCode.INVALID_PRICE)
    if rule is PaymentRule.DEPOSIT_CENTS and deposit_cents is None:
        raise InvalidInput(f"{prefix}depositCents", "a DEPOSIT_CENTS rule needs depositCents",
                           code=ErrorCode.INVALID_PRICE)


def check_bands(bands: tuple[PriceBand, ...], slot_minutes: int) -> None:
    """Refuse bands that cannot be priced: unknown weekdays, times off the unit's slot grid, empty ranges, bad
    terms, and two bands of the version overlapping (a weekday in both, intersecting times). The field names the
    band: `bands[2].from`."""
    for i, band in enumerate(bands):
        at = f"bands[{i}]."
        if not band.weekdays or any(d not in WEEKDAYS for d in band.weekdays):
            raise InvalidInput(f"{at}weekdays", "weekdays are 0 (Monday) to 6 (Sunday), at least one",
                               code=ErrorCode.INVALID_WEEKDAY)
        if len(set(band.weekdays)) != len(band.weekdays):
            raise InvalidInput(f"{at}weekdays", "a weekday is listed twice", code=ErrorCode.INVALID_WEEKDAY)
        for name, minute in (("from", band.from_minute), ("to", band.to_minute)):
            if minute % slot_minutes:
                raise InvalidInput(f"{at}{name}", f"{clock_text(minute)} is not on the unit's {slot_minutes}-minute "
                                   "slot grid", code=ErrorCode.OFF_GRID)
        if band.from_minute >= band.to_minute:
            raise InvalidInput(f"{at}to", "a band ends after it starts (24:00 is the end of the day)",
                               code=ErrorCode.INVALID_TIME)
        check_terms(band.price_cents, band.rule, band.deposit_percent, band.deposit_cents, at)
        for j, other in enumerate(bands[:i]):
            if (set(band.weekdays) & set(other.weekdays) and band.from_minute < other.to_minute
                    and other.from_minute < band.to_minute):
                raise InvalidInput(f"bands[{i}]", f"band {i} overlaps band {j} on the same weekday",
                                   code=ErrorCode.BANDS_OVERLAP)


@dataclass(frozen=True)
class Service:
    """What a unit sells: its allowed lengths (in slots), the resources it runs on and its current price version.
    A service made before issue 18 has no durations and no resources: it is sold at any length, on any resource."""

    id: UUID
    unit_id: UUID
    name: str
    table: PriceTable
    durations: tuple[int, ...] | None = None
    resource_ids: tuple[UUID, ...] = ()
    active: bool = True

    def check_booking(self, resource_ids: tuple[UUID, ...] | None, starts_at: datetime, ends_at: datetime,
                      slot_minutes: int) -> None:
        """Refuse a booking the service is not sold as: inactive, a length it does not offer, a resource it does
        not run on (None: any resource, checked when one is picked)."""
        if not self.active:
            raise InvalidInput("serviceId", f"{self.name} is not sold now", code=ErrorCode.SERVICE_INACTIVE)
        slots = (ends_at - starts_at) / timedelta(minutes=slot_minutes)
        # A length off the slot grid is left to the grid's own check (off_grid).
        if self.durations is not None and slots == int(slots) and slots not in self.durations:
            offered = ", ".join(str(d) for d in self.durations)
            raise InvalidInput("endsAt", f"{self.name} is sold for {offered} slot(s) of {slot_minutes} minutes",
                               code=ErrorCode.DURATION_NOT_OFFERED)
        if self.resource_ids and resource_ids is not None:
            for r in resource_ids:
                if r not in self.resource_ids:
                    raise InvalidInput("resourceIds", f"{self.name} is not sold on resource {r}",
                                       code=ErrorCode.RESOURCE_NOT_OFFERED)

    def runs_on(self, resource_id: UUID) -> bool:
        """Whether the service is sold on this resource."""
        return not self.resource_ids or resource_id in self.resource_ids


async def price_of(uow: UnitOfWork, unit: Unit, service_id: UUID, starts_at: datetime, ends_at: datetime,
                   quantity: int, booking_id: UUID | None = None) -> Priced:
    """What [starts_at, ends_at) of the service costs: at the price version its hold was made at (`booking_id`),
    else at the current one. The one computation behind the hold's TTL, the quote, the acceptance and the bot."""
    version = await uow.catalog.pinned(unit.id, booking_id) if booking_id is not None else None
    table = await uow.catalog.table(unit.id, service_id, version)
    return table.quote(starts_at, ends_at, unit.tz, unit.params.slot_minutes, quantity)
