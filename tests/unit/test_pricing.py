"""Price bands as pure functions (domain/pricing.py): which band a slot is in, a booking's total and deposit, the
validation of a version's bands, and what a service is sold as."""

from __future__ import annotations

from datetime import UTC, datetime
from uuid import uuid4
from zoneinfo import ZoneInfo

import pytest

from domain.errors import ErrorCode, InvalidInput
from domain.payments import PaymentRule, Price
from domain.pricing import PriceBand, PriceTable, Service, check_bands, parse_clock

SP = ZoneInfo("America/Sao_Paulo")
SID = uuid4()
WEEKNIGHTS = PriceBand((0, 1, 2, 3, 4), 18 * 60, 23 * 60, 30000, PaymentRule.DEPOSIT_PERCENT, deposit_percent=50)
WEEKDAYS = PriceBand((0, 1, 2, 3, 4), 8 * 60, 18 * 60, 15000)
TABLE = PriceTable(Price(SID, 3, 20000), (WEEKDAYS, WEEKNIGHTS))


def local(day: int, hour: int, minute: int = 0) -> datetime:
    """December `day`, 2026 in São Paulo (the 8th is a Tuesday), as UTC."""
    return datetime(2026, 12, day, hour, minute, tzinfo=SP).astimezone(UTC)


def test_a_slot_in_a_band_costs_the_band_and_follows_its_rule() -> None:
    priced = TABLE.quote(local(8, 20), local(8, 21), SP, 60)
    assert (priced.version, priced.band, priced.rule) == (3, 1, PaymentRule.DEPOSIT_PERCENT)
    assert (priced.total_cents, priced.due_now_cents, priced.at_venue_cents) == (30000, 15000, 15000)
    day = TABLE.quote(local(8, 10), local(8, 11), SP, 60)
    assert (day.band, day.rule, day.total_cents, day.due_now_cents) == (0, PaymentRule.FULL, 15000, 15000)


def test_outside_every_band_the_base_price_and_rule() -> None:
    saturday = TABLE.quote(local(12, 20), local(12, 21), SP, 60)
    assert (saturday.band, saturday.total_cents, saturday.due_now_cents) == (None, 20000, 20000)
    late = TABLE.quote(local(8, 23), local(9, 0), SP, 60)  # 23:00 is where the band ends
    assert late.band is None and late.total_cents == 20000


def test_a_booking_across_bands_pays_each_slot_at_its_band_and_the_first_slots_rule() -> None:
    # 17:00-20:00 on a Tuesday: 17h in the day band, 18h and 19h in the night band; the day band's rule (full).
    across = TABLE.quote(local(8, 17), local(8, 20), SP, 60)
    assert across.total_cents == 15000 + 2 * 30000 and across.band == 0
    assert across.due_now_cents == across.total_cents
    # 22:00-00:00: one night slot then one at the base price; the night band's 50 % of the whole.
    night = TABLE.quote(local(8, 22), local(9, 0), SP, 60)
    assert (night.total_cents, night.due_now_cents, night.rule) == (50000, 25000, PaymentRule.DEPOSIT_PERCENT)


def test_quantity_and_a_deposit_in_cents_per_place() -> None:
    pool = PriceTable(Price(SID, 1, 5000), (PriceBand((5, 6), 0, 24 * 60, 8000, PaymentRule.DEPOSIT_CENTS,
                                                      deposit_cents=2000),))
    priced = pool.quote(local(12, 9), local(12, 11), SP, 60, quantity=3)  # Saturday, 2 slots, 3 places
    assert (priced.total_cents, priced.due_now_cents) == (3 * 2 * 8000, 3 * 2000)


def test_local_time_decides_not_utc() -> None:
    # 22:00 on Friday in São Paulo is 01:00 on Saturday in UTC: the Friday night band applies.
    priced = TABLE.quote(local(11, 22), local(11, 23), SP, 60)
    assert priced.band == 1 and priced.total_cents == 30000


def test_bands_are_checked_naming_the_band() -> None:
    check_bands((WEEKDAYS, WEEKNIGHTS, PriceBand((5, 6), 18 * 60, 24 * 60, 25000)), 60)
    cases = [
        ((WEEKNIGHTS, PriceBand((4, 5), 22 * 60, 24 * 60, 1)), "bands[1]", ErrorCode.BANDS_OVERLAP),
        ((PriceBand((7,), 0, 60, 1),), "bands[0].weekdays", ErrorCode.INVALID_WEEKDAY),
        ((PriceBand((), 0, 60, 1),), "bands[0].weekdays", ErrorCode.INVALID_WEEKDAY),
        ((PriceBand((1, 1), 0, 60, 1),), "bands[0].weekdays", ErrorCode.INVALID_WEEKDAY),
        ((WEEKDAYS, PriceBand((6,), 18 * 60 + 30, 20 * 60, 1)), "bands[1].from", ErrorCode.OFF_GRID),
        ((PriceBand((6,), 20 * 60, 18 * 60, 1),), "bands[0].to", ErrorCode.INVALID_TIME),
        ((PriceBand((6,), 0, 60, -1),), "bands[0].priceCents", ErrorCode.INVALID_PRICE),
        ((PriceBand((6,), 0, 60, 1, PaymentRule.DEPOSIT_PERCENT),), "bands[0].depositPercent",
         ErrorCode.INVALID_PRICE),
        ((PriceBand((6,), 0, 60, 1, PaymentRule.DEPOSIT_CENTS),), "bands[0].depositCents", ErrorCode.INVALID_PRICE),
    ]
    for bands, field, code in cases:
        with pytest.raises(InvalidInput) as refused:
            check_bands(bands, 60)
        assert (refused.value.field, refused.value.code) == (field, code), bands
    # Touching bands do not overlap; half-hour bands are fine on a 30-minute grid.
    check_bands((PriceBand((1,), 8 * 60, 18 * 60, 1), PriceBand((1,), 18 * 60, 18 * 60 + 30, 2)), 30)


def test_clock_texts() -> None:
    assert (parse_clock("18:00", "f"), parse_clock("24:00", "f"), parse_clock("07:30", "f")) == (1080, 1440, 450)
    for bad in ("18h", "7:30", "24:30", "12:60", "ab:cd"):
        with pytest.raises(InvalidInput) as refused:
            parse_clock(bad, "bands[0].from")
        assert refused.value.field == "bands[0].from" and refused.value.code == ErrorCode.INVALID_TIME


def test_a_service_is_sold_only_at_its_lengths_on_its_resources() -> None:
    field, other = uuid4(), uuid4()
    s = Service(SID, uuid4(), "Futebol", TABLE, durations=(1, 2), resource_ids=(field,))
    s.check_booking((field,), local(8, 20), local(8, 22), 60)
    s.check_booking(None, local(8, 20), local(8, 21), 60)
    for resources, ends, name, code in (((field,), local(8, 23), "endsAt", ErrorCode.DURATION_NOT_OFFERED),
                                        ((other,), local(8, 21), "resourceIds", ErrorCode.RESOURCE_NOT_OFFERED)):
        with pytest.raises(InvalidInput) as refused:
            s.check_booking(resources, local(8, 20), ends, 60)
        assert (refused.value.field, refused.value.code) == (name, code)
    with pytest.raises(InvalidInput) as inactive:
        Service(SID, uuid4(), "Velho", TABLE, active=False).check_booking(None, local(8, 20), local(8, 21), 60)
    assert (inactive.value.field, inactive.value.code) == ("serviceId", ErrorCode.SERVICE_INACTIVE)
    legacy = Service(SID, uuid4(), "Campo 1h", TABLE)  # made before issue 18: any length, any resource
    legacy.check_booking((other,), local(8, 8), local(8, 12), 60)
    assert legacy.runs_on(other) and s.runs_on(field) and not s.runs_on(other)
