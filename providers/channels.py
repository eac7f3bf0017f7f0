"""Notification channels (domain.notifications.Channel): in-app rows, e-mail over SMTP, WhatsApp.

Development defaults write what would be sent to the log: e-mail when SLOTHOLD_SMTP_HOST is unset, WhatsApp
until a provider adapter is configured. A channel that fails raises; the delivery is retried with backoff.
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

import asyncpg

from domain.notifications import Channel, Delivery
from store.notifications import add_in_app

log = logging.getLogger("slothold.channels")


class InAppChannel:
    """A persistent notification for the customer or the unit's staff, announced on the unit's live feed."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    async def send(self, delivery: Delivery, now: datetime) -> None:
        await add_in_app(self.pool, delivery, now)


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
    """The adapter a WhatsApp provider implements (send one text to one phone; raise on failure)."""

    async def send_text(self, phone: str, text: str) -> None: ...


class LogWhatsApp:
    """Development default WhatsApp adapter: the log."""

    async def send_text(self, phone: str, text: str) -> None:
        log.info("whatsapp to %s: %s", phone, text)


class WhatsAppChannel:
    def __init__(self, sender: WhatsAppSender) -> None:
        self.sender = sender

    async def send(self, delivery: Delivery, now: datetime) -> None:
        if not delivery.address:
            raise ValueError("a WhatsApp message needs a phone")
        await self.sender.send_text(delivery.address, delivery.body)


def make_channels(env: Mapping[str, str], pool: asyncpg.Pool) -> dict[str, Channel]:
    """The channels of this process from its environment."""
    smtp = SmtpSettings.from_env(env)
    return {
        "in_app": InAppChannel(pool),
        "email": SmtpChannel(smtp) if smtp else LogChannel("email"),
        "whatsapp": WhatsAppChannel(LogWhatsApp()),
    }
