"""The WhatsApp Cloud API webhook: the verify-token handshake (GET) and signed message deliveries (POST).

The signature is this endpoint's access check: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body with
the app secret>`; anything else is answered 401 and nothing is read. Messages go to `providers.whatsapp.conversation`;
delivery receipts (`statuses`) are ignored. WhatsApp retries a delivery until it gets a 2xx: a message id already
received is recorded once, so a retry never repeats a turn of the conversation.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Protocol
from uuid import UUID

from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from domain.conversation.ports import Inbound
from domain.customers import normalize_phone
from domain.errors import DomainError, InvalidInput
from providers.whatsapp.conversation import Bot, receive

log = logging.getLogger("slothold.whatsapp")
PATH = "/webhooks/whatsapp"


def signature_ok(secret: str, body: bytes, header: str | None) -> bool:
    """Whether `header` is "sha256=" + the HMAC-SHA256 of the raw body with the app secret (constant time)."""
    if not secret or not header or not header.startswith("sha256="):
        return False
    expected = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, header.removeprefix("sha256=").strip().lower())


def _text_of(m: Mapping[str, Any]) -> str | None:
    kind = m.get("type")
    if kind == "text":
        return str((m.get("text") or {}).get("body") or "")
    if kind == "button":
        return str((m.get("button") or {}).get("text") or "")
    if kind == "interactive":
        inter = m.get("interactive") or {}
        reply = inter.get("button_reply") or inter.get("list_reply") or {}
        return str(reply.get("title") or reply.get("id") or "")
    if kind in ("image", "document"):
        return str((m.get(kind) or {}).get("caption") or "") or None
    return None


def messages_of(payload: Any, numbers: Mapping[str, UUID]) -> list[Inbound]:
    """The customer messages of a Cloud API webhook payload (`entry[].changes[].value.messages[]`), for the units
    whose phone number ids are known; anything malformed or unknown is skipped (and logged)."""
    found: list[Inbound] = []
    if not isinstance(payload, dict):
        return found
    for entry in payload.get("entry") or []:
        for change in (entry or {}).get("changes") or []:
            value = (change or {}).get("value") or {}
            number = str((value.get("metadata") or {}).get("phone_number_id") or "")
            unit = numbers.get(number)
            messages = value.get("messages") or []
            if unit is None:
                if messages:
                    log.warning("whatsapp message(s) for phone number id %r, which no unit answers", number)
                continue
            for m in messages:
                try:
                    phone = normalize_phone("+" + str(m["from"]).lstrip("+"))
                    sent = datetime.fromtimestamp(int(m.get("timestamp") or 0), UTC)
                    found.append(Inbound(unit, str(m["id"]), phone, sent, str(m.get("type") or "unknown"),
                                         _text_of(m)))
                except (KeyError, TypeError, ValueError, InvalidInput) as e:
                    log.warning("skipped a malformed whatsapp message: %s", e)
    return found


class WhatsAppSettings(Protocol):
    """What the webhook reads of the settings (slothold.settings.Settings has it)."""

    @property
    def db_pool_max(self) -> int: ...

    @property
    def max_body_bytes(self) -> int: ...

    @property
    def whatsapp_verify_token(self) -> str | None: ...

    @property
    def whatsapp_app_secret(self) -> str | None: ...

    def whatsapp_unit_numbers(self) -> dict[str, UUID]: ...


def whatsapp_routes(state: dict[str, Any], settings: WhatsAppSettings) -> list[Route]:
    """GET (handshake) and POST (messages) on /webhooks/whatsapp."""
    numbers = settings.whatsapp_unit_numbers()
    gate = asyncio.Semaphore(max(1, settings.db_pool_max // 2))  # see providers.whatsapp.conversation.Bot.gate

    async def handshake(request: Request) -> Response:
        q = request.query_params
        token = settings.whatsapp_verify_token
        if token and q.get("hub.mode") == "subscribe" and hmac.compare_digest(q.get("hub.verify_token", ""), token):
            return PlainTextResponse(q.get("hub.challenge", ""))
        return JSONResponse({"error": "verify token does not match"}, status_code=403)

    async def deliveries(request: Request) -> Response:
        body = await request.body()
        if len(body) > settings.max_body_bytes:
            return JSONResponse({"error": "body too large"}, status_code=413)
        secret = settings.whatsapp_app_secret or ""
        if not signature_ok(secret, body, request.headers.get("x-hub-signature-256")):
            log.warning("rejected a whatsapp webhook: bad or missing X-Hub-Signature-256")
            return JSONResponse({"error": "not authentic"}, status_code=401)
        try:
            payload = json.loads(body)
        except ValueError:
            return JSONResponse({"error": "body is not JSON"}, status_code=400)
        bot = Bot(state["deps"], state["whatsapp_store"], state["whatsapp_sender"], gate)
        fresh = 0
        try:
            for message in messages_of(payload, numbers):
                fresh += await receive(bot, message)
        except DomainError as e:  # busy: WhatsApp retries, and the retry handles what is still pending
            log.warning("whatsapp webhook not handled now: %s", e.message)
            return JSONResponse({"error": e.code}, status_code=503)
        return JSONResponse({"received": fresh})

    return [Route(PATH, handshake, methods=["GET"]), Route(PATH, deliveries, methods=["POST"])]
