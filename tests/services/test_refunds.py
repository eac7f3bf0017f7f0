"""Refunds of cancelled paid bookings on real PostgreSQL, the sandbox bank and a controlled clock (SPEC §7, §11)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import timedelta
from typing import Any
from uuid import UUID

import pytest
from arq import Retry

from domain import catalog, checkout, refunds, settlement
from domain.bookings import BookingStatus
from domain.refunds import RefundStatus
from domain.services import ChangeCommand, Deps, cancel, drop
from domain.settlement import Outcome
from jobs import tasks
from jobs.relay import follow_ups
from providers.sandbox import SandboxProvider
from store.outbox import OutboxEvent
from tests.services.test_payments import held, paid_arena
from tests.venues import at

START = at(12, 19)  # every booking here: Saturday 12 December 2026, 19:00 in São Paulo


@pytest.fixture
def sandbox(pool: Any, clock: Any) -> SandboxProvider:
    return SandboxProvider(pool, "sandbox-secret", clock=clock)


@pytest.fixture
def pay_deps(deps: Deps, sandbox: SandboxProvider) -> Deps:
    return replace(deps, provider=sandbox)


async def paid(deps: Deps, sandbox: SandboxProvider, v: Any, field: str = "Campo 1", n: int = 1) -> Any:
    """A booking confirmed by its Pix (R$ 100 deposit of R$ 200), paid through the sandbox bank."""
    b = await held(deps, v, field=field, n=n)
    r = await checkout.confirm(deps, checkout.ConfirmCommand(b.id))
    assert r.charge is not None
    headers, body = await sandbox.pay(r.charge.txid)
    [pix] = await sandbox.parse_webhook(headers, {}, body)
    assert await settlement.receive_payment(deps, "sandbox", pix) is Outcome.CONFIRMED
    return b


async def requests_at_bank(pool: Any, booking_id: Any) -> list[tuple[int, int]]:
    """(amount, times asked) of each refund the sandbox bank was asked for this booking's payments."""
    async with pool.acquire() as conn:
        rows = await conn.fetch(
            "SELECT s.amount_cents, s.requests FROM sandbox_refunds s JOIN payments p "
            "ON p.provider_payment_id = s.end_to_end_id WHERE p.booking_id = $1", booking_id)
    return [(r["amount_cents"], r["requests"]) for r in rows]


async def refund_jobs(pool: Any, booking_id: Any) -> list[Any]:
    async with pool.acquire() as conn:
        rows = await conn.fetch("SELECT id, unit_id, topic, payload FROM outbox "
                                "WHERE topic = 'refund_request' AND payload->>'booking_id' = $1", str(booking_id))
    return [j for r in rows for j in follow_ups(OutboxEvent(r["id"], r["unit_id"], 0, r["topic"], r["payload"]))]


async def test_each_tier_by_the_accepted_policy_even_after_a_new_one_is_published(
        pay_deps: Deps, sandbox: SandboxProvider, pool: Any, clock: Any) -> None:
    v = await paid_arena(pool)
    bookings = [await paid(pay_deps, sandbox, v, field=f"Campo {i}", n=i) for i in range(1, 5)]
    # Published after the customers accepted version 1: everything back, whenever. It must not apply.
    new = await catalog.publish_policy(pay_deps, v.unit_id, [(0, 100)])
    assert new.version == 2
    cases = [  # (cancelled at, percent, refund in cents)
        (START - timedelta(hours=24), 100, 10000),
        (START - timedelta(hours=24) + timedelta(seconds=1), 50, 5000),
        (START - timedelta(hours=6), 50, 5000),
        (START - timedelta(hours=6) + timedelta(seconds=1), 0, 0),
    ]
    for b, (when, percent, cents) in zip(bookings, cases, strict=True):
        clock.set(when)
        r = await cancel(pay_deps, ChangeCommand(b.id, actor="customer", reason="não vou"))
        assert r.booking.status is BookingStatus.CANCELLED
        [refund] = await refunds.refunds_of(pay_deps, b.id)
        assert (refund.percent, refund.amount_cents, refund.paid_cents, refund.policy_version) == (
            percent, cents, 10000, 1), when
        assert refund.status is (RefundStatus.REQUESTED if cents else RefundStatus.NOT_DUE)
        assert refund.hours_before_start == pytest.approx((START - when).total_seconds() / 3600)
        jobs = await refund_jobs(pool, b.id)
        assert jobs == ([("refund_payment", str(refund.id), f"refund:{refund.id}", None)] if cents else [])
    # The zero refund never reaches the bank, even when its (non-existent) job is forced.
    zero = (await refunds.refunds_of(pay_deps, bookings[3].id))[0]
    assert await refunds.refund_at_provider(pay_deps, zero.id) is None
    assert await requests_at_bank(pool, bookings[3].id) == []


async def test_the_bank_is_asked_once_even_when_the_job_runs_twice(
        pay_deps: Deps, sandbox: SandboxProvider, pool: Any, clock: Any) -> None:
    v = await paid_arena(pool)
    b = await paid(pay_deps, sandbox, v)
    clock.set(START - timedelta(hours=30))
    await cancel(pay_deps, ChangeCommand(b.id, actor="staff", reason="chuva"))  # staff cancel: same rule
    [refund] = await refunds.refunds_of(pay_deps, b.id)
    assert refund.status is RefundStatus.REQUESTED and refund.provider_refund_id == "SH" + refund.id.hex
    ctx = {"deps": pay_deps, "job_try": 1}
    first, second = await asyncio.gather(tasks.refund_payment(ctx, str(refund.id)),
                                         tasks.refund_payment(ctx, str(refund.id)))
    assert sorted([first, second], key=str) == [None, "succeeded"]
    assert await tasks.refund_payment(ctx, str(refund.id)) is None  # a third run: settled, nothing asked
    assert await requests_at_bank(pool, b.id) == [(10000, 1)]
    [done] = await refunds.refunds_of(pay_deps, b.id)
    assert done.status is RefundStatus.SUCCEEDED and done.attempts == 1 and done.provider_ref
    assert done.provider_ref.startswith("D99999999")
    # Cancelling is once: a retried cancel is refused and records no second refund.
    with pytest.raises(Exception, match="cancel"):
        await cancel(pay_deps, ChangeCommand(b.id))
    assert len(await refunds.refunds_of(pay_deps, b.id)) == 1


async def test_a_failing_bank_is_retried_then_a_person_is_asked(
        pay_deps: Deps, sandbox: SandboxProvider, pool: Any, clock: Any) -> None:
    v = await paid_arena(pool)
    b = await paid(pay_deps, sandbox, v)
    clock.set(START - timedelta(hours=10))
    await cancel(pay_deps, ChangeCommand(b.id))
    [refund] = await refunds.refunds_of(pay_deps, b.id)
    assert refund.amount_cents == 5000
    sandbox.failing = True
    for attempt in (1, 2):
        with pytest.raises(Retry) as retry:
            await tasks.refund_payment({"deps": pay_deps, "job_try": attempt}, str(refund.id))
        assert retry.value.defer_score == 5 * 2**attempt * 1000
        [now] = await refunds.refunds_of(pay_deps, b.id)
        assert (now.status, now.attempts) == (RefundStatus.REQUESTED, attempt) and "down" in (now.error or "")
    assert await tasks.refund_payment({"deps": pay_deps, "job_try": 3}, str(refund.id)) == "failed"
    [failed] = await refunds.refunds_of(pay_deps, b.id)
    assert (failed.status, failed.attempts) == (RefundStatus.FAILED, 3)
    async with pool.acquire() as conn:
        items = await conn.fetch("SELECT type, priority, status, payload FROM queue_items WHERE booking_id = $1",
                                 b.id)
    assert [(i["type"], i["priority"], i["status"]) for i in items] == [("refund_failed", "high", "open")]
    assert items[0]["payload"]["refund_id"] == str(refund.id) and items[0]["payload"]["amount_cents"] == 5000
    sandbox.failing = False
    assert await tasks.refund_payment({"deps": pay_deps, "job_try": 1}, str(refund.id)) is None  # no silent retry
    assert await requests_at_bank(pool, b.id) == []


async def test_unpaid_cancels_and_dropped_holds_record_no_refund(
        pay_deps: Deps, sandbox: SandboxProvider, pool: Any) -> None:
    v = await paid_arena(pool)
    free = await held(pay_deps, v, field="Campo 1", n=1)
    await cancel(pay_deps, ChangeCommand(free.id))
    waiting = await held(pay_deps, v, field="Campo 2", n=2)
    await checkout.confirm(pay_deps, checkout.ConfirmCommand(waiting.id))
    await drop(pay_deps, ChangeCommand(waiting.id, actor="staff", reason="teste"))
    for b in (free, waiting):
        assert await refunds.refunds_of(pay_deps, b.id) == []
        assert await refund_jobs(pool, b.id) == []


class FakeRedis:
    def __init__(self) -> None:
        self.jobs: list[tuple[str, str, str]] = []

    async def enqueue_job(self, function: str, argument: str, _job_id: str) -> None:
        self.jobs.append((function, argument, _job_id))


async def test_a_refund_whose_job_was_lost_is_asked_again_by_the_sweep(
        pay_deps: Deps, sandbox: SandboxProvider, pool: Any, clock: Any) -> None:
    v = await paid_arena(pool)
    b = await paid(pay_deps, sandbox, v)
    clock.set(START - timedelta(hours=48))
    await cancel(pay_deps, ChangeCommand(b.id))
    [refund] = await refunds.refunds_of(pay_deps, b.id)
    redis = FakeRedis()
    ctx = {"deps": pay_deps, "redis": redis, "job_try": 1}
    clock.advance(minutes=9)
    await tasks.sweep_refunds(ctx)
    assert refund.id not in [UUID(j[1]) for j in redis.jobs]  # its own job may still be on its way
    clock.advance(minutes=2)
    await tasks.sweep_refunds(ctx)
    assert ("refund_payment", str(refund.id), f"refund:{refund.id}:0") in redis.jobs
    assert await tasks.refund_payment(ctx, str(refund.id)) == "succeeded"
    redis.jobs.clear()
    clock.advance(minutes=30)
    await tasks.sweep_refunds(ctx)
    assert refund.id not in [UUID(j[1]) for j in redis.jobs]
    assert await requests_at_bank(pool, b.id) == [(10000, 1)]
