"""The WhatsApp conversation's SQL: conversations (row-locked while a phone's messages are handled), the inbox
of received messages (once per WhatsApp message id) and the replies (written in the handling transaction, sent
after it)."""

from __future__ import annotations

from datetime import datetime
from types import TracebackType
from typing import Any, Self
from uuid import UUID

import asyncpg

from domain.conversation.ports import Conversation, Inbound

LOCK_TIMEOUT = "30s"
"""How long a message waits for the one before it from the same phone (the pool's default is 5 s)."""


class PgConversationSession:
    """One transaction holding the lock of one conversation's row (domain.conversation.ports.Session)."""

    def __init__(self, pool: asyncpg.Pool, unit_id: UUID, phone: str, now: datetime) -> None:
        self._pool, self.unit_id, self.phone, self._now = pool, unit_id, phone, now
        self._conn: asyncpg.Connection | None = None
        self._tx: asyncpg.transaction.Transaction | None = None
        self._done = False
        self.conversation = Conversation(unit_id, phone)

    @property
    def conn(self) -> asyncpg.Connection:
        assert self._conn is not None
        return self._conn

    async def __aenter__(self) -> Self:
        self._conn = await self._pool.acquire()
        self._tx = self._conn.transaction()
        await self._tx.start()
        await self.conn.execute(f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'")
        await self.conn.execute(
            "INSERT INTO whatsapp_conversations (unit_id, phone, created_at, updated_at) VALUES ($1, $2, $3, $3) "
            "ON CONFLICT (unit_id, phone) DO NOTHING", self.unit_id, self.phone, self._now)
        r = await self.conn.fetchrow(
            "SELECT state, data, updated_at FROM whatsapp_conversations WHERE unit_id = $1 AND phone = $2 FOR UPDATE",
            self.unit_id, self.phone)
        assert r is not None
        self.conversation = Conversation(self.unit_id, self.phone, r["state"], dict(r["data"] or {}), r["updated_at"])
        return self

    async def __aexit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
                        ) -> None:
        try:
            if self._tx is not None and not self._done:
                await self._tx.rollback()
        finally:
            if self._conn is not None:
                await self._pool.release(self._conn)
                self._conn = None

    async def pending(self) -> list[Inbound]:
        rows = await self.conn.fetch(
            "SELECT message_id, sent_at, kind, body FROM whatsapp_inbox WHERE unit_id = $1 AND phone = $2 "
            "AND processed_at IS NULL ORDER BY sent_at, arrival", self.unit_id, self.phone)
        return [Inbound(self.unit_id, r["message_id"], self.phone, r["sent_at"], r["kind"], r["body"]) for r in rows]

    async def handled(self, message_id: str, now: datetime) -> None:
        await self.conn.execute("UPDATE whatsapp_inbox SET processed_at = $3 WHERE unit_id = $1 AND message_id = $2",
                                self.unit_id, message_id, now)

    async def reply(self, text: str, in_reply_to: str | None, now: datetime) -> None:
        await self.conn.execute(
            "INSERT INTO whatsapp_replies (unit_id, phone, in_reply_to, body, created_at) VALUES ($1, $2, $3, $4, $5)",
            self.unit_id, self.phone, in_reply_to, text, now)

    async def save(self, now: datetime) -> None:
        c = self.conversation
        await self.conn.execute(
            "UPDATE whatsapp_conversations SET state = $3, data = $4, updated_at = $5 WHERE unit_id = $1 "
            "AND phone = $2", self.unit_id, self.phone, c.state, c.data, now)

    async def unsent(self) -> list[tuple[int, str]]:
        rows = await self.conn.fetch(
            "SELECT id, body FROM whatsapp_replies WHERE unit_id = $1 AND phone = $2 AND sent_at IS NULL ORDER BY id",
            self.unit_id, self.phone)
        return [(r["id"], r["body"]) for r in rows]

    async def sent(self, reply_id: int, now: datetime) -> None:
        await self.conn.execute("UPDATE whatsapp_replies SET sent_at = $2, last_error = NULL WHERE id = $1",
                                reply_id, now)

    async def failed(self, reply_id: int, error: str) -> None:
        await self.conn.execute("UPDATE whatsapp_replies SET last_error = $2 WHERE id = $1", reply_id, error)

    async def commit(self) -> None:
        if self._tx is not None:
            await self._tx.commit()
        self._done = True


class PgConversations:
    """domain.conversation.ports.ConversationStore on a pool."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    async def record(self, message: Inbound, now: datetime) -> bool:
        status: str = await self.pool.execute(
            "INSERT INTO whatsapp_inbox (unit_id, message_id, phone, sent_at, kind, body, received_at) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (unit_id, message_id) DO NOTHING",
            message.unit_id, message.message_id, message.phone, message.sent_at, message.kind, message.text, now)
        return status.endswith(" 1")

    def session(self, unit_id: UUID, phone: str, now: datetime) -> PgConversationSession:
        return PgConversationSession(self.pool, unit_id, phone, now)

    async def service_for(self, unit_id: UUID, minutes: int) -> UUID | None:
        return await self.pool.fetchval(  # type: ignore[no-any-return]
            "SELECT s.id FROM services s JOIN units u ON u.id = s.unit_id WHERE s.unit_id = $1 AND s.active "
            "ORDER BY ($2 / u.slot_minutes = ANY (coalesce(s.durations, ARRAY[$2 / u.slot_minutes]))) DESC, "
            "(s.duration_minutes = $2) DESC, s.duration_minutes, s.name, s.id LIMIT 1", unit_id, minutes)

    async def open_offer(self, unit_id: UUID, phone: str, now: datetime) -> UUID | None:
        return await self.pool.fetchval(  # type: ignore[no-any-return]
            "SELECT b.id FROM bookings b JOIN customers c ON c.id = b.customer_id "
            "WHERE b.unit_id = $1 AND c.phone = $2 AND b.channel = 'waitlist' "
            "AND b.status IN ('held', 'pending_payment', 'verifying') "
            "AND (b.hold_expires_at IS NULL OR b.hold_expires_at > $3) ORDER BY b.created_at DESC LIMIT 1",
            unit_id, phone, now)

    async def unannounced_offers(self, now: datetime, limit: int) -> list[tuple[UUID, str, UUID]]:
        rows = await self.pool.fetch(
            "SELECT b.unit_id, c.phone, b.id FROM bookings b JOIN customers c ON c.id = b.customer_id "
            "WHERE b.channel = 'waitlist' AND b.hold_expires_at > $1 AND c.phone IS NOT NULL "
            "AND (b.status = 'pending_payment' OR (b.status = 'held' AND b.service_id IS NULL)) "
            "AND NOT EXISTS (SELECT 1 FROM whatsapp_conversations w WHERE w.unit_id = b.unit_id "
            "AND w.phone = c.phone AND w.data->>'booking' = b.id::text) "
            "ORDER BY b.created_at LIMIT $2", now, limit)
        return [(r["unit_id"], r["phone"], r["id"]) for r in rows]

    async def prune(self, before: datetime) -> int:
        """Forget handled messages and sent replies older than `before` (Meta retries a delivery for up to 7 days:
        keep ids longer than that). Returns how many rows went."""
        a: str = await self.pool.execute("DELETE FROM whatsapp_inbox WHERE processed_at < $1", before)
        b: str = await self.pool.execute("DELETE FROM whatsapp_replies WHERE sent_at < $1", before)
        return int(a.split()[-1]) + int(b.split()[-1])

    async def conversation(self, unit_id: UUID, phone: str) -> dict[str, Any] | None:
        """The stored conversation (for tools and tests)."""
        r = await self.pool.fetchrow("SELECT state, data FROM whatsapp_conversations WHERE unit_id = $1 "
                                     "AND phone = $2", unit_id, phone)
        return dict(r) if r else None
