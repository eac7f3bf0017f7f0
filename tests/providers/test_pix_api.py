"""The standard Pix API client against a fake bank served over real HTTP."""

from __future__ import annotations

import json
import socket
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import httpx
import pytest

from domain.payments import ProviderUnavailable, ReceivedPix, WebhookRejected
from domain.pix import parse
from providers import ChargeNotFound
from providers.pix_api import PixApiProvider
from tests.conftest import MutableClock
from tests.providers.fakes import FakePsp

WEBHOOK_SECRET = "pix-webhook-secret-123"


def new_txid() -> str:
    return uuid.uuid4().hex


class FakeMonotonic:
    def __init__(self) -> None:
        self.value = 1000.0

    def __call__(self) -> float:
        return self.value


@pytest.fixture
def clock() -> MutableClock:
    return MutableClock(datetime.now(UTC))


@pytest.fixture
async def pix(psp: FakePsp, psp_url: str, clock: MutableClock) -> AsyncIterator[PixApiProvider]:
    provider = PixApiProvider(psp_url, psp.client_id, psp.client_secret, psp.pix_key, WEBHOOK_SECRET,
                              timeout=0.3, clock=clock)
    yield provider
    await provider.aclose()


async def test_create_lookup_pay_and_refund(pix: PixApiProvider, psp: FakePsp, clock: MutableClock) -> None:
    txid = new_txid()
    charge = await pix.create_charge(txid, 12345, clock.now() + timedelta(minutes=13), "Quadra 1, segunda 19h")
    assert charge.provider_ref == txid
    method, path, body = psp.requests[-1]
    assert (method, path) == ("PUT", f"/v2/cob/{txid}")
    assert body == {"calendario": {"expiracao": 780}, "valor": {"original": "123.45"},
                    "chave": psp.pix_key, "solicitacaoPagador": "Quadra 1, segunda 19h"}
    assert charge.brcode == psp.cobs[txid]["pixCopiaECola"]
    assert parse(charge.brcode)["54"] == "123.45"

    assert (await pix.lookup_charge(txid, charge.provider_ref)).status == "pending"
    entry = psp.pay(txid)
    looked = await pix.lookup_charge(txid, charge.provider_ref)
    assert looked.status == "paid"
    [payment] = looked.payments
    assert payment == ReceivedPix(entry["endToEndId"], txid, 12345, datetime.fromisoformat(entry["horario"]))
    assert payment.paid_at.tzinfo is not None

    rtr = await pix.refund(payment, 5000, "refund1")
    assert rtr.startswith("D12345678")
    assert psp.requests[-1] == ("PUT", f"/v2/pix/{payment.provider_payment_id}/devolucao/refund1",
                                {"valor": "50.00"})
    assert await pix.refund(payment, 5000, "refund1") == rtr  # the same id is the same refund
    with pytest.raises(ValueError, match="more than"):
        await pix.refund(payment, 12346, "refund2")
    with pytest.raises(ProviderUnavailable, match=r"refund: refused \(HTTP 400\): Devolução inválida"):
        await pix.refund(payment, 10000, "refund3")  # 50.00 + 100.00 > 123.45 at the bank


async def test_br_code_is_built_from_the_location_when_the_bank_sends_no_copia_e_cola(
        pix: PixApiProvider, psp: FakePsp, clock: MutableClock) -> None:
    psp.omit_copia_e_cola = True
    txid = new_txid()
    charge = await pix.create_charge(txid, 990, clock.now() + timedelta(minutes=5), "")
    fields = parse(charge.brcode)
    assert fields["54"] == "9.90"
    assert psp.cobs[txid]["loc"]["location"] in fields["26"]
    assert "solicitacaoPagador" not in psp.requests[-1][2]


async def test_cancel_is_idempotent_and_leaves_paid_charges_alone(
        pix: PixApiProvider, psp: FakePsp, clock: MutableClock) -> None:
    txid = new_txid()
    await pix.create_charge(txid, 1000, clock.now() + timedelta(minutes=13), "")
    await pix.cancel_charge(txid, txid)
    assert psp.requests[-1] == ("PATCH", f"/v2/cob/{txid}", {"status": "REMOVIDA_PELO_USUARIO_RECEBEDOR"})
    assert (await pix.lookup_charge(txid, txid)).status == "cancelled"
    await pix.cancel_charge(txid, txid)  # the bank refuses a second PATCH with 400: still fine
    paid = new_txid()
    await pix.create_charge(paid, 1000, clock.now() + timedelta(minutes=13), "")
    psp.pay(paid)
    await pix.cancel_charge(paid, paid)
    assert (await pix.lookup_charge(paid, paid)).status == "paid"
    await pix.cancel_charge(new_txid(), "")  # unknown to the bank: nothing to cancel


async def test_lookup_maps_expiry_psp_removal_and_late_payment(
        pix: PixApiProvider, psp: FakePsp, clock: MutableClock) -> None:
    txid = new_txid()
    await pix.create_charge(txid, 1000, clock.now() + timedelta(minutes=2), "")
    clock.advance(minutes=2, seconds=1)
    assert (await pix.lookup_charge(txid, txid)).status == "expired"
    psp.cobs[txid]["status"] = "REMOVIDA_PELO_PSP"
    assert (await pix.lookup_charge(txid, txid)).status == "expired"
    cancelled = new_txid()
    await pix.create_charge(cancelled, 1000, clock.now() + timedelta(minutes=2), "")
    await pix.cancel_charge(cancelled, cancelled)
    psp.cobs[cancelled].setdefault("pix", []).append(  # a payment that still arrives after the removal
        {"endToEndId": "E12345678202612071200abcdefghijk", "txid": cancelled, "valor": "10.00",
         "horario": "2026-12-07T12:00:00.123-03:00"})
    late = await pix.lookup_charge(cancelled, cancelled)
    assert late.status == "paid" and late.payments[0].amount_cents == 1000
    assert late.payments[0].paid_at == datetime(2026, 12, 7, 15, 0, 0, 123000, tzinfo=UTC)
    with pytest.raises(ChargeNotFound):
        await pix.lookup_charge(new_txid(), "")


async def test_the_token_is_cached_and_refreshed_shortly_before_it_expires(
        pix: PixApiProvider, psp: FakePsp, clock: MutableClock) -> None:
    monotonic = FakeMonotonic()
    pix._monotonic = monotonic
    txid = new_txid()
    await pix.create_charge(txid, 1000, clock.now() + timedelta(minutes=13), "")
    for _ in range(3):
        await pix.lookup_charge(txid, txid)
    assert psp.token_requests == 1
    monotonic.value += 3600 - 61  # still valid
    await pix.lookup_charge(txid, txid)
    assert psp.token_requests == 1
    monotonic.value += 2  # within the last minute: refreshed before use
    await pix.lookup_charge(txid, txid)
    assert psp.token_requests == 2
    psp.revoke_tokens()  # the bank drops it early: 401 → one new token and a retry
    await pix.lookup_charge(txid, txid)
    assert psp.token_requests == 3


async def test_a_short_lived_token_is_refreshed_a_fifth_of_its_life_early(
        pix: PixApiProvider, psp: FakePsp, clock: MutableClock) -> None:
    psp.expires_in = 100
    monotonic = FakeMonotonic()
    pix._monotonic = monotonic
    txid = new_txid()
    await pix.create_charge(txid, 1000, clock.now() + timedelta(minutes=13), "")
    monotonic.value += 79
    await pix.lookup_charge(txid, txid)
    assert psp.token_requests == 1
    monotonic.value += 2
    await pix.lookup_charge(txid, txid)
    assert psp.token_requests == 2


async def test_wrong_client_credentials_are_unavailable(psp: FakePsp, psp_url: str) -> None:
    provider = PixApiProvider(psp_url, psp.client_id, "wrong-secret", psp.pix_key, WEBHOOK_SECRET)
    try:
        with pytest.raises(ProviderUnavailable, match=r"token: authentication refused \(HTTP 401\): invalid_client"):
            await provider.lookup_charge(new_txid(), "")
    finally:
        await provider.aclose()


@pytest.mark.parametrize("fault", ["500", "503", "timeout", "malformed"])
async def test_faults_make_the_provider_unavailable(
        pix: PixApiProvider, psp: FakePsp, clock: MutableClock, fault: str) -> None:
    txid = new_txid()
    await pix.create_charge(txid, 1000, clock.now() + timedelta(minutes=13), "")
    psp.fault, psp.delay = fault, 0.6
    expected = {"500": "HTTP 500", "503": "HTTP 503", "timeout": "timed out", "malformed": "malformed"}[fault]
    with pytest.raises(ProviderUnavailable, match=expected):
        await pix.create_charge(new_txid(), 1000, clock.now() + timedelta(minutes=13), "")
    with pytest.raises(ProviderUnavailable, match=expected):
        await pix.lookup_charge(txid, txid)
    with pytest.raises(ProviderUnavailable, match=expected):
        await pix.cancel_charge(txid, txid)
    psp.fault = None
    assert (await pix.lookup_charge(txid, txid)).status == "pending"


async def test_a_fault_at_the_token_endpoint_is_unavailable(
        pix: PixApiProvider, psp: FakePsp, clock: MutableClock) -> None:
    psp.fault, psp.fault_prefix = "malformed", "/oauth"
    with pytest.raises(ProviderUnavailable, match="token: malformed answer"):
        await pix.create_charge(new_txid(), 1000, clock.now() + timedelta(minutes=13), "")


async def test_nobody_listening_is_unavailable(clock: MutableClock) -> None:
    with socket.socket() as sock:  # a port that was free a moment ago: nobody listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    provider = PixApiProvider(f"http://127.0.0.1:{port}", "id", "secret", "key", WEBHOOK_SECRET, timeout=0.5)
    try:
        with pytest.raises(ProviderUnavailable, match="ConnectError"):
            await provider.create_charge(new_txid(), 1000, clock.now() + timedelta(minutes=13), "")
    finally:
        await provider.aclose()


async def test_a_refused_creation_is_unavailable_with_the_problem_title_and_detail(
        psp: FakePsp, psp_url: str, clock: MutableClock) -> None:
    provider = PixApiProvider(psp_url, psp.client_id, psp.client_secret, "not-our-key", WEBHOOK_SECRET, clock=clock)
    try:
        with pytest.raises(ProviderUnavailable) as caught:
            await provider.create_charge(new_txid(), 1000, clock.now() + timedelta(minutes=13), "")
    finally:
        await provider.aclose()
    message = str(caught.value)
    assert "create charge: refused (HTTP 400)" in message
    assert "Cobrança inválida." in message and "semanticamente errada" in message
    assert "cob.chave" in message


async def test_a_retried_creation_finds_the_charge_the_bank_already_has(
        pix: PixApiProvider, psp: FakePsp, clock: MutableClock) -> None:
    txid = new_txid()
    first = await pix.create_charge(txid, 2500, clock.now() + timedelta(minutes=13), "")
    again = await pix.create_charge(txid, 2500, clock.now() + timedelta(minutes=13), "")
    assert again == first
    with pytest.raises(ProviderUnavailable, match="já está em uso"):
        await pix.create_charge(txid, 9999, clock.now() + timedelta(minutes=13), "")


async def test_arguments_are_checked_before_calling_the_bank(pix: PixApiProvider, clock: MutableClock) -> None:
    with pytest.raises(ValueError, match="already past"):
        await pix.create_charge(new_txid(), 1000, clock.now() - timedelta(seconds=1), "")
    with pytest.raises(ValueError, match="positive"):
        await pix.create_charge(new_txid(), 0, clock.now() + timedelta(minutes=5), "")
    with pytest.raises(ValueError, match="refund id"):
        await pix.refund(ReceivedPix("E1", None, 100, clock.now()), 100, "not/valid")


async def test_webhook_secret_in_the_query(pix: PixApiProvider) -> None:
    body = json.dumps({"pix": [
        {"endToEndId": "E12345678202612071200abcdefghijk", "txid": new_txid(), "valor": "100.00",
         "chave": "pix@slothold.dev", "horario": "2026-12-07T15:00:00.000Z", "infoPagador": "obrigado"},
        {"endToEndId": "E12345678202612071201abcdefghijk", "valor": "0.01", "horario": "2026-12-07T15:01:00Z"},
    ]}).encode()
    received = await pix.parse_webhook({}, {"secret": WEBHOOK_SECRET}, body)
    assert [(p.amount_cents, p.paid_at) for p in received] == [
        (10000, datetime(2026, 12, 7, 15, 0, tzinfo=UTC)), (1, datetime(2026, 12, 7, 15, 1, tzinfo=UTC))]
    assert received[1].txid is None  # a payment to the key itself, no charge
    with pytest.raises(WebhookRejected, match="no secret"):
        await pix.parse_webhook({}, {}, body)
    with pytest.raises(WebhookRejected, match="does not match"):
        await pix.parse_webhook({}, {"secret": WEBHOOK_SECRET + "x"}, body)
    with pytest.raises(WebhookRejected, match="does not match"):
        await pix.parse_webhook({}, {"secret": "ç"}, body)
    for bad in (b"not json", b'{"pix": {}}', b'{"pix": [{"endToEndId": "E1", "valor": "1.5", "horario": "x"}]}'):
        with pytest.raises(WebhookRejected, match="not understood"):
            await pix.parse_webhook({}, {"secret": WEBHOOK_SECRET}, bad)


async def test_a_shared_http_client_is_used_and_not_closed(psp: FakePsp, psp_url: str, clock: MutableClock) -> None:
    async with httpx.AsyncClient() as http:
        provider = PixApiProvider(psp_url, psp.client_id, psp.client_secret, psp.pix_key, WEBHOOK_SECRET,
                                  http=http, clock=clock)
        await provider.create_charge(new_txid(), 100, clock.now() + timedelta(minutes=5), "")
        await provider.aclose()
        assert not http.is_closed


def test_decimal_amounts_are_exact() -> None:
    from providers.base import cents_to_number, cents_to_str, number_to_cents, str_to_cents

    for cents in (1, 10, 29, 30, 99, 100, 12345, 199999, 123456789012):
        assert str_to_cents(cents_to_str(cents)) == cents
        assert number_to_cents(Decimal(repr(cents_to_number(cents)))) == cents
    assert number_to_cents(Decimal("0.1") + Decimal("0.2")) == 30
    assert number_to_cents(100) == 10000
    for bad in ("1.5", "1,50", "-1.00", "1.000", 1.5):
        with pytest.raises(ValueError):
            str_to_cents(bad)
    for bad_number in (Decimal("1.005"), 1.5, True, Decimal("NaN")):
        with pytest.raises(ValueError):
            number_to_cents(bad_number)
