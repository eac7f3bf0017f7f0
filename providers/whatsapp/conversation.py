"""The WhatsApp booking conversation (seed 001) as a use case over the same use cases as the GraphQL API.

Menus are numbered (no buttons). The path: day → field (or "tanto faz") → time → duration, from bookable slots
(RN-ATD-06); the summary with amount, full or deposit, and policy, accepted with 1/sim/s/aceito/confirmo/ok/pode
(RN-ATD-09); then the hold and its Pix (`services.hold` + `checkout.confirm`). "paguei" or a receipt image →
verifying (RN-HLD-06); "cancelar" (RN-ATD-13); an open hold → swap offer (RN-HLD-07); a slot taken → the 3
alternatives and the waitlist (RN-ATD-07); a waitlist offer is shown with its Pix (RN-ATD-08); anti-fraud refusals
with their pt-BR texts (RN-HLD-05). Every rule lives in those use cases; this module only talks.

Messages of one phone are handled one at a time inside a transaction that holds the conversation's row lock, in
the order of their WhatsApp timestamps; the replies are written in that transaction and sent after it commits.

Here: the bot, receiving, flushing and announcing offers. A message is answered by a `Turn` (turn.py), made of the
conversation's stages: choosing.py, accepting.py, waitlisting.py, open_hold.py, on base.py's states and helpers.
"""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from uuid import UUID

from domain import queries
from domain.conversation import texts as t
from domain.conversation.ports import ConversationStore, Inbound, Sender
from domain.errors import DomainError, ErrorCode
from domain.services import Deps
from providers.whatsapp.base import (
    ALTERNATIVES,
    CPF,
    DAY,
    DURATION,
    FIELD,
    IDLE,
    MAX_SLOTS,
    MENU_DAYS,
    MENUS,
    OPEN,
    PAYING,
    REFUSALS,
    START,
    SUMMARY,
    SWAP,
    TIME,
    VERIFYING,
    log,
)
from providers.whatsapp.turn import Turn

__all__ = [
    "ALTERNATIVES",
    "CPF",
    "DAY",
    "DURATION",
    "FIELD",
    "IDLE",
    "MAX_SLOTS",
    "MENUS",
    "MENU_DAYS",
    "OPEN",
    "PAYING",
    "REFUSALS",
    "START",
    "SUMMARY",
    "SWAP",
    "TIME",
    "VERIFYING",
    "Bot",
    "Turn",
    "announce_offers",
    "flush",
    "handle_pending",
    "log",
    "receive",
]


@dataclass(frozen=True)
class Bot:
    """What the conversation runs on: the engine's use cases, its own store and the WhatsApp sender."""

    deps: Deps
    store: ConversationStore
    sender: Sender
    gate: asyncio.Semaphore | None = field(default=None, compare=False)
    """Bounds the conversations handled at once in this process: each holds a connection (its row lock) while the
    use cases it calls take others, so without a bound a burst could take the whole pool and wait for itself."""


async def receive(bot: Bot, message: Inbound) -> bool:
    """Record a received message once, handle every pending message of its conversation in order, send the
    replies. Returns False when the message id had been received before (a WhatsApp retry: nothing new)."""
    fresh = await bot.store.record(message, bot.deps.clock.now())
    await handle_pending(bot, message.unit_id, message.phone)
    await flush(bot, message.unit_id, message.phone)
    return fresh


async def handle_pending(bot: Bot, unit_id: UUID, phone: str) -> int:
    """Handle the conversation's unhandled messages, oldest first, under its row lock; returns how many."""
    unit, resources = await queries.unit_with_resources(bot.deps, unit_id)
    async with AsyncExitStack() as stack:
        if bot.gate is not None:
            await stack.enter_async_context(bot.gate)
        s = await stack.enter_async_context(bot.store.session(unit_id, phone, bot.deps.clock.now()))
        pending = await s.pending()
        for m in pending:
            turn = Turn(bot, unit, resources, s.conversation, m)
            try:
                await turn.run()
            except DomainError as e:  # a refusal nobody expected here: keep talking, never go silent
                log.warning("whatsapp %s: %s (%s) in state %s", m.message_id, e.code, e.message,
                            s.conversation.state)
                turn.say(t.BUSY if e.code == ErrorCode.BUSY else t.NOT_UNDERSTOOD)
            except Exception:  # a bug or an outage must not wedge the conversation on this message forever
                log.exception("whatsapp %s: failed in state %s", m.message_id, s.conversation.state)
                turn.out = [t.BUSY]
            now = bot.deps.clock.now()
            for text in turn.out:
                await s.reply(text, m.message_id, now)
            await s.handled(m.message_id, now)
            s.conversation.updated_at = now
        await s.save(bot.deps.clock.now())
        await s.commit()
    return len(pending)


async def flush(bot: Bot, unit_id: UUID, phone: str) -> int:
    """Send the conversation's unsent replies in order (under its lock, so two flushes never send one twice);
    stops at the first failure, which the next flush retries. Returns how many went out."""
    sent = 0
    async with bot.store.session(unit_id, phone, bot.deps.clock.now()) as s:
        for reply_id, text in await s.unsent():
            try:
                await bot.sender.send_text(phone, text, unit_id)
            except Exception as e:  # the provider failed: keep the reply for the next flush
                log.warning("whatsapp reply %s to %s not sent: %s", reply_id, phone, e)
                await s.failed(reply_id, f"{type(e).__name__}: {e}"[:500])
                break
            await s.sent(reply_id, bot.deps.clock.now())
            sent += 1
        await s.commit()
    return sent


async def announce_offers(bot: Bot, limit: int = 100) -> int:
    """Tell each customer whose slot-waitlist offer is out (a hold with its Pix, RN-ATD-08) about it in their
    conversation, once; the conversation then takes "paguei" or "cancelar" for it. Returns how many were told."""
    now = bot.deps.clock.now()
    told = 0
    for unit_id, phone, booking_id in await bot.store.unannounced_offers(now, limit):
        unit, resources = await queries.unit_with_resources(bot.deps, unit_id)
        async with bot.store.session(unit_id, phone, now) as s:
            turn = Turn(bot, unit, resources, s.conversation,
                        Inbound(unit_id, f"offer:{booking_id}", phone, now, "system"))
            if await turn.offer():
                told += 1
                for text in turn.out:
                    await s.reply(text, None, now)
                await s.save(now)
            await s.commit()
        await flush(bot, unit_id, phone)
    return told
