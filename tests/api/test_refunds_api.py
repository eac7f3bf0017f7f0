"""Refunds through the API: cancelling a paid booking shows its refund, and the booking's refunded amount once the
sandbox bank sent it back (SPEC §7 "Refunds")."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from domain import refunds
from domain.services import Deps
from providers.sandbox import SandboxProvider
from schema.ids import decode_id
from store.uow import PgUnitOfWork
from tests.api.conftest import Api
from tests.api.test_payments_api import CONFIRM, PAY, held, paid_venue
from tests.venues import at

REFUND_FIELDS = "refunds { amountCents paidCents percent policyVersion status providerRef attempts }"
CANCEL = ('mutation($id: ID!) { cancel(bookingId: $id, reason: "imprevisto") { __typename ... on BookingPayload { '
          'booking { status paidCents refundedCents ' + REFUND_FIELDS + ' } } ... on Error { code message } } }')
BOOKING = ('query($id: ID!) { booking(id: $id) { ... on Booking { status paidCents refundedCents '
           + REFUND_FIELDS + ' } } }')


async def test_a_cancelled_paid_booking_shows_its_refund_until_the_bank_sent_it(
        api: Api, pool: Any, clock: Any) -> None:
    v = await paid_venue(pool)
    bid = await held(api, v)
    charge = (await api.gql(CONFIRM, {"id": bid}))["confirm"]["charge"]
    assert (await api.gql(PAY, {"t": charge["txid"]}))["sandboxPay"]["outcome"] == "CONFIRMED"
    async with pool.acquire() as conn:  # a newer policy (all back, always) must not apply to this booking
        await conn.execute("INSERT INTO cancellation_policies (unit_id, version, tiers) VALUES ($1, 2, $2)",
                           v.unit_id, [{"min_hours": 0, "percent": 100}])
        await conn.execute("UPDATE units SET policy_version = 2 WHERE id = $1", v.unit_id)
    clock.set(at(12, 19) - timedelta(hours=12))  # 12 h before: 50 % by version 1
    # What cancelling now would refund, read before cancelling (the widget shows it first; issue 20).
    preview = "query($id: ID!) { booking(id: $id) { ... on Booking { refundIfCancelledNowCents } } }"
    assert (await api.gql(preview, {"id": bid}))["booking"] == {"refundIfCancelledNowCents": 5000}
    r = (await api.gql(CANCEL, {"id": bid}))["cancel"]
    assert r["__typename"] == "BookingPayload", r
    assert r["booking"] == {"status": "CANCELLED", "paidCents": 10000, "refundedCents": 0, "refunds": [
        {"amountCents": 5000, "paidCents": 10000, "percent": 50, "policyVersion": 1, "status": "REQUESTED",
         "providerRef": None, "attempts": 0}]}
    # The worker's job (here run by hand with the same sandbox bank the API uses).
    deps = Deps(uow=lambda: PgUnitOfWork(pool), clock=clock,
                provider=SandboxProvider(pool, "sandbox-secret", clock=clock))
    [refund] = await refunds.refunds_of(deps, decode_id(bid)[1])
    assert await refunds.refund_at_provider(deps, refund.id) is refunds.RefundStatus.SUCCEEDED
    b = (await api.gql(BOOKING, {"id": bid}))["booking"]
    assert (b["paidCents"], b["refundedCents"]) == (10000, 5000)
    assert (await api.gql(preview, {"id": bid}))["booking"] == {"refundIfCancelledNowCents": 0}  # cancelled
    [shown] = b["refunds"]
    assert shown["status"] == "SUCCEEDED" and shown["attempts"] == 1 and shown["providerRef"].startswith("D9999")
