"""The sandbox provider: a pretend bank for development, demos and tests (SPEC §7).

Its charges live in the `sandbox_charges` table, so the API process, a CLI command and the tests all see
the same bank. `pay(...)` plays the customer paying and returns the webhook the bank would send, signed
with an HMAC-SHA256 of the body (hex, header `x-sandbox-signature`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import string
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import asyncpg

from domain.payments import ChargeLookup, ProviderCharge, ProviderUnavailable, ReceivedPix, WebhookRejected
from domain.pix import brcode
from providers.base import (
    ChargeNotFound,
    ClockLike,
    UtcClock,
    cents_to_str,
    check_charge,
    check_refund,
    header,
    iso_utc,
    received_pix_list,
    require_aware,
)

SIGNATURE_HEADER = "x-sandbox-signature"
SANDBOX_ISPB = "99999999"
"""The pretend bank's ISPB (the 8 digits of an end-to-end id after "E")."""

_ALNUM = string.ascii_letters + string.digits


def end_to_end_id(at: datetime, ispb: str = SANDBOX_ISPB) -> str:
    """"E" + ISPB + YYYYMMDDHHMM (UTC) + 11 random letters/digits: 32 characters, as the Pix standard."""
    stamp = at.astimezone(UTC).strftime("%Y%m%d%H%M")
    return f"E{ispb}{stamp}" + "".join(secrets.choice(_ALNUM) for _ in range(11))


def sign(secret: str, body: bytes) -> str:
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


class SandboxProvider:
    """A pretend Pix bank whose state is the `sandbox_charges` table.

    `failing = True` simulates an outage (in this process only): every provider call raises
    ProviderUnavailable. `pay` is the customer's side and works regardless.
    """

    name = "sandbox"

    def __init__(self, pool: asyncpg.Pool, webhook_secret: str, merchant_name: str = "Slothold Sandbox",
                 merchant_city: str = "Sao Paulo", *, clock: ClockLike | None = None) -> None:
        if not webhook_secret:
            raise ValueError("the sandbox needs a webhook secret")
        self.pool = pool
        self._webhook_secret = webhook_secret
        self.merchant_name = merchant_name
        self.merchant_city = merchant_city
        self.clock: ClockLike = clock or UtcClock()
        self.failing = False

    def __repr__(self) -> str:
        return f"SandboxProvider(merchant_name={self.merchant_name!r}, failing={self.failing})"

    def _check_up(self) -> None:
        if self.failing:
            raise ProviderUnavailable("sandbox: the pretend bank is down (failing = True)")

    def _brcode(self, txid: str, amount_cents: int) -> str:
        return brcode(amount_cents=amount_cents, merchant_name=self.merchant_name,
                      merchant_city=self.merchant_city, txid=txid, location=f"sandbox.slothold.dev/qr/{txid}")

    # --- PaymentProvider -------------------------------------------------------------------------------

    async def create_charge(self, txid: str, amount_cents: int, expires_at: datetime,
                            description: str) -> ProviderCharge:
        """A new ATIVA charge. Creating the same txid again with the same amount and expiry answers the same
        charge (a retry); reusing a txid for anything else is a ValueError."""
        self._check_up()
        check_charge(txid, amount_cents, expires_at)
        async with self.pool.acquire() as conn:
            created = await conn.fetchval(
                """INSERT INTO sandbox_charges (txid, amount_cents, status, expires_at, description)
                   VALUES ($1, $2, 'ATIVA', $3, $4) ON CONFLICT (txid) DO NOTHING RETURNING txid""",
                txid, amount_cents, expires_at, description[:140],
            )
            if created is None:
                row = await conn.fetchrow(
                    "SELECT amount_cents, status, expires_at FROM sandbox_charges WHERE txid = $1", txid)
                if row is None or (row["amount_cents"], row["status"], row["expires_at"]) != (
                        amount_cents, "ATIVA", expires_at):
                    raise ValueError(f"sandbox: txid {txid} is already used by another charge")
        return ProviderCharge(provider_ref=txid, brcode=self._brcode(txid, amount_cents))

    async def cancel_charge(self, txid: str, provider_ref: str) -> None:
        """ATIVA → REMOVIDA_PELO_USUARIO_RECEBEDOR; anything else (removed, paid, unknown) is left as is."""
        self._check_up()
        await self.pool.execute(
            """UPDATE sandbox_charges SET status = 'REMOVIDA_PELO_USUARIO_RECEBEDOR'
               WHERE txid = $1 AND status = 'ATIVA'""", provider_ref or txid)

    async def lookup_charge(self, txid: str, provider_ref: str) -> ChargeLookup:
        self._check_up()
        row = await self.pool.fetchrow(
            "SELECT txid, amount_cents, status, expires_at, end_to_end_id, paid_at FROM sandbox_charges "
            "WHERE txid = $1", provider_ref or txid)
        if row is None:
            raise ChargeNotFound(f"sandbox: no charge with txid {provider_ref or txid}")
        if row["status"] == "CONCLUIDA":
            return ChargeLookup("paid", (self._received(row),))
        if row["status"] == "ATIVA":
            return ChargeLookup("expired" if self.clock.now() >= row["expires_at"] else "pending")
        return ChargeLookup("cancelled")

    async def parse_webhook(self, headers: dict[str, str], query: dict[str, str], body: bytes) -> list[ReceivedPix]:
        """Verifies `x-sandbox-signature` (HMAC-SHA256 of the body, hex) and reads the `pix` array."""
        self._check_up()
        given = header(headers, SIGNATURE_HEADER)
        if not given:
            raise WebhookRejected("sandbox: the webhook carries no signature")
        expected = sign(self._webhook_secret, body)
        if not hmac.compare_digest(given.strip().lower().encode(), expected.encode()):
            raise WebhookRejected("sandbox: the webhook signature does not match")
        try:
            return received_pix_list(json.loads(body))
        except ValueError as exc:
            raise WebhookRejected(f"sandbox: the webhook body is not understood ({exc})") from None

    async def refund(self, payment: ReceivedPix, amount_cents: int, refund_id: str) -> str:
        """A refund (devolução) of a paid charge; answers a return id (deterministic per payment and
        refund_id, like the Pix rtrId). Recorded in `sandbox_refunds` once per refund_id (asking again is the
        same refund; `requests` counts the asks). More than the amount paid → ValueError."""
        self._check_up()
        if not re.fullmatch(r"[A-Za-z0-9]{1,35}", refund_id or ""):
            raise ValueError("a refund id is 1 to 35 letters and digits")
        async with self.pool.acquire() as conn, conn.transaction():
            row = await conn.fetchrow(
                "SELECT amount_cents, paid_at FROM sandbox_charges WHERE end_to_end_id = $1 AND status = 'CONCLUIDA' "
                "FOR UPDATE", payment.provider_payment_id)
            if row is None:
                raise ValueError(f"sandbox: no payment {payment.provider_payment_id}")
            check_refund(row["amount_cents"], amount_cents)
            digest = hashlib.sha256(f"{payment.provider_payment_id}:{refund_id}".encode()).hexdigest()[:11]
            return_id = f"D{SANDBOX_ISPB}{row['paid_at'].astimezone(UTC):%Y%m%d%H%M}{digest}"
            again = await conn.fetchval("UPDATE sandbox_refunds SET requests = requests + 1 WHERE refund_id = $1 "
                                        "AND end_to_end_id = $2 RETURNING return_id", refund_id,
                                        payment.provider_payment_id)
            if again is not None:
                return str(again)
            await conn.execute("INSERT INTO sandbox_refunds (refund_id, end_to_end_id, amount_cents, return_id) "
                               "VALUES ($1, $2, $3, $4)", refund_id, payment.provider_payment_id, amount_cents,
                               return_id)
        return return_id

    async def aclose(self) -> None:
        """Nothing to close (the pool belongs to the caller)."""

    # --- the customer's side ---------------------------------------------------------------------------

    async def pay(self, txid: str, *, at: datetime | None = None,
                  amount_cents: int | None = None) -> tuple[dict[str, str], bytes]:
        """The customer pays the charge `txid` (even a removed or expired one: that is a late payment).
        Records the end-to-end id and time (and the amount, when a different one is paid) and returns the
        webhook (headers, body) the bank sends. A charge already paid → ValueError."""
        at = require_aware(at, "at") if at is not None else self.clock.now()
        at = at.replace(microsecond=at.microsecond // 1000 * 1000)  # the webhook's horario has milliseconds
        if amount_cents is not None and (isinstance(amount_cents, bool) or not isinstance(amount_cents, int)
                                         or amount_cents <= 0):
            raise ValueError("a payment needs a positive amount in cents")
        e2e = end_to_end_id(at)
        async with self.pool.acquire() as conn:
            paid = await conn.fetchval(
                """UPDATE sandbox_charges
                   SET status = 'CONCLUIDA', end_to_end_id = $2, paid_at = $3,
                       amount_cents = COALESCE($4, amount_cents)
                   WHERE txid = $1 AND status <> 'CONCLUIDA' RETURNING amount_cents""",
                txid, e2e, at, amount_cents,
            )
            if paid is None:
                exists = await conn.fetchval("SELECT status FROM sandbox_charges WHERE txid = $1", txid)
                if exists is None:
                    raise ValueError(f"sandbox: no charge with txid {txid}")
                raise ValueError(f"sandbox: the charge {txid} is already paid")
        return self.webhook_for(ReceivedPix(provider_payment_id=e2e, txid=txid, amount_cents=paid, paid_at=at))

    def webhook_for(self, *payments: ReceivedPix) -> tuple[dict[str, str], bytes]:
        """The signed webhook call (headers, body) announcing `payments` in the standard Pix API shape."""
        body = json.dumps({"pix": [_pix_entry(p) for p in payments]}, separators=(",", ":")).encode()
        return {"content-type": "application/json", SIGNATURE_HEADER: sign(self._webhook_secret, body)}, body

    @staticmethod
    def _received(row: Mapping[str, Any]) -> ReceivedPix:
        return ReceivedPix(provider_payment_id=row["end_to_end_id"], txid=row["txid"],
                           amount_cents=row["amount_cents"], paid_at=row["paid_at"])


def _pix_entry(payment: ReceivedPix) -> dict[str, Any]:
    return {"endToEndId": payment.provider_payment_id, "txid": payment.txid,
            "valor": cents_to_str(payment.amount_cents), "horario": iso_utc(payment.paid_at)}

