"""Recurring bookings (issue 23) on real PostgreSQL: a season across a daylight-saving change, a holiday and a block;
all-or-nothing and free-only series racing real concurrent single holds; one acceptance; changes; anti-fraud."""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from uuid import uuid4
from zoneinfo import ZoneInfo

import asyncpg
import pytest

from domain import lifecycle
from domain.bookings import BookingStatus
from domain.errors import HoldLimitReached, InvalidInput, SeriesConflicts, SlotTaken
from domain.series import SeriesMode, SeriesStatus, SkipReason, occurrences
from domain.services import ChangeCommand, Deps, HoldCommand, cancel, expire_lapsed, hold
from domain.services.series import (
    ConfirmSeriesCommand,
    SeriesCommand,
    cancel_series_from,
    confirm_series,
    hold_series,
    retime_series,
)
from store import units as unit_cache
from store.venues import CreatedVenue, ResourceSpec, VenueSpec, create_venue, every_day
from tests.venues import customer

NEW_YORK = ZoneInfo("America/New_York")
S = BookingStatus


def ny(d: date, hour: int, minute: int = 0) -> datetime:
    return datetime.combine(d, time(hour, minute), tzinfo=NEW_YORK).astimezone(UTC)


async def ny_arena(pool: asyncpg.Pool, fields: int = 2, **params: Any) -> CreatedVenue:
    return await create_venue(pool, VenueSpec(
        unit_name=f"NY Arena {uuid4().hex[:8]}", timezone="America/New_York", hours=every_day(8, 23),
        resources=[ResourceSpec(name=f"Campo {i}", group="Campos") for i in range(1, fields + 1)],
        params={"max_advance_days": 200, **params}))


TUESDAY = date(2027, 1, 5)  # 16 Tuesdays from here cross the start of daylight-saving time (14 March 2027)


def weekly(v: CreatedVenue, resource: str | None, n: int, first: date = TUESDAY, mode: SeriesMode =
           SeriesMode.ALL_OR_NOTHING, who: int = 1, **kw: Any) -> SeriesCommand:
    return SeriesCommand(unit_id=v.unit_id, starts_at=ny(first, 20), ends_at=ny(first, 21),
                         resource_ids=(v.resource_ids[resource],) if resource else None, customer=customer(who),
                         occurrences=n, mode=mode, channel="web", **kw)


async def occupying(pool: asyncpg.Pool, unit_id: Any) -> list[tuple[Any, Any, Any]]:
    rows = await pool.fetch("SELECT a.resource_id, lower(a.during) AS s, a.booking_id FROM allocations a "
                            "WHERE a.unit_id = $1 AND a.occupies AND a.booking_id IS NOT NULL", unit_id)
    return [(r["resource_id"], r["s"], r["booking_id"]) for r in rows]


def test_occurrences_keep_the_local_time_across_a_dst_change() -> None:
    found = occurrences(NEW_YORK, ny(TUESDAY, 20), ny(TUESDAY, 21), 1, 16)
    assert len(found) == 16
    assert {o.starts_at.astimezone(NEW_YORK).time() for o in found} == {time(20)}
    assert {o.starts_at.astimezone(NEW_YORK).weekday() for o in found} == {1}
    before, after = found[9], found[10]  # 9 March (EST, UTC-5) and 16 March (EDT, UTC-4)
    assert (before.starts_at.hour, after.starts_at.hour) == (1, 0)
    assert all(o.ends_at - o.starts_at == timedelta(hours=1) for o in found)
    every_other = occurrences(NEW_YORK, ny(TUESDAY, 20), ny(TUESDAY, 21), 2, until=date(2027, 4, 30))
    assert [o.starts_at.astimezone(NEW_YORK).date() for o in every_other][:3] == [
        TUESDAY, date(2027, 1, 19), date(2027, 2, 2)]
    with pytest.raises(InvalidInput) as e:
        occurrences(NEW_YORK, ny(TUESDAY, 20), ny(TUESDAY, 21), 1, 61)
    assert e.value.code == "too_many_occurrences"
    with pytest.raises(InvalidInput) as e:
        occurrences(NEW_YORK, ny(TUESDAY, 20), ny(TUESDAY, 21), 1, until=date(2028, 6, 1))
    assert e.value.code == "too_many_occurrences"


async def test_a_season_crosses_dst_a_holiday_and_a_block(deps: Deps, pool: asyncpg.Pool) -> None:
    v = await ny_arena(pool)
    holiday, blocked = date(2027, 2, 16), date(2027, 3, 2)
    await pool.execute("INSERT INTO hours_exceptions (id, unit_id, day, kind) VALUES ($1, $2, $3, 'closed')",
                       uuid4(), v.unit_id, holiday)
    block, campo1 = uuid4(), v.resource_ids["Campo 1"]
    during = asyncpg.Range(ny(blocked, 19), ny(blocked, 22))
    await pool.execute("INSERT INTO blocks (id, unit_id, resource_id, during) VALUES ($1, $2, $3, $4)", block,
                       v.unit_id, campo1, during)
    await pool.execute("INSERT INTO allocations (unit_id, block_id, resource_id, during, quantity, pooled) "
                       "VALUES ($1, $2, $3, $4, 1, false)", v.unit_id, block, campo1, during)
    unit_cache.invalidate(v.unit_id)

    out = await hold_series(deps, weekly(v, "Campo 1", 16))
    assert [(s.index, s.reason) for s in out.skipped] == [(6, SkipReason.CLOSED), (8, SkipReason.BLOCKED)]
    assert out.conflicts == [] and len(out.bookings) == 14
    assert {b.status for b in out.bookings} == {S.HELD}
    assert len({b.hold_expires_at for b in out.bookings}) == 1  # one hold over every occurrence
    local = [b.starts_at.astimezone(NEW_YORK) for b in out.bookings]
    assert {t.time() for t in local} == {time(20)} and local[-1].date() == date(2027, 4, 20)
    assert {b.starts_at.hour for b in out.bookings if b.starts_at < ny(date(2027, 3, 14), 12)} == {1}
    assert {b.starts_at.hour for b in out.bookings if b.starts_at > ny(date(2027, 3, 14), 12)} == {0}
    stored = await pool.fetch("SELECT series_id, series_index FROM bookings WHERE series_id = $1 ORDER BY "
                              "series_index", out.series.id)
    assert [r["series_index"] for r in stored] == [i for i in range(16) if i not in (6, 8)]

    done = await confirm_series(deps, ConfirmSeriesCommand(out.series.id, channel="web"))
    assert done.series.status is SeriesStatus.CONFIRMED and len(done.bookings) == 14
    statuses = await pool.fetch("SELECT status, acceptance IS NOT NULL AS accepted FROM bookings "
                                "WHERE series_id = $1", out.series.id)
    assert {(r["status"], r["accepted"]) for r in statuses} == {("confirmed", True)}
    periods = await pool.fetch("SELECT starts_on, (SELECT count(*) FROM bookings b WHERE b.period_id = p.id) AS n "
                               "FROM series_periods p WHERE series_id = $1 ORDER BY starts_on", out.series.id)
    assert [(r["starts_on"].month, r["n"]) for r in periods] == [(1, 4), (2, 3), (3, 4), (4, 3)]


async def _race(deps: Deps, v: CreatedVenue, resource: str, mode: SeriesMode, contested: list[int], n: int,
                rivals: int) -> tuple[Any, list[Any]]:
    """A series of `n` Tuesdays against `rivals` customers per contested week holding that week's slot at once."""
    rid = v.resource_ids[resource]

    async def single(week: int, who: int) -> Any:
        d = TUESDAY + timedelta(weeks=week)
        try:
            return (await hold(deps, HoldCommand(v.unit_id, ny(d, 20), ny(d, 21), (rid,), customer=customer(who),
                                                 channel="web"))).booking
        except SlotTaken:
            return None

    async def series() -> Any:
        try:
            return await hold_series(deps, weekly(v, resource, n, mode=mode, who=999))
        except SeriesConflicts as refused:
            return refused

    tasks = [series()] + [single(w, 100 + 10 * w + k) for w in contested for k in range(rivals)]
    found = await asyncio.gather(*tasks)
    return found[0], [b for b in found[1:] if b is not None]


async def test_free_only_series_under_concurrent_single_holds(deps: Deps, pool: asyncpg.Pool) -> None:
    v = await ny_arena(pool, fields=1)
    contested = [1, 3, 5]
    out, singles = await _race(deps, v, "Campo 1", SeriesMode.FREE_ONLY, contested, 8, 3)
    taken = await occupying(pool, v.unit_id)
    assert len(taken) == len({(r, s) for r, s, _ in taken})  # never twice
    won = {round((b.starts_at - ny(TUESDAY, 20)) / timedelta(weeks=1)) for b in singles}
    assert len(singles) == len(won)  # at most one single per week
    if isinstance(out, SeriesConflicts):  # the singles took every week it could have kept? impossible: 5 are free
        pytest.fail(f"free-only series refused: {out.message}")
    held = {b.series_index for b in out.bookings}
    assert {c.index for c in out.conflicts} == won and held == set(range(8)) - won
    assert all(c.alternatives for c in out.conflicts)
    assert len(taken) == 8  # every week taken exactly once, by the series or a single


async def test_all_or_nothing_series_under_concurrent_single_holds(deps: Deps, pool: asyncpg.Pool) -> None:
    v = await ny_arena(pool, fields=1)
    contested = [0, 2, 4, 6]
    out, singles = await _race(deps, v, "Campo 1", SeriesMode.ALL_OR_NOTHING, contested, 8, 2)
    taken = await occupying(pool, v.unit_id)
    assert len(taken) == len({(r, s) for r, s, _ in taken})
    won = {round((b.starts_at - ny(TUESDAY, 20)) / timedelta(weeks=1)) for b in singles}
    if isinstance(out, SeriesConflicts):
        # Each week a single had taken when the series looked is reported; a single that was waiting for the
        # series' locks may win its week once the series rolled back (it was free then: not a conflict).
        reported = {c.index for c in out.conflicts}
        assert reported and reported <= won
        assert all(c.alternatives for c in out.conflicts)
        assert len(taken) == len(singles)  # nothing of the series was written
        assert await pool.fetchval("SELECT count(*) FROM series WHERE unit_id = $1", v.unit_id) == 0
    else:
        assert not singles and len(out.bookings) == 8 and len(taken) == 8


async def test_any_resource_keeps_the_same_one_where_possible(deps: Deps, pool: asyncpg.Pool) -> None:
    v = await ny_arena(pool, fields=3)
    d = TUESDAY + timedelta(weeks=2)
    first = v.resource_ids["Campo 1"]
    await hold(deps, HoldCommand(v.unit_id, ny(d, 20), ny(d, 21), (first,), customer=customer(7), channel="web"))
    out = await hold_series(deps, weekly(v, None, 4))
    used = [b.allocations[0].resource_id for b in out.bookings]
    assert used[0] == first and used[1] == first and used[3] == first and used[2] != first


async def test_changes_of_a_series(deps: Deps, pool: asyncpg.Pool, clock: Any) -> None:
    v = await ny_arena(pool, fields=2)
    out = await hold_series(deps, weekly(v, "Campo 1", 6, counter=True, actor="staff"))
    assert out.series.status is SeriesStatus.CONFIRMED and {b.status for b in out.bookings} == {S.CONFIRMED}
    b0, b1 = out.bookings[0], out.bookings[1]

    await cancel(deps, ChangeCommand(b0.id, actor="staff"))  # one occurrence
    moved = await lifecycle.reschedule(deps, lifecycle.RescheduleCommand(
        b1.id, ny(TUESDAY + timedelta(weeks=1), 18), ny(TUESDAY + timedelta(weeks=1), 19), None, staff=True,
        actor="staff"))
    assert (moved.booking.series_id, moved.booking.series_index) == (out.series.id, 1)

    # Every future occurrence to 21:00: the 4th week's 21:00 is taken on Campo 1 → nothing moves.
    d3 = TUESDAY + timedelta(weeks=3)
    await hold(deps, HoldCommand(v.unit_id, ny(d3, 21), ny(d3, 22), (v.resource_ids["Campo 1"],),
                                 customer=customer(9), channel="web"))
    before = await occupying(pool, v.unit_id)
    with pytest.raises(SeriesConflicts) as refused:
        await retime_series(deps, out.series.id, time(21), None, None, "staff", True)
    assert [c.index for c in refused.value.conflicts] == [3] and refused.value.conflicts[0].alternatives
    assert sorted(await occupying(pool, v.unit_id)) == sorted(before)

    changed = await retime_series(deps, out.series.id, time(19), None, None, "staff", True)
    assert len(changed.bookings) == 5  # the moved one too (it is a future occurrence of the series)
    assert {b.starts_at.astimezone(NEW_YORK).time() for b in changed.bookings} == {time(19)}
    reasons = await pool.fetch("SELECT e.reason FROM booking_events e JOIN bookings b ON b.id = e.booking_id "
                               "WHERE b.series_id = $1 AND e.new_status = 'cancelled'", out.series.id)
    assert sum(1 for r in reasons if r["reason"] == "rescheduled") >= 5

    cut = await cancel_series_from(deps, out.series.id, ny(TUESDAY + timedelta(weeks=4), 0), "staff")
    assert len(cut.bookings) == 2 and {b.status for b in cut.bookings} == {S.CANCELLED}
    left = await pool.fetch("SELECT series_index FROM bookings WHERE series_id = $1 AND status = 'confirmed' "
                            "ORDER BY series_index", out.series.id)
    assert [r["series_index"] for r in left] == [1, 2, 3]
    events = await pool.fetchval("SELECT count(*) FROM outbox o WHERE o.unit_id = $1 AND o.topic = 'slot_changed'",
                                 v.unit_id)
    assert events >= 6 + 1 + 2 + 10 + 2


async def test_a_series_is_one_open_hold_and_expires_once(deps: Deps, pool: asyncpg.Pool, clock: Any) -> None:
    v = await ny_arena(pool, fields=2, open_holds_per_customer=2, cooldown_expirations=2)
    who = 41
    await hold_series(deps, weekly(v, "Campo 1", 8, who=who))
    d = TUESDAY + timedelta(days=1)
    single = await hold(deps, HoldCommand(v.unit_id, ny(d, 20), ny(d, 21), (v.resource_ids["Campo 2"],),
                                          customer=customer(who), channel="web"))  # 2nd open hold: allowed
    with pytest.raises(HoldLimitReached):
        await hold(deps, HoldCommand(v.unit_id, ny(d, 10), ny(d, 11), (v.resource_ids["Campo 2"],),
                                     customer=customer(who), channel="web"))
    await cancel(deps, ChangeCommand(single.booking.id, actor="staff"))
    clock.advance(hours=2)  # the series' hold lapses: 8 occurrences, one expiration
    await expire_lapsed(deps)
    again = await hold(deps, HoldCommand(v.unit_id, ny(d, 10), ny(d, 11), (v.resource_ids["Campo 2"],),
                                         customer=customer(who), channel="web"))
    assert again.booking.status is S.HELD  # one expiration so far: no cooldown (it starts at 2)


async def test_a_series_change_is_told_once_not_once_a_week(deps: Deps, pool: asyncpg.Pool, clock: Any) -> None:
    from tests.services.test_notifications import deliveries, relay_pass

    v = await ny_arena(pool, fields=1)
    out = await hold_series(deps, weekly(v, "Campo 1", 5))
    assert [b.remind_at is not None for b in out.bookings] == [True, False, False, False, False]  # one reminder
    clock.advance(seconds=1)
    await confirm_series(deps, ConfirmSeriesCommand(out.series.id, channel="web"))
    clock.advance(seconds=1)
    await cancel_series_from(deps, out.series.id, ny(TUESDAY + timedelta(weeks=3), 0), "customer")
    clock.advance(seconds=1)
    await cancel(deps, ChangeCommand(out.bookings[0].id, actor="customer"))  # one occurrence: its own notice
    await relay_pass(pool, v.unit_id, clock.now())
    told = [(d["kind"], d["booking_id"]) for d in await deliveries(pool, v.unit_id)
            if d["audience"] == "customer" and d["channel"] == "in_app"]
    first, fourth = out.bookings[0].id, out.bookings[3].id
    assert sorted(told, key=str) == sorted([("created", first), ("confirmed", first), ("cancelled", fourth),
                                            ("cancelled", first)], key=str), told


def test_occurrences_refuse_overlapping_or_out_of_range_series() -> None:
    for starts, ends, code in ((ny(TUESDAY, 20), ny(TUESDAY, 20) + timedelta(weeks=1), "range_too_long"),
                               (datetime(9999, 12, 1, 20, tzinfo=UTC), datetime(9999, 12, 1, 21, tzinfo=UTC),
                                "datetime_out_of_range")):
        with pytest.raises(InvalidInput) as e:
            occurrences(NEW_YORK, starts, ends, 1, 3)
        assert e.value.code == code
