"""A client for the standard Pix API of Brazilian banks (BACEN "API Pix" v2).

- OAuth2 client credentials: `POST {base_url}/oauth/token` with HTTP Basic client_id:client_secret and the
  form `grant_type=client_credentials`; the token is kept until shortly before `expires_in`, and dropped
  (then fetched again, once) when the API answers 401.
- Charges with immediate payment (`cob`): `PUT`, `GET`, `PATCH /v2/cob/{txid}`.
- Refunds: `PUT /v2/pix/{e2eid}/devolucao/{id}`.
- Webhook: the bank POSTs `{"pix": [...]}` to `<registered url>/pix`; the registered URL carries our shared
  secret as the query parameter `secret=`.

Banks require mutual TLS on this API: pass an `httpx.AsyncClient` configured with the client certificate
(`providers.factory` builds one from SLOTHOLD_PIX_CERT_FILE / SLOTHOLD_PIX_CERT_KEY_FILE).
"""

from __future__ import annotations

import asyncio
import base64
import hmac
import json
import re
import time
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

import httpx

from domain.payments import ChargeLookup, ProviderCharge, ProviderUnavailable, ReceivedPix, WebhookRejected
from domain.pix import brcode, parse
from providers.base import (
    Answer,
    ChargeNotFound,
    ClockLike,
    JsonApi,
    Scrubber,
    UtcClock,
    cents_to_str,
    check_charge,
    check_refund,
    parse_time,
    received_pix,
    received_pix_list,
)

_REFUND_ID_RE = re.compile(r"[A-Za-z0-9]{1,35}")
_E2E_RE = re.compile(r"[A-Za-z0-9]{1,64}")


class PixApiProvider:
    """The standard Pix API of a bank (PSP)."""

    name = "pix_api"

    def __init__(self, base_url: str, client_id: str, client_secret: str, pix_key: str, webhook_secret: str, *,
                 http: httpx.AsyncClient | None = None, timeout: float = 10.0,
                 merchant_name: str = "Slothold", merchant_city: str = "Sao Paulo",
                 clock: ClockLike | None = None) -> None:
        for what, value in (("base_url", base_url), ("client_id", client_id), ("client_secret", client_secret),
                            ("pix_key", pix_key), ("webhook_secret", webhook_secret)):
            if not value:
                raise ValueError(f"pix_api: {what} is required")
        self.pix_key = pix_key
        self.merchant_name = merchant_name
        self.merchant_city = merchant_city
        self.clock: ClockLike = clock or UtcClock()
        self._client_id = client_id
        self._client_secret = client_secret
        self._webhook_secret = webhook_secret
        basic = base64.b64encode(f"{client_id}:{client_secret}".encode()).decode()
        self._scrub = Scrubber([client_secret, webhook_secret, basic])
        self._api = JsonApi(self.name, base_url, http, timeout, self._scrub)
        self._token: str | None = None
        self._token_until = 0.0
        self._token_lock = asyncio.Lock()
        self._monotonic: Callable[[], float] = time.monotonic

    def __repr__(self) -> str:
        return f"PixApiProvider(base_url={self._api.base_url!r}, client_id={self._client_id!r})"

    # --- OAuth2 ----------------------------------------------------------------------------------------

    async def _access_token(self) -> str:
        if self._token is not None and self._monotonic() < self._token_until:
            return self._token
        async with self._token_lock:
            if self._token is not None and self._monotonic() < self._token_until:
                return self._token
            answer = await self._api.send(
                "POST", "/oauth/token", "token", form={"grant_type": "client_credentials"},
                auth=httpx.BasicAuth(self._client_id, self._client_secret))
            if not answer.ok:
                error = answer.body.get("error") if isinstance(answer.body, Mapping) else None
                raise self._api.fail("token", f"authentication refused (HTTP {answer.status})"
                                     + (f": {error}" if isinstance(error, str) else ""))
            body = answer.body
            token = body.get("access_token") if isinstance(body, Mapping) else None
            expires_in = body.get("expires_in", 3600) if isinstance(body, Mapping) else None
            try:
                lifetime = float(expires_in)  # type: ignore[arg-type]
            except (TypeError, ValueError):
                lifetime = -1.0
            if not isinstance(token, str) or not token or lifetime <= 0:
                raise self._api.malformed("token", "no access_token / expires_in")
            self._scrub.add(token)
            self._token = token
            # refresh shortly before it runs out: a minute early, or a fifth of a short lifetime
            self._token_until = self._monotonic() + lifetime - min(60.0, lifetime / 5)
            return token

    async def _call(self, method: str, path: str, what: str, body: Any = None) -> Answer:
        for attempt in range(2):
            token = await self._access_token()
            answer = await self._api.send(method, path, what, json_body=body,
                                          headers={"Authorization": f"Bearer {token}"})
            if answer.status != 401 or attempt:
                return answer
            if self._token == token:  # revoked or expired early: fetch a new one, once
                self._token = None
        raise AssertionError("unreachable")

    # --- PaymentProvider -------------------------------------------------------------------------------

    async def create_charge(self, txid: str, amount_cents: int, expires_at: datetime,
                            description: str) -> ProviderCharge:
        """`PUT /v2/cob/{txid}`. A retry after a creation that did reach the bank finds that charge."""
        check_charge(txid, amount_cents, expires_at)
        seconds = int((expires_at - self.clock.now()) / timedelta(seconds=1))
        if seconds < 1:
            raise ValueError("pix_api: expires_at is already past")
        body: dict[str, Any] = {"calendario": {"expiracao": seconds},
                                "valor": {"original": cents_to_str(amount_cents)}, "chave": self.pix_key}
        if description:
            body["solicitacaoPagador"] = description[:140]
        answer = await self._call("PUT", f"/v2/cob/{txid}", "create charge", body)
        cob = answer.body
        if not answer.ok:
            retried = 400 <= answer.status < 500 and answer.status not in (401, 403)
            cob = await self._same_charge(txid, amount_cents) if retried else None
            if cob is None:
                raise self._api.refused("create charge", answer)
        if not isinstance(cob, Mapping):
            raise self._api.malformed("create charge")
        ref = cob.get("txid") or txid
        if not isinstance(ref, str):
            raise self._api.malformed("create charge", "txid")
        return ProviderCharge(provider_ref=ref, brcode=self._brcode(cob, txid, amount_cents))

    async def cancel_charge(self, txid: str, provider_ref: str) -> None:
        """`PATCH /v2/cob/{txid}` to REMOVIDA_PELO_USUARIO_RECEBEDOR. Idempotent: a charge already removed,
        paid or unknown to the bank is left alone."""
        ref = self._ref(txid, provider_ref)
        answer = await self._call("PATCH", f"/v2/cob/{ref}", "cancel charge",
                                  {"status": "REMOVIDA_PELO_USUARIO_RECEBEDOR"})
        if answer.ok or answer.status == 404:
            return
        if 400 <= answer.status < 500 and answer.status not in (401, 403):
            current = await self._call("GET", f"/v2/cob/{ref}", "cancel charge")
            if current.status == 404 or (
                    current.ok and isinstance(current.body, Mapping) and current.body.get("status") != "ATIVA"):
                return
        raise self._api.refused("cancel charge", answer)

    async def lookup_charge(self, txid: str, provider_ref: str) -> ChargeLookup:
        """`GET /v2/cob/{txid}`: ATIVA → pending (expired past criacao + expiracao), CONCLUIDA or any pix
        received → paid, REMOVIDA_PELO_USUARIO_RECEBEDOR → cancelled, REMOVIDA_PELO_PSP → expired."""
        ref = self._ref(txid, provider_ref)
        answer = await self._call("GET", f"/v2/cob/{ref}", "look up charge")
        if answer.status == 404:
            raise ChargeNotFound(f"pix_api: look up charge: the bank has no charge {ref}")
        if not answer.ok:
            raise self._api.refused("look up charge", answer)
        cob = answer.body
        if not isinstance(cob, Mapping):
            raise self._api.malformed("look up charge")
        try:
            payments = tuple(received_pix(item) for item in cob.get("pix") or [])
        except ValueError as exc:
            raise self._api.malformed("look up charge", str(exc)) from None
        status = cob.get("status")
        if payments or status == "CONCLUIDA":
            return ChargeLookup("paid", payments)
        if status == "ATIVA":
            deadline = _deadline(cob)
            return ChargeLookup("expired" if deadline is not None and self.clock.now() >= deadline else "pending")
        if status == "REMOVIDA_PELO_USUARIO_RECEBEDOR":
            return ChargeLookup("cancelled")
        if status == "REMOVIDA_PELO_PSP":
            return ChargeLookup("expired")
        raise self._api.malformed("look up charge", f"unknown status {str(status)[:40]!r}")

    async def parse_webhook(self, headers: dict[str, str], query: dict[str, str], body: bytes) -> list[ReceivedPix]:
        """Checks the `secret` query parameter (constant time) and reads `{"pix": [...]}`."""
        given = query.get("secret")
        if not given:
            raise WebhookRejected("pix_api: the webhook URL carries no secret")
        if not hmac.compare_digest(given.encode(), self._webhook_secret.encode()):
            raise WebhookRejected("pix_api: the webhook secret does not match")
        try:
            return received_pix_list(json.loads(body))
        except ValueError as exc:
            raise WebhookRejected(f"pix_api: the webhook body is not understood ({exc})") from None

    async def refund(self, payment: ReceivedPix, amount_cents: int, refund_id: str) -> str:
        """`PUT /v2/pix/{e2eid}/devolucao/{refund_id}`; answers the bank's return id (`rtrId`, else `id`).
        The same refund_id again is the same refund (the API is idempotent on it)."""
        if not isinstance(refund_id, str) or not _REFUND_ID_RE.fullmatch(refund_id):
            raise ValueError("a refund id is 1 to 35 letters and digits")
        if not _E2E_RE.fullmatch(payment.provider_payment_id):
            raise ValueError("the payment has no valid endToEndId")
        check_refund(payment.amount_cents, amount_cents)
        answer = await self._call("PUT", f"/v2/pix/{payment.provider_payment_id}/devolucao/{refund_id}", "refund",
                                  {"valor": cents_to_str(amount_cents)})
        if not answer.ok:
            raise self._api.refused("refund", answer)
        body = answer.body
        if not isinstance(body, Mapping):
            raise self._api.malformed("refund")
        if body.get("status") == "NAO_REALIZADO":
            reason = body.get("motivo")
            raise self._api.fail("refund", "not done" + (f": {str(reason)[:200]}" if reason else ""))
        rtr = body.get("rtrId") or body.get("id")
        if not isinstance(rtr, str) or not rtr:
            raise self._api.malformed("refund", "no rtrId / id")
        return rtr

    async def aclose(self) -> None:
        """Closes the HTTP client if this provider made it."""
        await self._api.aclose()

    # --- helpers ---------------------------------------------------------------------------------------

    @staticmethod
    def _ref(txid: str, provider_ref: str) -> str:
        ref = provider_ref or txid
        if not isinstance(ref, str) or not re.fullmatch(r"[A-Za-z0-9]{1,35}", ref):
            raise ValueError("pix_api: a txid is letters and digits")
        return ref

    async def _same_charge(self, txid: str, amount_cents: int) -> Mapping[str, Any] | None:
        """The charge `txid` if the bank already has it, ATIVA with our amount (a retried creation)."""
        try:
            current = await self._call("GET", f"/v2/cob/{txid}", "create charge")
        except ProviderUnavailable:
            return None
        cob = current.body
        if not current.ok or not isinstance(cob, Mapping) or cob.get("status") != "ATIVA":
            return None
        valor = cob.get("valor")
        if not isinstance(valor, Mapping) or valor.get("original") != cents_to_str(amount_cents):
            return None
        return cob

    def _brcode(self, cob: Mapping[str, Any], txid: str, amount_cents: int) -> str:
        copia = cob.get("pixCopiaECola")
        if isinstance(copia, str) and copia:
            try:
                fields = parse(copia)
                if "54" in fields and Decimal(fields["54"]) != Decimal(cents_to_str(amount_cents)):
                    raise ValueError("amount differs")
            except (ValueError, InvalidOperation) as exc:
                raise self._api.malformed("create charge", f"pixCopiaECola: {exc}") from None
            return copia
        loc = cob.get("loc")
        location = loc.get("location") if isinstance(loc, Mapping) else None
        location = location or cob.get("location")
        if not isinstance(location, str) or not location:
            raise self._api.malformed("create charge", "neither pixCopiaECola nor location")
        try:
            return brcode(amount_cents=amount_cents, merchant_name=self.merchant_name,
                          merchant_city=self.merchant_city, txid=txid,
                          location=re.sub(r"^https?://", "", location))
        except ValueError as exc:
            raise self._api.malformed("create charge", f"location: {exc}") from None


def _deadline(cob: Mapping[str, Any]) -> datetime | None:
    calendario = cob.get("calendario")
    if not isinstance(calendario, Mapping):
        return None
    try:
        return parse_time(calendario.get("criacao")) + timedelta(seconds=int(calendario.get("expiracao", 86400)))
    except (TypeError, ValueError):
        return None
