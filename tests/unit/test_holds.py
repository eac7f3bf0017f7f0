"""Hold deadlines and the booking window (SPEC §6, RN-HLD-02, RN-ATD-06)."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from domain.errors import InvalidInput
from domain.holds import check_booking_window, hold_deadline
from domain.units import UnitParameters

SP = ZoneInfo("America/Sao_Paulo")
PARAMS = UnitParameters()
GAME = datetime(2026, 3, 10, 19, 0, tzinfo=SP)


def at(hour: int, minute: int = 0, second: int = 0) -> datetime:
    return datetime(2026, 3, 10, hour, minute, second, tzinfo=SP)


def test_the_defaults_are_those_of_the_spec() -> None:
    assert PARAMS.min_advance == timedelta(minutes=60)
    assert PARAMS.max_advance == timedelta(days=30)
    assert PARAMS.hold_ttl == timedelta(minutes=10)
    assert PARAMS.hold_ttl_with_payment == timedelta(minutes=15)
    assert PARAMS.hold_min == timedelta(minutes=5)


# --- RN-HLD-02 -----------------------------------------------------------------------------------------


def test_accepting_at_17_30_for_a_19_00_game_holds_the_full_15_minutes_until_17_45() -> None:
    assert hold_deadline(PARAMS, at(17, 30), GAME, payment_due=True) == at(17, 45)


def test_accepting_at_17_52_for_a_19_00_game_holds_only_until_the_18_00_limit() -> None:
    assert hold_deadline(PARAMS, at(17, 52), GAME, payment_due=True) == at(18, 0)


def test_accepting_at_17_56_for_a_19_00_game_is_refused_as_too_short() -> None:
    with pytest.raises(InvalidInput) as info:
        hold_deadline(PARAMS, at(17, 56), GAME, payment_due=True)
    assert info.value.code == "hold_too_short"
    assert info.value.field == "startsAt"
    assert "5 minutes" in info.value.message


def test_a_hold_of_exactly_hold_min_is_accepted() -> None:
    assert hold_deadline(PARAMS, at(17, 55), GAME, payment_due=True) == at(18, 0)


def test_a_hold_one_second_shorter_than_hold_min_is_refused() -> None:
    with pytest.raises(InvalidInput, match="minimum"):
        hold_deadline(PARAMS, at(17, 55, 1), GAME, payment_due=False)


def test_accepting_after_the_limit_is_refused() -> None:
    with pytest.raises(InvalidInput) as info:
        hold_deadline(PARAMS, at(18, 30), GAME, payment_due=False)
    assert info.value.code == "hold_too_short"


@pytest.mark.parametrize(
    ("payment_due", "deadline"), [(False, at(12, 10)), (True, at(12, 15))], ids=["no-payment", "payment"]
)
def test_the_ttl_is_10_minutes_without_payment_and_15_with_payment(
    payment_due: bool, deadline: datetime
) -> None:
    assert hold_deadline(PARAMS, at(12, 0), GAME, payment_due=payment_due) == deadline


def test_the_ttl_without_payment_is_also_shortened_to_the_limit() -> None:
    assert hold_deadline(PARAMS, at(17, 53), GAME, payment_due=False) == at(18, 0)


@pytest.mark.parametrize("payment_due", [False, True])
def test_an_explicit_ttl_overrides_the_unit_ttls(payment_due: bool) -> None:
    deadline = hold_deadline(PARAMS, at(12, 0), GAME, payment_due=payment_due, ttl=timedelta(minutes=25))
    assert deadline == at(12, 25)


def test_an_explicit_ttl_is_still_shortened_to_the_limit() -> None:
    assert hold_deadline(PARAMS, at(17, 40), GAME, payment_due=True, ttl=timedelta(hours=1)) == at(18, 0)


def test_an_explicit_ttl_shorter_than_hold_min_is_refused() -> None:
    # Documented behaviour: a hold type whose ttlSeconds is below hold_min can never hold anything.
    with pytest.raises(InvalidInput) as info:
        hold_deadline(PARAMS, at(12, 0), GAME, payment_due=False, ttl=timedelta(minutes=3))
    assert info.value.code == "hold_too_short"


def test_unit_parameters_drive_the_deadline() -> None:
    params = UnitParameters(
        min_advance=timedelta(minutes=30), hold_ttl=timedelta(minutes=20), hold_min=timedelta(minutes=2)
    )
    assert hold_deadline(params, at(18, 0), GAME, payment_due=False) == at(18, 20)
    assert hold_deadline(params, at(18, 25), GAME, payment_due=False) == at(18, 30)
    with pytest.raises(InvalidInput):
        hold_deadline(params, at(18, 29), GAME, payment_due=False)


def test_the_deadline_does_not_depend_on_the_offset_the_times_are_written_in() -> None:
    from datetime import UTC

    assert hold_deadline(PARAMS, at(17, 52).astimezone(UTC), GAME, payment_due=True) == at(18, 0)


# --- booking window ------------------------------------------------------------------------------------


def test_a_start_exactly_min_advance_ahead_is_inside_the_window() -> None:
    check_booking_window(PARAMS, at(18, 0), GAME)


def test_a_start_less_than_min_advance_ahead_is_too_soon() -> None:
    with pytest.raises(InvalidInput) as info:
        check_booking_window(PARAMS, at(18, 0, 1), GAME)
    assert info.value.code == "too_soon"
    assert info.value.field == "startsAt"
    assert "60 minutes" in info.value.message


def test_a_start_in_the_past_is_too_soon() -> None:
    with pytest.raises(InvalidInput) as info:
        check_booking_window(PARAMS, at(20, 0), GAME)
    assert info.value.code == "too_soon"


def test_a_start_exactly_max_advance_ahead_is_inside_the_window() -> None:
    check_booking_window(PARAMS, GAME - timedelta(days=30), GAME)


def test_a_start_more_than_max_advance_ahead_is_too_far() -> None:
    with pytest.raises(InvalidInput) as info:
        check_booking_window(PARAMS, GAME - timedelta(days=30, seconds=1), GAME)
    assert info.value.code == "too_far"
    assert info.value.field == "startsAt"
    assert "30 days" in info.value.message


def test_a_start_40_days_ahead_is_too_far() -> None:
    with pytest.raises(InvalidInput) as info:
        check_booking_window(PARAMS, at(17, 20), GAME + timedelta(days=40))
    assert info.value.code == "too_far"
