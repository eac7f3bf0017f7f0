"""A row whose jobs Redis refuses does not stop the relay (jobs/relay.py): found by the demo week, where a hold's
deadline more than a day past made arq send a negative expiry; the relay retried that row forever and published
nothing else. Any other refused command of a row's jobs must be as harmless: the row is published and marked, its jobs
are left to the worker's sweeps, and the rows after it go out. Real PostgreSQL and the real Redis of the run."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import pytest
from arq import create_pool as create_arq_pool
from arq.connections import RedisSettings
from broadcaster import Broadcast

from domain.services import Deps, HoldCommand, hold
from jobs import relay as relay_module
from jobs.relay import Relay
from store.relay import PgOutboxFeed, PgOutboxSource
from tests.venues import arena, at, customer


@asynccontextmanager
async def relaying(database_url: str, redis_url: str, clock: Any, feed_class: type[PgOutboxFeed] = PgOutboxFeed
                   ) -> AsyncIterator[Callable[[], Awaitable[bool]]]:
    """One relay pass at a time, as the worker's leader runs them, on the real database and Redis."""
    relay = Relay(PgOutboxSource(database_url), redis_url, clock)
    conn = await asyncpg.connect(database_url)
    await conn.set_type_codec("jsonb", encoder=json.dumps, decoder=json.loads, schema="pg_catalog")
    feed = feed_class(conn)
    arq = await create_arq_pool(RedisSettings.from_dsn(redis_url))
    try:
        async with Broadcast(redis_url) as broadcast:
            async def one_pass() -> bool:
                return await relay.pass_once(feed, broadcast, arq)

            while await one_pass():
                pass  # earlier tests' rows first
            yield one_pass
    finally:
        await arq.aclose(close_connection_pool=True)
        await conn.close()


async def test_a_row_whose_jobs_redis_refuses_is_published_and_the_rows_after_it_go_out(
        deps: Deps, pool: Any, clock: Any, database_url: str, redis_url: str,
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    v = await arena(pool)
    async with relaying(database_url, redis_url, clock) as one_pass:
        first = (await hold(deps, HoldCommand(v.unit_id, at(8, 19), at(8, 20), (v.resource_ids["Campo 1"],),
                                              customer=customer(1)))).booking
        second = (await hold(deps, HoldCommand(v.unit_id, at(8, 20), at(8, 21), (v.resource_ids["Campo 1"],),
                                               customer=customer(2)))).booking
        # what the bug did: a job time two days past reaches arq, and Redis refuses the negative expiry
        monkeypatch.setattr(relay_module, "due", lambda when: datetime.now(UTC) - timedelta(days=2))
        assert await one_pass()
        assert "Redis refused its jobs" in caplog.text
        left = await pool.fetchval("SELECT count(*) FROM outbox WHERE unit_id = $1 AND published_at IS NULL",
                                   v.unit_id)
        assert left == 0  # both rows went out; none is retried forever
        assert not await one_pass()
        assert {first.id, second.id} <= set(await pool.fetchval(
            "SELECT array_agg(DISTINCT (payload->>'booking_id')::uuid) FROM outbox WHERE unit_id = $1",
            v.unit_id))


async def test_a_relay_pass_chains_the_audit_events_that_committed(
        deps: Deps, pool: Any, clock: Any, database_url: str, redis_url: str) -> None:
    """Migration 0032a: the relay's leader chains the audit trail as it numbers the outbox — a hold's event has no
    chain when its transaction returns, and has it after the next pass, which verifies."""
    from slothold.cli.audit import verify

    v = await arena(pool)
    async with relaying(database_url, redis_url, clock) as one_pass:
        made = (await hold(deps, HoldCommand(v.unit_id, at(8, 19), at(8, 20), (v.resource_ids["Campo 1"],),
                                             customer=customer(1)))).booking
        unchained = "SELECT count(*) FROM booking_events WHERE booking_id = $1 AND hash IS NULL"
        assert await pool.fetchval(unchained, made.id) == 1
        assert await one_pass()
        assert await pool.fetchval(unchained, made.id) == 0
        assert await pool.fetchval("SELECT chain_seq FROM booking_events WHERE booking_id = $1", made.id) == 1
        assert (await verify(pool, v.unit_id))[1] == []


async def test_an_audit_chain_that_cannot_advance_holds_back_no_live_event(
        deps: Deps, pool: Any, clock: Any, database_url: str, redis_url: str, caplog: pytest.LogCaptureFixture) -> None:
    """The chaining fails (a refused statement: a store error): the pass still publishes the outbox, says so in the log,
    and the chain catches up on a later pass."""
    from domain.ports import StoreError

    class Refusing(PgOutboxFeed):
        refuse = True

        async def chain_pending(self) -> int:
            if Refusing.refuse:
                raise StoreError("booking_events_chain_pending refused")
            return await super().chain_pending()

    v = await arena(pool)
    async with relaying(database_url, redis_url, clock, Refusing) as one_pass:
        made = (await hold(deps, HoldCommand(v.unit_id, at(8, 19), at(8, 20), (v.resource_ids["Campo 1"],),
                                             customer=customer(1)))).booking
        caplog.clear()  # the drain of earlier rows was refused too: this pass's own refusal is the one asserted
        assert await one_pass()
        assert "the audit chain could not advance" in caplog.text
        assert await pool.fetchval("SELECT count(*) FROM outbox WHERE unit_id = $1 AND published_at IS NULL",
                                   v.unit_id) == 0
        assert await pool.fetchval("SELECT hash FROM booking_events WHERE booking_id = $1", made.id) is None
        Refusing.refuse = False
        assert await one_pass()
        assert await pool.fetchval("SELECT hash FROM booking_events WHERE booking_id = $1", made.id) is not None
