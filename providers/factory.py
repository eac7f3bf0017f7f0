"""Choosing the payment provider from the environment.

SLOTHOLD_PAYMENT_PROVIDER = sandbox (default) | pix_api | mercadopago

sandbox      SLOTHOLD_SANDBOX_WEBHOOK_SECRET (default "sandbox-secret")
pix_api      SLOTHOLD_PIX_API_URL, SLOTHOLD_PIX_CLIENT_ID, SLOTHOLD_PIX_CLIENT_SECRET, SLOTHOLD_PIX_KEY,
             SLOTHOLD_PIX_WEBHOOK_SECRET; optional SLOTHOLD_PIX_CERT_FILE and SLOTHOLD_PIX_CERT_KEY_FILE (the
             client certificate for the bank's mutual TLS), SLOTHOLD_PIX_MERCHANT_NAME, SLOTHOLD_PIX_MERCHANT_CITY
mercadopago  SLOTHOLD_MP_ACCESS_TOKEN, SLOTHOLD_MP_WEBHOOK_SECRET; optional SLOTHOLD_MP_API_URL,
             SLOTHOLD_MP_PAYER_EMAIL
"""

from __future__ import annotations

import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from domain.ports import PaymentProvider
from providers.mercadopago import MercadoPagoProvider
from providers.pix_api import PixApiProvider
from providers.sandbox import SandboxProvider

PROVIDER_VAR = "SLOTHOLD_PAYMENT_PROVIDER"
DEFAULT_PROVIDER = "sandbox"
SANDBOX_DEFAULT_SECRET = "sandbox-secret"


@dataclass(frozen=True)
class Setting:
    var: str
    required: bool
    secret: bool = False


SETTINGS: dict[str, tuple[Setting, ...]] = {
    "sandbox": (Setting("SLOTHOLD_SANDBOX_WEBHOOK_SECRET", False, True),),
    "pix_api": (
        Setting("SLOTHOLD_PIX_API_URL", True),
        Setting("SLOTHOLD_PIX_CLIENT_ID", True),
        Setting("SLOTHOLD_PIX_CLIENT_SECRET", True, True),
        Setting("SLOTHOLD_PIX_KEY", True),
        Setting("SLOTHOLD_PIX_WEBHOOK_SECRET", True, True),
        Setting("SLOTHOLD_PIX_CERT_FILE", False),
        Setting("SLOTHOLD_PIX_CERT_KEY_FILE", False),
        Setting("SLOTHOLD_PIX_MERCHANT_NAME", False),
        Setting("SLOTHOLD_PIX_MERCHANT_CITY", False),
    ),
    "mercadopago": (
        Setting("SLOTHOLD_MP_ACCESS_TOKEN", True, True),
        Setting("SLOTHOLD_MP_WEBHOOK_SECRET", True, True),
        Setting("SLOTHOLD_MP_API_URL", False),
        Setting("SLOTHOLD_MP_PAYER_EMAIL", False),
    ),
}


def provider_name(env: Mapping[str, str]) -> str:
    """The chosen provider; an unknown one is a ValueError naming the variable."""
    name = (env.get(PROVIDER_VAR) or DEFAULT_PROVIDER).strip().lower()
    if name not in SETTINGS:
        raise ValueError(f"{PROVIDER_VAR}={name!r} is not a payment provider (choose one of {', '.join(SETTINGS)})")
    return name


def _need(env: Mapping[str, str], var: str) -> str:
    value = (env.get(var) or "").strip()
    if not value:
        raise ValueError(f"{var} must be set for the payment provider chosen by {PROVIDER_VAR}")
    return value


def _opt(env: Mapping[str, str], var: str) -> str | None:
    return (env.get(var) or "").strip() or None


def make_provider(env: Mapping[str, str], pool: Any, *, http: httpx.AsyncClient | None = None) -> PaymentProvider:
    """The provider chosen by SLOTHOLD_PAYMENT_PROVIDER, configured from `env`. Missing settings raise a
    ValueError that names the variable (never its value). `http` (optional) is used by the HTTP providers;
    otherwise they make and own their client (`await provider.aclose()` closes it)."""
    name = provider_name(env)
    if name == "pix_api":
        cert_file, key_file = _opt(env, "SLOTHOLD_PIX_CERT_FILE"), _opt(env, "SLOTHOLD_PIX_CERT_KEY_FILE")
        if key_file and not cert_file:
            raise ValueError("SLOTHOLD_PIX_CERT_FILE must be set when SLOTHOLD_PIX_CERT_KEY_FILE is")
        url = _need(env, "SLOTHOLD_PIX_API_URL")
        client_id = _need(env, "SLOTHOLD_PIX_CLIENT_ID")
        client_secret = _need(env, "SLOTHOLD_PIX_CLIENT_SECRET")
        pix_key = _need(env, "SLOTHOLD_PIX_KEY")
        webhook_secret = _need(env, "SLOTHOLD_PIX_WEBHOOK_SECRET")
        if http is None and cert_file:
            context = ssl.create_default_context()
            context.load_cert_chain(cert_file, key_file)
            http = httpx.AsyncClient(verify=context)
        return PixApiProvider(
            url, client_id, client_secret, pix_key, webhook_secret, http=http,
            merchant_name=_opt(env, "SLOTHOLD_PIX_MERCHANT_NAME") or "Slothold",
            merchant_city=_opt(env, "SLOTHOLD_PIX_MERCHANT_CITY") or "Sao Paulo",
        )
    if name == "mercadopago":
        return MercadoPagoProvider(
            _need(env, "SLOTHOLD_MP_ACCESS_TOKEN"), _need(env, "SLOTHOLD_MP_WEBHOOK_SECRET"),
            base_url=_opt(env, "SLOTHOLD_MP_API_URL") or "https://api.mercadopago.com",
            payer_email=_opt(env, "SLOTHOLD_MP_PAYER_EMAIL") or "pagador@slothold.dev",
            http=http,
        )
    if pool is None:
        raise ValueError("the sandbox payment provider needs the database pool")
    return SandboxProvider(pool, _opt(env, "SLOTHOLD_SANDBOX_WEBHOOK_SECRET") or SANDBOX_DEFAULT_SECRET)


def redacted_config(env: Mapping[str, str]) -> dict[str, str]:
    """The payment settings for a log line: the chosen provider and its variables, secrets as "***",
    missing ones as "(unset)", passwords in URLs hidden."""
    try:
        name = provider_name(env)
    except ValueError:
        return {PROVIDER_VAR: f"{(env.get(PROVIDER_VAR) or '').strip()!r} (unknown)"}
    shown = {PROVIDER_VAR: name}
    for setting in SETTINGS[name]:
        value = (env.get(setting.var) or "").strip()
        if not value:
            shown[setting.var] = "(unset)" if setting.required else "(default)"
        elif setting.secret:
            shown[setting.var] = "***"
        elif setting.var.endswith("_URL"):
            shown[setting.var] = _without_password(value)
        else:
            shown[setting.var] = value
    return shown


def _without_password(url: str) -> str:
    try:
        parts = urlsplit(url)
        if parts.password is None and parts.username is None:
            return url
        netloc = f"***@{parts.hostname or ''}" + (f":{parts.port}" if parts.port else "")
        return urlunsplit(parts._replace(netloc=netloc))
    except ValueError:
        return "***"
