"""The grid computation gives exactly what the previous implementation gave (tests/unit/_grid_reference.py), on
random units, hours, resources and occupancies: exclusive and pooled resources, blocks, live and lapsed holds,
overlaps, several windows a day, windows past midnight, resources with their own hours, daylight-saving days."""

from __future__ import annotations

import gc
import random
from datetime import UTC, datetime, timedelta
from uuid import UUID, uuid4
from zoneinfo import ZoneInfo

import pytest

from domain.availability import (
    Occupancy,
    OccupancyColumns,
    WindowRow,
    bookable_slots,
    grid,
    grid_rows,
    segments,
    window_rows,
)
from domain.bookings import BookingStatus
from domain.units import OpeningWindow, Resource, ResourceKind, Unit, UnitParameters
from tests.unit import _grid_reference as ref

ZONES = ["America/Sao_Paulo", "America/New_York", "Europe/Berlin", "UTC", "Australia/Lord_Howe"]
# Days around daylight-saving changes in those zones (and an ordinary one).
DAYS = [datetime(2026, 3, 6), datetime(2026, 3, 27), datetime(2026, 10, 23), datetime(2026, 10, 30),
        datetime(2026, 6, 10), datetime(2026, 4, 3)]
STATUSES: list[BookingStatus | None] = [None, *BookingStatus]


def _hours(rnd: random.Random) -> tuple[OpeningWindow, ...]:
    kind = rnd.choice(["day", "two", "overnight", "odd", "overlap", "overlap off the grid", "closed days",
                       "around the clock"])
    if kind == "day":
        return tuple(OpeningWindow(d, 8 * 60, 23 * 60) for d in range(7))
    if kind == "two":
        return tuple(w for d in range(7) for w in (OpeningWindow(d, 7 * 60, 12 * 60),
                                                    OpeningWindow(d, 14 * 60, 22 * 60 + 30)))
    if kind == "overnight":
        return tuple(OpeningWindow(d, 18 * 60, 26 * 60) for d in range(7))
    if kind == "odd":
        return tuple(OpeningWindow(d, 8 * 60 + 15, 21 * 60 + 50) for d in range(7))
    if kind == "overlap":
        return tuple(w for d in range(7) for w in (OpeningWindow(d, 8 * 60, 14 * 60),
                                                    OpeningWindow(d, 13 * 60 + 30, 20 * 60)))
    if kind == "overlap off the grid":  # the later window's slots start before the earlier one's, from 13:15
        return tuple(w for d in range(7) for w in (OpeningWindow(d, 8 * 60, 14 * 60),
                                                    OpeningWindow(d, 13 * 60 + 20, 20 * 60)))
    if kind == "closed days":
        return tuple(OpeningWindow(d, 9 * 60, 18 * 60) for d in range(7) if d not in (0, 6))
    return tuple(OpeningWindow(d, 0, 24 * 60) for d in range(7))


def _world(seed: int) -> tuple[Unit, list[Resource], list[Occupancy], datetime, datetime, datetime]:
    rnd = random.Random(seed)
    tz = ZoneInfo(rnd.choice(ZONES))
    slot = rnd.choice([15, 30, 30, 60, 60, 90])
    unit = Unit(id=uuid4(), organization_id=uuid4(), tenant_id=uuid4(), name="u", timezone=tz.key,
                params=UnitParameters(slot_minutes=slot), hours=_hours(rnd))
    resources = []
    for i in range(rnd.randint(1, 6)):
        pooled = rnd.random() < 0.3
        own = _hours(rnd) if rnd.random() < 0.2 else ()
        resources.append(Resource(id=UUID(int=i + 1), unit_id=unit.id, name=f"r{i}",
                                  kind=ResourceKind.POOLED if pooled else ResourceKind.EXCLUSIVE,
                                  capacity=rnd.randint(1, 8) if pooled else 1, hours=own))
    day0 = rnd.choice(DAYS).replace(tzinfo=tz)
    days = rnd.randint(1, 9)
    # The asked range: on midnight, or anywhere (off the slot grid, even seconds and microseconds).
    if rnd.random() < 0.5:
        start = day0.astimezone(UTC)
    else:
        start = (day0 + timedelta(minutes=rnd.randint(-600, 900), seconds=rnd.choice([0, 0, 17]),
                                  microseconds=rnd.choice([0, 0, 250_001]))).astimezone(UTC)
    end = start + timedelta(days=days, minutes=rnd.choice([0, 0, 45, -130]))
    now = start + timedelta(minutes=rnd.randint(-3000, days * 1440))
    occs: list[Occupancy] = []
    for _ in range(rnd.randint(0, 40 * days)):
        r = rnd.choice(resources)
        base = day0 + timedelta(days=rnd.randint(-1, days), minutes=rnd.choice(range(0, 1440, 15)))
        if rnd.random() < 0.1:  # off the grid: a block over part of a slot, odd seconds
            base += timedelta(minutes=rnd.randint(1, 14), seconds=rnd.randint(0, 59))
        length = timedelta(minutes=slot * rnd.choice([1, 1, 2, 3, 4])) if rnd.random() < 0.9 else \
            timedelta(minutes=rnd.randint(1, 3000))
        s = base.astimezone(UTC)
        status = rnd.choice(STATUSES)
        expires = (now + timedelta(minutes=rnd.randint(-60, 60))) if rnd.random() < 0.6 else None
        if rnd.random() < 0.05:
            expires = now  # exactly at the deadline: lapsed
        booking = None if status is None and rnd.random() < 0.9 else uuid4()
        occs.append(Occupancy(  # a block (no booking) has no hold type or deadline, as in the database
            resource_id=r.id if rnd.random() < 0.95 else uuid4(), starts_at=s, ends_at=s + length,
            quantity=rnd.randint(1, 4) if r.kind is ResourceKind.POOLED else 1, booking_id=booking, status=status,
            hold_type=rnd.choice([None, "CART", "BOT"]) if booking else None,
            hold_expires_at=expires if booking else None))
    if occs and rnd.random() < 0.3:  # exact duplicates
        occs += rnd.sample(occs, min(3, len(occs)))
    rnd.shuffle(occs)
    return unit, resources, occs, start, end, now


def _view(rows: list[WindowRow], identity: bool = True) -> list[tuple[object, ...]]:
    return [(r.resource, r.first, r.step, bytes(r.codes), list(r.available),
             [r.owner(i) for i in range(len(r))], [id(r.owner(i)) for i in range(len(r))] if identity else None,
             len(r))
            for r in rows]


def _from_store(resource_id: UUID, occs: list[Occupancy]) -> OccupancyColumns:
    """Columns as PgBookings.grid_occupancy makes them: POSIX seconds, no Occupancy tuples."""
    return OccupancyColumns(resource_id, [o.starts_at.timestamp() for o in occs], [o.ends_at.timestamp() for o in occs],
                            [o.quantity for o in occs], [o.booking_id for o in occs], [o.status for o in occs],
                            [o.hold_type for o in occs],
                            [o.hold_expires_at.timestamp() if o.hold_expires_at else None for o in occs])


@pytest.mark.parametrize("seed", range(400))
def test_grid_rows_segments_and_bookable_slots_are_unchanged(seed: int) -> None:
    unit, resources, occs, start, end, now = _world(seed)
    new, old = grid_rows(unit, resources, occs, start, end, now), ref.grid_rows(unit, resources, occs, start, end,
                                                                                 now)
    assert list(new) == list(old)
    for r in resources:
        assert _view(new[r.id]) == _view(old[r.id])
        assert segments(new[r.id]) == segments(old[r.id])
        mine = [o for o in occs if o.resource_id == r.id]
        assert _view(window_rows(unit, r, mine, start, end, now)) == _view(
            ref.window_rows(unit, r, mine, start, end, now))
    assert grid(unit, resources, occs, start, end, now) == {
        rid: segments(rows) for rid, rows in old.items()}
    # As the store reads them: columns of numbers, each occupancy built again when a slot's owner is asked for.
    columns = {rid: _from_store(rid, [o for o in occs if o.resource_id == rid])
               for rid in {o.resource_id for o in occs}}
    from_store = grid_rows(unit, resources, columns, start, end, now)
    for r in resources:
        assert _view(from_store[r.id], identity=False) == _view(old[r.id], identity=False)
        assert segments(from_store[r.id]) == segments(old[r.id])
    for slots, quantity in ((1, 1), (2, 1), (1, 2)):
        assert bookable_slots(unit, resources, occs, start, end, now, slots, quantity) == ref.bookable_slots(
            unit, resources, occs, start, end, now, slots, quantity)


@pytest.mark.parametrize("minute", range(0, 60, 5))
def test_overlapping_windows_whose_first_slots_come_out_of_order_are_unchanged(minute: int) -> None:
    """Open 08:00-14:00 and 13:20-20:00, 30-min slots, asked from 13:mm: the first window's first slot
    (13:30) comes after the second's (13:20) when mm is between 00 and 20."""
    tz = ZoneInfo("America/Sao_Paulo")
    hours = tuple(w for d in range(7) for w in (OpeningWindow(d, 8 * 60, 14 * 60), OpeningWindow(d, 13 * 60 + 20,
                                                                                                   20 * 60)))
    unit = Unit(id=uuid4(), organization_id=uuid4(), tenant_id=uuid4(), name="u", timezone=tz.key,
                params=UnitParameters(slot_minutes=30), hours=hours)
    r = Resource(id=uuid4(), unit_id=unit.id, name="r")
    day = datetime(2026, 5, 5, tzinfo=tz)
    start = (day + timedelta(hours=13, minutes=minute)).astimezone(UTC)
    occs = [Occupancy(r.id, (day + timedelta(minutes=a)).astimezone(UTC), (day + timedelta(minutes=b)).astimezone(UTC),
                      booking_id=None if a == 800 else uuid4(), status=None if a == 800 else BookingStatus.CONFIRMED)
            for a, b in ((800, 810), (810, 830), (830, 850), (850, 880), (860, 890))]  # 13:20-13:30 is a block
    now = day.astimezone(UTC)
    end = start + timedelta(days=1)
    assert _view(grid_rows(unit, [r], occs, start, end, now)[r.id]) == _view(
        ref.grid_rows(unit, [r], occs, start, end, now)[r.id])


def test_a_grid_is_freed_without_the_garbage_collector() -> None:
    """No reference cycles: a month's grid has thousands of objects, and garbage in cycles waits for (and
    triggers) collections in the API process."""
    unit, resources, occs, start, end, now = _world(7)
    columns = {rid: _from_store(rid, [o for o in occs if o.resource_id == rid])
               for rid in {o.resource_id for o in occs}}
    gc.collect()
    gc.disable()
    try:
        rows = grid_rows(unit, resources, columns, start, end, now)
        assert [segments(rows[r.id]) for r in resources]  # owners and places worked out, occupancies built
        del rows
        assert gc.collect() == 0
    finally:
        gc.enable()
