"""Notification channels (domain.notifications.Channel): in-app rows, e-mail over SMTP, WhatsApp.

Development defaults write what would be sent to the log: e-mail when SLOTHOLD_SMTP_HOST is unset, WhatsApp
when SLOTHOLD_WHATSAPP_API_URL is unset (set, messages go to that WhatsApp Cloud API-compatible server).
A channel that fails raises; the delivery is retried with backoff.
"""

from __future__ import annotations

import asyncio
import logging
import smtplib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from email.message import EmailMessage
from typing import Protocol
from uuid import UUID

import httpx

from domain.notifications import Channel, Delivery
from domain.ports import InAppNotifications

log = logging.getLogger("slothold.channels")


class InAppChannel:
    """A persistent notification for the customer or the unit's staff, announced on the unit's live feed."""

    def __init__(self, notifications: InAppNotifications) -> None:
        self.notifications = notifications

    async def send(self, delivery: Delivery, now: datetime) -> None:
        await self.notifications.add(delivery, now)


class LogChannel:
    """Development default: the message goes to the log."""

    def __init__(self, name: str) -> None:
        self.name = name

    async def send(self, delivery: Delivery, now: datetime) -> None:
        log.info("%s to %s: %s — %s", self.name, delivery.address, delivery.title, delivery.body,
                 extra={"notification": str(delivery.id), "channel": self.name})


@dataclass(frozen=True)
class SmtpSettings:
    host: str
    port: int = 587
    user: str | None = None
    password: str | None = None
    sender: str = "slothold@localhost"

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> SmtpSettings | None:
        host = env.get("SLOTHOLD_SMTP_HOST")
        if not host:
            return None
        return cls(host=host, port=int(env.get("SLOTHOLD_SMTP_PORT") or 587), user=env.get("SLOTHOLD_SMTP_USER"),
                   password=env.get("SLOTHOLD_SMTP_PASSWORD"),
                   sender=env.get("SLOTHOLD_SMTP_FROM") or "slothold@localhost")


class SmtpChannel:
    """E-mail through an SMTP server (the standard library's smtplib, in a thread); STARTTLS when offered."""

    def __init__(self, settings: SmtpSettings, timeout: float = 20.0) -> None:
        self.settings = settings
        self.timeout = timeout

    def _send(self, delivery: Delivery) -> None:
        s = self.settings
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Subject"] = s.sender, delivery.address or "", delivery.title
        msg.set_content(delivery.body)
        with smtplib.SMTP(s.host, s.port, timeout=self.timeout) as smtp:
            smtp.ehlo()
            if smtp.has_extn("starttls"):
                smtp.starttls()
                smtp.ehlo()
            if s.user:
                smtp.login(s.user, s.password or "")
            smtp.send_message(msg)

    async def send(self, delivery: Delivery, now: datetime) -> None:
        if not delivery.address:
            raise ValueError("an e-mail needs an address")
        await asyncio.to_thread(self._send, delivery)


class WhatsAppSender(Protocol):
    """The adapter a WhatsApp provider implements (send one text to one phone, from the unit's number when the
    provider knows it; raise on failure)."""

    async def send_text(self, phone: str, text: str, unit_id: UUID | None = None) -> None: ...


class LogWhatsApp:
    """Development default WhatsApp adapter: the log."""

    async def send_text(self, phone: str, text: str, unit_id: UUID | None = None) -> None:
        log.info("whatsapp to %s: %s", phone, text)


def parse_numbers(raw: str | None) -> dict[str, UUID]:
    """SLOTHOLD_WHATSAPP_NUMBERS, "<phone number id>=<unit id>,..." → {phone number id: unit id}.

    Raises ValueError naming the entry that is not of that form."""
    numbers: dict[str, UUID] = {}
    for entry in (raw or "").replace(";", ",").split(","):
        if not entry.strip():
            continue
        number, sep, unit = entry.partition("=")
        if not sep or not number.strip():
            raise ValueError(f"SLOTHOLD_WHATSAPP_NUMBERS: {entry!r} is not <phone number id>=<unit id>")
        numbers[number.strip()] = UUID(unit.strip())
    return numbers


@dataclass(frozen=True)
class CloudApiSettings:
    """Where the WhatsApp Cloud API (or a compatible server) takes messages, and which number speaks for which
    unit."""

    api_url: str
    """E.g. https://graph.facebook.com/v21.0 — messages are POSTed to {api_url}/{phone number id}/messages."""
    token: str | None
    numbers: dict[str, UUID]
    """Phone number id → unit id."""

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> CloudApiSettings | None:
        url = env.get("SLOTHOLD_WHATSAPP_API_URL")
        if not url:
            return None
        return cls(api_url=url.rstrip("/"), token=env.get("SLOTHOLD_WHATSAPP_API_TOKEN") or None,
                   numbers=parse_numbers(env.get("SLOTHOLD_WHATSAPP_NUMBERS")))


class CloudApiWhatsApp:
    """Sends text messages through the WhatsApp Cloud API's `POST /{phone number id}/messages` (any compatible
    server: tests point it at a local fake). The number is the unit's (SLOTHOLD_WHATSAPP_NUMBERS), else the first
    configured one."""

    def __init__(self, settings: CloudApiSettings, http: httpx.AsyncClient | None = None,
                 timeout: float = 10.0) -> None:
        self.settings = settings
        self.http = http or httpx.AsyncClient(timeout=timeout)
        self.by_unit = {unit: number for number, unit in settings.numbers.items()}

    def number_for(self, unit_id: UUID | None) -> str:
        number = self.by_unit.get(unit_id) if unit_id else None
        if number is None:
            if not self.settings.numbers:
                raise LookupError("no WhatsApp phone number id is configured (SLOTHOLD_WHATSAPP_NUMBERS)")
            number = next(iter(self.settings.numbers))
        return number

    async def send_text(self, phone: str, text: str, unit_id: UUID | None = None) -> None:
        url = f"{self.settings.api_url}/{self.number_for(unit_id)}/messages"
        headers = {"authorization": f"Bearer {self.settings.token}"} if self.settings.token else {}
        body = {"messaging_product": "whatsapp", "recipient_type": "individual", "to": phone.lstrip("+"),
                "type": "text", "text": {"preview_url": False, "body": text}}
        r = await self.http.post(url, json=body, headers=headers)
        if r.status_code >= 300:
            raise ConnectionError(f"WhatsApp Cloud API answered {r.status_code}: {r.text[:200]}")

    async def aclose(self) -> None:
        await self.http.aclose()


def whatsapp_sender(env: Mapping[str, str]) -> WhatsAppSender:
    """The Cloud API adapter when SLOTHOLD_WHATSAPP_API_URL is set, else the log."""
    settings = CloudApiSettings.from_env(env)
    return CloudApiWhatsApp(settings) if settings else LogWhatsApp()


class WhatsAppChannel:
    def __init__(self, sender: WhatsAppSender) -> None:
        self.sender = sender

    async def send(self, delivery: Delivery, now: datetime) -> None:
        if not delivery.address:
            raise ValueError("a WhatsApp message needs a phone")
        await self.sender.send_text(delivery.address, delivery.body, delivery.unit_id)


def make_channels(env: Mapping[str, str], in_app: InAppNotifications) -> dict[str, Channel]:
    """The channels of this process from its environment; in-app notifications are kept in `in_app`."""
    smtp = SmtpSettings.from_env(env)
    return {
        "in_app": InAppChannel(in_app),
        "email": SmtpChannel(smtp) if smtp else LogChannel("email"),
        "whatsapp": WhatsAppChannel(whatsapp_sender(env)),
    }
