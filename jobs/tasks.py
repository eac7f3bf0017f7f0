"""Job functions: each rechecks state, so running one twice or on two workers is harmless."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any
from uuid import UUID

from arq import Retry

from domain import services, settlement
from domain.payments import ProviderUnavailable
from domain.ports import Retention, WebhookDeliveries
from domain.services import Deps
from domain.webhooks_out import WebhookSender

log = logging.getLogger("slothold.jobs")


async def expire_hold(ctx: dict[str, Any], booking_id: str) -> bool:
    """At the hold's deadline: expire it unless it was settled or its deadline moved — or the bank has its Pix (a
    payment in time whose webhook was lost confirms it instead)."""
    await settlement.look_up_before_expiry(ctx["deps"], [UUID(booking_id)])
    done = await services.expire_hold(ctx["deps"], UUID(booking_id))
    if done:
        log.info("expired hold %s at its deadline", booking_id)
    return done


async def remind_hold(ctx: dict[str, Any], booking_id: str) -> bool:
    """hold_reminder before the deadline: remind the customer, once."""
    return await services.remind_hold(ctx["deps"], UUID(booking_id))


async def sweep_expired_holds(ctx: dict[str, Any]) -> int:
    """Expire every hold past its deadline that a deadline job missed (every sweep interval)."""
    total = 0
    while (n := await services.expire_lapsed(ctx["deps"])) > 0:
        total += n
    if total:
        log.info("sweep expired %d lapsed holds", total)
    return total


async def complete_past_bookings(ctx: dict[str, Any]) -> int:
    """Complete checked-in bookings whose end has passed."""
    total = 0
    while (n := await services.complete_past(ctx["deps"])) > 0:
        total += n
    return total


async def prune_retained(ctx: dict[str, Any]) -> tuple[int, int]:
    """Delete published outbox rows past their retention and expired idempotency keys."""
    deps: Deps = ctx["deps"]
    retention: Retention = ctx["retention"]
    now = deps.clock.now()
    return await retention.prune(now - timedelta(hours=ctx["outbox_retention_hours"]), now)


async def cancel_charge(ctx: dict[str, Any], charge_id: str) -> bool:
    """Tell the provider that a charge is cancelled; retried with backoff while the provider is down."""
    try:
        return await settlement.cancel_at_provider(ctx["deps"], UUID(charge_id))
    except ProviderUnavailable as e:
        tries = int(ctx.get("job_try", 1))
        log.warning("cancelling charge %s at the provider failed (try %d): %s", charge_id, tries, e)
        raise Retry(defer=min(300, 5 * 2**tries)) from None


async def refund_payment(ctx: dict[str, Any], refund_id: str) -> str | None:
    """Ask the provider for a cancelled booking's refund; retried with backoff while the provider fails (the last
    failure opens a staff queue item). The provider's refund id comes from the row, so a rerun never pays twice."""
    from domain import refunds

    try:
        status = await refunds.refund_at_provider(ctx["deps"], UUID(refund_id))
    except ProviderUnavailable as e:
        tries = int(ctx.get("job_try", 1))
        log.warning("refund %s at the provider failed (try %d): %s", refund_id, tries, e)
        raise Retry(defer=min(300, 5 * 2**tries)) from None
    return status.value if status else None


async def sweep_refunds(ctx: dict[str, Any]) -> int:
    """Ask again for requested refunds whose job was lost (Redis lost it, or the relay never got to it)."""
    from domain import refunds

    due = await refunds.stale(ctx["deps"])
    for refund_id, attempts in due:
        await ctx["redis"].enqueue_job("refund_payment", str(refund_id), _job_id=f"refund:{refund_id}:{attempts}")
    return len(due)


async def poll_verifying_charges(ctx: dict[str, Any]) -> int:
    """While customers say they paid, keep looking their charges up; confirm when the Pix shows (RN-HLD-06)."""
    found = 0
    for charge in await settlement.verifying_charges(ctx["deps"]):
        try:
            found += len(await settlement.poll_charge(ctx["deps"], charge))
        except ProviderUnavailable as e:
            log.warning("looking up charge %s failed: %s", charge.id, e)
    return found


async def sweep_waitlists(ctx: dict[str, Any]) -> int:
    """Offer every free slot or place someone waits for (RN-ATD-08: a routine every 30 s)."""
    from domain.waitlist import sweep_waitlists as sweep

    return await sweep(ctx["deps"])


async def deliver_webhook(ctx: dict[str, Any], delivery_id: str) -> str | None:
    """One attempt of an outgoing webhook delivery, if due and not taken by another worker; a failed attempt
    schedules the next one (the webhook sweep catches any job Redis lost)."""
    from domain import webhooks_out
    from jobs.relay import webhook_job

    deps: Deps = ctx["deps"]
    store: WebhookDeliveries = ctx["webhooks"]
    sender: WebhookSender = ctx["webhook_sender"]
    outcome = await webhooks_out.deliver(store, sender, UUID(delivery_id), deps.clock.now())
    if outcome is None:
        return None
    status, next_at = outcome
    if next_at is not None and ctx.get("redis") is not None:
        row = await store.delivery(UUID(delivery_id))
        if row is not None and row["status"] == "retrying":
            function, argument, job_id, when = webhook_job(delivery_id, row["attempts"] + 1, next_at)
            await ctx["redis"].enqueue_job(function, argument, _job_id=job_id, _defer_until=when)
    return status


async def sweep_webhooks(ctx: dict[str, Any]) -> int:
    """Enqueue every webhook attempt that is due (a job Redis lost, a worker that died while sending)."""
    from jobs.relay import webhook_job

    deps: Deps = ctx["deps"]
    store: WebhookDeliveries = ctx["webhooks"]
    due = await store.due(deps.clock.now())
    for delivery_id, attempts in due:
        function, argument, job_id, when = webhook_job(delivery_id, attempts + 1)
        await ctx["redis"].enqueue_job(function, argument, _job_id=job_id, _defer_until=when)
    return len(due)


async def prune_webhook_deliveries(ctx: dict[str, Any]) -> int:
    """Forget finished webhook deliveries past their retention (hourly)."""
    from domain.webhooks_out import RETENTION

    deps: Deps = ctx["deps"]
    store: WebhookDeliveries = ctx["webhooks"]
    return await store.prune(deps.clock.now() - RETENTION)
