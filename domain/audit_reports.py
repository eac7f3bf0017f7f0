"""Reports over the audit trail (SPEC §15, seed 004): what share of holds became sold, and activity per period.

Both read `booking_events` only after the fact (never the booking path) and follow these rules:

* A **hold** is a booking born `held` (its first event: no old state → `held`). Bookings born `confirmed` (counter
  bookings, hold types that skip the locked state) are not holds. Its hold type is the one at its birth: releasing
  clears the booking's hold type, and a claimed waitlist offer changes it; the birth event keeps what it was.
* A hold **moved** to another slot (swapHold, or a reschedule of an open hold) stays one hold: its replacement is
  not a new hold, and the outcome of the original is the outcome of the last booking it was moved to.
* A hold is **sold** if it (or a booking it was moved to) ever reached `confirmed`, whenever that happened and
  whatever happened next (a later cancellation, a no-show). Otherwise it ended **expired** or **cancelled**, or is
  still **open** (held, awaiting payment or being verified; a lapsed hold counts as open until the sweep, at most
  30 s, records its expiry).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from enum import StrEnum
from typing import Protocol
from uuid import UUID
from zoneinfo import ZoneInfo

from domain.errors import ErrorCode, InvalidInput
from domain.units import Unit

MAX_RANGE = timedelta(days=366)
HOLD_TYPE_MAX_LENGTH = 64


class AuditBucket(StrEnum):
    """How a per-period report cuts its range: local calendar days, or weeks from Monday."""

    DAY = "day"
    WEEK = "week"


@dataclass(frozen=True)
class HoldConversion:
    """Holds born in a range and where each one ended up (a hold counts in exactly one outcome)."""

    created: int
    sold: int
    expired: int
    cancelled: int
    open: int

    @property
    def sold_share(self) -> float | None:
        """sold / created, 0..1; None when no hold was created."""
        return self.sold / self.created if self.created else None


@dataclass(frozen=True)
class PeriodCounts:
    """What happened in one period, counted by the time of each event."""

    holds_created: int = 0
    """Holds born (moves excluded: a replacement hold is not a new hold)."""
    sold: int = 0
    """Bookings that became `confirmed` (a hold paid or accepted, a late payment reviving one)."""
    born_confirmed: int = 0
    """Bookings born `confirmed` (counter, box-office hold types), reschedules excluded."""
    moved: int = 0
    """Holds and bookings moved to another slot (swapHold, reschedule): their old booking was cancelled."""
    expired: int = 0
    no_shows: int = 0
    cancelled: int = 0
    """Cancellations other than moves (customer, staff drop, failed charge)."""


@dataclass(frozen=True)
class AuditPeriod:
    """One bucket of a per-period report: the local date it starts on and its instants, clipped to the range."""

    day: date
    starts_at: datetime
    ends_at: datetime
    counts: PeriodCounts


class AuditReportStore(Protocol):
    """The queries behind the reports (store/audit_reports.py)."""

    async def hold_conversion(self, unit_id: UUID, start: datetime, end: datetime,
                              hold_type: str | None) -> HoldConversion: ...

    async def period_counts(self, unit_id: UUID, timezone: str, bucket: AuditBucket, start: datetime,
                            end: datetime, hold_type: str | None) -> dict[date, PeriodCounts]: ...


def check_range(start: datetime, end: datetime) -> tuple[datetime, datetime]:
    """The range as UTC instants, or an input error naming `from` or `to`."""
    for name, value in (("from", start), ("to", end)):
        if value.tzinfo is None or value.utcoffset() is None:
            raise InvalidInput(name, f"{name} must carry a UTC offset (ISO 8601, e.g. 2026-12-01T00:00:00-03:00)",
                               code=ErrorCode.NAIVE_DATETIME)
        try:
            value.astimezone(UTC)
        except OverflowError:  # e.g. 0001-01-01T00:00:00+14:00: before year 1 in UTC
            raise InvalidInput(name, f"{name} is out of range", code=ErrorCode.DATETIME_OUT_OF_RANGE) from None
    start, end = start.astimezone(UTC), end.astimezone(UTC)
    if end <= start:
        raise InvalidInput("to", "`to` must be after `from`", code=ErrorCode.INVALID_RANGE)
    if end - start > MAX_RANGE:
        raise InvalidInput("to", f"the range may span at most {MAX_RANGE.days} days", code=ErrorCode.RANGE_TOO_LONG)
    return start, end


def check_hold_type(hold_type: str | None) -> str | None:
    """A hold type filter: None (every hold) or a name of 1 to 64 characters."""
    if hold_type is None:
        return None
    if not 1 <= len(hold_type) <= HOLD_TYPE_MAX_LENGTH or hold_type.strip() != hold_type:
        raise InvalidInput("holdType", f"holdType must be a hold type name (1 to {HOLD_TYPE_MAX_LENGTH} "
                           "characters, no surrounding spaces)", code=ErrorCode.INVALID_HOLD_TYPE)
    return hold_type


def _local_midnight(day: date, tz: ZoneInfo) -> datetime:
    return datetime.combine(day, time(), tzinfo=tz).astimezone(UTC)


def bucket_days(tz: ZoneInfo, bucket: AuditBucket, start: datetime, end: datetime) -> list[AuditPeriod]:
    """The empty buckets that cover [start, end) in the unit's time zone (weeks start on Monday), each clipped to
    the range: the first may start after its local midnight, the last may end before the next one."""
    first = start.astimezone(tz).date()
    if bucket is AuditBucket.WEEK:
        first -= timedelta(days=first.weekday())
    step = timedelta(days=7 if bucket is AuditBucket.WEEK else 1)
    out: list[AuditPeriod] = []
    day = first
    while (lo := _local_midnight(day, tz)) < end:
        hi = _local_midnight(day + step, tz)
        out.append(AuditPeriod(day, max(lo, start), min(hi, end), PeriodCounts()))
        day += step
    return out


async def hold_conversion(reports: AuditReportStore, unit: Unit, start: datetime, end: datetime,
                          hold_type: str | None = None) -> HoldConversion:
    """Of the holds born in [start, end) (of one hold type, optionally): how many were sold, expired, cancelled,
    or are still open, now (SPEC §15, seed 004)."""
    start, end = check_range(start, end)
    return await reports.hold_conversion(unit.id, start, end, check_hold_type(hold_type))


async def audit_periods(reports: AuditReportStore, unit: Unit, start: datetime, end: datetime,
                        bucket: AuditBucket = AuditBucket.DAY, hold_type: str | None = None) -> list[AuditPeriod]:
    """Holds born, sales, moves, expirations, no-shows and cancellations of [start, end), per local day or week
    of the unit; every bucket of the range is listed, empty or not."""
    start, end = check_range(start, end)
    counted = await reports.period_counts(unit.id, unit.timezone, bucket, start, end, check_hold_type(hold_type))
    return [AuditPeriod(p.day, p.starts_at, p.ends_at, counted.get(p.day, p.counts))
            for p in bucket_days(unit.tz, bucket, start, end)]
