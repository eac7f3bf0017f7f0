"""WhatsApp jobs: slot-waitlist offers announced in the customer's conversation (RN-ATD-08), and pruning.

slothold/worker.py runs `announce_whatsapp_offers` with the waitlist sweep (every `sweep_seconds`) and `prune_whatsapp`
hourly."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from domain.conversation.ports import ConversationStore, Sender
from domain.services import Deps
from providers.whatsapp.conversation import Bot, announce_offers


async def announce_whatsapp_offers(ctx: dict[str, Any]) -> int:
    """Every sweep: each new waitlist offer reaches its customer's WhatsApp conversation with its Pix, once."""
    conversations: ConversationStore = ctx["conversations"]
    sender: Sender = ctx["channels"]["whatsapp"].sender  # the WhatsApp channel's own sender
    return await announce_offers(Bot(ctx["deps"], conversations, sender))


RETENTION = timedelta(days=30)


async def prune_whatsapp(ctx: dict[str, Any]) -> int:
    """Forget handled WhatsApp messages and sent replies after RETENTION (conversations stay)."""
    deps: Deps = ctx["deps"]
    conversations: ConversationStore = ctx["conversations"]
    return await conversations.prune(deps.clock.now() - RETENTION)
