"""RN-HLD-05's pure rules: cooldown from expirations, the unit's hold ceiling, the size of a day's grid."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from uuid import uuid4

from domain.availability import Occupancy
from domain.bookings import BookingStatus
from domain.fraud import ceiling_reached, cooldown_until, day_range, free_units, grid_units, is_self_service
from domain.units import OpeningWindow, Resource, ResourceKind, Unit, UnitParameters
from tests.venues import SAO_PAULO

P = UnitParameters()


def local(day: int, hour: int) -> datetime:
    return datetime(2026, 12, day, hour, tzinfo=SAO_PAULO).astimezone(UTC)


def test_the_seeds_example_three_expirations_in_a_week_mean_48_hours_of_cooldown() -> None:
    # Monday 7, Wednesday 9 and Saturday 12 at 16h: cooldown from Saturday 16h until Monday 14 at 16h.
    expired = [local(7, 10), local(9, 12), local(12, 16)]
    assert cooldown_until(expired, P, local(12, 16)) == local(14, 16)
    assert cooldown_until(expired, P, local(14, 15)) == local(14, 16)
    assert cooldown_until(expired, P, local(14, 16)) is None  # over at its end, exactly


def test_two_expirations_are_not_enough() -> None:
    assert cooldown_until([local(7, 10), local(12, 16)], P, local(12, 17)) is None


def test_the_three_must_fall_within_the_window() -> None:
    spread = [local(1, 10), local(5, 10), local(8, 10)]  # first to last: exactly 7 days
    assert cooldown_until(spread, P, local(8, 11)) is None
    assert cooldown_until([*spread[:2], local(8, 9)], P, local(8, 11)) == local(10, 9)


def test_a_later_expiration_restarts_the_cooldown_and_future_ones_are_ignored() -> None:
    expired = [local(7, 10), local(7, 11), local(7, 12), local(8, 9)]
    assert cooldown_until(expired, P, local(8, 10)) == local(10, 9)
    assert cooldown_until([*expired, local(20, 9)], P, local(8, 10)) == local(10, 9)


def test_the_numbers_are_unit_parameters() -> None:
    strict = UnitParameters(cooldown_expirations=2, cooldown_window=timedelta(days=1),
                            cooldown_duration=timedelta(hours=1))
    assert cooldown_until([local(7, 10), local(7, 20)], strict, local(7, 20)) == local(7, 21)
    assert cooldown_until([local(7, 10), local(8, 11)], strict, local(8, 11)) is None


def test_the_ceiling_is_reached_at_30_percent_of_the_free_slots() -> None:
    # Seed: 40 free slots → new holds are refused from 12 open holds on.
    assert not ceiling_reached(11, 40, 30)
    assert ceiling_reached(12, 40, 30)
    assert not ceiling_reached(0, 0, 30)  # nothing open: nothing to refuse for
    assert not ceiling_reached(0, 3, 30) and ceiling_reached(1, 3, 30)


def test_only_the_counter_is_not_self_service() -> None:
    assert not is_self_service("counter")
    assert all(is_self_service(c) for c in ("web", "bot", "whatsapp", "api", "waitlist"))


def _unit() -> Unit:
    return Unit(id=uuid4(), organization_id=uuid4(), tenant_id=uuid4(), name="u", timezone="America/Sao_Paulo",
                hours=tuple(OpeningWindow(wd, 8 * 60, 23 * 60) for wd in range(7)))


def test_a_days_grid_counts_slots_and_places_and_a_day_is_local() -> None:
    unit = _unit()
    start, end = day_range(unit, date(2026, 12, 8))
    assert (start, end) == (local(8, 0), local(9, 0))
    mornings = tuple(OpeningWindow(wd, 8 * 60, 12 * 60) for wd in range(7))
    # 3 fields on the unit's hours (15 slots), a class of 12 places on them, a court open mornings only (4).
    assert grid_units(unit, {(): 3 + 12, mornings: 1}, start, end) == 15 * 15 + 4
    assert grid_units(unit, {(): 3}, local(8, 20), end) == 3 * 3  # from 20h: 20, 21, 22


def test_free_units_leave_holds_on_the_slots_they_hold_and_take_bookings_and_blocks_off() -> None:
    unit = _unit()
    field = Resource(uuid4(), unit.id, "Campo 1")
    aula = Resource(uuid4(), unit.id, "Aula", ResourceKind.POOLED, 12)
    start, end = day_range(unit, date(2026, 12, 8))
    now = local(7, 9)
    occ = [
        Occupancy(field.id, local(8, 19), local(8, 21), 1, uuid4(), BookingStatus.CONFIRMED),
        Occupancy(field.id, local(8, 10), local(8, 11), 1, uuid4(), BookingStatus.HELD, "CART", local(7, 10)),
        Occupancy(field.id, local(8, 8), local(8, 9), 1, None),  # a block
        Occupancy(aula.id, local(8, 10), local(8, 11), 5, uuid4(), BookingStatus.CONFIRMED),
        Occupancy(aula.id, local(8, 12), local(8, 13), 3, uuid4(), BookingStatus.PENDING_PAYMENT, "CART",
                  local(7, 10)),
    ]
    assert free_units(unit, [field, aula], occ, start, end, now) == (15 - 3) + (15 * 12 - 5)
