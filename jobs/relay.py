"""The outbox relay: numbers committed events per unit, publishes them to Redis, schedules deadlines.

One relay leads at a time (the outbox feed's lead: a session advisory lock on its own connection); every worker
runs one, so another takes over within a second when the leader dies. It wakes when rows are committed (NOTIFY
from the outbox trigger) and polls every second as a fallback. Publishing is at-least-once: a row is marked
published only after Redis took it, and subscribers drop duplicates by sequence number.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from arq import create_pool as create_arq_pool
from arq.connections import ArqRedis, RedisSettings
from arq.constants import default_queue_name, job_key_prefix
from broadcaster import Broadcast
from redis.exceptions import RedisError, ResponseError

from domain.bookings import LOCKED
from domain.events import (
    BookingChanged,
    ChargeCancelRequested,
    Fact,
    MalformedEvent,
    RefundRequested,
    WebhookDeliveryReplayed,
)
from domain.outbox import OutboxEvent
from domain.ports import Clock, OutboxFeed, OutboxSource, StoreError
from jobs.notify import schedule_notifications

log = logging.getLogger("slothold.relay")

Job = tuple[str, str, str, datetime | None]
"""An arq job: (function, argument, job id, when — None: now). The id makes a re-published event enqueue it once."""


def _deadline_jobs(e: BookingChanged) -> list[Job]:
    """A locked booking's expiry at its deadline and its reminder before it (a moved deadline: new ids)."""
    if e.status not in LOCKED:
        return []
    booking = str(e.booking_id)
    out: list[Job] = []
    if e.hold_expires_at:
        out.append(("expire_hold", booking, f"expire:{booking}:{e.hold_expires_at.isoformat()}", e.hold_expires_at))
    if e.remind_at:
        out.append(("remind_hold", booking, f"remind:{booking}:{e.remind_at.isoformat()}", e.remind_at))
    return out


def _cancel_charge(e: ChargeCancelRequested) -> list[Job]:
    return [("cancel_charge", str(e.charge_id), f"cancel-charge:{e.charge_id}", None)]


def _refund_payment(e: RefundRequested) -> list[Job]:  # domain/refunds.py: a cancelled paid booking's money back
    return [("refund_payment", str(e.refund_id), f"refund:{e.refund_id}", None)]


def _replay_webhook(e: WebhookDeliveryReplayed) -> list[Job]:  # a delivery replayed by hand
    return [webhook_job(e.delivery_id, e.attempt, replay=e.replay)]


FOLLOW_UPS: dict[type[Fact], Callable[[Any], list[Job]]] = {
    BookingChanged: _deadline_jobs,
    ChargeCancelRequested: _cancel_charge,
    RefundRequested: _refund_payment,
    WebhookDeliveryReplayed: _replay_webhook,
}
"""The jobs each type of event asks for (a type not listed asks for none)."""


def follow_ups(event: OutboxEvent) -> list[Job]:
    """The jobs an event asks for; raises MalformedEvent when its payload is not its fact's shape."""
    fact = event.fact
    jobs = FOLLOW_UPS.get(type(fact)) if fact is not None else None
    return jobs(fact) if jobs is not None else []


def webhook_job(delivery_id: object, attempt: int, when: datetime | None = None, replay: str = "") -> Job:
    """The job of one attempt of an outgoing webhook delivery: its id names the attempt (and the replay, whose
    attempt number a retry already queued may have taken), so it is never enqueued twice."""
    suffix = f":replay:{replay}" if replay else ""
    return ("deliver_webhook", str(delivery_id), f"webhook:{delivery_id}:{attempt}{suffix}", when)


def obsolete_jobs(event: OutboxEvent) -> list[str]:
    """Deadline jobs an event makes pointless: the hold ended or its deadline moved."""
    fact = event.fact
    if not isinstance(fact, BookingChanged):
        return []
    out = []
    for job, before, now in (("expire", fact.previous_hold_expires_at, fact.hold_expires_at),
                             ("remind", fact.previous_remind_at, fact.remind_at)):
        # as the ids were written (an instant with another offset would still be another job's id)
        if before and before.isoformat() != (now.isoformat() if now else None):
            out.append(f"{job}:{fact.booking_id}:{before.isoformat()}")
    return out


def message(event: OutboxEvent) -> str:
    """What subscribers receive on the events channel."""
    return json.dumps({"unit_id": str(event.unit_id), "seq": event.seq, "topic": event.topic,
                       "payload": event.payload})


class Relay:
    """Moves committed outbox rows to Redis and schedules their deadline jobs."""

    def __init__(self, outbox: OutboxSource, redis_url: str, clock: Clock, *,
                 broadcast: Callable[[], Broadcast] | None = None, arq_settings: RedisSettings | None = None) -> None:
        """`broadcast` makes the Broadcast of each leadership and `arq_settings` says where arq connects (the
        composition root's, which may go through Redis Sentinel); by default, both on `redis_url`."""
        self._outbox = outbox
        self._redis_url = redis_url
        self._broadcast = broadcast or (lambda: Broadcast(redis_url))
        self._arq_settings = arq_settings or RedisSettings.from_dsn(redis_url)
        self._clock = clock
        self._wake = asyncio.Event()
        self.is_leader = False

    async def run(self, stop: asyncio.Event) -> None:
        """Relay until `stop` is set, surviving database and Redis outages."""
        while not stop.is_set():
            try:
                await self._lead(stop)
            except (OSError, StoreError, RedisError) as e:
                log.warning("relay interrupted (%s: %s); retrying in 1 s", type(e).__name__, e)
                self.is_leader = False
                await _sleep_unless(stop, 1.0)

    async def _lead(self, stop: asyncio.Event) -> None:
        try:
            async with self._outbox.open() as feed:
                while not await feed.lead():
                    if await _sleep_unless(stop, 1.0):
                        return
                self.is_leader = True
                await feed.listen(self._wake.set)
                arq = await create_arq_pool(self._arq_settings)
                try:
                    async with self._broadcast() as broadcast:
                        while not stop.is_set():
                            if not await self.pass_once(feed, broadcast, arq):
                                await self._idle(stop)
                finally:
                    await arq.aclose(close_connection_pool=True)
        finally:
            self.is_leader = False

    async def _idle(self, stop: asyncio.Event) -> None:
        waiters = [asyncio.ensure_future(self._wake.wait()), asyncio.ensure_future(stop.wait())]
        try:
            await asyncio.wait(waiters, timeout=1.0, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waiters:
                w.cancel()
        self._wake.clear()

    async def pass_once(self, feed: OutboxFeed, broadcast: Broadcast, arq: ArqRedis) -> bool:
        """Number, publish and schedule what is pending; True when there was something to do."""
        numbered = await feed.sequence_pending()
        try:  # the audit trail's hash chain (migration 0032a): it catches up later, the live events never wait for it
            chained = await feed.chain_pending()
        except StoreError as e:
            log.error("the audit chain could not advance (%s); events are published meanwhile", e)
            chained = 0
        events = await feed.unpublished()
        if not events:
            return numbered + chained > 0
        for event in events:
            await broadcast.publish(self._outbox.channel, message(event))
            try:
                jobs, stale = follow_ups(event), obsolete_jobs(event)
            except MalformedEvent as e:
                # A malformed payload must not stop every other event: publish it, schedule nothing, say so.
                log.error("outbox row %s has a malformed payload (%s); no jobs scheduled for it", event.id, e)
                continue
            try:
                for function, argument, job_id, when in jobs:
                    await arq.enqueue_job(function, argument, _job_id=job_id, _defer_until=due(when))
                if stale:  # unschedule (a job that already started re-checks the booking and does nothing)
                    await arq.zrem(default_queue_name, *stale)
                    await arq.delete(*(job_key_prefix + j for j in stale))
            except ResponseError as e:
                # Redis refused a command of this row (not an outage: that is a ConnectionError and retried): retrying
                # the row would refuse again and hold back every later event. Its deadline jobs are left to the
                # worker's sweeps (expired holds, waitlists, webhooks), which find due rows in the database.
                log.error("outbox row %s: Redis refused its jobs (%s); the sweeps take them over", event.id, e)
        await self._schedule_webhooks(feed, arq, events)
        await schedule_notifications(feed, arq, events, self._clock.now())
        await feed.mark_published([e.id for e in events], self._clock.now())
        return True

    async def _schedule_webhooks(self, feed: OutboxFeed, arq: ArqRedis, events: list[OutboxEvent]) -> None:
        """Outgoing webhooks: a delivery row per matching endpoint and a job for its first attempt. Scheduled, never
        sent, here; a failure is logged and never stops the relay (the worker's webhook sweep enqueues due rows)."""
        try:
            scheduled = await feed.schedule_webhooks(events, self._clock.now())
        except (StoreError, TypeError, ValueError, KeyError, AttributeError) as e:
            # a bug or a constraint: realtime goes on, these events get no webhook
            log.error("scheduling webhooks for outbox rows %s..%s failed: %s", events[0].id, events[-1].id, e)
            return
        for delivery_id, attempts in scheduled:
            function, argument, job_id, when = webhook_job(delivery_id, attempts + 1)
            await arq.enqueue_job(function, argument, _job_id=job_id, _defer_until=due(when))


def due(when: datetime | None) -> datetime | None:
    """When arq should run a job: `when`, or None (now) when it has passed. arq keeps a deferred job's key until a day
    after its time, so a time more than a day past (a hold booked with a clock set back: the demo's week) is a
    negative expiry that Redis refuses — and the relay, retrying that row, stopped publishing every other."""
    return when if when is not None and when.timestamp() > time.time() else None


async def _sleep_unless(stop: asyncio.Event, seconds: float) -> bool:
    """Sleep; True when `stop` was set meanwhile."""
    try:
        await asyncio.wait_for(stop.wait(), seconds)
        return True
    except TimeoutError:
        return False


