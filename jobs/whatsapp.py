"""WhatsApp jobs: slot-waitlist offers announced in the customer's conversation (RN-ATD-08)."""

from __future__ import annotations

from typing import Any

from domain.conversation.bot import Bot, announce_offers
from store.whatsapp import PgConversations


async def announce_whatsapp_offers(ctx: dict[str, Any]) -> int:
    """Every sweep: each new waitlist offer reaches its customer's WhatsApp conversation with its Pix, once."""
    sender = ctx["channels"]["whatsapp"].sender
    return await announce_offers(Bot(ctx["deps"], PgConversations(ctx["pool"]), sender))
