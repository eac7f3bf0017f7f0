"""Payment rules, cancellation tiers, the acceptance summary and BR Codes (pure)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from uuid import uuid4

import pytest

from domain.errors import InvalidInput
from domain.payments import PaymentRule, Price, charge_expiry, money, summary_pt
from domain.pix import brcode, crc16_ccitt, parse
from domain.policies import DEFAULT_POLICY, CancellationPolicy, Tier

START = datetime(2026, 12, 12, 22, 0, tzinfo=UTC)


@pytest.mark.parametrize(("price", "quantity", "expected"), [
    (Price(uuid4(), 1, 20000), 1, (20000, 0)),
    (Price(uuid4(), 1, 20000, PaymentRule.DEPOSIT_PERCENT, 50), 1, (10000, 10000)),
    (Price(uuid4(), 1, 9999, PaymentRule.DEPOSIT_PERCENT, 30), 1, (2999, 7000)),
    (Price(uuid4(), 1, 20000, PaymentRule.DEPOSIT_CENTS, deposit_cents=5000), 1, (5000, 15000)),
    (Price(uuid4(), 1, 3000, PaymentRule.DEPOSIT_CENTS, deposit_cents=5000), 1, (3000, 0)),
    (Price(uuid4(), 1, 4000, PaymentRule.DEPOSIT_CENTS, deposit_cents=1000), 3, (3000, 9000)),
    (Price(uuid4(), 1, 0), 1, (0, 0)),
])
def test_a_payment_rule_splits_the_price_between_now_and_the_venue(price: Price, quantity: int,
                                                                   expected: tuple[int, int]) -> None:
    assert price.due(quantity) == expected


def test_a_deposit_rule_without_its_amount_is_an_input_error() -> None:
    with pytest.raises(InvalidInput):
        Price(uuid4(), 1, 100, PaymentRule.DEPOSIT_PERCENT).due()
    with pytest.raises(InvalidInput):
        Price(uuid4(), 1, 100, PaymentRule.DEPOSIT_CENTS).due()


@pytest.mark.parametrize(("hours_before", "percent"), [(48, 100), (24, 100), (23.9, 50), (6, 50), (5.9, 0), (0, 0),
                                                        (-1, 0)])
def test_the_default_policy_refunds_by_its_tiers(hours_before: float, percent: int) -> None:
    at = START - timedelta(hours=hours_before)
    assert DEFAULT_POLICY.refund_percent(START, at) == percent
    assert DEFAULT_POLICY.refund_cents(10001, START, at) == 10001 * percent // 100


def test_a_policy_needs_a_zero_hour_tier_and_sane_percentages() -> None:
    with pytest.raises(InvalidInput):
        CancellationPolicy(2, (Tier(24, 100),))
    with pytest.raises(InvalidInput):
        CancellationPolicy(2, (Tier(0, 120),))
    with pytest.raises(InvalidInput):
        CancellationPolicy(2, ())


def test_the_summary_reads_as_rn_atd_09s_example() -> None:
    local = datetime(2026, 12, 12, 19, 0)  # a Saturday
    text = summary_pt("Campo 1", local, 1, 20000, 10000, DEFAULT_POLICY.summary_pt())
    assert text == ("Campo 1, sábado às 19h, 1 hora, R$ 200,00. Pagamento do sinal de 50% (R$ 100,00) agora e "
                    "R$ 100,00 na arena. Cancelamento com 24 h ou mais: devolução de 100%; de 6 a 24 h: 50%; "
                    "com menos de 6 h: sem devolução.")
    assert "Pagamento integral de R$ 200,00 agora." in summary_pt("Campo 1", local, 2, 20000, 20000, "")
    assert money(123456789) == "R$ 1.234.567,89"


def test_a_charge_expires_the_margin_before_the_hold() -> None:
    assert charge_expiry(START, timedelta(minutes=2)) == START - timedelta(minutes=2)


def test_crc16_is_ccitt_false_and_the_manuals_example_validates() -> None:
    assert crc16_ccitt(b"123456789") == 0x29B1
    example = ("00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913"
               "Fulano de Tal6008BRASILIA62070503***63041D3D")
    assert parse(example)["59"] == "Fulano de Tal"


def test_a_brcode_carries_the_fixed_amount_and_a_valid_crc() -> None:
    code = brcode(amount_cents=10050, merchant_name="Arena São João", merchant_city="São Paulo", txid="abc123",
                  location="pix.example.com/qr/v2/xyz")
    fields = parse(code)
    assert (fields["00"], fields["01"], fields["53"], fields["54"], fields["58"]) == ("01", "12", "986", "100.50", "BR")
    assert fields["59"] == "ARENA SAO JOAO" and fields["60"] == "SAO PAULO"
    assert fields["26"] == "0014br.gov.bcb.pix2525pix.example.com/qr/v2/xyz"
    assert fields["62"] == "0506abc123"
    tampered = code.replace("100.50", "100.51")
    with pytest.raises(ValueError, match="CRC"):
        parse(tampered)


def test_a_brcode_refuses_a_zero_amount_and_needs_key_or_location() -> None:
    with pytest.raises(ValueError):
        brcode(amount_cents=0, merchant_name="A", merchant_city="B", txid="t", key="k")
    with pytest.raises(ValueError):
        brcode(amount_cents=100, merchant_name="A", merchant_city="B", txid="t")
