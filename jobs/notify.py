"""Notification delivery: the relay plans deliveries from outbox rows; jobs claim, send and retry them.

Each delivery row is sent by `deliver_notification` (job id `notify:<delivery>:<attempt>`, so an attempt is
enqueued once); a failure records the next attempt time and enqueues the next attempt for then; the sweep sends
whatever is due and lost its job (Redis flushed, a worker died while sending). Claiming the row before sending
makes a job that runs twice, or on two workers at once, send once.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from arq.connections import ArqRedis

from domain.notifications import deliver
from domain.outbox import OutboxEvent
from domain.ports import NotificationDeliveries, OutboxFeed
from domain.services import Deps

log = logging.getLogger("slothold.notifications")
RETENTION = timedelta(days=30)
PLAN_ERRORS = (KeyError, TypeError, ValueError, AttributeError)
"""What planning a malformed row raises (MalformedEvent is a ValueError: the feed's word for a row the database
would not take)."""


def job_id(delivery_id: object, attempt: int) -> str:
    return f"notify:{delivery_id}:{attempt}"


async def schedule_notifications(feed: OutboxFeed, arq: ArqRedis, events: list[OutboxEvent],
                                 now: datetime) -> int:
    """Plan the deliveries of these events and enqueue their first attempts. A malformed row is logged and
    skipped; it never stops the relay. Returns the number of deliveries planned."""
    total = 0
    for event in events:
        try:
            ids = await feed.plan_notifications(event, now)
        except PLAN_ERRORS as e:
            log.error("outbox row %s: no notification planned, the row is malformed (%s: %s)", event.id,
                      type(e).__name__, e)
            continue
        for delivery_id in ids:
            await arq.enqueue_job("deliver_notification", str(delivery_id), _job_id=job_id(delivery_id, 1))
        total += len(ids)
    return total


async def deliver_notification(ctx: dict[str, Any], delivery_id: str) -> str:
    """Send one notification through its channel, if due and not taken; on failure enqueue the next attempt."""
    deps: Deps = ctx["deps"]
    store: NotificationDeliveries = ctx["deliveries"]
    status, next_at = await deliver(store, ctx["channels"], UUID(delivery_id), deps.clock.now())
    if next_at is not None and ctx.get("redis") is not None:
        row = await store.get(UUID(delivery_id))
        if row is not None:
            await ctx["redis"].enqueue_job("deliver_notification", delivery_id,
                                           _job_id=job_id(delivery_id, row["attempts"] + 1), _defer_until=next_at)
    return status


async def prune_notification_deliveries(ctx: dict[str, Any]) -> int:
    """Forget finished deliveries after RETENTION (the in-app notifications themselves stay)."""
    deps: Deps = ctx["deps"]
    store: NotificationDeliveries = ctx["deliveries"]
    return await store.prune(deps.clock.now() - RETENTION)


async def sweep_notifications(ctx: dict[str, Any]) -> int:
    """Send every due delivery (retries whose job was lost, claims whose worker died)."""
    deps: Deps = ctx["deps"]
    store: NotificationDeliveries = ctx["deliveries"]
    sent = 0
    for delivery_id in await store.due(deps.clock.now()):
        status = await deliver_notification(ctx, str(delivery_id))
        sent += status == "sent"
    return sent
