"""Payments through the API with the sandbox provider: charge, pay, webhooks, paguei, the staff queue."""

from __future__ import annotations

import json
from typing import Any

from domain.pix import parse
from store.venues import ResourceSpec, VenueSpec, create_venue, every_day
from tests.api.conftest import Api
from tests.venues import at, cpf

HOLD = """
mutation($input: HoldInput!) { hold(input: $input) { __typename
  ... on BookingPayload { booking { id holdExpiresAt } } ... on Error { code message } } }
"""
CONFIRM = """
mutation($id: ID!, $key: String) { confirm(bookingId: $id, idempotencyKey: $key, channel: WHATSAPP,
                                           contact: "+5511999990001") {
  __typename
  ... on BookingPayload { replayed booking { status dueNowCents paidCents acceptance { priceVersion policyVersion
      paymentRule totalCents dueNowCents atVenueCents policySummary channel contact } }
    charge { txid amountCents status copiaECola qrCodePng expiresAt } }
  ... on Error { code message }
} }
"""
PAY = ('mutation($t: String!) { sandboxPay(txid: $t) { __typename ... on PaymentOutcome { outcome } '
       '... on Error { code message } } }')
BOOKING = 'query($id: ID!) { booking(id: $id) { ... on Booking { status paidCents } } }'


async def paid_venue(pool: Any) -> Any:
    return await create_venue(pool, VenueSpec(
        unit_name=f"Arena API pix {id(pool)}-{cpf(7)}", hours=every_day(8, 23),
        resources=[ResourceSpec(name=f"Campo {i}") for i in (1, 2)],
        services=[{"name": "Campo 1h", "duration_minutes": 60, "price_cents": 20000,
                   "payment_rule": "deposit_percent", "deposit_percent": 50}]))


async def held(api: Api, v: Any, field: str = "Campo 1", hour: int = 19, n: int = 1) -> str:
    r = await api.gql(HOLD, {"input": {
        "unitId": str(v.unit_id), "resourceIds": [str(v.resource_ids[field])], "startsAt": at(12, hour).isoformat(),
        "endsAt": at(12, hour + 1).isoformat(), "customer": {"cpf": cpf(400_000 + n)},
        "serviceId": str(v.service_ids["Campo 1h"])}})
    assert r["hold"]["__typename"] == "BookingPayload", r
    return str(r["hold"]["booking"]["id"])


async def test_confirm_charges_by_pix_and_the_sandbox_payment_confirms(api: Api, pool: Any) -> None:
    v = await paid_venue(pool)
    bid = await held(api, v)
    r = (await api.gql(CONFIRM, {"id": bid, "key": "c-1"}))["confirm"]
    assert r["__typename"] == "BookingPayload" and r["booking"]["status"] == "PENDING_PAYMENT"
    acc = r["booking"]["acceptance"]
    assert (acc["priceVersion"], acc["policyVersion"], acc["paymentRule"], acc["totalCents"], acc["dueNowCents"],
            acc["atVenueCents"], acc["channel"], acc["contact"]) == (1, 1, "DEPOSIT_PERCENT", 20000, 10000, 10000,
                                                                     "WHATSAPP", "+5511999990001")
    assert acc["policySummary"].startswith("Campo 1, sábado às 19h, 1 hora, R$ 200,00. Pagamento do sinal de 50% "
                                           "(R$ 100,00) agora e R$ 100,00 na arena. Cancelamento com 24 h")
    charge = r["charge"]
    assert charge["amountCents"] == 10000 and charge["status"] == "PENDING"
    assert parse(charge["copiaECola"])["54"] == "100.00"
    assert charge["qrCodePng"].startswith("data:image/png;base64,")
    again = (await api.gql(CONFIRM, {"id": bid, "key": "c-1"}))["confirm"]
    assert again["replayed"] is True and again["charge"]["txid"] == charge["txid"]  # no second charge
    assert (await api.gql(PAY, {"t": charge["txid"]}))["sandboxPay"]["outcome"] == "CONFIRMED"
    assert (await api.gql(BOOKING, {"id": bid}))["booking"] == {"status": "CONFIRMED", "paidCents": 10000}
    assert (await api.gql(PAY, {"t": charge["txid"]}))["sandboxPay"]["code"] == "sandbox_refused"


async def test_webhooks_are_authenticated_and_duplicates_are_harmless(api: Api, pool: Any) -> None:
    v = await paid_venue(pool)
    bid = await held(api, v)
    charge = (await api.gql(CONFIRM, {"id": bid}))["confirm"]["charge"]
    body = json.dumps({"pix": [{"endToEndId": "E12345678202612071200abcdefghijk", "txid": charge["txid"],
                                "valor": "100.00", "horario": "2026-12-07T12:01:00Z"}]}).encode()
    forged = await api.http.post("/webhooks/sandbox", content=body, headers={"content-type": "application/json",
                                                                             "x-sandbox-signature": "00" * 32})
    assert forged.status_code == 401
    unsigned = await api.http.post("/webhooks/sandbox", content=body)
    assert unsigned.status_code == 401
    assert (await api.gql(BOOKING, {"id": bid}))["booking"]["status"] == "PENDING_PAYMENT"
    from providers.sandbox import SIGNATURE_HEADER, sign

    good = {"content-type": "application/json", SIGNATURE_HEADER: sign("sandbox-secret", body)}
    first = await api.http.post("/webhooks/sandbox", content=body, headers=good)
    second = await api.http.post("/webhooks/sandbox", content=body, headers=good)
    assert first.json() == {"received": 1, "outcomes": ["confirmed"]}
    assert second.json() == {"received": 1, "outcomes": ["duplicate"]}
    assert (await api.http.post("/webhooks/mercadopago", content=body)).status_code == 404
    async with pool.acquire() as conn:
        receipts = await conn.fetch("SELECT authentic FROM webhook_receipts WHERE payload LIKE $1 ORDER BY id",
                                    f"%{charge['txid']}%")
    assert [r["authentic"] for r in receipts] == [False, False, True, True]


async def test_paguei_opens_a_critical_queue_item_that_staff_work(api: Api, pool: Any) -> None:
    v = await paid_venue(pool)
    bid = await held(api, v)
    await api.gql(CONFIRM, {"id": bid})
    claim = await api.gql('mutation($id: ID!) { claimPaid(bookingId: $id) { __typename ... on BookingPayload '
                          '{ booking { status holdExpiresAt } } } }', {"id": bid})
    assert claim["claimPaid"]["booking"]["status"] == "VERIFYING"
    q = await api.gql('query($u: ID!) { queue(unitId: $u) { id type title priority status bookingId } }',
                      {"u": str(v.unit_id)})
    (item,) = q["queue"]
    assert (item["type"], item["title"], item["priority"], item["bookingId"]) == (
        "CUSTOMER_SAYS_PAID", "Cliente diz que pagou", "CRITICAL", bid)
    not_found = await api.gql('mutation($id: ID!) { confirmPayment(bookingId: $id) { __typename ... on Error '
                              '{ code message } } }', {"id": bid})
    assert not_found["confirmPayment"] == {"__typename": "PaymentNotFound", "code": "payment_not_found",
                                           "message": "O PIX não foi localizado no banco."}
    denied = await api.gql('mutation($id: ID!) { denyPaymentClaim(bookingId: $id, reason: "comprovante falso") '
                           '{ __typename ... on BookingPayload { booking { status } } } }', {"id": bid})
    assert denied["denyPaymentClaim"]["booking"]["status"] == "EXPIRED"
    assert (await api.gql('query($u: ID!) { queue(unitId: $u) { id } }', {"u": str(v.unit_id)}))["queue"] == []


async def test_the_bank_failing_cancels_the_hold_and_alerts_the_queue(api: Api, pool: Any, monkeypatch: Any) -> None:
    v = await paid_venue(pool)
    provider = api.http._transport.app.state.slothold["provider"]  # type: ignore[attr-defined]
    monkeypatch.setattr(provider, "failing", True)
    for n in range(3):
        bid = await held(api, v, "Campo 1", 10 + n, n)
        r = (await api.gql(CONFIRM, {"id": bid}))["confirm"]
        assert (r["__typename"], r["code"]) == ("PaymentUnavailable", "payment_unavailable")
        assert (await api.gql(BOOKING, {"id": bid}))["booking"]["status"] == "CANCELLED"
    q = await api.gql('query($u: ID!) { queue(unitId: $u) { id title priority } }', {"u": str(v.unit_id)})
    (alert,) = q["queue"]
    assert (alert["title"], alert["priority"]) == ("Banco falhando ao gerar o PIX", "CRITICAL")
    ack = await api.gql('mutation($i: ID!) { acknowledgeQueueItem(itemId: $i) { __typename ... on QueueItem '
                        '{ status acknowledgedBy } } }', {"i": alert["id"]})
    assert ack["acknowledgeQueueItem"] == {"__typename": "QueueItem", "status": "ACKNOWLEDGED",
                                           "acknowledgedBy": "staff"}


async def test_new_price_and_policy_versions_never_touch_an_accepted_booking(api: Api, pool: Any) -> None:
    v = await paid_venue(pool)
    bid = await held(api, v)
    accepted = (await api.gql(CONFIRM, {"id": bid}))["confirm"]["booking"]["acceptance"]
    price = await api.gql("""mutation($u: ID!, $s: ID!) { publishServicePrice(unitId: $u, serviceId: $s,
        priceCents: 30000, paymentRule: FULL) { __typename ... on PriceVersion { version priceCents } } }""",
                          {"u": str(v.unit_id), "s": str(v.service_ids["Campo 1h"])})
    assert price["publishServicePrice"] == {"__typename": "PriceVersion", "version": 2, "priceCents": 30000}
    policy = await api.gql("""mutation($u: ID!) { publishCancellationPolicy(unitId: $u, tiers: [
        {minHours: 48, percent: 100}, {minHours: 0, percent: 0}]) { __typename ... on PolicyVersion { version summary }
        } }""", {"u": str(v.unit_id)})
    assert policy["publishCancellationPolicy"]["version"] == 2
    bad = await api.gql("""mutation($u: ID!, $s: ID!) { publishServicePrice(unitId: $u, serviceId: $s,
        priceCents: 100, paymentRule: DEPOSIT_PERCENT) { __typename ... on InvalidInput { field } } }""",
                        {"u": str(v.unit_id), "s": str(v.service_ids["Campo 1h"])})
    assert bad["publishServicePrice"] == {"__typename": "InvalidInput", "field": "depositPercent"}
    after = await api.gql('query($id: ID!) { booking(id: $id) { ... on Booking { acceptance { priceVersion '
                          'policyVersion totalCents } } } }', {"id": bid})
    assert after["booking"]["acceptance"] == {"priceVersion": accepted["priceVersion"], "policyVersion": 1,
                                              "totalCents": 20000}
    other = await held(api, v, "Campo 2", 19, 2)
    fresh = (await api.gql(CONFIRM, {"id": other}))["confirm"]["booking"]["acceptance"]
    assert (fresh["priceVersion"], fresh["policyVersion"], fresh["totalCents"], fresh["paymentRule"]) == (
        2, 2, 30000, "FULL")
