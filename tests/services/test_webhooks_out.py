"""Outgoing webhooks with a real receiver and a controlled clock: scheduling from the outbox (once per endpoint and
event, filtered by type), signatures, retries with backoff, claims (a job run twice sends once), replays, the jobs."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

import asyncpg
import httpx
import pytest

from domain import webhooks_out as wh
from domain.events import (
    BookingChanged,
    CapacityOffered,
    ChargeCancelRequested,
    PaymentReceived,
    QueueItemChanged,
    SlotOffered,
    SlotSpan,
    WaitlistJoined,
)
from domain.services import ChangeCommand, Deps, HoldCommand, cancel, hold
from jobs import tasks
from jobs.relay import Relay
from providers.webhooks import HttpWebhookSender
from store import relay as store_relay
from store.outbox import OutboxEvent, sequence_pending
from store.relay import PgOutboxFeed, PgOutboxSource
from store.webhooks_out import PgWebhooks, schedule
from tests.conftest import MutableClock
from tests.venues import arena, at, customer
from tests.webhook_receiver import Receiver


async def _events(pool: Any, unit_id: UUID) -> list[OutboxEvent]:
    """The unit's outbox rows, numbered as the relay numbers them."""
    async with pool.acquire() as conn:
        while True:  # every pending row of the session's database, a batch at a time (earlier tests leave some)
            async with conn.transaction():
                if not await sequence_pending(conn):
                    break
        rows = await conn.fetch("SELECT id, unit_id, seq, topic, payload FROM outbox WHERE unit_id = $1 ORDER BY seq",
                                unit_id)
    return [OutboxEvent(r["id"], r["unit_id"], r["seq"], r["topic"], r["payload"]) for r in rows]


async def _schedule(pool: Any, unit_id: UUID, now: Any) -> list[tuple[UUID, int]]:
    async with pool.acquire() as conn:
        return await schedule(conn, await _events(pool, unit_id), now)


async def _held(deps: Deps, v: Any, n: int = 1, hour: int = 19) -> Any:
    r = await hold(deps, HoldCommand(v.unit_id, at(8, hour), at(8, hour + 1), (v.resource_ids["Campo 1"],),
                                     customer=customer(n)))
    return r.booking


async def test_a_held_booking_is_signed_and_sent_once_to_each_subscribed_endpoint(
        deps: Deps, pool: Any, clock: MutableClock) -> None:
    v = await arena(pool)
    store = PgWebhooks(pool)
    async with Receiver() as rx, Receiver() as other, httpx.AsyncClient() as http:
        ep, secret = await store.register(v.unit_id, rx.url, ["booking.held", "booking.cancelled"], None, "t",
                                          clock.now())
        await store.register(v.unit_id, other.url, ["payment.paid"], None, "t", clock.now())  # not this type
        b = await _held(deps, v)
        scheduled = await _schedule(pool, v.unit_id, clock.now())
        assert len(scheduled) == 1 and scheduled[0][1] == 0
        assert await _schedule(pool, v.unit_id, clock.now()) == []  # relayed twice: scheduled once
        (delivery_id, _), = scheduled
        assert await wh.deliver(store, HttpWebhookSender(http), delivery_id, clock.now()) == ("delivered", None)
        assert await wh.deliver(store, HttpWebhookSender(http), delivery_id, clock.now()) is None  # done: never again
        (req,) = rx.requests
        assert other.requests == []
        assert wh.verify(secret, req.headers["x-slothold-signature"], req.body, int(clock.now().timestamp()))
        assert not wh.verify("whsec_other", req.headers["x-slothold-signature"], req.body,
                             int(clock.now().timestamp()))
        assert not wh.verify(secret, req.headers["x-slothold-signature"], req.body + b" ",
                             int(clock.now().timestamp()))
        t = int(req.headers["x-slothold-signature"].split(",")[0].removeprefix("t="))
        assert t == int(clock.now().timestamp())
        assert req.headers["x-slothold-event"] == "booking.held"
        assert req.headers["x-slothold-delivery"] == str(delivery_id)
        body = json.loads(req.body)
        assert set(body) == {"id", "type", "unitId", "seq", "occurredAt", "data"}
        assert body["type"] == "booking.held" and body["unitId"] == str(v.unit_id) and body["seq"] >= 1
        assert body["data"]["booking_id"] == str(b.id) and body["data"]["status"] == "held"
        assert "topic" not in body["data"] and "previous_hold_expires_at" not in body["data"]
        row = await store.delivery(delivery_id)
        assert row is not None and row["status"] == "delivered" and row["attempts"] == 1
        assert row["response_code"] == 200 and row["latency_ms"] is not None and row["delivered_at"] == clock.now()
        # Cancelled: its own delivery; the endpoint of payment.paid still gets nothing.
        await cancel(deps, ChangeCommand(b.id, actor="customer"))
        (d2, _), = await _schedule(pool, v.unit_id, clock.now())
        assert await wh.deliver(store, HttpWebhookSender(http), d2, clock.now()) == ("delivered", None)
        assert [json.loads(r.body)["type"] for r in rx.requests] == ["booking.held", "booking.cancelled"]
        assert json.loads(rx.requests[1].body)["id"] != body["id"]
        assert ep["event_types"] == ["booking.held", "booking.cancelled"]


async def test_failures_are_retried_with_backoff_then_the_delivery_fails(
        deps: Deps, pool: Any, clock: MutableClock) -> None:
    v = await arena(pool)
    store = PgWebhooks(pool)
    async with Receiver(fail_next=100) as rx, httpx.AsyncClient() as http:
        await store.register(v.unit_id, rx.url, ["booking.held"], None, "t", clock.now())
        await _held(deps, v)
        (d, _), = await _schedule(pool, v.unit_id, clock.now())
        waits = []
        for expected in wh.BACKOFF:
            started = clock.now()
            status, next_at = await wh.deliver(store, HttpWebhookSender(http), d, clock.now())  # type: ignore[misc]
            assert status == "retrying" and next_at == started + expected
            waits.append(next_at - started)
            clock.set(next_at - timedelta(seconds=1))
            assert await wh.deliver(store, HttpWebhookSender(http), d, clock.now()) is None  # not yet due: nothing sent
            clock.set(next_at)
        assert waits == [timedelta(seconds=30), timedelta(minutes=2), timedelta(minutes=10), timedelta(hours=1),
                         timedelta(hours=6)]
        assert await wh.deliver(store, HttpWebhookSender(http), d, clock.now()) == ("failed", None)
        clock.advance(days=1)
        assert await wh.deliver(store, HttpWebhookSender(http), d, clock.now()) is None
        assert len(rx.requests) == wh.MAX_ATTEMPTS == 6
        assert {r.headers["x-slothold-delivery"] for r in rx.requests} == {str(d)}
        row = await store.delivery(d)
        assert row is not None and (row["status"], row["attempts"], row["response_code"]) == ("failed", 6, 500)
        assert row["last_error"].startswith("HTTP 500") and row["next_attempt_at"] is None
        # Replayed by hand: a new round, the same delivery id; the receiver is back.
        rx.fail_next = 0
        replayed = await store.replay(d, clock.now())
        assert replayed["status"] == "pending"
        assert await wh.deliver(store, HttpWebhookSender(http), d, clock.now()) == ("delivered", None)
        assert rx.requests[-1].headers["x-slothold-delivery"] == str(d) and len(rx.requests) == 7
        assert rx.requests[-1].body == rx.requests[0].body  # the same event
        replay_job = await pool.fetchval("SELECT payload FROM outbox WHERE unit_id = $1 AND topic = "
                                         "'webhook_delivery'", v.unit_id)
        assert replay_job["delivery_id"] == str(d) and replay_job["attempt"] == 7


async def test_a_network_error_is_retried_and_recorded(deps: Deps, pool: Any, clock: MutableClock) -> None:
    v = await arena(pool)
    store = PgWebhooks(pool)
    async with Receiver() as rx:
        dead = rx.url
    async with httpx.AsyncClient() as http:
        await store.register(v.unit_id, dead, ["booking.held"], None, "t", clock.now())
        await _held(deps, v)
        (d, _), = await _schedule(pool, v.unit_id, clock.now())
        assert await wh.deliver(store, HttpWebhookSender(http), d, clock.now()) == (
            "retrying", clock.now() + timedelta(seconds=30))
        row = await store.delivery(d)
        assert row is not None and row["response_code"] is None and "ConnectError" in row["last_error"]


async def test_a_job_run_twice_at_once_sends_once(deps: Deps, pool: Any, clock: MutableClock) -> None:
    v = await arena(pool)
    store = PgWebhooks(pool)
    async with Receiver(delay=0.3) as rx, httpx.AsyncClient() as http:
        await store.register(v.unit_id, rx.url, ["booking.held"], None, "t", clock.now())
        await _held(deps, v)
        (d, _), = await _schedule(pool, v.unit_id, clock.now())
        ctx = {"webhooks": store, "deps": deps, "webhook_sender": HttpWebhookSender(http)}
        results = await asyncio.gather(*(tasks.deliver_webhook(ctx, str(d)) for _ in range(4)))
        assert results.count("delivered") == 1 and results.count(None) == 3
        assert len(rx.requests) == 1


async def test_a_sender_that_died_mid_attempt_is_taken_over_after_its_lease(
        deps: Deps, pool: Any, clock: MutableClock) -> None:
    v = await arena(pool)
    store = PgWebhooks(pool)
    async with Receiver() as rx, httpx.AsyncClient() as http:
        await store.register(v.unit_id, rx.url, ["booking.held"], None, "t", clock.now())
        await _held(deps, v)
        (d, _), = await _schedule(pool, v.unit_id, clock.now())
        assert await store.claim(d, clock.now(), clock.now() + wh.LEASE) is not None  # ... and the worker died
        assert await wh.deliver(store, HttpWebhookSender(http), d, clock.now()) is None
        clock.advance(seconds=wh.LEASE.total_seconds())
        assert await store.due(clock.now()) and d in {i for i, _ in await store.due(clock.now())}
        assert await wh.deliver(store, HttpWebhookSender(http), d, clock.now()) == ("delivered", None)
        row = await store.delivery(d)
        assert row is not None and row["attempts"] == 2 and len(rx.requests) == 1


class FakeRedis:
    def __init__(self) -> None:
        self.jobs: dict[str, tuple[str, str, Any]] = {}
        self.published: list[str] = []

    async def enqueue_job(self, function: str, argument: str, _job_id: str, _defer_until: Any = None) -> object:
        if _job_id in self.jobs:
            return None
        self.jobs[_job_id] = (function, argument, _defer_until)
        return object()

    async def publish(self, channel: str, message: str) -> None:
        self.published.append(message)

    async def zrem(self, *a: Any) -> None: ...

    async def delete(self, *a: Any) -> None: ...


async def test_the_jobs_schedule_the_next_attempt_and_the_sweep_finds_lost_ones(
        deps: Deps, pool: Any, clock: MutableClock) -> None:
    v = await arena(pool)
    store = PgWebhooks(pool)
    async with Receiver(fail_next=1) as rx, httpx.AsyncClient() as http:
        await store.register(v.unit_id, rx.url, ["booking.held"], None, "t", clock.now())
        await _held(deps, v)
        (d, _), = await _schedule(pool, v.unit_id, clock.now())
        redis = FakeRedis()
        ctx = {"webhooks": store, "deps": deps, "webhook_sender": HttpWebhookSender(http), "redis": redis}
        assert await tasks.deliver_webhook(ctx, str(d)) == "retrying"
        assert redis.jobs == {f"webhook:{d}:2": ("deliver_webhook", str(d), clock.now() + timedelta(seconds=30))}
        redis.jobs.clear()  # Redis lost it
        clock.advance(seconds=30)
        assert await tasks.sweep_webhooks(ctx) >= 1
        assert redis.jobs[f"webhook:{d}:2"][:2] == ("deliver_webhook", str(d))
        assert await tasks.deliver_webhook(ctx, str(d)) == "delivered"
        assert len(rx.requests) == 2


async def test_the_relay_schedules_deliveries_and_a_webhook_fault_never_stops_it(
        deps: Deps, pool: Any, clock: MutableClock, monkeypatch: pytest.MonkeyPatch, database_url: str) -> None:
    v = await arena(pool)
    store = PgWebhooks(pool)
    relay, redis = Relay(PgOutboxSource(database_url), "redis://unused", clock), FakeRedis()
    conn = await asyncpg.connect(database_url)
    await conn.set_type_codec("jsonb", encoder=json.dumps, decoder=json.loads, schema="pg_catalog")
    feed = PgOutboxFeed(conn)
    while await relay.pass_once(feed, redis, redis):  # type: ignore[arg-type]
        pass  # earlier tests' unrelayed events (more than one batch in a full run) go first
    redis.jobs.clear()
    await store.register(v.unit_id, "https://hooks.example.com/x", ["booking.held"], None, "t", clock.now())
    b = await _held(deps, v)
    try:
        assert await relay.pass_once(feed, redis, redis)  # type: ignore[arg-type]
        d = await pool.fetchval("SELECT id FROM webhook_deliveries WHERE unit_id = $1", v.unit_id)
        assert redis.jobs[f"webhook:{d}:1"] == ("deliver_webhook", str(d), None)
        assert any(f"expire:{b.id}:" in j for j in redis.jobs)  # the hold's own jobs as before

        async def broken(*a: Any) -> Any:
            raise asyncpg.PostgresError("boom")

        monkeypatch.setattr(store_relay, "schedule", broken)  # the database refuses: the feed says StoreError
        await cancel(deps, ChangeCommand(b.id, actor="customer"))
        before = len(redis.published)
        assert await relay.pass_once(feed, redis, redis)  # type: ignore[arg-type]
        assert len(redis.published) > before  # realtime went on
        assert await pool.fetchval("SELECT count(*) FROM outbox WHERE unit_id = $1 AND published_at IS NULL",
                                   v.unit_id) == 0
    finally:
        await conn.close()


async def test_disabled_endpoints_get_nothing_and_their_waiting_deliveries_are_cancelled(
        deps: Deps, pool: Any, clock: MutableClock) -> None:
    v = await arena(pool)
    store = PgWebhooks(pool)
    async with Receiver(fail_next=1) as rx, httpx.AsyncClient() as http:
        ep, _ = await store.register(v.unit_id, rx.url, ["booking.held"], None, "t", clock.now())
        await _held(deps, v)
        (d, _), = await _schedule(pool, v.unit_id, clock.now())
        assert (await wh.deliver(store, HttpWebhookSender(http), d, clock.now()))[0] == "retrying"  # type: ignore[index]
        await store.update(ep["id"], clock.now(), enabled=False)
        clock.advance(minutes=1)
        assert await wh.deliver(store, HttpWebhookSender(http), d, clock.now()) is None
        assert (await store.delivery(d))["status"] == "cancelled"  # type: ignore[index]
        await _held(deps, v, 2, hour=20)
        assert await _schedule(pool, v.unit_id, clock.now()) == []
        assert len(rx.requests) == 1


async def test_a_rotated_secret_signs_alongside_the_previous_one_for_a_day(
        deps: Deps, pool: Any, clock: MutableClock) -> None:
    v = await arena(pool)
    store = PgWebhooks(pool)
    async with Receiver() as rx, httpx.AsyncClient() as http:
        ep, old = await store.register(v.unit_id, rx.url, ["booking.held"], None, "t", clock.now())
        _, new = await store.rotate(ep["id"], clock.now())  # type: ignore[misc]
        assert new != old
        await _held(deps, v)
        (d, _), = await _schedule(pool, v.unit_id, clock.now())
        await wh.deliver(store, HttpWebhookSender(http), d, clock.now())
        sig, raw = rx.requests[0].headers["x-slothold-signature"], rx.requests[0].body
        now = int(clock.now().timestamp())
        assert wh.verify(new, sig, raw, now) and wh.verify(old, sig, raw, now)
        clock.advance(hours=25)
        await _held(deps, v, 2, hour=21)
        (d2, _), = await _schedule(pool, v.unit_id, clock.now())
        await wh.deliver(store, HttpWebhookSender(http), d2, clock.now())
        sig, raw = rx.requests[1].headers["x-slothold-signature"], rx.requests[1].body
        now = int(clock.now().timestamp())
        assert wh.verify(new, sig, raw, now) and not wh.verify(old, sig, raw, now)


def _id(n: int) -> UUID:
    return UUID(int=n)


def _changed(at_: datetime, status: str = "held") -> BookingChanged:
    return BookingChanged(_id(1), _id(2), None, status, "held", "CART", at_, None, None, None, at_,
                          (SlotSpan(_id(3), at_, at_ + timedelta(hours=1)),))


def test_event_types_urls_and_payloads() -> None:
    t = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)
    assert wh.event_type(_changed(t)) == "booking.held"
    assert wh.event_type(PaymentReceived(_id(1), _id(4), _id(5), 8000, False, t)) == "payment.paid"
    assert wh.event_type(SlotOffered(_id(6), _id(1), _id(7), t)) == "waitlist.offered"
    assert wh.event_type(CapacityOffered(_id(6), _id(1), "token", t)) == "waitlist.offered"
    assert wh.event_type(WaitlistJoined(_id(6), _id(3), t)) is None
    assert wh.event_type(ChargeCancelRequested(_id(4))) is None
    assert wh.event_type(None) is None
    assert wh.occurred_at(_changed(t), t + timedelta(hours=1)) == "2026-12-07T12:00:00+00:00"
    assert wh.occurred_at(SlotOffered(_id(6), _id(1), _id(7), t), t + timedelta(hours=1)) == "2026-12-07T13:00:00+00:00"
    b = wh.body(UUID(int=1), 3, "waitlist.offered", {"topic": "waitlist_changed", "token": "secret-offer-token",
                                                     "entry_id": "e"}, "2026-12-07T12:00:00+00:00")
    assert b["data"] == {"entry_id": "e"}  # the offer's token is the customer's credential: never sent
    assert wh.check_url("https://example.com/h") == "https://example.com/h"
    assert wh.check_url("http://localhost:8080/h") and wh.check_url("http://127.0.0.1/h")
    for bad, code in [("http://example.com/h", "https_required"), ("ftp://x/y", "invalid_url"), ("", "invalid_url"),
                      ("https://u:p@example.com/", "invalid_url"), ("example.com", "invalid_url")]:
        with pytest.raises(wh.InvalidInput) as e:
            wh.check_url(bad)
        assert (e.value.code, e.value.field) == (code, "url")
    assert wh.check_event_types(["payment.paid", "payment.paid", "booking.held"]) == ["payment.paid", "booking.held"]
    with pytest.raises(wh.InvalidInput) as e:
        wh.check_event_types(["booking.exploded"])
    assert (e.value.code, e.value.field) == ("unknown_event_type", "eventTypes")
    with pytest.raises(wh.InvalidInput):
        wh.check_event_types([])


async def test_each_endpoint_gets_only_its_event_types_across_topics(pool: Any, clock: MutableClock) -> None:
    v = await arena(pool)
    store = PgWebhooks(pool)
    pay, _ = await store.register(v.unit_id, "https://a.example.com/h", ["payment.paid"], None, "t", clock.now())
    offers, _ = await store.register(v.unit_id, "https://b.example.com/h", ["waitlist.offered", "booking.expired"],
                                     None, "t", clock.now())
    t = clock.now()
    queued = QueueItemChanged("opened", _id(8), "customer_says_paid", "critical", "Cliente diz que pagou", _id(1))
    rows = [PaymentReceived(_id(1), _id(4), _id(5), 8000, False, t).to_json(),
            WaitlistJoined(_id(6), _id(3), t).to_json(),
            SlotOffered(_id(6), _id(1), _id(7), t).to_json(),
            ChargeCancelRequested(_id(4)).to_json(),
            {**queued.to_json(), "event": "payment.paid"},  # the name alone does not make it one
            _changed(t).to_json()]
    for payload in rows:
        await pool.execute("INSERT INTO outbox (unit_id, topic, payload) VALUES ($1, $2, $3)", v.unit_id,
                           payload["topic"], payload)
    assert len(await _schedule(pool, v.unit_id, clock.now())) == 2
    got = {r["endpoint_id"]: (r["event_type"], r["body"]) for r in await pool.fetch(
        "SELECT endpoint_id, event_type, body FROM webhook_deliveries WHERE unit_id = $1", v.unit_id)}
    assert got[pay["id"]][0] == "payment.paid" and got[pay["id"]][1]["data"]["amount_cents"] == 8000
    assert got[offers["id"]][0] == "waitlist.offered"
    assert got[offers["id"]][1]["data"] == {  # not the customer record's id
        "kind": "offered", "event": "waitlist.offered", "entry_id": str(_id(6)), "booking_id": str(_id(1)),
        "hold_expires_at": t.isoformat()}


async def test_a_unit_has_at_most_twenty_enabled_endpoints(pool: Any, clock: MutableClock) -> None:
    v = await arena(pool)
    store = PgWebhooks(pool)
    made = [await store.register(v.unit_id, f"https://h{i}.example.com/", ["booking.held"], None, "t", clock.now())
            for i in range(wh.MAX_ENDPOINTS)]
    with pytest.raises(wh.InvalidInput) as e:
        await store.register(v.unit_id, "https://one-more.example.com/", ["booking.held"], None, "t", clock.now())
    assert (e.value.code, e.value.field) == ("too_many_webhooks", "unitId")
    await store.update(made[0][0]["id"], clock.now(), enabled=False)
    await store.register(v.unit_id, "https://one-more.example.com/", ["booking.held"], None, "t", clock.now())
    with pytest.raises(wh.InvalidInput) as e:
        await store.update(made[0][0]["id"], clock.now(), enabled=True)
    assert (e.value.code, e.value.field) == ("too_many_webhooks", "enabled")
    assert (await store.update(made[1][0]["id"], clock.now(), enabled=True))["enabled"] is True  # type: ignore[index]


async def test_finished_deliveries_leave_the_log_after_thirty_days(deps: Deps, pool: Any, clock: MutableClock) -> None:
    v = await arena(pool)
    store = PgWebhooks(pool)
    async with Receiver(fail_next=1) as rx, httpx.AsyncClient() as http:
        await store.register(v.unit_id, rx.url, ["booking.held"], None, "t", clock.now())
        await _held(deps, v, 1, hour=19)
        await _held(deps, v, 2, hour=20)
        first, second = (d for d, _ in await _schedule(pool, v.unit_id, clock.now()))
        assert (await wh.deliver(store, HttpWebhookSender(http), first, clock.now()))[0] == "retrying"  # type: ignore[index]
        assert (await wh.deliver(store, HttpWebhookSender(http), second, clock.now()))[0] == "delivered"  # type: ignore[index]
        clock.advance(days=31)
        await tasks.prune_webhook_deliveries({"webhooks": store, "deps": deps})
        assert await store.delivery(second) is None
        assert await store.delivery(first) is not None  # still waiting: kept
