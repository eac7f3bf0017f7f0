"""No-show suggestions, marking a no-show, and appointment reminders (SPEC §11), on the real database with a
controlled clock: the crons are run by hand, twice where twice must change nothing."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest

from domain import lifecycle
from domain.attendance import mark_no_show
from domain.bookings import BookingStatus
from domain.errors import InvalidInput, InvalidTransition
from domain.lifecycle import RescheduleCommand
from domain.services import ChangeCommand, CounterCommand, Deps, HoldCommand, cancel, check_in, counter_booking, hold
from domain.unit_settings import checked_changes
from jobs.attendance import remind_appointments, suggest_no_shows
from store.attendance import PgAttendance
from store.unit_settings import update_parameters
from tests.services.test_notifications import deliveries, relay_pass
from tests.venues import arena, at, customer

S = BookingStatus


def ctx(deps: Deps, pool: Any) -> dict[str, Any]:
    return {"deps": deps, "attendance": PgAttendance(pool)}


async def counter(deps: Deps, unit: UUID, resource: UUID, day: int, hour: int, n: int = 1) -> Any:
    r = await counter_booking(deps, CounterCommand(unit, at(day, hour), at(day, hour + 1), (resource,),
                                                   customer=customer(n), channel="counter", actor="staff"))
    assert r.booking.status is S.CONFIRMED
    return r.booking


async def suggestions(pool: Any, unit: UUID) -> list[dict[str, Any]]:
    rows = await pool.fetch("SELECT * FROM queue_items WHERE unit_id = $1 AND type = 'no_show_suggestion' "
                            "ORDER BY created_at", unit)
    return [dict(r) for r in rows]


async def reminders(pool: Any, unit: UUID) -> list[tuple[UUID, int]]:
    rows = await pool.fetch("SELECT payload FROM outbox WHERE unit_id = $1 AND topic = 'notification' "
                            "AND payload->>'kind' = 'appointment_reminder' ORDER BY id", unit)
    return [(UUID(r["payload"]["booking_id"]), r["payload"]["offset_minutes"]) for r in rows]


# --- no-show -------------------------------------------------------------------------------------------------


async def test_a_suggestion_after_the_grace_only_and_once(deps: Deps, pool: Any, clock: Any) -> None:
    v = await arena(pool)
    b = await counter(deps, v.unit_id, v.resource_ids["Campo 1"], 7, 10)
    clock.set(at(7, 10, 14))  # within the 15-minute grace
    await suggest_no_shows(ctx(deps, pool))
    assert await suggestions(pool, v.unit_id) == []
    clock.set(at(7, 10, 15))
    await suggest_no_shows(ctx(deps, pool))
    await suggest_no_shows(ctx(deps, pool))  # run twice: still one
    items = await suggestions(pool, v.unit_id)
    assert [(i["booking_id"], i["status"], i["priority"]) for i in items] == [(b.id, "open", "normal")]
    opened = await pool.fetch("SELECT payload FROM outbox WHERE unit_id = $1 AND topic = 'queue_changed' "
                              "AND payload->>'type' = 'no_show_suggestion'", v.unit_id)
    assert [r["payload"]["kind"] for r in opened] == ["opened"]
    assert (await pool.fetchval("SELECT status FROM bookings WHERE id = $1", b.id)) == "confirmed"


async def test_the_grace_is_a_unit_parameter(deps: Deps, pool: Any, clock: Any) -> None:
    v = await arena(pool)
    await update_parameters(pool, v.unit_id, checked_changes({"noShowGraceMinutes": 45}))
    await counter(deps, v.unit_id, v.resource_ids["Campo 1"], 7, 10)
    clock.set(at(7, 10, 30))
    await suggest_no_shows(ctx(deps, pool))
    assert await suggestions(pool, v.unit_id) == []
    clock.set(at(7, 10, 45))
    await suggest_no_shows(ctx(deps, pool))
    assert len(await suggestions(pool, v.unit_id)) == 1
    with pytest.raises(InvalidInput) as e:
        checked_changes({"noShowGraceMinutes": 1441})
    assert e.value.field == "noShowGraceMinutes"


async def test_no_suggestion_when_checked_in(deps: Deps, pool: Any, clock: Any) -> None:
    v = await arena(pool)
    b = await counter(deps, v.unit_id, v.resource_ids["Campo 1"], 7, 10)
    clock.set(at(7, 10, 5))
    await check_in(deps, ChangeCommand(b.id, actor="staff"))
    clock.set(at(7, 10, 30))
    await suggest_no_shows(ctx(deps, pool))
    assert await suggestions(pool, v.unit_id) == []


async def test_a_late_check_in_closes_the_suggestion(deps: Deps, pool: Any, clock: Any) -> None:
    v = await arena(pool)
    b = await counter(deps, v.unit_id, v.resource_ids["Campo 1"], 7, 10)
    clock.set(at(7, 10, 20))
    await suggest_no_shows(ctx(deps, pool))
    await check_in(deps, ChangeCommand(b.id, actor="staff"))
    clock.set(at(7, 10, 21))
    await suggest_no_shows(ctx(deps, pool))
    [item] = await suggestions(pool, v.unit_id)
    assert item["status"] == "resolved" and item["resolved_by"] == "system"


async def test_staff_mark_the_no_show(deps: Deps, pool: Any, clock: Any) -> None:
    v = await arena(pool)
    b = await counter(deps, v.unit_id, v.resource_ids["Campo 1"], 7, 10)
    with pytest.raises(InvalidInput) as e:  # not before the start
        await mark_no_show(deps, b.id)
    assert e.value.code == "not_started"
    clock.set(at(7, 10, 20))
    await suggest_no_shows(ctx(deps, pool))
    r = await mark_no_show(deps, b.id, "staff")
    assert r.booking.status is S.NO_SHOW
    [item] = await suggestions(pool, v.unit_id)
    assert item["status"] == "resolved" and item["resolved_by"] == "staff"
    event = await pool.fetchrow("SELECT old_status, new_status, actor FROM booking_events WHERE booking_id = $1 "
                                "ORDER BY id DESC LIMIT 1", b.id)
    assert tuple(event) == ("confirmed", "no_show", "staff")
    changed = await pool.fetch("SELECT payload FROM outbox WHERE unit_id = $1 AND topic = 'slot_changed' "
                               "AND payload->>'booking_id' = $2 ORDER BY id", v.unit_id, str(b.id))
    assert changed[-1]["payload"]["status"] == "no_show"
    assert not await pool.fetchval("SELECT bool_or(occupies) FROM allocations WHERE booking_id = $1", b.id)
    with pytest.raises(InvalidTransition):  # once
        await mark_no_show(deps, b.id)
    clock.set(at(7, 11, 30))
    await suggest_no_shows(ctx(deps, pool))
    assert len(await suggestions(pool, v.unit_id)) == 1  # no new suggestion for a no-show


async def test_only_confirmed_bookings_become_no_shows(deps: Deps, pool: Any, clock: Any) -> None:
    v = await arena(pool)
    b = await counter(deps, v.unit_id, v.resource_ids["Campo 1"], 7, 10)
    clock.set(at(7, 10, 5))
    await check_in(deps, ChangeCommand(b.id, actor="staff"))
    with pytest.raises(InvalidTransition):
        await mark_no_show(deps, b.id)


# --- appointment reminders -------------------------------------------------------------------------------------


async def test_reminders_at_each_offset_once(deps: Deps, pool: Any, clock: Any) -> None:
    v = await arena(pool)
    b = await counter(deps, v.unit_id, v.resource_ids["Campo 1"], 9, 19)  # booked on the 7th, 09:00
    for moment, expected in (
        (at(8, 18, 59), []),
        (at(8, 19, 0), [(b.id, 1440)]),
        (at(8, 19, 1), [(b.id, 1440)]),
        (at(9, 16, 59), [(b.id, 1440)]),
        (at(9, 17, 0), [(b.id, 1440), (b.id, 120)]),
        (at(9, 18, 0), [(b.id, 1440), (b.id, 120)]),
        (at(9, 19, 0), [(b.id, 1440), (b.id, 120)]),
    ):
        clock.set(moment)
        await remind_appointments(ctx(deps, pool))
        await remind_appointments(ctx(deps, pool))  # twice: nothing sent twice
        assert await reminders(pool, v.unit_id) == expected, moment
    await relay_pass(pool, v.unit_id, clock.now())
    sent = [r for r in await deliveries(pool, v.unit_id) if r["kind"] == "appointment_reminder"]
    assert {(r["audience"], r["channel"]) for r in sent} == {("customer", "in_app"), ("customer", "whatsapp")}
    assert len(sent) == 4  # two reminders, two channels
    assert all(r["title"] == "Lembrete da reserva" and "09/12 19:00" in r["body"] for r in sent)


async def test_offsets_are_a_unit_parameter_in_its_language(deps: Deps, pool: Any, clock: Any) -> None:
    v = await arena(pool)
    await update_parameters(pool, v.unit_id, checked_changes(
        {"appointmentReminderMinutes": [30], "notificationLocale": "en"}))
    b = await counter(deps, v.unit_id, v.resource_ids["Campo 1"], 9, 19)
    clock.set(at(9, 17, 0))
    await remind_appointments(ctx(deps, pool))
    assert await reminders(pool, v.unit_id) == []
    clock.set(at(9, 18, 30))
    await remind_appointments(ctx(deps, pool))
    assert await reminders(pool, v.unit_id) == [(b.id, 30)]
    await relay_pass(pool, v.unit_id, clock.now())
    [sent, *_] = [r for r in await deliveries(pool, v.unit_id) if r["kind"] == "appointment_reminder"]
    assert sent["title"] == "Booking reminder"
    await update_parameters(pool, v.unit_id, checked_changes({"appointmentReminderMinutes": []}))
    c = await counter(deps, v.unit_id, v.resource_ids["Campo 2"], 10, 19)
    clock.set(at(10, 18, 50))
    await remind_appointments(ctx(deps, pool))
    assert c.id not in {bid for bid, _ in await reminders(pool, v.unit_id)}


@pytest.mark.parametrize("value", [[0], [10081], [60, 60], [1, 2, 3, 4, 5, 6], "120"])
def test_bad_offsets_are_refused_by_name(value: Any) -> None:
    with pytest.raises(InvalidInput) as e:
        checked_changes({"appointmentReminderMinutes": value})
    assert e.value.field == "appointmentReminderMinutes"


def test_offsets_are_stored_largest_first() -> None:
    assert checked_changes({"appointmentReminderMinutes": [120, 1440]}) == {
        "appointment_reminder_minutes": [1440, 120]}


async def test_a_late_booking_is_reminded_only_ahead(deps: Deps, pool: Any, clock: Any) -> None:
    v = await arena(pool)
    clock.set(at(9, 15, 0))  # 4 h before: the 1440 reminder's moment was before the booking
    b = await counter(deps, v.unit_id, v.resource_ids["Campo 1"], 9, 19)
    await remind_appointments(ctx(deps, pool))
    assert await reminders(pool, v.unit_id) == []
    clock.set(at(9, 17, 0))
    await remind_appointments(ctx(deps, pool))
    assert await reminders(pool, v.unit_id) == [(b.id, 120)]


async def test_a_sweep_that_was_down_sends_the_nearest_only(deps: Deps, pool: Any, clock: Any) -> None:
    v = await arena(pool)
    b = await counter(deps, v.unit_id, v.resource_ids["Campo 1"], 9, 19)
    clock.set(at(9, 18, 0))  # both moments passed unseen
    await remind_appointments(ctx(deps, pool))
    await remind_appointments(ctx(deps, pool))
    assert await reminders(pool, v.unit_id) == [(b.id, 120)]


async def test_no_reminder_after_cancel(deps: Deps, pool: Any, clock: Any) -> None:
    v = await arena(pool)
    b = await counter(deps, v.unit_id, v.resource_ids["Campo 1"], 9, 19)
    clock.set(at(8, 19, 0))
    await remind_appointments(ctx(deps, pool))
    assert await reminders(pool, v.unit_id) == [(b.id, 1440)]
    await cancel(deps, ChangeCommand(b.id, actor="staff"))
    clock.set(at(9, 17, 0))
    await remind_appointments(ctx(deps, pool))
    assert await reminders(pool, v.unit_id) == [(b.id, 1440)]


async def test_a_reschedule_is_reminded_for_the_new_time_only(deps: Deps, pool: Any, clock: Any) -> None:
    v = await arena(pool)
    b = await counter(deps, v.unit_id, v.resource_ids["Campo 1"], 9, 19)
    clock.set(at(8, 19, 0))
    await remind_appointments(ctx(deps, pool))
    assert await reminders(pool, v.unit_id) == [(b.id, 1440)]
    clock.set(at(8, 20, 0))
    moved = (await lifecycle.reschedule(deps, RescheduleCommand(b.id, at(10, 20), at(10, 21), actor="staff",
                                                                staff=True))).booking
    assert moved.id != b.id and moved.status is S.CONFIRMED
    clock.set(at(9, 17, 0))  # the old time's 120 reminder: nothing
    await remind_appointments(ctx(deps, pool))
    assert await reminders(pool, v.unit_id) == [(b.id, 1440)]
    for moment in (at(9, 20, 0), at(10, 18, 0), at(10, 19, 0)):
        clock.set(moment)
        await remind_appointments(ctx(deps, pool))
    assert await reminders(pool, v.unit_id) == [(b.id, 1440), (moved.id, 1440), (moved.id, 120)]
    await relay_pass(pool, v.unit_id, clock.now())
    bodies = {r["body"] for r in await deliveries(pool, v.unit_id)
              if r["kind"] == "appointment_reminder" and r["booking_id"] == moved.id}
    assert bodies and all("10/12 20:00" in body for body in bodies)


async def test_a_booking_not_confirmed_gets_no_reminder(deps: Deps, pool: Any, clock: Any) -> None:
    v = await arena(pool)
    await hold(deps, HoldCommand(v.unit_id, at(7, 12), at(7, 13), (v.resource_ids["Campo 1"],),
                                 customer=customer(2)))
    clock.set(at(7, 10, 0))  # the 120 reminder's moment: a hold (here lapsed) is not a confirmed booking
    await remind_appointments(ctx(deps, pool))
    assert await reminders(pool, v.unit_id) == []
