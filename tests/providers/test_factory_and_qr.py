"""Choosing the provider from the environment, the redacted log view of it, and the QR image."""

from __future__ import annotations

import base64
import struct

import asyncpg
import pytest

from providers.factory import make_provider, redacted_config
from providers.mercadopago import MercadoPagoProvider
from providers.pix_api import PixApiProvider
from providers.qr import qr_png_data_uri
from providers.sandbox import SandboxProvider

PIX_ENV = {
    "SLOTHOLD_PAYMENT_PROVIDER": "pix_api",
    "SLOTHOLD_PIX_API_URL": "https://user:pw@api.banco.example/pix",
    "SLOTHOLD_PIX_CLIENT_ID": "client-42",
    "SLOTHOLD_PIX_CLIENT_SECRET": "cs-very-secret",
    "SLOTHOLD_PIX_KEY": "pix@slothold.dev",
    "SLOTHOLD_PIX_WEBHOOK_SECRET": "wh-very-secret",
}
MP_ENV = {"SLOTHOLD_PAYMENT_PROVIDER": "mercadopago", "SLOTHOLD_MP_ACCESS_TOKEN": "APP_USR-very-secret",
          "SLOTHOLD_MP_WEBHOOK_SECRET": "mp-very-secret"}


async def test_sandbox_is_the_default(pool: asyncpg.Pool) -> None:
    provider = make_provider({}, pool)
    assert isinstance(provider, SandboxProvider) and provider.name == "sandbox"
    headers, body = provider.webhook_for()
    assert await make_provider({"SLOTHOLD_SANDBOX_WEBHOOK_SECRET": "sandbox-secret"}, pool).parse_webhook(
        headers, {}, body) == []
    other = make_provider({"SLOTHOLD_PAYMENT_PROVIDER": "sandbox", "SLOTHOLD_SANDBOX_WEBHOOK_SECRET": "x-secret"}, pool)
    with pytest.raises(Exception, match="does not match"):
        await other.parse_webhook(headers, {}, body)


async def test_pix_api_and_mercadopago_from_the_environment() -> None:
    pix = make_provider(PIX_ENV, None)
    assert isinstance(pix, PixApiProvider) and pix.name == "pix_api" and pix.pix_key == "pix@slothold.dev"
    mp = make_provider({**MP_ENV, "SLOTHOLD_MP_API_URL": "http://127.0.0.1:1"}, None)
    assert isinstance(mp, MercadoPagoProvider) and mp.name == "mercadopago"
    for provider in (pix, mp):
        assert "very-secret" not in repr(provider)
        await provider.aclose()


@pytest.mark.parametrize("missing", [k for k in PIX_ENV if k != "SLOTHOLD_PAYMENT_PROVIDER"])
def test_a_missing_pix_api_setting_is_named(missing: str) -> None:
    env = {k: v for k, v in PIX_ENV.items() if k != missing}
    with pytest.raises(ValueError, match=missing) as caught:
        make_provider(env, None)
    assert "very-secret" not in str(caught.value)


def test_missing_mercadopago_settings_and_unknown_providers_are_named() -> None:
    with pytest.raises(ValueError, match="SLOTHOLD_MP_WEBHOOK_SECRET"):
        make_provider({k: v for k, v in MP_ENV.items() if k != "SLOTHOLD_MP_WEBHOOK_SECRET"}, None)
    with pytest.raises(ValueError, match="SLOTHOLD_MP_ACCESS_TOKEN"):
        make_provider({"SLOTHOLD_PAYMENT_PROVIDER": "mercadopago"}, None)
    with pytest.raises(ValueError, match="SLOTHOLD_PAYMENT_PROVIDER='stripe'"):
        make_provider({"SLOTHOLD_PAYMENT_PROVIDER": "stripe"}, None)


def test_redacted_config_hides_secrets() -> None:
    shown = redacted_config(PIX_ENV)
    assert shown == {
        "SLOTHOLD_PAYMENT_PROVIDER": "pix_api",
        "SLOTHOLD_PIX_API_URL": "https://***@api.banco.example/pix",
        "SLOTHOLD_PIX_CLIENT_ID": "client-42",
        "SLOTHOLD_PIX_CLIENT_SECRET": "***",
        "SLOTHOLD_PIX_KEY": "pix@slothold.dev",
        "SLOTHOLD_PIX_WEBHOOK_SECRET": "***",
        "SLOTHOLD_PIX_CERT_FILE": "(default)",
        "SLOTHOLD_PIX_CERT_KEY_FILE": "(default)",
        "SLOTHOLD_PIX_MERCHANT_NAME": "(default)",
        "SLOTHOLD_PIX_MERCHANT_CITY": "(default)",
    }
    mp = redacted_config({"SLOTHOLD_PAYMENT_PROVIDER": "mercadopago", "SLOTHOLD_MP_ACCESS_TOKEN": "APP_USR-1"})
    assert mp["SLOTHOLD_MP_ACCESS_TOKEN"] == "***" and mp["SLOTHOLD_MP_WEBHOOK_SECRET"] == "(unset)"
    assert redacted_config({}) == {"SLOTHOLD_PAYMENT_PROVIDER": "sandbox",
                                   "SLOTHOLD_SANDBOX_WEBHOOK_SECRET": "(default)"}
    assert "very-secret" not in repr(redacted_config({**PIX_ENV, **MP_ENV}))


def test_qr_png_data_uri() -> None:
    from domain.pix import brcode

    payload = brcode(amount_cents=12345, merchant_name="Arena", merchant_city="Sao Paulo",
                     txid="abc", location="sandbox.slothold.dev/qr/" + "a" * 32)
    uri = qr_png_data_uri(payload)
    prefix = "data:image/png;base64,"
    assert uri.startswith(prefix)
    png = base64.b64decode(uri[len(prefix):], validate=True)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert width == height and width >= (25 + 8) * 6  # at least a version-2 QR with quiet zone, 6 px/module
    with pytest.raises(ValueError):
        qr_png_data_uri("")
