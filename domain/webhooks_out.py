"""Outgoing webhooks for integrators: which outbox events they carry, what they send, how it is signed and
retried (README "Outgoing webhooks").

Body: `{"id", "type", "unitId", "seq", "occurredAt", "data"}` as JSON. Headers: `X-Slothold-Event` (the type),
`X-Slothold-Delivery` (the delivery id: the same on every attempt and on replays, so receivers can dedupe) and
`X-Slothold-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" with the endpoint's secret>`; during
the 24 h after a secret rotation a second `v1=` carries the signature with the previous secret.

Attempts: 2xx is delivered; anything else (another status, a timeout, a refused connection) is retried after
30 s, 2 min, 10 min, 1 h and 6 h, then the delivery is `failed`. A replay by hand starts a new round.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, Protocol
from urllib.parse import urlsplit
from uuid import UUID, uuid5

from domain.errors import ErrorCode, InvalidInput
from domain.events import BookingChanged, Fact, PaymentReceived

log = logging.getLogger("slothold.webhooks")



class WebhookEventType(StrEnum):
    """The closed list of event types an endpoint may subscribe to: a booking reaching a status, a Pix paid, a
    waitlist offer made. The values are the body's `type` and the X-Slothold-Event header."""

    BOOKING_HELD = "booking.held"
    BOOKING_PENDING_PAYMENT = "booking.pending_payment"
    BOOKING_VERIFYING = "booking.verifying"
    BOOKING_CONFIRMED = "booking.confirmed"
    BOOKING_CHECKED_IN = "booking.checked_in"
    BOOKING_COMPLETED = "booking.completed"
    BOOKING_CANCELLED = "booking.cancelled"
    BOOKING_NO_SHOW = "booking.no_show"
    BOOKING_EXPIRED = "booking.expired"
    PAYMENT_PAID = "payment.paid"
    WAITLIST_OFFERED = "waitlist.offered"


class DeliveryStatus(StrEnum):
    """Where a delivery is: waiting (pending, sending, retrying) or finished (delivered, failed, cancelled)."""

    PENDING = "pending"
    SENDING = "sending"
    RETRYING = "retrying"
    DELIVERED = "delivered"
    FAILED = "failed"
    CANCELLED = "cancelled"


EVENT_TYPES = tuple(t.value for t in WebhookEventType)
"""The closed list of event types an endpoint may subscribe to."""
BOOKING_TYPES = tuple(t for t in EVENT_TYPES if t.startswith("booking."))

BACKOFF = (timedelta(seconds=30), timedelta(minutes=2), timedelta(minutes=10), timedelta(hours=1),
           timedelta(hours=6))
"""The wait after the 1st, 2nd … failed attempt of a round; after the last one the delivery fails."""
MAX_ATTEMPTS = len(BACKOFF) + 1
LEASE = timedelta(seconds=60)
"""How long a claimed attempt may take before the sweep considers its worker dead (far above the sender's
timeout: providers/webhooks.py)."""
ROTATION_OVERLAP = timedelta(hours=24)
RETENTION = timedelta(days=30)
"""Finished deliveries (delivered, failed, cancelled) older than this leave the log (hourly)."""
MAX_ENDPOINTS = 20
"""Enabled endpoints per unit (each event is sent to each of them)."""
SECRET_PREFIX = "whsec_"
_EVENT_NS = UUID("51070d0e-0000-4000-8000-00000000e7e7")
_LOCAL_HOSTS = {"localhost", "127.0.0.1", "[::1]", "::1"}
_PRIVATE_KEYS = {"topic", "token", "previous_hold_expires_at", "previous_remind_at", "remind_at", "customer_id"}
"""Payload keys integrators do not receive: routing, offer tokens (a credential), internal deadlines, ids of
customer records."""


def new_secret() -> str:
    return SECRET_PREFIX + secrets.token_urlsafe(32)


def check_url(url: str, field: str = "url") -> str:
    """An endpoint URL: https, or http only to localhost / 127.0.0.1 (development)."""
    url = (url or "").strip()
    if len(url) > 2000:
        raise InvalidInput(field, "the URL is longer than 2000 characters", code=ErrorCode.INVALID_URL)
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        _ = parts.port  # raises on a bad port
    except ValueError:
        raise InvalidInput(field, "not a valid URL", code=ErrorCode.INVALID_URL) from None
    if parts.scheme not in ("https", "http") or not host:
        raise InvalidInput(field, "an absolute https:// URL is needed", code=ErrorCode.INVALID_URL)
    if parts.username or parts.password:
        raise InvalidInput(field, "credentials in the URL are not accepted; verify the signature instead",
                           code=ErrorCode.INVALID_URL)
    if parts.fragment:
        raise InvalidInput(field, "a URL with a #fragment is not accepted", code=ErrorCode.INVALID_URL)
    if parts.scheme == "http" and host not in _LOCAL_HOSTS:
        raise InvalidInput(field, "webhooks need https (http only to localhost or 127.0.0.1, for development)",
                           code=ErrorCode.HTTPS_REQUIRED)
    return url


def check_event_types(types: Sequence[str], field: str = "eventTypes") -> list[str]:
    """Known event types, deduplicated, in the given order; at least one."""
    out: list[str] = []
    for t in types:
        if t not in EVENT_TYPES:
            raise InvalidInput(field, f"unknown event type {str(t)[:60]!r}; known: {', '.join(EVENT_TYPES)}",
                               code=ErrorCode.UNKNOWN_EVENT_TYPE)
        if t not in out:
            out.append(t)
    if not out:
        raise InvalidInput(field, "name at least one event type", code=ErrorCode.NO_EVENT_TYPES)
    return out


def event_type(event: Fact | None) -> str | None:
    """The webhook event type of an outbox event (its name, when integrators know it), or None."""
    return event.name if event is not None and event.name in EVENT_TYPES else None


def event_id(unit_id: UUID, seq: int) -> UUID:
    """The event's id, the same in every endpoint's delivery of it."""
    return uuid5(_EVENT_NS, f"{unit_id}:{seq}")


def body(unit_id: UUID, seq: int, type_: str, payload: dict[str, Any], occurred_at: str) -> dict[str, Any]:
    """What is POSTed (before JSON encoding)."""
    data = {k: v for k, v in payload.items() if k not in _PRIVATE_KEYS}
    return {"id": str(event_id(unit_id, seq)), "type": type_, "unitId": str(unit_id), "seq": seq,
            "occurredAt": occurred_at, "data": data}


def occurred_at(event: Fact, fallback: datetime) -> str:
    """When it happened: the event's time, or `fallback` for events that carry none (offers)."""
    at = event.at if isinstance(event, BookingChanged | PaymentReceived) else fallback
    return at.isoformat()


def signature(secret: str, timestamp: int, raw: bytes) -> str:
    """Hex HMAC-SHA256 of "<timestamp>.<raw body>"."""
    return hmac.new(secret.encode(), str(timestamp).encode() + b"." + raw, hashlib.sha256).hexdigest()


def signature_header(secrets_: Sequence[str], timestamp: int, raw: bytes) -> str:
    return f"t={timestamp}," + ",".join(f"v1={signature(s, timestamp, raw)}" for s in secrets_)


def verify(secret: str, header: str, raw: bytes, now: int, tolerance: int = 300) -> bool:
    """How a receiver checks a delivery (and the tests do): one v1 matches and t is recent."""
    fields = [p.split("=", 1) for p in header.split(",") if "=" in p]
    ts = [v for k, v in fields if k == "t"]
    if len(ts) != 1 or not ts[0].isdigit() or abs(now - int(ts[0])) > tolerance:
        return False
    expected = signature(secret, int(ts[0]), raw)
    return any(hmac.compare_digest(expected, v) for k, v in fields if k == "v1")


def next_attempt(round_attempts: int, now: datetime) -> datetime | None:
    """When to try again after the `round_attempts`-th failed attempt of a round (None: give up)."""
    if round_attempts < 1 or round_attempts > len(BACKOFF):
        return None
    return now + BACKOFF[round_attempts - 1]


@dataclass(frozen=True)
class Claimed:
    """An attempt this worker owns: send it, then record it."""

    id: UUID
    endpoint_id: UUID
    url: str
    secrets: tuple[str, ...]
    event_type: str
    body: dict[str, Any]
    attempts: int
    round_attempts: int


@dataclass(frozen=True)
class Attempt:
    """What one POST gave."""

    ok: bool
    status_code: int | None
    latency_ms: int
    error: str | None


class DeliveryStore(Protocol):
    async def claim(self, delivery_id: UUID, now: datetime, lease_until: datetime) -> Claimed | None: ...

    async def record(self, claimed: Claimed, attempt: Attempt, now: datetime, status: str,
                     next_at: datetime | None) -> bool: ...


class WebhookSender(Protocol):
    """Sends one attempt to its endpoint (providers/webhooks.py: HTTP): the request `request` makes, and what the
    receiver answered; never raises for the receiver's faults (a timeout, a refused connection: a failed Attempt)."""

    async def send(self, claimed: Claimed, now: datetime) -> Attempt: ...


def encode(b: dict[str, Any]) -> bytes:
    return json.dumps(b, separators=(",", ":"), sort_keys=True).encode()


def request(claimed: Claimed, now: datetime) -> tuple[bytes, dict[str, str]]:
    """What an attempt POSTs: the body's bytes and the headers, signed at `now`."""
    raw = encode(claimed.body)
    ts = int(now.timestamp())
    headers = {"content-type": "application/json", "user-agent": "Slothold-Webhooks/1",
               "x-slothold-event": claimed.event_type, "x-slothold-delivery": str(claimed.id),
               "x-slothold-signature": signature_header(claimed.secrets, ts, raw)}
    return raw, headers


def answered(status_code: int, text: str, latency_ms: int) -> Attempt:
    """An attempt the receiver answered: 2xx is delivered, anything else failed (its first 300 characters kept)."""
    if 200 <= status_code < 300:
        return Attempt(True, status_code, latency_ms, None)
    return Attempt(False, status_code, latency_ms, f"HTTP {status_code}: {text[:300]}")


async def deliver(store: DeliveryStore, sender: WebhookSender, delivery_id: UUID, now: datetime
                  ) -> tuple[str, datetime | None] | None:
    """One attempt of a due delivery, if this caller wins the claim (a job run twice sends once).
    Returns (new status, next attempt) or None when there was nothing to do."""
    claimed = await store.claim(delivery_id, now, now + LEASE)
    if claimed is None:
        return None
    attempt = await sender.send(claimed, now)
    if attempt.ok:
        status, next_at = "delivered", None
    else:
        next_at = next_attempt(claimed.round_attempts, now)
        status = "retrying" if next_at is not None else "failed"
    if not await store.record(claimed, attempt, now, status, next_at):
        log.warning("webhook delivery %s changed while it was being sent (replayed?); outcome not recorded",
                    delivery_id)
        return None
    log.info("webhook delivery %s attempt %d: %s (%s, %d ms)", delivery_id, claimed.attempts, status,
             attempt.status_code or attempt.error, attempt.latency_ms)
    return status, next_at
