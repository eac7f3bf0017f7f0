"""What the conversation needs from outside: where conversations and messages are kept, and a way to send text."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from types import TracebackType
from typing import Any, Protocol, Self
from uuid import UUID


@dataclass(frozen=True)
class Inbound:
    """One message a customer sent (WhatsApp Cloud API `messages[]`), already checked and normalised."""

    unit_id: UUID
    message_id: str
    phone: str
    """E.164, e.g. +5511999990001."""
    sent_at: datetime
    kind: str
    """"text", "image", "document" (a receipt) or anything else WhatsApp sends ("sticker", "audio", ...)."""
    text: str | None = None


@dataclass
class Conversation:
    """The menu conversation with one phone at one unit: where it stands and what it gathered."""

    unit_id: UUID
    phone: str
    state: str = "start"
    data: dict[str, Any] = field(default_factory=dict)
    updated_at: datetime | None = None
    """When the conversation last moved (None: new)."""


class Session(Protocol):
    """One transaction holding the conversation's row lock: messages of a phone are handled one at a time."""

    conversation: Conversation

    async def __aenter__(self) -> Self: ...

    async def __aexit__(self, t: type[BaseException] | None, e: BaseException | None,
                        tb: TracebackType | None) -> None: ...

    async def pending(self) -> list[Inbound]:
        """Received and not yet handled, oldest first (WhatsApp timestamp, then arrival)."""
        ...

    async def handled(self, message_id: str, now: datetime) -> None: ...

    async def reply(self, text: str, in_reply_to: str | None, now: datetime) -> None: ...

    async def save(self, now: datetime) -> None: ...

    async def unsent(self) -> list[tuple[int, str]]:
        """Replies written and not sent yet, in order."""
        ...

    async def sent(self, reply_id: int, now: datetime) -> None: ...

    async def failed(self, reply_id: int, error: str) -> None: ...

    async def commit(self) -> None: ...


class ConversationStore(Protocol):
    """Conversations, received messages and replies (store/whatsapp.py)."""

    async def record(self, message: Inbound, now: datetime) -> bool:
        """Keep a received message once; False when its id was already received (a WhatsApp retry)."""
        ...

    def session(self, unit_id: UUID, phone: str, now: datetime) -> Session: ...

    async def service_for(self, unit_id: UUID, minutes: int) -> UUID | None:
        """The service a booking of `minutes` is sold as (same duration first), or None when the unit sells none."""
        ...

    async def open_offer(self, unit_id: UUID, phone: str, now: datetime) -> UUID | None:
        """A live slot-waitlist offer (a hold made for this phone's customer by the waitlist), if any."""
        ...

    async def unannounced_offers(self, now: datetime, limit: int) -> list[tuple[UUID, str, UUID]]:
        """(unit, phone, booking) of live slot-waitlist offers with their Pix that no conversation shows yet."""
        ...

    async def prune(self, before: datetime) -> int:
        """Forget handled messages and sent replies older than `before` (conversations stay); how many went."""
        ...


class Sender(Protocol):
    """Sends one text to one phone from the unit's WhatsApp number; raises when it did not go out."""

    async def send_text(self, phone: str, text: str, unit_id: UUID | None = None) -> None: ...
