"""What the providers share: exact money conversions, time parsing, argument checks, secret scrubbing and a
small JSON-over-HTTP helper that turns every transport failure into ProviderUnavailable."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any, Protocol

import httpx

from domain.payments import ProviderUnavailable, ReceivedPix

log = logging.getLogger("slothold.providers")

TXID_RE = re.compile(r"[A-Za-z0-9]{26,35}")
"""A txid of a Pix charge with immediate payment (the Pix API's `cob`): 26 to 35 letters and digits."""

_VALUE_RE = re.compile(r"\d{1,10}\.\d{2}")


class ChargeNotFound(ProviderUnavailable):
    """The provider does not know this charge (never created there, or another account's).

    A subclass of ProviderUnavailable so that callers that only know the Protocol treat it as "no answer"."""


class ClockLike(Protocol):
    def now(self) -> datetime: ...


class UtcClock:
    """The machine's time, aware, in UTC (the default clock of the providers)."""

    def now(self) -> datetime:
        return datetime.now(UTC)


# --- money -----------------------------------------------------------------------------------------------


def cents_to_str(cents: int) -> str:
    """12345 → "123.45" (the Pix API's decimal string)."""
    if isinstance(cents, bool) or not isinstance(cents, int) or cents < 0:
        raise ValueError("an amount in cents must be a non-negative integer")
    return f"{cents // 100}.{cents % 100:02d}"


def str_to_cents(value: object) -> int:
    """"123.45" → 12345, exactly; anything else than a decimal string with two places is refused."""
    if not isinstance(value, str) or not _VALUE_RE.fullmatch(value):
        raise ValueError(f"not a Pix amount: {value!r}")
    units, frac = value.split(".")
    return int(units) * 100 + int(frac)


def number_to_cents(value: object) -> int:
    """A JSON number (parsed as Decimal or int, never float) → cents, exactly; fractions of a cent are refused."""
    if isinstance(value, bool) or not isinstance(value, (int, Decimal, str)):
        raise ValueError(f"not an amount: {value!r}")
    try:
        cents = Decimal(value) * 100
    except InvalidOperation as exc:
        raise ValueError(f"not an amount: {value!r}") from exc
    if not cents.is_finite() or cents != cents.to_integral_value() or cents < 0:
        raise ValueError(f"not an amount in whole cents: {value!r}")
    return int(cents)


def cents_to_number(cents: int) -> float:
    """12345 → 123.45 as the JSON number a float-speaking API expects; the float's shortest repr is checked to
    be exactly the decimal amount (true for every amount below 10^13 cents)."""
    exact = Decimal(cents_to_str(cents))
    number = float(exact)
    if Decimal(repr(number)) != exact:
        raise ValueError(f"{cents} cents cannot be sent exactly as a JSON number")
    return number


# --- time ------------------------------------------------------------------------------------------------


def require_aware(moment: datetime, what: str = "expires_at") -> datetime:
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"{what} must be timezone-aware")
    return moment


def parse_time(value: object) -> datetime:
    """An ISO-8601 time from a provider → aware datetime (a time without offset is taken as UTC)."""
    if not isinstance(value, str):
        raise ValueError(f"not a time: {value!r}")
    moment = datetime.fromisoformat(value)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def iso_utc(moment: datetime) -> str:
    """2026-12-07T12:00:00.000Z"""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# --- arguments -------------------------------------------------------------------------------------------


def check_charge(txid: str, amount_cents: int, expires_at: datetime) -> None:
    """The arguments of `create_charge` every provider accepts (programming errors → ValueError)."""
    if not isinstance(txid, str) or not TXID_RE.fullmatch(txid):
        raise ValueError("a txid is 26 to 35 letters and digits")
    if isinstance(amount_cents, bool) or not isinstance(amount_cents, int) or amount_cents <= 0:
        raise ValueError("a charge needs a positive amount in cents")
    require_aware(expires_at)


def check_refund(paid_cents: int, amount_cents: int) -> None:
    if isinstance(amount_cents, bool) or not isinstance(amount_cents, int) or amount_cents <= 0:
        raise ValueError("a refund needs a positive amount in cents")
    if amount_cents > paid_cents:
        raise ValueError(f"a refund of {amount_cents} cents is more than the {paid_cents} cents paid")


# --- secrets ---------------------------------------------------------------------------------------------


class Scrubber:
    """Replaces every known secret (and the current tokens) in a text by ***."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets: set[str] = set()
        for secret in secrets:
            self.add(secret)

    def add(self, secret: str | None) -> None:
        if secret and len(secret) >= 4:
            self._secrets.add(secret)

    def __call__(self, text: str) -> str:
        for secret in sorted(self._secrets, key=len, reverse=True):
            text = text.replace(secret, "***")
        return text


def problem_text(body: object, limit: int = 300) -> str:
    """The human part of an error body: RFC 7807 `title`/`detail` (+ the Pix API's `violacoes`), or
    MercadoPago's `message`/`cause`."""
    if not isinstance(body, Mapping):
        return ""
    parts: list[str] = []
    for key in ("title", "detail", "message"):
        value = body.get(key)
        if isinstance(value, str) and value.strip():
            parts.append(value.strip())
    for key in ("violacoes", "cause"):
        items = body.get(key)
        if isinstance(items, list):
            for item in items[:5]:
                if isinstance(item, Mapping):
                    text = " ".join(
                        str(item[k]) for k in ("propriedade", "razao", "description") if item.get(k)
                    )
                    if text and not any(text in part for part in parts):
                        parts.append(text)
    text = " — ".join(parts)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- JSON over HTTP --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    status: int
    body: Any
    """The JSON body (floats as Decimal), or None when empty (or not JSON on a 4xx)."""

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


class JsonApi:
    """Sends JSON requests; a transport error, timeout, 5xx or malformed 2xx body raises ProviderUnavailable
    with a message that names the operation and never carries a secret."""

    def __init__(self, provider: str, base_url: str, http: httpx.AsyncClient | None, timeout: float,
                 scrub: Scrubber) -> None:
        self.provider = provider
        self.base_url = base_url.rstrip("/")
        self._own_http = http is None
        self.http = http if http is not None else httpx.AsyncClient()
        self.timeout = timeout
        self.scrub = scrub

    def fail(self, what: str, reason: str) -> ProviderUnavailable:
        message = self.scrub(f"{self.provider}: {what}: {reason}")
        log.warning("%s", message)
        return ProviderUnavailable(message)

    async def send(self, method: str, path: str, what: str, *, json_body: Any = None,
                   form: Mapping[str, str] | None = None, headers: Mapping[str, str] | None = None,
                   auth: httpx.Auth | tuple[str, str] | None = None) -> Answer:
        kwargs: dict[str, Any] = {"headers": {"Accept": "application/json", **(headers or {})},
                                  "timeout": self.timeout}
        if json_body is not None:
            kwargs["content"] = json.dumps(json_body, ensure_ascii=False).encode()
            kwargs["headers"]["Content-Type"] = "application/json"
        if form is not None:
            kwargs["data"] = dict(form)
        if auth is not None:
            kwargs["auth"] = auth
        try:
            response = await self.http.request(method, self.base_url + path, **kwargs)
        except httpx.TimeoutException as exc:
            raise self.fail(what, f"timed out after {self.timeout:g} s") from exc
        except httpx.HTTPError as exc:
            raise self.fail(what, f"{type(exc).__name__}: {exc}") from exc
        if response.status_code >= 500:
            raise self.fail(what, f"HTTP {response.status_code}")
        body: Any = None
        if response.content.strip():
            try:
                body = json.loads(response.content, parse_float=Decimal)
            except ValueError as exc:
                if 200 <= response.status_code < 300:
                    raise self.fail(what, f"malformed answer (HTTP {response.status_code})") from exc
        elif 200 <= response.status_code < 300:
            body = {}
        return Answer(response.status_code, body)

    def refused(self, what: str, answer: Answer) -> ProviderUnavailable:
        detail = problem_text(answer.body)
        return self.fail(what, f"refused (HTTP {answer.status})" + (f": {detail}" if detail else ""))

    def malformed(self, what: str, detail: str = "") -> ProviderUnavailable:
        return self.fail(what, "malformed answer" + (f" ({detail})" if detail else ""))

    async def aclose(self) -> None:
        if self._own_http:
            await self.http.aclose()


# --- the standard Pix webhook / cob `pix` array ----------------------------------------------------------


def received_pix(item: object) -> ReceivedPix:
    """One entry of a `pix` array (Pix API webhook, `GET /v2/cob/{txid}`) → ReceivedPix; ValueError if malformed."""
    if not isinstance(item, Mapping):
        raise ValueError("a pix entry must be an object")
    e2e = item.get("endToEndId")
    if not isinstance(e2e, str) or not re.fullmatch(r"[A-Za-z0-9]{1,64}", e2e):
        raise ValueError("a pix entry needs an endToEndId")
    txid = item.get("txid")
    if txid is not None and not isinstance(txid, str):
        raise ValueError("a pix entry's txid must be a string")
    amount = str_to_cents(item.get("valor"))
    if amount <= 0:
        raise ValueError("a pix entry needs a positive valor")
    name, document = payer(item.get("pagador"))
    return ReceivedPix(provider_payment_id=e2e, txid=txid or None, amount_cents=amount,
                       paid_at=parse_time(item.get("horario")), payer_name=name, payer_document=document)


def payer(given: object) -> tuple[str | None, str | None]:
    """The payer a bank names in a Pix entry (`pagador: {cpf|cnpj, nome}`, which many banks add to the standard
    entry): (name, CPF/CNPJ digits), each None when absent or not well formed — a payer is a hint, never a
    reason to refuse the payment."""
    if not isinstance(given, Mapping):
        return None, None
    nome = given.get("nome")
    name = " ".join(nome.split())[:140] or None if isinstance(nome, str) else None
    document = given.get("cpf") or given.get("cnpj")
    if not isinstance(document, str) or not re.fullmatch(r"\d{11}|\d{14}", document):
        document = None
    return name, document


def received_pix_list(body: object) -> list[ReceivedPix]:
    """`{"pix": [...]}` → the payments; ValueError if the shape is wrong."""
    if not isinstance(body, Mapping) or not isinstance(body.get("pix"), list):
        raise ValueError('expected {"pix": [...]}')
    return [received_pix(item) for item in body["pix"]]


def header(headers: Mapping[str, str], name: str) -> str | None:
    """A request header by name, whatever the case of the keys."""
    name = name.lower()
    for key, value in headers.items():
        if key.lower() == name:
            return value
    return None
