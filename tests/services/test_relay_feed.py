"""The relay's outbox feed (store/relay.py) on the real database: it leads alone, and it says the database's
failures as the port does (domain.ports.OutboxFeed) — a row the database will not plan is malformed and skipped, a
refused statement is a StoreError, a lost connection a ConnectionError — so the relay needs no driver of its own."""

from __future__ import annotations

from typing import Any
from uuid import uuid4

import asyncpg
import pytest

from domain.events import MalformedEvent
from domain.outbox import OutboxEvent
from domain.ports import StoreError
from jobs.notify import schedule_notifications
from store.relay import PgOutboxSource
from tests.services.test_notifications import FakeArq
from tests.venues import arena


async def test_one_feed_leads_at_a_time(database_url: str) -> None:
    source = PgOutboxSource(database_url)
    async with source.open() as first, source.open() as second:
        assert await first.lead()
        assert not await second.lead()
    async with source.open() as third:  # the leader's connection closed: its lock went with it
        assert await third.lead()


async def test_a_row_the_database_will_not_plan_is_malformed_and_the_others_are_planned(
        database_url: str, pool: Any, clock: Any) -> None:
    v = await arena(pool)
    refused = OutboxEvent(1_000_000_201, v.unit_id, 1, "notification", {  # a customer record nobody has
        "kind": "hold_reminder", "booking_id": str(uuid4()), "customer_id": str(uuid4()), "hold_expires_at": None,
        "text": "Pague o PIX"})
    good = OutboxEvent(1_000_000_202, v.unit_id, 2, "notification", {
        "kind": "login_code", "channel": "email", "to": "ana@example.com", "text": "Seu código: 1"})
    async with PgOutboxSource(database_url).open() as feed:
        with pytest.raises(MalformedEvent, match="ForeignKeyViolation"):
            await feed.plan_notifications(refused, clock.now())
        assert await schedule_notifications(feed, FakeArq(), [refused, good], clock.now()) == 1  # type: ignore[arg-type]


async def test_a_refused_statement_is_a_store_error_and_a_lost_connection_a_connection_error(
        database_url: str, clock: Any) -> None:
    async with PgOutboxSource(database_url).open() as feed:
        tx = feed.conn.transaction()
        await tx.start()
        with pytest.raises(asyncpg.DataError):  # the driver's own error, outside the feed
            await feed.conn.fetchval("SELECT 1/0")
        with pytest.raises(StoreError, match="InFailedSQLTransaction"):  # the feed's, in the aborted transaction
            await feed.unpublished()
        await tx.rollback()
        with pytest.raises(StoreError, match="invalid input"):  # a value the driver cannot send
            await feed.mark_published(["not an id"], clock.now())  # type: ignore[list-item]
        await feed.conn.close()
        with pytest.raises(ConnectionError):
            await feed.unpublished()
