"""Recurring bookings (issue 23, seed "mensalistas"): a series of weekly (or every N weeks) occurrences at the same
local time on the same resource, held in one transaction, accepted once, changed together.

Each occurrence is an ordinary booking (`Booking.series_id`, `series_index`), placed through `placing.place` like
any other: the series adds no second booking engine. The rules here are pure: when the occurrences fall (in the
unit's time zone, so 20:00 stays 20:00 across a daylight-saving change), how many a series may have, and how
its periods (calendar months, what a later step charges one at a time) are cut.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from enum import StrEnum
from typing import Any, Protocol
from uuid import UUID
from zoneinfo import ZoneInfo

from domain.errors import ErrorCode, InvalidInput, OccurrenceConflict

MAX_OCCURRENCES = 60
"""The most occurrences one series may have (a season of a year, weekly, is 52)."""


class SeriesMode(StrEnum):
    """What to do when some occurrences are taken."""

    ALL_OR_NOTHING = "all_or_nothing"
    """Any taken occurrence: nothing is held, each conflict is reported."""
    FREE_ONLY = "free_only"
    """The free occurrences are held; the taken ones are reported."""


class SeriesStatus(StrEnum):
    """Where a series is: held until accepted, confirmed, cancelled (all of it), expired (never accepted)."""

    HELD = "held"
    CONFIRMED = "confirmed"
    CANCELLED = "cancelled"
    EXPIRED = "expired"


class SkipReason(StrEnum):
    """Why an occurrence was left out without being a conflict."""

    CLOSED = "closed"
    """A closed day (a holiday) or hours that do not cover it."""
    BLOCKED = "blocked"
    """A grid block (maintenance) takes it."""


@dataclass(frozen=True)
class Occurrence:
    """One date of a series: [starts_at, ends_at) in UTC, its index (0: the first)."""

    index: int
    starts_at: datetime
    ends_at: datetime


@dataclass(frozen=True)
class Skipped:
    """An occurrence left out: a closed day or a block."""

    index: int
    starts_at: datetime
    ends_at: datetime
    reason: SkipReason


@dataclass
class Series:
    """A series as stored (the `series` table)."""

    id: UUID
    unit_id: UUID
    status: SeriesStatus
    mode: SeriesMode
    every_weeks: int
    local_start: time
    minutes: int
    first_day: date
    channel: str
    created_by: str
    created_at: datetime
    customer_id: UUID | None = None
    service_id: UUID | None = None
    occurrences_asked: int | None = None
    until_day: date | None = None
    resource_ids: tuple[UUID, ...] | None = None
    group_id: UUID | None = None
    quantity: int = 1
    hold_type: str | None = None
    acceptance: dict[str, Any] | None = None
    version: int = 1
    updated_at: datetime | None = None


@dataclass(frozen=True)
class Period:
    """A calendar month of a series' occurrences (the unit of paying by period): [starts_on, ends_on)."""

    id: UUID
    series_id: UUID
    starts_on: date
    ends_on: date
    due_at: datetime
    status: str = "open"
    amount_cents: int = 0
    deadline_at: datetime | None = None
    """When its occurrences are released unpaid (the first: the series' hold deadline)."""
    unit_id: UUID | None = None
    charge_id: UUID | None = None
    reminded_at: datetime | None = None
    paid_at: datetime | None = None
    paid_by: str | None = None


@dataclass(frozen=True)
class SeriesOutcome:
    """What asking for a series did: the occurrences held (bookings), the skipped ones, the conflicts reported."""

    series: Series
    bookings: list[Any] = field(default_factory=list)
    """The occurrences' bookings (domain.bookings.Booking), in order."""
    skipped: list[Skipped] = field(default_factory=list)
    conflicts: list[OccurrenceConflict] = field(default_factory=list)
    replayed: bool = False
    """An idempotency key answered: the series as it is now (its skipped and conflicts are not kept)."""


def occurrences(tz: ZoneInfo, starts_at: datetime, ends_at: datetime, every_weeks: int = 1,
                count: int | None = None, until: date | None = None) -> list[Occurrence]:
    """The occurrences of a series whose first is [starts_at, ends_at): every `every_weeks` weeks on the same
    weekday and local wall time of `tz`, `count` of them or up to `until` (a local date, inclusive), whichever
    ends first. Refused: no end, bad intervals, more than MAX_OCCURRENCES."""
    if not 1 <= every_weeks <= 52:
        raise InvalidInput("everyWeeks", "everyWeeks must be between 1 and 52", code=ErrorCode.INVALID_INPUT)
    if count is None and until is None:
        raise InvalidInput("occurrences", "give occurrences or until", code=ErrorCode.NO_OCCURRENCES)
    if count is not None and count < 1:
        raise InvalidInput("occurrences", "occurrences must be at least 1", code=ErrorCode.NO_OCCURRENCES)
    if count is not None and count > MAX_OCCURRENCES:
        raise InvalidInput("occurrences", f"a series has at most {MAX_OCCURRENCES} occurrences",
                           code=ErrorCode.TOO_MANY_OCCURRENCES)
    if ends_at <= starts_at:
        raise InvalidInput("endsAt", "endsAt must be after startsAt", code=ErrorCode.INVALID_RANGE)
    if ends_at - starts_at >= timedelta(weeks=every_weeks):
        raise InvalidInput("endsAt", "an occurrence must end before the next one starts",
                           code=ErrorCode.RANGE_TOO_LONG)
    first, last = starts_at.astimezone(tz), ends_at.astimezone(tz)
    if first.date() > date.max - timedelta(weeks=every_weeks * MAX_OCCURRENCES + 1):
        raise InvalidInput("startsAt", "startsAt is out of range", code=ErrorCode.DATETIME_OUT_OF_RANGE)
    if until is not None and until < first.date():
        raise InvalidInput("until", "until is before the first occurrence", code=ErrorCode.NO_OCCURRENCES)
    span_days = (last.date() - first.date()).days
    found: list[Occurrence] = []
    k = 0
    while count is None or k < count:
        day = first.date() + timedelta(weeks=every_weeks * k)
        if until is not None and day > until:
            break
        if len(found) == MAX_OCCURRENCES:
            raise InvalidInput("until", f"a series has at most {MAX_OCCURRENCES} occurrences",
                               code=ErrorCode.TOO_MANY_OCCURRENCES)
        start = datetime.combine(day, first.time(), tzinfo=tz).astimezone(UTC)
        end = datetime.combine(day + timedelta(days=span_days), last.time(), tzinfo=tz).astimezone(UTC)
        found.append(Occurrence(k, start, end))
        k += 1
    return found


def month_periods(tz: ZoneInfo, starts: list[datetime]) -> list[tuple[date, date]]:
    """The calendar months (of `tz`) the occurrences starting at `starts` fall in: [first day, next month's)."""
    months = sorted({(s.astimezone(tz).year, s.astimezone(tz).month) for s in starts})
    return [(date(y, m, 1), date(y + m // 12, m % 12 + 1, 1)) for y, m in months]


def period_due(tz: ZoneInfo, starts_on: date, ahead_days: int, first: bool, accepted_at: datetime) -> datetime:
    """When a period is due: the first at acceptance, a later one `ahead_days` before its first day (local
    midnight), never before acceptance."""
    if first:
        return accepted_at
    due = datetime.combine(starts_on - timedelta(days=ahead_days), time(), tzinfo=tz).astimezone(UTC)
    return max(due, accepted_at)


def period_deadline(tz: ZoneInfo, starts_on: date, due_at: datetime) -> datetime:
    """When a later period's occurrences are released unpaid: the local midnight its month starts, and never
    less than an hour after it was charged."""
    return max(datetime.combine(starts_on, time(), tzinfo=tz).astimezone(UTC), due_at + timedelta(hours=1))


REMIND_BEFORE = timedelta(days=1)
"""A charged period's customer is reminded this long before its deadline."""


class SeriesRepository(Protocol):
    """Series and their periods (store/series.py)."""

    async def add(self, series: Series) -> None:
        """Insert a new series."""
        ...

    async def get(self, series_id: UUID, lock: bool = False) -> Series:
        """One series (NotFound naming seriesId); with `lock`, locked for change."""
        ...

    async def save(self, series: Series) -> None:
        """Write a series' status, acceptance, times and version."""
        ...

    async def link(self, series_id: UUID, unit_id: UUID, booking_ids: list[UUID], indexes: list[int]) -> None:
        """Mark the bookings as the series' occurrences at those indexes."""
        ...

    async def bookings(self, series_id: UUID, lock: bool = False) -> list[Any]:
        """The series' bookings (domain.bookings.Booking: every state, rescheduled ones too), by index then
        creation; with `lock`, locked for change."""
        ...

    async def bookings_of(self, series_ids: list[UUID]) -> dict[UUID, list[Any]]:
        """Several series' bookings in one read: series id → its bookings, ordered as `bookings` orders them."""
        ...

    async def add_periods(self, unit_id: UUID, periods: list[Period], members: dict[UUID, list[UUID]]) -> None:
        """Insert the series' periods and point each period's bookings (`members`: period id → booking ids)."""
        ...

    async def periods(self, series_id: UUID) -> list[Period]:
        """The series' periods, oldest first."""
        ...

    async def series_of(self, booking_ids: list[UUID]) -> dict[UUID, UUID]:
        """booking id → series id, for those of the bookings that belong to a series."""
        ...

    async def period(self, period_id: UUID, lock: bool = False) -> Period:
        """One period (NotFound naming periodId); with `lock`, locked for change."""
        ...

    async def period_of_charge(self, charge_id: UUID) -> Period | None:
        """The period a charge is for, if it is a period's charge."""
        ...

    async def period_bookings(self, period_id: UUID, lock: bool = False) -> list[Any]:
        """The period's occurrences' bookings (domain.bookings.Booking), by index; with `lock`, locked."""
        ...

    async def save_period(self, period: Period) -> None:
        """Write a period's status, charge, reminder and payment."""
        ...

    async def period_charges(self, series_id: UUID) -> dict[UUID, Any]:
        """period id → its current charge (domain.payments.Charge), for the series' charged periods."""
        ...

    async def periods_due(self, now: datetime, limit: int) -> list[UUID]:
        """Open periods due by `now` with occurrences awaiting their Pix (to charge)."""
        ...

    async def periods_to_remind(self, now: datetime, before: timedelta, limit: int) -> list[UUID]:
        """Charged periods not yet reminded whose deadline is within `before` of `now` (and still ahead)."""
        ...

    async def periods_lapsed(self, now: datetime, limit: int) -> list[UUID]:
        """Open or charged periods whose deadline has passed (to release)."""
        ...
