"""The sandbox bank (SPEC §7): charges in `sandbox_charges`, pay → signed webhook → parse, late payments."""

from __future__ import annotations

import json
import re
import uuid
from datetime import UTC, datetime, timedelta

import asyncpg
import pytest

from domain.payments import ProviderUnavailable, ReceivedPix, WebhookRejected
from domain.pix import parse
from providers import ChargeNotFound
from providers.sandbox import SIGNATURE_HEADER, SandboxProvider
from tests.conftest import MutableClock

SECRET = "sandbox-test-secret"
T0 = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)


def new_txid() -> str:
    return uuid.uuid4().hex  # 32 letters and digits


@pytest.fixture
def clock() -> MutableClock:
    return MutableClock(T0)


@pytest.fixture
def sandbox(pool: asyncpg.Pool, clock: MutableClock) -> SandboxProvider:
    return SandboxProvider(pool, SECRET, clock=clock)


async def test_create_gives_a_valid_dynamic_br_code_and_a_pending_charge(sandbox: SandboxProvider) -> None:
    txid = new_txid()
    charge = await sandbox.create_charge(txid, 12345, T0 + timedelta(minutes=13), "Quadra 1, segunda 19h")
    assert charge.provider_ref == txid
    fields = parse(charge.brcode)
    assert fields["54"] == "123.45"
    assert f"sandbox.slothold.dev/qr/{txid}" in fields["26"]
    assert fields["59"] == "SLOTHOLD SANDBOX"
    assert (await sandbox.lookup_charge(txid, charge.provider_ref)).status == "pending"


async def test_creating_again_is_a_retry_but_reusing_a_txid_for_another_charge_is_refused(
        sandbox: SandboxProvider) -> None:
    txid, expires = new_txid(), T0 + timedelta(minutes=13)
    first = await sandbox.create_charge(txid, 5000, expires, "x")
    assert await sandbox.create_charge(txid, 5000, expires, "x") == first
    with pytest.raises(ValueError, match="already used"):
        await sandbox.create_charge(txid, 6000, expires, "x")
    with pytest.raises(ValueError, match="txid"):
        await sandbox.create_charge("short", 5000, expires, "x")
    with pytest.raises(ValueError, match="timezone"):
        await sandbox.create_charge(new_txid(), 5000, expires.replace(tzinfo=None), "x")


async def test_lookup_states_pending_expired_cancelled_paid(sandbox: SandboxProvider, clock: MutableClock) -> None:
    txid = new_txid()
    await sandbox.create_charge(txid, 1000, T0 + timedelta(minutes=10), "")
    assert (await sandbox.lookup_charge(txid, txid)).status == "pending"
    clock.advance(minutes=10)
    assert (await sandbox.lookup_charge(txid, txid)).status == "expired"
    await sandbox.cancel_charge(txid, txid)
    await sandbox.cancel_charge(txid, txid)  # idempotent
    assert (await sandbox.lookup_charge(txid, txid)).status == "cancelled"
    await sandbox.pay(txid)
    looked = await sandbox.lookup_charge(txid, txid)
    assert looked.status == "paid" and looked.payments[0].amount_cents == 1000
    await sandbox.cancel_charge(txid, txid)  # a paid charge stays paid
    assert (await sandbox.lookup_charge(txid, txid)).status == "paid"
    with pytest.raises(ChargeNotFound):
        await sandbox.lookup_charge(new_txid(), "")
    await sandbox.cancel_charge(new_txid(), "")  # nothing to cancel: fine


async def test_pay_webhook_parse_round_trip(sandbox: SandboxProvider, clock: MutableClock) -> None:
    txid = new_txid()
    await sandbox.create_charge(txid, 9990, T0 + timedelta(minutes=13), "")
    paid_at = T0 + timedelta(minutes=2, seconds=3, microseconds=456789)
    headers, body = await sandbox.pay(txid, at=paid_at)
    document = json.loads(body)
    [entry] = document["pix"]
    assert set(entry) == {"endToEndId", "txid", "valor", "horario"}
    assert entry["valor"] == "99.90" and entry["txid"] == txid
    assert re.fullmatch(r"E99999999202612071202[A-Za-z0-9]{11}", entry["endToEndId"])
    assert len(entry["endToEndId"]) == 32
    assert headers[SIGNATURE_HEADER] and headers["content-type"] == "application/json"

    received = await sandbox.parse_webhook(headers, {}, body)
    assert received == [ReceivedPix(entry["endToEndId"], txid, 9990, paid_at.replace(microsecond=456000))]
    looked = await sandbox.lookup_charge(txid, txid)
    assert looked.status == "paid" and list(looked.payments) == received
    # header names are case-insensitive, as HTTP's
    upper = {k.upper(): v for k, v in headers.items()}
    assert await sandbox.parse_webhook(upper, {}, body) == received


async def test_a_second_payment_of_a_paid_charge_is_refused(sandbox: SandboxProvider) -> None:
    txid = new_txid()
    await sandbox.create_charge(txid, 1500, T0 + timedelta(minutes=13), "")
    await sandbox.pay(txid)
    with pytest.raises(ValueError, match="already paid"):
        await sandbox.pay(txid)
    with pytest.raises(ValueError, match="no charge"):
        await sandbox.pay(new_txid())


async def test_late_payments_of_a_cancelled_or_expired_charge_go_through(
        sandbox: SandboxProvider, clock: MutableClock) -> None:
    cancelled, expired = new_txid(), new_txid()
    await sandbox.create_charge(cancelled, 2000, T0 + timedelta(minutes=13), "")
    await sandbox.create_charge(expired, 2000, T0 + timedelta(minutes=1), "")
    await sandbox.cancel_charge(cancelled, cancelled)
    clock.advance(minutes=30)
    for txid in (cancelled, expired):
        headers, body = await sandbox.pay(txid)
        [pix] = await sandbox.parse_webhook(headers, {}, body)
        assert pix.txid == txid and pix.paid_at == T0 + timedelta(minutes=30)
        assert (await sandbox.lookup_charge(txid, txid)).status == "paid"


async def test_a_different_amount_paid_is_what_the_bank_reports(sandbox: SandboxProvider) -> None:
    txid = new_txid()
    await sandbox.create_charge(txid, 2000, T0 + timedelta(minutes=13), "")
    headers, body = await sandbox.pay(txid, amount_cents=1000)
    [pix] = await sandbox.parse_webhook(headers, {}, body)
    assert pix.amount_cents == 1000
    assert (await sandbox.lookup_charge(txid, txid)).payments[0].amount_cents == 1000


async def test_forged_missing_and_tampered_webhooks_are_rejected(sandbox: SandboxProvider) -> None:
    txid = new_txid()
    await sandbox.create_charge(txid, 3000, T0 + timedelta(minutes=13), "")
    headers, body = await sandbox.pay(txid)
    with pytest.raises(WebhookRejected, match="no signature"):
        await sandbox.parse_webhook({"content-type": "application/json"}, {}, body)
    with pytest.raises(WebhookRejected, match="does not match"):
        await sandbox.parse_webhook({SIGNATURE_HEADER: "0" * 64}, {}, body)
    with pytest.raises(WebhookRejected, match="does not match"):
        await sandbox.parse_webhook({SIGNATURE_HEADER: "não-ascii-é"}, {}, body)
    tampered = body.replace(b'"30.00"', b'"3000.00"')
    assert tampered != body
    with pytest.raises(WebhookRejected, match="does not match"):
        await sandbox.parse_webhook(headers, {}, tampered)
    other_bank = SandboxProvider(sandbox.pool, "another-secret")
    with pytest.raises(WebhookRejected):
        await other_bank.parse_webhook(headers, {}, body)
    # signed but not understood
    bad_headers, bad_body = sandbox.webhook_for()
    assert await sandbox.parse_webhook(bad_headers, {}, bad_body) == []
    garbage = b'{"pix": [{"valor": "1.00"}]}'
    from providers.sandbox import sign

    with pytest.raises(WebhookRejected, match="not understood"):
        await sandbox.parse_webhook({SIGNATURE_HEADER: sign(SECRET, garbage)}, {}, garbage)


async def test_refunds_up_to_the_amount_paid(sandbox: SandboxProvider) -> None:
    txid = new_txid()
    await sandbox.create_charge(txid, 10000, T0 + timedelta(minutes=13), "")
    headers, body = await sandbox.pay(txid)
    [pix] = await sandbox.parse_webhook(headers, {}, body)
    first = await sandbox.refund(pix, 5000, "refund1")
    assert re.fullmatch(r"D99999999\d{12}[a-f0-9]{11}", first)
    assert await sandbox.refund(pix, 5000, "refund1") == first  # same refund id, same answer
    assert await sandbox.refund(pix, 10000, "refund2") != first
    with pytest.raises(ValueError, match="more than"):
        await sandbox.refund(pix, 10001, "refund3")
    with pytest.raises(ValueError, match="positive"):
        await sandbox.refund(pix, 0, "refund4")
    with pytest.raises(ValueError, match="no payment"):
        await sandbox.refund(ReceivedPix("E000", txid, 100, T0), 100, "refund5")


async def test_failing_makes_every_call_unavailable_in_this_process_only(
        sandbox: SandboxProvider, pool: asyncpg.Pool) -> None:
    txid = new_txid()
    await sandbox.create_charge(txid, 700, T0 + timedelta(minutes=13), "")
    headers, body = await sandbox.pay(txid)
    [pix] = await sandbox.parse_webhook(headers, {}, body)
    sandbox.failing = True
    calls = [
        sandbox.create_charge(new_txid(), 700, T0 + timedelta(minutes=13), ""),
        sandbox.cancel_charge(txid, txid),
        sandbox.lookup_charge(txid, txid),
        sandbox.parse_webhook(headers, {}, body),
        sandbox.refund(pix, 700, "r1"),
    ]
    for call in calls:
        with pytest.raises(ProviderUnavailable, match="down"):
            await call
    other = SandboxProvider(pool, SECRET)  # another process's view of the same bank is up
    assert (await other.lookup_charge(txid, txid)).status == "paid"
    sandbox.failing = False
    assert (await sandbox.lookup_charge(txid, txid)).status == "paid"
