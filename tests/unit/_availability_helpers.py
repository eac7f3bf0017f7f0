"""What the availability tests build their units, resources and occupancies with, and read their answers with
(times in local hours of a day; segments and options as short tuples)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, time, timedelta
from itertools import pairwise
from uuid import UUID, uuid4
from zoneinfo import ZoneInfo

from domain.availability import Occupancy, Segment
from domain.bookings import BookingStatus
from domain.errors import SlotOption
from domain.units import OpeningWindow, Resource, ResourceKind, Unit, UnitParameters

S = BookingStatus
SP = ZoneInfo("America/Sao_Paulo")  # no daylight-saving time since 2019
NY = ZoneInfo("America/New_York")
BERLIN = ZoneInfo("Europe/Berlin")
DAY = date(2026, 3, 10)  # a Tuesday

NY_SPRING = date(2026, 3, 8)  # 02:00 EST -> 03:00 EDT
NY_FALL = date(2026, 11, 1)  # 02:00 EDT -> 01:00 EST
BERLIN_SPRING = date(2026, 3, 29)  # 02:00 CET -> 03:00 CEST
BERLIN_FALL = date(2026, 10, 25)  # 03:00 CEST -> 02:00 CET


# --- helpers -------------------------------------------------------------------------------------------


def two_windows(a: float, b: float, c: float, d: float) -> tuple[OpeningWindow, ...]:
    """Open every day from `a` to `b` and from `c` to `d` (hours)."""
    return every_day(a, b) + every_day(c, d)


def every_day(opens: float, closes: float) -> tuple[OpeningWindow, ...]:
    """Open every day from `opens` to `closes` (hours after local midnight; may pass 24)."""
    return tuple(OpeningWindow(d, int(opens * 60), int(closes * 60)) for d in range(7))


def make_unit(
    tz: ZoneInfo = SP, slot_minutes: int = 60, hours: tuple[OpeningWindow, ...] | None = None,
    **params: object,
) -> Unit:
    return Unit(
        id=uuid4(), organization_id=uuid4(), tenant_id=uuid4(), name="Arena", timezone=tz.key,
        params=UnitParameters(slot_minutes=slot_minutes, **params),  # type: ignore[arg-type]
        hours=every_day(8, 23) if hours is None else hours,
    )


def field(unit: Unit, name: str, n: int = 0, **kw: object) -> Resource:
    return Resource(id=UUID(int=n) if n else uuid4(), unit_id=unit.id, name=name, **kw)  # type: ignore[arg-type]


def pool(unit: Unit, capacity: int = 12) -> Resource:
    return Resource(uuid4(), unit.id, "Aula de spinning", kind=ResourceKind.POOLED, capacity=capacity)


def local(hour: float, day: date = DAY, tz: ZoneInfo = SP) -> datetime:
    """`hour` o'clock on `day` in `tz` (24 and above run into the next days)."""
    return (datetime.combine(day, time(), tz) + timedelta(minutes=round(hour * 60))).replace(tzinfo=tz)


def whole_day(day: date = DAY, tz: ZoneInfo = SP) -> tuple[datetime, datetime]:
    return datetime.combine(day, time(), tz), datetime.combine(day + timedelta(days=1), time(), tz)


def occ(
    resource: Resource, start: float, end: float, status: BookingStatus | None = S.CONFIRMED,
    expires: datetime | None = None, quantity: int = 1, day: date = DAY, hold_type: str | None = None,
) -> Occupancy:
    """A booking's allocation (or a block when status is None) from `start` to `end` local hours."""
    return Occupancy(
        resource_id=resource.id, starts_at=local(start, day), ends_at=local(end, day), quantity=quantity,
        booking_id=None if status is None else uuid4(), status=status, hold_type=hold_type,
        hold_expires_at=expires,
    )


def hhmm(t: datetime, tz: ZoneInfo = SP) -> str:
    return t.astimezone(tz).strftime("%H:%M")


def hhmm_off(t: datetime, tz: ZoneInfo) -> str:
    return t.astimezone(tz).strftime("%H:%M%z")


def seg_summary(segs: Sequence[Segment], tz: ZoneInfo = SP) -> list[tuple[str, str, str, int, int]]:
    return [(hhmm(s.starts_at, tz), hhmm(s.ends_at, tz), s.state.value, s.available, s.slots) for s in segs]


def options(
    opts: Sequence[SlotOption], names: dict[UUID, str], tz: ZoneInfo = SP
) -> list[tuple[str, str, str]]:
    return [(names[o.resource_id], hhmm(o.starts_at, tz), hhmm(o.ends_at, tz)) for o in opts]


def assert_contiguous(slots: Sequence[tuple[datetime, datetime]], length: timedelta) -> None:
    """Every slot lasts exactly `length`, starts where the last ended, and no instant repeats."""
    starts = [s for s, _ in slots]
    assert len(set(starts)) == len(starts)
    assert all(e - s == length for s, e in slots)
    assert all(prev[1] == nxt[0] for prev, nxt in pairwise(slots))


NOW_MORNING = local(7)
EVE_BEFORE = local(20, DAY - timedelta(days=1))  # early enough for every slot of DAY to be bookable
RN_ATD_06_NOW = local(17, DAY) + timedelta(minutes=20)
