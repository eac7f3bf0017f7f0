"""WhatsApp conversations replayed against the real app: signed Cloud API webhook payloads in, and a local fake
Cloud API server (tests/webhook_receiver.py) receiving the bot's replies."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from uuid import UUID

import asyncpg
import httpx
from starlette.applications import Starlette

from slothold.app import create_app
from slothold.settings import Settings
from tests.conftest import MutableClock
from tests.webhook_receiver import Receiver

APP_SECRET = "test-app-secret"
VERIFY_TOKEN = "test-verify-token"
API_TOKEN = "test-api-token"
PHONE_NUMBER_ID = "109876543210"
_ids = itertools.count(1)


def sign(body: bytes, secret: str = APP_SECRET) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def payload(phone: str, text: str | None = None, *, message_id: str | None = None, at: datetime | None = None,
            kind: str = "text", number_id: str = PHONE_NUMBER_ID) -> dict[str, Any]:
    """A Cloud API `messages` webhook payload, as Meta sends it, with one message."""
    wa_id = phone.lstrip("+")
    message: dict[str, Any] = {"from": wa_id, "id": message_id or f"wamid.TEST{next(_ids):012d}",
                               "timestamp": str(int((at or datetime.now()).timestamp())), "type": kind}
    if kind == "text":
        message["text"] = {"body": text or ""}
    elif kind == "image":
        message["image"] = {"caption": text or "", "mime_type": "image/jpeg", "sha256": "abc", "id": "1234567890"}
    return {"object": "whatsapp_business_account", "entry": [{"id": "102290129340398", "changes": [{
        "field": "messages",
        "value": {"messaging_product": "whatsapp",
                  "metadata": {"display_phone_number": "5511900000000", "phone_number_id": number_id},
                  "contacts": [{"profile": {"name": "Cliente"}, "wa_id": wa_id}],
                  "messages": [message]}}]}]}


@dataclass
class Chat:
    """The app, its fake Cloud API and an HTTP client: send as a phone, read what the bot answered."""

    app: Starlette
    http: httpx.AsyncClient
    cloud: Receiver
    clock: MutableClock
    unit_id: UUID
    seen: int = 0
    last: list[str] = field(default_factory=list)

    def replies(self) -> list[tuple[str, str, str]]:
        """Every message the fake Cloud API received: (path, to, text)."""
        out = []
        for r in self.cloud.requests:
            body = json.loads(r.body)
            out.append((r.path, body["to"], body["text"]["body"]))
        return out

    async def post(self, body: dict[str, Any] | bytes, signature: str | None = None) -> httpx.Response:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        return await self.http.post("/webhooks/whatsapp", content=raw, headers={
            "content-type": "application/json", "x-hub-signature-256": signature or sign(raw)})

    async def say(self, phone: str, text: str | None = None, **kwargs: Any) -> list[str]:
        """Send one message as `phone`; return the texts the bot sent to that phone in answer."""
        kwargs.setdefault("at", self.clock.now())
        r = await self.post(payload(phone, text, **kwargs))
        assert r.status_code == 200, r.text
        return self.new_for(phone)

    def new_for(self, phone: str) -> list[str]:
        mine = [text for _, to, text in self.replies()[self.seen:] if to == phone.lstrip("+")]
        self.seen = len(self.cloud.requests)
        self.last = mine
        return mine

    @property
    def state(self) -> dict[str, Any]:
        return self.app.state.slothold  # type: ignore[no-any-return]


def option(menu: str, label: str) -> str:
    """The number of the menu line that contains `label` ("12 19h" → "12")."""
    for line in menu.splitlines():
        m = re.match(r"^(\d+) (.*)$", line)
        if m and label in m[2]:
            return m[1]
    raise AssertionError(f"{label!r} is not an option of:\n{menu}")


def options(menu: str) -> list[str]:
    """The labels of a numbered menu, in order."""
    return [m[2] for line in menu.splitlines() if (m := re.match(r"^(\d+) (.*)$", line))]


@asynccontextmanager
async def chat(database_url: str, redis_url: str, clock: MutableClock, unit_id: UUID,
               cloud: Receiver | None = None, **settings: Any) -> AsyncIterator[Chat]:
    """The real app for `unit_id`'s WhatsApp number, with its replies going to a fake Cloud API."""
    own = cloud is None
    receiver = cloud or Receiver()
    if own:
        await receiver.__aenter__()
    try:
        app = create_app(Settings(
            database_url=database_url, redis_url=redis_url, db_pool_max=25, log_level="WARNING",
            whatsapp_verify_token=VERIFY_TOKEN, whatsapp_app_secret=APP_SECRET,
            whatsapp_api_url=f"http://127.0.0.1:{receiver.port}/v21.0", whatsapp_api_token=API_TOKEN,
            whatsapp_numbers=f"{PHONE_NUMBER_ID}={unit_id}", **settings), clock=clock)
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://slothold.test") as http:
                yield Chat(app, http, receiver, clock, unit_id, seen=len(receiver.requests))
    finally:
        if own:
            await receiver.__aexit__(None, None, None)


async def txid_of(pool: asyncpg.Pool, booking_id: UUID) -> str:
    return str(await pool.fetchval("SELECT txid FROM charges WHERE booking_id = $1 ORDER BY created_at DESC LIMIT 1",
                                   booking_id))


async def open_booking(pool: asyncpg.Pool, unit_id: UUID, phone: str) -> UUID:
    """The booking the conversation with `phone` is about now."""
    data = await pool.fetchval("SELECT data FROM whatsapp_conversations WHERE unit_id = $1 AND phone = $2",
                               unit_id, phone)
    return UUID(data["booking"])


async def status_of(pool: asyncpg.Pool, booking_id: UUID) -> str:
    return str(await pool.fetchval("SELECT status FROM bookings WHERE id = $1", booking_id))
