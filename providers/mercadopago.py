"""MercadoPago Pix payments (Checkout API, `/v1/payments`).

- Create: `POST /v1/payments` with `payment_method_id: "pix"`, `X-Idempotency-Key: <txid>`; the payment id is
  the provider_ref and `point_of_interaction.transaction_data.qr_code` the BR Code.
- Cancel: `PUT /v1/payments/{id}` `{"status": "cancelled"}`; look up: `GET /v1/payments/{id}`;
  refund: `POST /v1/payments/{id}/refunds` `{"amount": 50.0}`.
- Webhook: `x-signature: ts=<ts>,v1=<hex>` over the manifest `id:{data.id};request-id:{x-request-id};ts:{ts};`
  (HMAC-SHA256 with the webhook secret; data.id from the query string, lowercased when alphanumeric; a part
  whose value is absent is left out, as MercadoPago documents). The body is not signed, so the payment is
  always fetched from the API by the signed id.

MercadoPago speaks JSON numbers for money: answers are parsed with Decimal, and amounts sent are floats
whose shortest representation is checked to be the exact decimal amount.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Mapping
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

import httpx

from domain.payments import ChargeLookup, ProviderCharge, ReceivedPix, WebhookRejected
from domain.pix import parse
from providers.base import (
    ChargeNotFound,
    ClockLike,
    JsonApi,
    Scrubber,
    UtcClock,
    cents_to_number,
    cents_to_str,
    check_charge,
    check_refund,
    header,
    number_to_cents,
    parse_time,
)

PAID = frozenset({"approved", "refunded", "charged_back", "in_mediation"})
"""Statuses of a payment whose money reached the account (a refund or dispute happens afterwards)."""
PENDING = frozenset({"pending", "in_process", "authorized"})

_ID_RE = re.compile(r"[A-Za-z0-9]{1,64}")


MIN_PIX_EXPIRY = timedelta(minutes=30)


class MercadoPagoProvider:
    """Pix through MercadoPago."""

    name = "mercadopago"

    def __init__(self, access_token: str, webhook_secret: str, *, base_url: str = "https://api.mercadopago.com",
                 payer_email: str = "pagador@slothold.dev", http: httpx.AsyncClient | None = None,
                 timeout: float = 10.0, clock: ClockLike | None = None) -> None:
        if not access_token:
            raise ValueError("mercadopago: access_token is required")
        if not webhook_secret:
            raise ValueError("mercadopago: webhook_secret is required")
        self.payer_email = payer_email
        self.clock: ClockLike = clock or UtcClock()
        self._access_token = access_token
        self._webhook_secret = webhook_secret
        self._scrub = Scrubber([access_token, webhook_secret])
        self._api = JsonApi(self.name, base_url, http, timeout, self._scrub)

    def __repr__(self) -> str:
        return f"MercadoPagoProvider(base_url={self._api.base_url!r})"

    def _headers(self, idempotency_key: str | None = None) -> dict[str, str]:
        headers = {"Authorization": f"Bearer {self._access_token}"}
        if idempotency_key:
            headers["X-Idempotency-Key"] = idempotency_key
        return headers

    # --- PaymentProvider -------------------------------------------------------------------------------

    async def create_charge(self, txid: str, amount_cents: int, expires_at: datetime,
                            description: str) -> ProviderCharge:
        """`POST /v1/payments`; the txid is the idempotency key, so a retry answers the same payment."""
        check_charge(txid, amount_cents, expires_at)
        if expires_at <= self.clock.now():
            raise ValueError("mercadopago: expires_at is already past")
        # MercadoPago refuses a Pix expiring in under 30 minutes; ours expire sooner (hold TTL minus the
        # margin), so ask for the minimum and rely on Slothold cancelling the charge when the hold ends.
        provider_expiry = max(expires_at, self.clock.now() + MIN_PIX_EXPIRY)
        body: dict[str, Any] = {
            "transaction_amount": cents_to_number(amount_cents),
            "payment_method_id": "pix",
            "payer": {"email": self.payer_email},
            "date_of_expiration": provider_expiry.isoformat(timespec="milliseconds"),
            "external_reference": txid,
        }
        if description:
            body["description"] = description[:255]
        answer = await self._api.send("POST", "/v1/payments", "create charge", json_body=body,
                                      headers=self._headers(txid))
        if not answer.ok:
            raise self._api.refused("create charge", answer)
        payment = answer.body
        if not isinstance(payment, Mapping):
            raise self._api.malformed("create charge")
        status = payment.get("status")
        if status == "rejected" or status == "cancelled":
            raise self._api.fail("create charge", f"payment {status} ({str(payment.get('status_detail'))[:60]})")
        ref = _payment_id(payment)
        if ref is None:
            raise self._api.malformed("create charge", "no id")
        qr = _dig(payment, "point_of_interaction", "transaction_data", "qr_code")
        if not isinstance(qr, str) or not qr:
            raise self._api.malformed("create charge", "no point_of_interaction.transaction_data.qr_code")
        try:
            fields = parse(qr)
            if "54" in fields and Decimal(fields["54"]) != Decimal(cents_to_str(amount_cents)):
                raise ValueError("amount differs")
        except (ValueError, InvalidOperation) as exc:
            raise self._api.malformed("create charge", f"qr_code: {exc}") from None
        return ProviderCharge(provider_ref=ref, brcode=qr)

    async def cancel_charge(self, txid: str, provider_ref: str) -> None:
        """`PUT /v1/payments/{id}` cancelled. Idempotent: a payment no longer pending (cancelled, expired,
        approved) or unknown is left alone."""
        ref = _check_id(provider_ref)
        answer = await self._api.send("PUT", f"/v1/payments/{ref}", "cancel charge",
                                      json_body={"status": "cancelled"}, headers=self._headers())
        if answer.ok or answer.status == 404:
            return
        if 400 <= answer.status < 500 and answer.status not in (401, 403):
            current = await self._api.send("GET", f"/v1/payments/{ref}", "cancel charge", headers=self._headers())
            if current.status == 404 or (current.ok and isinstance(current.body, Mapping)
                                         and current.body.get("status") not in PENDING):
                return
        raise self._api.refused("cancel charge", answer)

    async def lookup_charge(self, txid: str, provider_ref: str) -> ChargeLookup:
        """`GET /v1/payments/{id}`: approved (or later refunded/disputed) → paid; pending → pending (expired
        past date_of_expiration); cancelled → cancelled, or expired when status_detail says so; rejected →
        cancelled."""
        ref = _check_id(provider_ref)
        payment = await self._fetch(ref, "look up charge")
        if payment is None:
            raise ChargeNotFound(f"mercadopago: look up charge: no payment {ref}")
        return self._lookup(payment)

    async def parse_webhook(self, headers: dict[str, str], query: dict[str, str], body: bytes) -> list[ReceivedPix]:
        """Verifies `x-signature`; for a `payment` notification fetches the payment and answers it when paid."""
        data_id = self._verify(headers, query)
        notice: Any = {}
        if body.strip():
            try:
                notice = json.loads(body)
            except ValueError:
                raise WebhookRejected("mercadopago: the notification body is not JSON") from None
            if not isinstance(notice, Mapping):
                raise WebhookRejected("mercadopago: the notification body is not an object")
        body_id = _dig(notice, "data", "id")
        if body_id is not None and str(body_id) != data_id:
            raise WebhookRejected("mercadopago: the body's data.id differs from the signed one")
        kind = query.get("type") or query.get("topic") or notice.get("type") or notice.get("topic")
        if kind != "payment":
            return []
        if not _ID_RE.fullmatch(data_id):
            raise WebhookRejected("mercadopago: data.id is not a payment id")
        payment = await self._fetch(data_id, "webhook")
        if payment is None:
            return []
        lookup = self._lookup(payment)
        return list(lookup.payments) if lookup.status == "paid" else []

    async def refund(self, payment: ReceivedPix, amount_cents: int, refund_id: str) -> str:
        """`POST /v1/payments/{id}/refunds` (idempotency key = refund_id); answers the refund's id."""
        ref = _check_id(payment.provider_payment_id)
        if not isinstance(refund_id, str) or not refund_id or len(refund_id) > 64:
            raise ValueError("a refund id is 1 to 64 characters")
        check_refund(payment.amount_cents, amount_cents)
        answer = await self._api.send("POST", f"/v1/payments/{ref}/refunds", "refund",
                                      json_body={"amount": cents_to_number(amount_cents)},
                                      headers=self._headers(refund_id))
        if not answer.ok:
            raise self._api.refused("refund", answer)
        refund_ref = _payment_id(answer.body) if isinstance(answer.body, Mapping) else None
        if refund_ref is None:
            raise self._api.malformed("refund", "no id")
        if isinstance(answer.body, Mapping) and answer.body.get("status") in ("rejected", "cancelled"):
            raise self._api.fail("refund", f"refund {answer.body.get('status')}")
        return refund_ref

    async def aclose(self) -> None:
        """Closes the HTTP client if this provider made it."""
        await self._api.aclose()

    # --- helpers ---------------------------------------------------------------------------------------

    def _verify(self, headers: Mapping[str, str], query: Mapping[str, str]) -> str:
        """The signed data.id, or WebhookRejected."""
        signature = header(headers, "x-signature")
        if not signature:
            raise WebhookRejected("mercadopago: the notification carries no x-signature")
        parts: dict[str, str] = {}
        for part in signature.split(","):
            key, sep, value = part.partition("=")
            if sep:
                parts[key.strip()] = value.strip()
        ts, v1 = parts.get("ts"), parts.get("v1")
        if not ts or not v1:
            raise WebhookRejected("mercadopago: x-signature lacks ts or v1")
        data_id = query.get("data.id")
        if not data_id:
            raise WebhookRejected("mercadopago: the notification URL carries no data.id")
        request_id = header(headers, "x-request-id")
        expected = hmac.new(self._webhook_secret.encode(), manifest(data_id, request_id, ts).encode(),
                            hashlib.sha256).hexdigest()
        if not hmac.compare_digest(v1.lower().encode(), expected.encode()):
            raise WebhookRejected("mercadopago: the signature does not match")
        return data_id

    async def _fetch(self, ref: str, what: str) -> Mapping[str, Any] | None:
        answer = await self._api.send("GET", f"/v1/payments/{ref}", what, headers=self._headers())
        if answer.status == 404:
            return None
        if not answer.ok:
            raise self._api.refused(what, answer)
        if not isinstance(answer.body, Mapping):
            raise self._api.malformed(what)
        return answer.body

    def _lookup(self, payment: Mapping[str, Any]) -> ChargeLookup:
        status = payment.get("status")
        if status in PAID:
            return ChargeLookup("paid", (self._received(payment),))
        if status in PENDING:
            try:
                deadline = parse_time(payment.get("date_of_expiration"))
            except ValueError:
                return ChargeLookup("pending")
            return ChargeLookup("expired" if self.clock.now() >= deadline else "pending")
        if status == "expired" or (status == "cancelled" and payment.get("status_detail") == "expired"):
            return ChargeLookup("expired")
        if status in ("cancelled", "rejected"):
            return ChargeLookup("cancelled")
        raise self._api.malformed("look up charge", f"unknown status {str(status)[:40]!r}")

    def _received(self, payment: Mapping[str, Any]) -> ReceivedPix:
        ref = _payment_id(payment)
        try:
            if ref is None:
                raise ValueError("no id")
            amount = number_to_cents(payment.get("transaction_amount"))
            when = payment.get("date_approved") or payment.get("date_last_updated") or payment.get("date_created")
            paid_at = parse_time(when)
        except ValueError as exc:
            raise self._api.malformed("payment", str(exc)) from None
        reference = payment.get("external_reference")
        return ReceivedPix(provider_payment_id=ref, txid=reference if isinstance(reference, str) and reference
                           else None, amount_cents=amount, paid_at=paid_at)


def manifest(data_id: str, request_id: str | None, ts: str) -> str:
    """MercadoPago's signed template `id:{data.id};request-id:{x-request-id};ts:{ts};` — data.id lowercased
    when alphanumeric, and any part without a value left out."""
    if data_id.isascii() and data_id.isalnum():
        data_id = data_id.lower()
    text = f"id:{data_id};" if data_id else ""
    if request_id:
        text += f"request-id:{request_id};"
    if ts:
        text += f"ts:{ts};"
    return text


def _dig(data: object, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, Mapping):
            return None
        data = data.get(key)
    return data


def _payment_id(data: Mapping[str, Any]) -> str | None:
    value = data.get("id")
    if isinstance(value, bool) or not isinstance(value, (int, str)) or value == "":
        return None
    return str(value)


def _check_id(ref: str) -> str:
    if not isinstance(ref, str) or not _ID_RE.fullmatch(ref):
        raise ValueError("mercadopago: a payment id is letters and digits")
    return ref
