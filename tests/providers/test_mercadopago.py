"""The MercadoPago client against a fake MercadoPago served over real HTTP, and its webhook signature."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from domain.payments import ProviderUnavailable, ReceivedPix, WebhookRejected
from domain.pix import parse
from providers import ChargeNotFound
from providers.mercadopago import MercadoPagoProvider, manifest
from tests.conftest import MutableClock
from tests.providers.fakes import FakeMercadoPago

SECRET = "mp-webhook-secret-abc"


def new_txid() -> str:
    return uuid.uuid4().hex


def signed(data_id: str, request_id: str | None = "req-7b1d", ts: str = "1704908010",
           secret: str = SECRET) -> dict[str, str]:
    """The headers MercadoPago sends, signed as it documents."""
    text = f"id:{data_id.lower() if data_id.isalnum() else data_id};"
    if request_id:
        text += f"request-id:{request_id};"
    text += f"ts:{ts};"
    v1 = hmac.new(secret.encode(), text.encode(), hashlib.sha256).hexdigest()
    headers = {"x-signature": f"ts={ts},v1={v1}", "content-type": "application/json"}
    if request_id:
        headers["x-request-id"] = request_id
    return headers


def notification(data_id: str, kind: str = "payment") -> bytes:
    return json.dumps({"action": f"{kind}.updated", "api_version": "v1", "data": {"id": data_id},
                       "date_created": "2026-12-07T09:00:00Z", "id": 12345, "live_mode": False,
                       "type": kind, "user_id": "44444"}).encode()


@pytest.fixture
def clock() -> MutableClock:
    return MutableClock(datetime.now(UTC))


@pytest.fixture
async def mercadopago(mp: FakeMercadoPago, mp_url: str, clock: MutableClock) -> AsyncIterator[MercadoPagoProvider]:
    provider = MercadoPagoProvider(mp.access_token, SECRET, base_url=mp_url, timeout=0.3, clock=clock)
    yield provider
    await provider.aclose()


async def test_create_sends_the_documented_payment_and_answers_its_id_and_qr_code(
        mercadopago: MercadoPagoProvider, mp: FakeMercadoPago, clock: MutableClock) -> None:
    txid = new_txid()
    expires = datetime(2030, 5, 30, 23, 59, 59, 123456, tzinfo=UTC)
    charge = await mercadopago.create_charge(txid, 12345, expires, "Quadra 1, segunda 19h")
    _, _, body = mp.requests[-1]
    assert body == {"transaction_amount": Decimal("123.45"), "description": "Quadra 1, segunda 19h",
                    "payment_method_id": "pix", "payer": {"email": "pagador@slothold.dev"},
                    "date_of_expiration": "2030-05-30T23:59:59.123+00:00", "external_reference": txid}
    assert mp.idempotency_keys == [txid]
    assert charge.provider_ref == "1320000001"
    assert parse(charge.brcode)["54"] == "123.45"
    again = await mercadopago.create_charge(txid, 12345, expires, "Quadra 1, segunda 19h")
    assert again == charge and mp.idempotency_keys == [txid, txid] and len(mp.payments) == 1


async def test_lookup_pending_paid_cancelled_expired(
        mercadopago: MercadoPagoProvider, mp: FakeMercadoPago, clock: MutableClock) -> None:
    txid = new_txid()
    charge = await mercadopago.create_charge(txid, 30, clock.now() + timedelta(minutes=13), "")
    ref = charge.provider_ref
    assert (await mercadopago.lookup_charge(txid, ref)).status == "pending"
    # MercadoPago takes no Pix expiring in under 30 minutes: the charge was asked for 30 (Slothold cancels it
    # itself when the hold ends first).
    sent = [body for method, path, body in mp.requests if method == "POST" and path == "/v1/payments"][-1]
    assert abs(datetime.fromisoformat(sent["date_of_expiration"]) - (clock.now() + timedelta(minutes=30))) < timedelta(
        milliseconds=1)
    clock.advance(minutes=14)
    assert (await mercadopago.lookup_charge(txid, ref)).status == "pending"
    clock.advance(minutes=17)
    assert (await mercadopago.lookup_charge(txid, ref)).status == "expired"  # past date_of_expiration
    approved_at = datetime(2026, 12, 7, 9, 0, 1, 500000, tzinfo=UTC)
    mp.approve(ref, approved_at)
    looked = await mercadopago.lookup_charge(txid, ref)
    assert looked.status == "paid"
    assert looked.payments == (ReceivedPix(ref, txid, 30, approved_at),)  # 0.3 → exactly 30 cents

    other = await mercadopago.create_charge(new_txid(), 199999, clock.now() + timedelta(minutes=13), "")
    mp.payments[other.provider_ref].update(status="cancelled", status_detail="expired")
    assert (await mercadopago.lookup_charge("", other.provider_ref)).status == "expired"
    mp.payments[other.provider_ref].update(status="cancelled", status_detail="by_collector")
    assert (await mercadopago.lookup_charge("", other.provider_ref)).status == "cancelled"
    mp.payments[other.provider_ref].update(status="refunded", date_approved="2026-12-07T09:00:00.000-03:00")
    refunded = await mercadopago.lookup_charge("", other.provider_ref)
    assert refunded.status == "paid" and refunded.payments[0].amount_cents == 199999
    with pytest.raises(ChargeNotFound):
        await mercadopago.lookup_charge("", "999")


async def test_cancel_is_idempotent(mercadopago: MercadoPagoProvider, mp: FakeMercadoPago,
                                    clock: MutableClock) -> None:
    charge = await mercadopago.create_charge(new_txid(), 1000, clock.now() + timedelta(minutes=13), "")
    await mercadopago.cancel_charge("", charge.provider_ref)
    assert mp.requests[-1] == ("PUT", f"/v1/payments/{charge.provider_ref}", {"status": "cancelled"})
    assert (await mercadopago.lookup_charge("", charge.provider_ref)).status == "cancelled"
    await mercadopago.cancel_charge("", charge.provider_ref)  # the fake answers 400 now: still fine
    paid = await mercadopago.create_charge(new_txid(), 1000, clock.now() + timedelta(minutes=13), "")
    mp.approve(paid.provider_ref)
    await mercadopago.cancel_charge("", paid.provider_ref)
    assert (await mercadopago.lookup_charge("", paid.provider_ref)).status == "paid"
    await mercadopago.cancel_charge("", "999")  # unknown


async def test_refund(mercadopago: MercadoPagoProvider, mp: FakeMercadoPago, clock: MutableClock) -> None:
    txid = new_txid()
    charge = await mercadopago.create_charge(txid, 10000, clock.now() + timedelta(minutes=13), "")
    mp.approve(charge.provider_ref)
    [payment] = (await mercadopago.lookup_charge(txid, charge.provider_ref)).payments
    refund_id = await mercadopago.refund(payment, 5000, "refund-1")
    assert refund_id == "9000001"
    assert mp.requests[-1] == ("POST", f"/v1/payments/{charge.provider_ref}/refunds", {"amount": Decimal("50.0")})
    assert mp.idempotency_keys[-1] == "refund-1"
    assert await mercadopago.refund(payment, 5000, "refund-1") == refund_id
    with pytest.raises(ValueError, match="more than"):
        await mercadopago.refund(payment, 10001, "refund-2")
    with pytest.raises(ProviderUnavailable, match=r"refund: refused \(HTTP 400\): Invalid refund amount"):
        await mercadopago.refund(payment, 6000, "refund-3")


@pytest.mark.parametrize("fault", ["500", "timeout", "malformed"])
async def test_faults_make_the_provider_unavailable(
        mercadopago: MercadoPagoProvider, mp: FakeMercadoPago, clock: MutableClock, fault: str) -> None:
    charge = await mercadopago.create_charge(new_txid(), 1000, clock.now() + timedelta(minutes=13), "")
    mp.fault, mp.delay = fault, 0.6
    expected = {"500": "HTTP 500", "timeout": "timed out", "malformed": "malformed"}[fault]
    with pytest.raises(ProviderUnavailable, match=expected):
        await mercadopago.create_charge(new_txid(), 1000, clock.now() + timedelta(minutes=13), "")
    with pytest.raises(ProviderUnavailable, match=expected):
        await mercadopago.lookup_charge("", charge.provider_ref)
    # a valid notification whose payment cannot be fetched: unavailable (the webhook is retried later)
    with pytest.raises(ProviderUnavailable, match=expected):
        ref = charge.provider_ref
        await mercadopago.parse_webhook(signed(ref), {"data.id": ref, "type": "payment"}, notification(ref))
    mp.fault = None
    assert (await mercadopago.lookup_charge("", charge.provider_ref)).status == "pending"


async def test_refused_creation_and_bad_token_are_unavailable(
        mp: FakeMercadoPago, mp_url: str, clock: MutableClock) -> None:
    provider = MercadoPagoProvider("TEST-wrong-token", SECRET, base_url=mp_url)
    try:
        with pytest.raises(ProviderUnavailable, match=r"create charge: refused \(HTTP 401\): invalid access token"):
            await provider.create_charge(new_txid(), 1000, clock.now() + timedelta(minutes=13), "")
    finally:
        await provider.aclose()


async def test_a_signed_payment_notification_answers_the_approved_payment(
        mercadopago: MercadoPagoProvider, mp: FakeMercadoPago, clock: MutableClock) -> None:
    txid = new_txid()
    charge = await mercadopago.create_charge(txid, 4590, clock.now() + timedelta(minutes=13), "")
    ref = charge.provider_ref
    query = {"data.id": ref, "type": "payment"}
    assert await mercadopago.parse_webhook(signed(ref), query, notification(ref)) == []  # still pending
    mp.approve(ref)
    [pix] = await mercadopago.parse_webhook(signed(ref), query, notification(ref))
    assert (pix.provider_payment_id, pix.txid, pix.amount_cents) == (ref, txid, 4590)
    # without x-request-id, the manifest leaves that part out (as documented)
    assert await mercadopago.parse_webhook(signed(ref, request_id=None), query, notification(ref)) == [pix]
    # the type may come only from the body; the body may even be empty
    assert await mercadopago.parse_webhook(signed(ref), {"data.id": ref}, notification(ref)) == [pix]
    assert await mercadopago.parse_webhook(signed(ref), query, b"") == [pix]
    # not a payment notification: nothing fetched, nothing answered
    assert await mercadopago.parse_webhook(signed(ref), {"data.id": ref, "type": "plan"},
                                           notification(ref, "plan")) == []
    # an unknown payment (e.g. the dashboard's "simulate" button) is nothing
    assert await mercadopago.parse_webhook(signed("123456"), {"data.id": "123456", "type": "payment"}, b"") == []


async def test_forged_missing_and_tampered_notifications_are_rejected(
        mercadopago: MercadoPagoProvider, mp: FakeMercadoPago, clock: MutableClock) -> None:
    charge = await mercadopago.create_charge(new_txid(), 1000, clock.now() + timedelta(minutes=13), "")
    ref = charge.provider_ref
    mp.approve(ref)
    query, body = {"data.id": ref, "type": "payment"}, notification(ref)
    cases = {
        "no x-signature": ({"x-request-id": "req-7b1d"}, query, body),
        "lacks ts or v1": ({"x-signature": "ts=1704908010"}, query, body),
        "does not match": (signed(ref, secret="someone-else"), query, body),
        "does not match ": ({**signed(ref), "x-request-id": "req-other"}, query, body),
        "does not match  ": ({**signed(ref), "x-signature": signed(ref)["x-signature"].replace("ts=1704908010",
                                                                                              "ts=1704908011")},
                             query, body),
        "does not match   ": (signed(ref), {**query, "data.id": "1320000002"}, body),
        "no data.id": (signed(ref), {"type": "payment"}, body),
        "differs from the signed": (signed(ref), query, notification("1320000002")),
        "not JSON": (signed(ref), query, b"{oops"),
    }
    for reason, (headers, q, b) in cases.items():
        with pytest.raises(WebhookRejected, match=reason.strip()):
            await mercadopago.parse_webhook(headers, q, b)


def test_the_manifest_follows_mercadopagos_rules() -> None:
    assert manifest("123456", "req-1", "1704908010") == "id:123456;request-id:req-1;ts:1704908010;"
    assert manifest("ABC123def", "req-1", "1") == "id:abc123def;request-id:req-1;ts:1;"  # alphanumeric → lower
    assert manifest("ABC-123", "req-1", "1") == "id:ABC-123;request-id:req-1;ts:1;"  # not alphanumeric: as is
    assert manifest("123", None, "1") == "id:123;ts:1;"
    assert manifest("", "req-1", "1") == "request-id:req-1;ts:1;"


async def test_an_alphanumeric_data_id_is_signed_lowercased(mercadopago: MercadoPagoProvider) -> None:
    headers = signed("ORD01ABCDEF")  # signs id:ord01abcdef
    assert await mercadopago.parse_webhook(headers, {"data.id": "ORD01ABCDEF", "type": "order"}, b"") == []
    text = "id:ORD01ABCDEF;request-id:req-7b1d;ts:1704908010;"  # a signature over the raw case is not MercadoPago's
    v1 = hmac.new(SECRET.encode(), text.encode(), hashlib.sha256).hexdigest()
    with pytest.raises(WebhookRejected):
        await mercadopago.parse_webhook({"x-signature": f"ts=1704908010,v1={v1}", "x-request-id": "req-7b1d"},
                                        {"data.id": "ORD01ABCDEF", "type": "order"}, b"")
    assert re.fullmatch(r"[0-9a-f]{64}", v1)
