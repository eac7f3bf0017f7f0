"""Audit report types (SPEC §15): hold conversion and per-period activity of a unit."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated
from uuid import UUID

import strawberry

from domain import audit_reports as da
from schema import docs
from schema.enums import described_enum
from schema.errors import InvalidInput, NotFound
from schema.ids import Kind, ref

AuditBucket = da.AuditBucket
described_enum(AuditBucket, description="How a per-period report cuts its range: the unit's local calendar DAYs, or "
               "WEEKs starting on Monday.", values={  # registers the domain enum itself: annotations name it directly
                   "DAY": "One period per local calendar day.",
                   "WEEK": "One period per local week, Monday to Sunday."})


@strawberry.type(description="Of the holds born in [from, to), where each one is now; each hold counts in exactly one "
                 "of sold, expired, cancelled, open. A hold is a booking born HELD (counter bookings are not); its "
                 "hold type is the one it was born with. A hold moved to another slot (swapHold, reschedule) stays "
                 "one hold and takes the outcome of the booking it was moved to. Sold: it reached CONFIRMED at any "
                 "time up to now (a later cancellation or no-show does not undo that).")
class HoldConversion:
    unit_id: strawberry.ID = strawberry.field(description=docs.UNIT_ID)
    from_: datetime = strawberry.field(name="from", description=docs.FROM)
    to: datetime = strawberry.field(description=docs.TO)
    hold_type: str | None = strawberry.field(description="The hold type counted (null: every hold).")
    created: int = strawberry.field(description="Holds born in the range.")
    sold: int = strawberry.field(description="Of those, reached CONFIRMED (at any time up to now).")
    expired: int = strawberry.field(description="Of those, ended EXPIRED without being sold.")
    cancelled: int = strawberry.field(description="Of those, ended CANCELLED without being sold (customer, staff "
                                      "drop, failed charge).")
    open: int = strawberry.field(description="Of those, still HELD, PENDING_PAYMENT or VERIFYING.")
    sold_share: float | None = strawberry.field(description="sold / created, from 0 to 1; null when no hold was "
                                                "created.")

    @classmethod
    def from_domain(cls, unit_id: UUID, start: datetime, end: datetime, hold_type: str | None,
                    c: da.HoldConversion) -> HoldConversion:
        return cls(unit_id=ref(Kind.UNIT, unit_id), from_=start, to=end, hold_type=hold_type, created=c.created,
                   sold=c.sold, expired=c.expired, cancelled=c.cancelled, open=c.open, sold_share=c.sold_share)


@strawberry.type(description="What happened in one period, each event counted in the period of its time.")
class AuditPeriod:
    day: date = strawberry.field(name="date", description="The local date (unit's time zone) the period starts on: "
                                 "the day, or the Monday of the week.")
    starts_at: datetime = strawberry.field(description="The period's start, clipped to the report's range.")
    ends_at: datetime = strawberry.field(description="The period's end, clipped to the report's range.")
    holds_created: int = strawberry.field(description="Holds born (a hold moved to another slot is not a new one).")
    sold: int = strawberry.field(description="Bookings that became CONFIRMED (a hold accepted or paid, a late "
                                 "payment reviving one).")
    born_confirmed: int = strawberry.field(description="Bookings born CONFIRMED (counter bookings, hold types that "
                                           "skip the locked state); reschedules excluded.")
    moved: int = strawberry.field(description="Holds and bookings moved to another slot (swapHold, reschedule).")
    expired: int = strawberry.field(description="Bookings that expired (holds and payments past their deadline).")
    no_shows: int = strawberry.field(description="Bookings marked NO_SHOW.")
    cancelled: int = strawberry.field(description="Cancellations other than moves.")

    @classmethod
    def from_domain(cls, p: da.AuditPeriod) -> AuditPeriod:
        c = p.counts
        return cls(day=p.day, starts_at=p.starts_at, ends_at=p.ends_at, holds_created=c.holds_created,
                   sold=c.sold, born_confirmed=c.born_confirmed, moved=c.moved, expired=c.expired,
                   no_shows=c.no_shows, cancelled=c.cancelled)


@strawberry.type(description="A unit's activity per period over [from, to): every period of the range, empty or "
                 "not, in order.")
class AuditPeriods:
    unit_id: strawberry.ID = strawberry.field(description=docs.UNIT_ID)
    time_zone: str = strawberry.field(description="The unit's IANA time zone, which draws the periods.")
    bucket: AuditBucket = strawberry.field(description="How the range is cut.")
    hold_type: str | None = strawberry.field(description="Only bookings born with this hold type (null: all; with a "
                                             "hold type, counter bookings are left out).")
    periods: list[AuditPeriod] = strawberry.field(description="Every period of the range, in order.")


HoldConversionResult = Annotated[HoldConversion | NotFound | InvalidInput, strawberry.union(
    "HoldConversionResult", description=(
    "What holdConversion answers: HoldConversion, or the refusal (an Error) that stopped it."))]
AuditPeriodsResult = Annotated[AuditPeriods | NotFound | InvalidInput, strawberry.union(
    "AuditPeriodsResult", description=(
    "What auditPeriods answers: AuditPeriods, or the refusal (an Error) that stopped it."))]
