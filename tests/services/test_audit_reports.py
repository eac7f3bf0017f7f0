"""Audit reports over booking_events (SPEC §15, seed 004), on histories made by the real use cases."""

from __future__ import annotations

import itertools
from datetime import UTC, date, datetime, timedelta
from typing import Any
from uuid import UUID

import pytest

from domain import checkout, lifecycle
from domain.attendance import mark_no_show
from domain.audit_reports import (
    AuditBucket,
    AuditPeriod,
    HoldConversion,
    PeriodCounts,
    audit_periods,
    bucket_days,
    hold_conversion,
)
from domain.bookings import BookingStatus
from domain.errors import InvalidInput
from domain.services import (
    ChangeCommand,
    CounterCommand,
    Deps,
    HoldCommand,
    cancel,
    counter_booking,
    expire_lapsed,
    hold,
)
from domain.units import Unit
from store.audit_reports import PgAuditReports
from store.venues import CreatedVenue
from tests.conftest import T0, MutableClock
from tests.venues import SAO_PAULO, arena, at, customer

S = BookingStatus
MINUTE = timedelta(minutes=1)


async def unit_of(pool: Any, v: CreatedVenue) -> Unit:
    row = await pool.fetchrow("SELECT u.id, u.organization_id, o.tenant_id, u.name, u.timezone FROM units u "
                              "JOIN organizations o ON o.id = u.organization_id WHERE u.id = $1", v.unit_id)
    return Unit(id=row["id"], organization_id=row["organization_id"], tenant_id=row["tenant_id"], name=row["name"],
                timezone=row["timezone"])


class History:
    """One arena's bookings, each made through the use cases by its own customer."""

    def __init__(self, deps: Deps, v: CreatedVenue) -> None:
        self.deps, self.v = deps, v

    async def hold(self, n: int, field: int, day: int, hour: int, hold_type: str | None = None) -> Any:
        r = await hold(self.deps, HoldCommand(self.v.unit_id, at(day, hour), at(day, hour + 1),
                                              (self.v.resource_ids[f"Campo {field}"],), customer=customer(n),
                                              hold_type=hold_type))
        assert r.booking.status is S.HELD
        return r.booking

    async def sold(self, n: int, field: int, day: int, hour: int, hold_type: str | None = None) -> Any:
        b = await self.hold(n, field, day, hour, hold_type)
        return await self.confirm(b.id)

    async def confirm(self, booking_id: UUID) -> Any:
        c = await checkout.confirm(self.deps, checkout.ConfirmCommand(booking_id))
        assert c.booking.status is S.CONFIRMED
        return c.booking

    async def counter(self, n: int, field: int, day: int, hour: int) -> Any:
        r = await counter_booking(self.deps, CounterCommand(self.v.unit_id, at(day, hour), at(day, hour + 1),
                                              (self.v.resource_ids[f"Campo {field}"],), customer=customer(n),
                                              channel="counter", actor="staff"))
        assert r.booking.status is S.CONFIRMED
        return r.booking


def conversion(created: int, sold: int, expired: int = 0, cancelled: int = 0, open: int = 0) -> HoldConversion:
    return HoldConversion(created=created, sold=sold, expired=expired, cancelled=cancelled, open=open)


async def test_holds_of_a_range_are_counted_once_by_where_they_ended(deps: Deps, pool: Any,
                                                                     clock: MutableClock) -> None:
    v = await arena(pool, hold_ceiling_percent=100)
    unit, reports, h = await unit_of(pool, v), PgAuditReports(pool), History(deps, v)
    clock.set(T0 - 30 * MINUTE)
    await h.hold(100, 1, 8, 10)  # before the range: expires with the sweep below
    clock.set(T0)
    await h.sold(1, 1, 8, 11)
    await h.hold(2, 1, 8, 12)  # expires
    await h.counter(50, 1, 8, 13)  # born confirmed: not a hold
    await h.sold(51, 1, 8, 14, "RESERVED")
    h5 = await h.sold(5, 2, 8, 10)  # sold, then a no-show: still sold
    h7 = await h.hold(7, 2, 8, 11)  # moved twice, then sold: one sold hold
    swapped = await checkout.swap(deps, checkout.SwapCommand(h7.id, HoldCommand(
        v.unit_id, at(8, 12), at(8, 13), (v.resource_ids["Campo 2"],), customer=customer(7))))
    moved = await lifecycle.reschedule(deps, lifecycle.RescheduleCommand(
        swapped.booking.id, at(8, 13), at(8, 14), customer=customer(7)))
    assert moved.booking.rescheduled_from == swapped.booking.id and moved.booking.status is S.HELD
    await h.confirm(moved.booking.id)
    clock.set(T0 + 11 * MINUTE)
    assert await expire_lapsed(deps) >= 2  # (the shared test database may hold other tests' lapsed holds)
    h3 = await h.hold(3, 3, 8, 10)
    await cancel(deps, ChangeCommand(h3.id))
    clock.set(T0 + 58 * MINUTE)
    await h.hold(4, 3, 8, 11)  # still open
    await h.hold(52, 3, 8, 12, "RESERVED")  # still open
    h6 = await h.hold(6, 3, 8, 13)
    clock.set(T0 + 62 * MINUTE)
    await h.confirm(h6.id)  # born in the range, sold after it: sold
    await h.hold(8, 4, 8, 10)  # after the range

    hour = (T0, T0 + 60 * MINUTE)
    cart = await hold_conversion(reports, unit, *hour, "CART")
    assert cart == conversion(created=7, sold=4, expired=1, cancelled=1, open=1)
    assert cart.sold_share == pytest.approx(4 / 7)
    reserved = await hold_conversion(reports, unit, *hour, "RESERVED")
    assert reserved == conversion(created=2, sold=1, open=1) and reserved.sold_share == 0.5
    assert await hold_conversion(reports, unit, *hour) == conversion(created=9, sold=5, expired=1, cancelled=1,
                                                                     open=2)
    before = await hold_conversion(reports, unit, T0 - 60 * MINUTE, T0, "CART")
    assert before == conversion(created=1, sold=0, expired=1) and before.sold_share == 0.0
    none = await hold_conversion(reports, unit, *hour, "COMP")
    assert none == conversion(created=0, sold=0) and none.sold_share is None
    # The edges: `from` is in, `to` is out; the range may be given in any offset.
    assert (await hold_conversion(reports, unit, T0 + 58 * MINUTE, T0 + 59 * MINUTE)).created == 3
    assert (await hold_conversion(reports, unit, T0 - 59 * MINUTE, T0)).created == 1
    assert (await hold_conversion(reports, unit, T0.astimezone(SAO_PAULO), (T0 + 60 * MINUTE).astimezone(SAO_PAULO),
                                  "CART")) == cart

    # Next day: the sold hold's customer does not come, and the sweep expires the CART holds that lapsed (a
    # RESERVED hold, released by staff only, lasts until its slot: still open).
    clock.set(at(8, 10, 5))
    await mark_no_show(deps, h5.id)
    assert await expire_lapsed(deps) >= 2  # (the shared test database may hold other tests' lapsed holds)
    assert await hold_conversion(reports, unit, *hour, "CART") == conversion(created=7, sold=4, expired=2,
                                                                             cancelled=1)
    assert await hold_conversion(reports, unit, *hour, "RESERVED") == reserved

    days = await audit_periods(reports, unit, at(7, 0), at(9, 0))
    assert [(p.day, p.starts_at, p.ends_at) for p in days] == [
        (date(2026, 12, 7), at(7, 0), at(8, 0)), (date(2026, 12, 8), at(8, 0), at(9, 0))]
    assert days[0].counts == PeriodCounts(holds_created=11, sold=5, born_confirmed=1, moved=2, expired=2,
                                          cancelled=1)
    assert days[1].counts == PeriodCounts(no_shows=1, expired=2)
    cart_days = await audit_periods(reports, unit, at(7, 0), at(9, 0), AuditBucket.DAY, "CART")
    assert [p.counts for p in cart_days] == [
        PeriodCounts(holds_created=9, sold=4, moved=2, expired=2, cancelled=1),
        PeriodCounts(no_shows=1, expired=2)]
    reserved_days = await audit_periods(reports, unit, at(7, 0), at(9, 0), AuditBucket.DAY, "RESERVED")
    assert [p.counts for p in reserved_days] == [PeriodCounts(holds_created=2, sold=1), PeriodCounts()]


async def test_days_and_weeks_are_the_units_not_utcs(deps: Deps, pool: Any, clock: MutableClock) -> None:
    v = await arena(pool, hold_ceiling_percent=100)
    unit, reports, h = await unit_of(pool, v), PgAuditReports(pool), History(deps, v)
    clock.set(at(6, 23))  # Sunday 23:00 in São Paulo, Monday 02:00 UTC
    await h.hold(1, 1, 8, 12)
    clock.set(at(7, 23, 30))  # Monday 23:30 in São Paulo, Tuesday 02:30 UTC
    await h.hold(2, 1, 8, 10)
    clock.set(at(8, 0, 30))  # Tuesday 00:30 in São Paulo
    await h.hold(3, 1, 8, 11)
    assert at(7, 23, 30).date() == at(8, 0, 30).date() == date(2026, 12, 8)  # one UTC day

    days = await audit_periods(reports, unit, at(6, 0), at(9, 0))
    assert [(p.day, p.counts.holds_created) for p in days] == [
        (date(2026, 12, 6), 1), (date(2026, 12, 7), 1), (date(2026, 12, 8), 1)]
    # A range that starts and ends mid-day: its first and last days are clipped.
    clipped = await audit_periods(reports, unit, at(7, 12), at(8, 0, 15))
    assert [(p.day, p.starts_at, p.ends_at, p.counts.holds_created) for p in clipped] == [
        (date(2026, 12, 7), at(7, 12), at(8, 0), 1), (date(2026, 12, 8), at(8, 0), at(8, 0, 15), 0)]
    # Weeks start on Monday (December 7th, 2026), in the unit's time zone.
    weeks = await audit_periods(reports, unit, at(6, 0), at(15, 0), AuditBucket.WEEK)
    assert [(p.day, p.starts_at, p.ends_at, p.counts.holds_created) for p in weeks] == [
        (date(2026, 11, 30), at(6, 0), at(7, 0), 1), (date(2026, 12, 7), at(7, 0), at(14, 0), 2),
        (date(2026, 12, 14), at(14, 0), at(15, 0), 0)]


def test_buckets_cover_the_range_in_order_across_a_dst_change() -> None:
    from zoneinfo import ZoneInfo

    ny = ZoneInfo("America/New_York")  # clocks go back on 2026-11-01 at 02:00
    start = datetime(2026, 10, 31, 0, 0, tzinfo=ny).astimezone(UTC)
    end = datetime(2026, 11, 3, 0, 0, tzinfo=ny).astimezone(UTC)
    periods = bucket_days(ny, AuditBucket.DAY, start, end)
    assert [p.day for p in periods] == [date(2026, 10, 31), date(2026, 11, 1), date(2026, 11, 2)]
    assert [p.ends_at - p.starts_at for p in periods] == [timedelta(hours=24), timedelta(hours=25),
                                                          timedelta(hours=24)]
    assert all(a.ends_at == b.starts_at for a, b in itertools.pairwise(periods))
    assert periods == [AuditPeriod(p.day, p.starts_at, p.ends_at, PeriodCounts()) for p in periods]


@pytest.mark.parametrize(("start", "end", "field", "code"), [
    (datetime(2026, 12, 7), T0 + timedelta(hours=1), "from", "naive_datetime"),
    (T0, datetime(2026, 12, 8), "to", "naive_datetime"),
    (T0, T0, "to", "invalid_range"),
    (T0, T0 - MINUTE, "to", "invalid_range"),
    (T0, T0 + timedelta(days=366, seconds=1), "to", "range_too_long"),
])
async def test_bad_ranges_are_refused_by_name(pool: Any, start: datetime, end: datetime, field: str,
                                              code: str) -> None:
    unit = Unit(id=UUID(int=1), organization_id=UUID(int=2), tenant_id=UUID(int=3), name="x",
                timezone="America/Sao_Paulo")
    for report in (hold_conversion(PgAuditReports(pool), unit, start, end),
                   audit_periods(PgAuditReports(pool), unit, start, end)):
        with pytest.raises(InvalidInput) as refused:
            await report
        assert (refused.value.field, refused.value.code) == (field, code)


@pytest.mark.parametrize("hold_type", ["", " CART", "X" * 65])
async def test_a_bad_hold_type_is_refused_by_name(pool: Any, hold_type: str) -> None:
    unit = Unit(id=UUID(int=1), organization_id=UUID(int=2), tenant_id=UUID(int=3), name="x",
                timezone="America/Sao_Paulo")
    with pytest.raises(InvalidInput) as refused:
        await hold_conversion(PgAuditReports(pool), unit, T0, T0 + MINUTE, hold_type)
    assert refused.value.field == "holdType"


async def test_a_full_year_is_accepted(pool: Any) -> None:
    v = await arena(pool)
    unit = await unit_of(pool, v)
    r = await hold_conversion(PgAuditReports(pool), unit, T0, T0 + timedelta(days=366))
    assert r == conversion(created=0, sold=0) and r.sold_share is None
    weeks = await audit_periods(PgAuditReports(pool), unit, T0, T0 + timedelta(days=366), AuditBucket.WEEK)
    assert len(weeks) == 53 and weeks[0].starts_at == T0 and weeks[-1].ends_at == T0 + timedelta(days=366)
