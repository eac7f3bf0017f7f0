"""WhatsApp jobs: slot-waitlist offers announced in the customer's conversation (RN-ATD-08), and pruning.

jobs/worker.py runs `announce_whatsapp_offers` with the waitlist sweep (every `sweep_seconds`) and `prune_whatsapp`
hourly."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from domain.conversation.bot import Bot, announce_offers
from store.whatsapp import PgConversations


async def announce_whatsapp_offers(ctx: dict[str, Any]) -> int:
    """Every sweep: each new waitlist offer reaches its customer's WhatsApp conversation with its Pix, once."""
    sender = ctx["channels"]["whatsapp"].sender
    return await announce_offers(Bot(ctx["deps"], PgConversations(ctx["pool"]), sender))


RETENTION = timedelta(days=30)


async def prune_whatsapp(ctx: dict[str, Any]) -> int:
    """Forget handled WhatsApp messages and sent replies after RETENTION (conversations stay)."""
    return await PgConversations(ctx["pool"]).prune(ctx["deps"].clock.now() - RETENTION)
