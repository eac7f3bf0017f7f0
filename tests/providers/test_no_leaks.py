"""Credentials never reach exception messages or logs, whatever the providers answer."""

from __future__ import annotations

import logging
import traceback
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from domain.payments import ProviderUnavailable, WebhookRejected
from providers.mercadopago import MercadoPagoProvider
from providers.pix_api import PixApiProvider
from tests.providers.fakes import FakeMercadoPago, FakePsp

CLIENT_SECRET = "sk_live_51HxSECRETclientSECRET0000"
MP_TOKEN = "APP_USR-7777777777777777-SECRETtoken-999"
WEBHOOK_SECRET = "whsec_SECRETwebhookSECRET123"


def everything_said(exc: BaseException, caplog: pytest.LogCaptureFixture) -> str:
    return "\n".join([str(exc), repr(exc), "".join(traceback.format_exception(exc)), caplog.text])


def soon() -> datetime:
    return datetime.now(UTC) + timedelta(minutes=13)


async def test_pix_api_never_says_its_client_secret_or_tokens(
        psp: FakePsp, psp_url: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)  # httpx and httpcore included
    psp.client_secret = CLIENT_SECRET
    said: list[str] = []

    wrong = PixApiProvider(psp_url, psp.client_id, CLIENT_SECRET + "x", psp.pix_key, WEBHOOK_SECRET)
    with pytest.raises(ProviderUnavailable) as caught:
        await wrong.create_charge(uuid.uuid4().hex, 1000, soon(), "")
    said.append(everything_said(caught.value, caplog))
    await wrong.aclose()

    provider = PixApiProvider(psp_url, psp.client_id, CLIENT_SECRET, "not-our-key", WEBHOOK_SECRET, timeout=0.3)
    psp.echo_auth = True  # the bank's error detail repeats our Authorization header
    with pytest.raises(ProviderUnavailable) as caught:
        await provider.create_charge(uuid.uuid4().hex, 1000, soon(), "")
    said.append(everything_said(caught.value, caplog))
    assert "recebido: Bearer ***" in str(caught.value)  # the echo is there, scrubbed
    for fault in ("500", "timeout", "malformed"):
        psp.fault, psp.delay = fault, 0.5
        with pytest.raises(ProviderUnavailable) as caught:
            await provider.lookup_charge(uuid.uuid4().hex, "")
        said.append(everything_said(caught.value, caplog))
    psp.fault = None
    with pytest.raises(WebhookRejected) as rejected:
        await provider.parse_webhook({}, {"secret": WEBHOOK_SECRET[:-1]}, b'{"pix": []}')
    said.append(everything_said(rejected.value, caplog))
    await provider.aclose()

    tokens = set(psp.tokens)
    assert tokens, "a token was issued"
    text = "\n".join(said)
    for secret in (CLIENT_SECRET, WEBHOOK_SECRET, WEBHOOK_SECRET[:-1], *tokens):
        assert secret not in text
    assert "Basic " not in text and "Bearer tok" not in text


async def test_mercadopago_never_says_its_access_token(
        mp: FakeMercadoPago, mp_url: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    mp.access_token, mp.echo_auth = MP_TOKEN, True
    said: list[str] = []
    wrong = MercadoPagoProvider(MP_TOKEN + "0", WEBHOOK_SECRET, base_url=mp_url)
    with pytest.raises(ProviderUnavailable) as caught:  # 401 whose message repeats the header it got
        await wrong.create_charge(uuid.uuid4().hex, 1000, soon(), "")
    assert "header: Bearer ***" in str(caught.value)
    said.append(everything_said(caught.value, caplog))
    await wrong.aclose()

    provider = MercadoPagoProvider(MP_TOKEN, WEBHOOK_SECRET, base_url=mp_url, timeout=0.3)
    for fault in ("500", "timeout", "malformed"):
        mp.fault, mp.delay = fault, 0.5
        with pytest.raises(ProviderUnavailable) as caught:
            await provider.lookup_charge("", "1320000001")
        said.append(everything_said(caught.value, caplog))
    mp.fault = None
    with pytest.raises(WebhookRejected) as rejected:
        await provider.parse_webhook({"x-signature": "ts=1,v1=00"}, {"data.id": "1"}, b"")
    said.append(everything_said(rejected.value, caplog))
    await provider.aclose()
    text = "\n".join(said)
    assert MP_TOKEN not in text and MP_TOKEN + "0" not in text and WEBHOOK_SECRET not in text
