"""Refunds of cancelled paid bookings (SPEC §7 "Refunds", §11 "Cancel", RN-ATD-09).

Cancelling a booking that was paid records, in the cancel's own transaction, one refund per payment that paid it,
computed by the cancellation policy version the customer accepted (never the current one) and the hours left
before the start. The provider is asked after commit, by the `refund_payment` job the relay schedules from the
outbox row written here. The provider's refund id is derived from the row's id, so a retried job never refunds
twice; provider failures are retried with backoff, and after the last one a person gets a queue item.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING
from uuid import UUID

from domain.bookings import Booking, BookingStatus
from domain.events import RefundRequested
from domain.payments import PaymentRow, ProviderUnavailable, ReceivedPix
from domain.ports import UnitOfWork
from domain.staff_queue import QueueItemType

if TYPE_CHECKING:
    from domain.services import Deps

log = logging.getLogger("slothold.refunds")

REFUND_ATTEMPTS = 3
"""Attempts at the provider before a person is asked (the worker's max_tries is the same)."""
LEASE = timedelta(minutes=2)
"""How long one attempt holds a refund against a concurrent run of the same job."""
STALE = timedelta(minutes=10)
"""A requested refund untouched this long lost its job (the refund sweep asks again)."""


class RefundStatus(StrEnum):
    """not_due (0 %: nothing to send), requested (the provider is being asked), succeeded, failed (a person)."""

    NOT_DUE = "not_due"
    REQUESTED = "requested"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


@dataclass(frozen=True)
class Refund:
    """Money back for one payment of a cancelled booking."""

    id: UUID
    unit_id: UUID
    booking_id: UUID
    payment_id: UUID
    paid_cents: int
    amount_cents: int
    policy_version: int
    percent: int
    hours_before_start: float
    status: RefundStatus
    provider: str
    provider_refund_id: str
    created_at: datetime
    updated_at: datetime
    provider_ref: str | None = None
    error: str | None = None
    attempts: int = 0


def provider_refund_id(refund_id: UUID) -> str:
    """The id the provider sees (letters and digits, 34 characters): the same row always asks the same refund."""
    return "SH" + refund_id.hex


async def on_cancel(uow: UnitOfWork, booking: Booking, now: datetime, new_id: Callable[[], UUID]) -> list[Refund]:
    """Record the refunds of a booking just cancelled (in the cancel's transaction) and ask for them after commit."""
    if booking.status is not BookingStatus.CANCELLED or booking.paid_cents <= 0:
        return []
    payments = await uow.payments.refundable_payments(booking.id)
    if not payments:
        return []
    version = (booking.acceptance or {}).get("policy_version")
    policy = (await uow.payments.policy(booking.unit_id, int(version)) if version is not None
              else await uow.payments.current_policy(booking.unit_id))
    hours = (booking.starts_at - now).total_seconds() / 3600
    percent = policy.refund_percent(booking.starts_at, now)
    made = []
    for p in payments:
        paid = share(p, booking)
        amount = paid * percent // 100
        rid = new_id()
        refund = Refund(id=rid, unit_id=booking.unit_id, booking_id=booking.id, payment_id=p["id"],
                        paid_cents=paid, amount_cents=amount, policy_version=policy.version,
                        percent=percent, hours_before_start=hours,
                        status=RefundStatus.REQUESTED if amount else RefundStatus.NOT_DUE, provider=p["provider"],
                        provider_refund_id=provider_refund_id(rid), created_at=now, updated_at=now)
        if not await uow.payments.add_refund(refund):
            continue
        made.append(refund)
        if amount:
            await uow.events.notify(booking.unit_id, RefundRequested(rid, booking.id))
    return made


async def refund_at_provider(deps: Deps, refund_id: UUID) -> RefundStatus | None:
    """One attempt at the provider (the job). None when there is nothing to do (settled, or being tried by another
    worker); raises ProviderUnavailable when the attempt failed and another will be made."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        refund = await uow.payments.claim_refund(refund_id, now, now + LEASE)
        if refund is None:
            return None
        payment = await uow.payments.payment(refund.payment_id)
        await uow.commit()
    provider = deps.provider
    if provider is None or provider.name != refund.provider:
        return await _give_up(deps, refund, f"provider {refund.provider} is not configured in this installation")
    pix = ReceivedPix(provider_payment_id=payment["provider_payment_id"], txid=payment["txid"],
                      amount_cents=payment["amount_cents"], paid_at=payment["paid_at"])
    try:
        ref = await provider.refund(pix, refund.amount_cents, refund.provider_refund_id)
    except ProviderUnavailable as e:
        if refund.attempts >= REFUND_ATTEMPTS:
            return await _give_up(deps, refund, str(e))
        async with deps.uow() as uow:
            await uow.payments.finish_refund(refund.id, RefundStatus.REQUESTED, deps.clock.now(), error=str(e))
            await uow.commit()
        raise
    except ValueError as e:  # refused for good (unknown payment, more than paid): retrying cannot help
        return await _give_up(deps, refund, str(e))
    async with deps.uow() as uow:
        await uow.payments.finish_refund(refund.id, RefundStatus.SUCCEEDED, deps.clock.now(), provider_ref=ref)
        await uow.commit()
    log.info("refund %s of booking %s: %d cents returned (%s)", refund.id, refund.booking_id, refund.amount_cents,
             ref)
    return RefundStatus.SUCCEEDED


async def _give_up(deps: Deps, refund: Refund, error: str) -> RefundStatus:
    now = deps.clock.now()
    log.warning("refund %s of booking %s failed for good after %d attempts: %s", refund.id, refund.booking_id,
                refund.attempts, error)
    async with deps.uow() as uow:
        await uow.payments.finish_refund(refund.id, RefundStatus.FAILED, now, error=error)
        await uow.queue.open(refund.unit_id, QueueItemType.REFUND_FAILED, now, refund.booking_id, {
            "refund_id": str(refund.id), "payment_id": str(refund.payment_id), "amount_cents": refund.amount_cents,
            "reason": error[:300]})
        await uow.commit()
    return RefundStatus.FAILED


async def stale(deps: Deps) -> list[tuple[UUID, int]]:
    """(refund id, attempts so far) of requested refunds whose job was lost; asking again is safe (idempotent)."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        ids = await uow.payments.stale_refunds(now - STALE, now)
        return [(i, (await uow.payments.refund(i)).attempts) for i in ids]


async def refund_if_cancelled_now(deps: Deps, booking_id: UUID) -> int:
    """What cancelling the booking now would send back, by the policy version it accepted and the hours left (what
    on_cancel would record then): 0 when nothing was paid or it cannot be cancelled."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        booking = await uow.bookings.get(booking_id)
        if booking.paid_cents <= 0 or booking.status not in (BookingStatus.CONFIRMED, BookingStatus.PENDING_PAYMENT,
                                                             BookingStatus.VERIFYING):
            return 0
        payments = await uow.payments.refundable_payments(booking.id)
        if not payments:
            return 0
        version = (booking.acceptance or {}).get("policy_version")
        policy = (await uow.payments.policy(booking.unit_id, int(version)) if version is not None
                  else await uow.payments.current_policy(booking.unit_id))
    percent = policy.refund_percent(booking.starts_at, now)
    return sum(share(p, booking) * percent // 100 for p in payments)


def share(payment: PaymentRow, booking: Booking) -> int:
    """What of a payment paid this booking: all of it, but never more than the booking was paid (a series period's
    one Pix pays each of its occurrences its own share)."""
    return min(int(payment["amount_cents"]), booking.paid_cents)


async def refunds_of(deps: Deps, booking_id: UUID) -> list[Refund]:
    """A booking's refunds, oldest first."""
    async with deps.uow() as uow:
        return list(await uow.payments.refunds_of(booking_id))
