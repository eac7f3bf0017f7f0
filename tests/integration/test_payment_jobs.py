"""Payment jobs across real processes: the provider is told about cancelled charges; claimed payments are polled."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from schema.ids import decode_id
from store.venues import ResourceSpec, VenueSpec, create_venue, every_day
from tests.integration.cluster import cluster, gql, wait_until
from tests.venues import cpf

SP = ZoneInfo("America/Sao_Paulo")


def tomorrow(hour: int) -> str:
    day = (datetime.now(SP) + timedelta(days=1)).date()
    return datetime(day.year, day.month, day.day, hour, tzinfo=SP).isoformat()


HOLD = """mutation($input: HoldInput!) { hold(input: $input) { ... on BookingPayload { booking { id } } } }"""
CONFIRM = """mutation($id: ID!) { confirm(bookingId: $id) { ... on BookingPayload { charge { txid } } } }"""


async def test_cancelled_charges_reach_the_bank_and_claimed_payments_are_found_by_polling(
    database_url: str, redis_url: str, pool: Any, tmp_path: Path
) -> None:
    v = await create_venue(pool, VenueSpec(
        unit_name=f"Arena jobs {tmp_path.name}", hours=every_day(8, 23), resources=[ResourceSpec(name="Campo 1")],
        services=[{"name": "1h", "duration_minutes": 60, "price_cents": 8000}]))

    async def hold_and_confirm(port: int, hour: int, n: int) -> tuple[str, str]:
        made = await gql(port, HOLD, {"input": {
            "unitId": str(v.unit_id), "resourceIds": [str(v.resource_ids["Campo 1"])], "startsAt": tomorrow(hour),
            "endsAt": tomorrow(hour + 1), "customer": {"cpf": cpf(500_000 + n)},
            "serviceId": str(v.service_ids["1h"])}})
        bid = made["hold"]["booking"]["id"]
        return bid, (await gql(port, CONFIRM, {"id": bid}))["confirm"]["charge"]["txid"]

    async def bank_status(txid: str) -> str:
        async with pool.acquire() as conn:
            return str(await conn.fetchval("SELECT status FROM sandbox_charges WHERE txid = $1", txid))

    with cluster(database_url, redis_url, tmp_path, apis=1, workers=1, SLOTHOLD_POLL_SECONDS="2") as c:
        port = c.apis[0][1]
        cancelled, txid = await hold_and_confirm(port, 10, 1)
        await gql(port, 'mutation($id: ID!) { cancel(bookingId: $id) { __typename } }', {"id": cancelled})

        async def removed() -> bool:
            return await bank_status(txid) == "REMOVIDA_PELO_USUARIO_RECEBEDOR"

        assert await wait_until(removed, timeout=10), c.logs()

        claimed, txid2 = await hold_and_confirm(port, 12, 2)
        await gql(port, 'mutation($id: ID!) { claimPaid(bookingId: $id) { __typename } }', {"id": claimed})
        from providers.sandbox import SandboxProvider

        await SandboxProvider(pool, "sandbox-secret").pay(txid2)  # paid at the bank; its webhook is lost

        async def confirmed() -> bool:
            async with pool.acquire() as conn:
                status = await conn.fetchval("SELECT status FROM bookings WHERE id = $1", decode_id(claimed)[1])
                return bool(status == "confirmed")

        assert await wait_until(confirmed, timeout=15), c.logs()


async def test_the_cli_pays_a_sandbox_charge(database_url: str, pool: Any, deps: Any) -> None:
    import asyncio
    import os
    import sys
    from dataclasses import replace

    from domain import checkout
    from domain.services import HoldCommand, hold
    from providers.sandbox import SandboxProvider
    from tests.venues import customer

    v = await create_venue(pool, VenueSpec(
        unit_name=f"Arena cli {cpf(9)}-{id(pool)}", hours=every_day(8, 23), resources=[ResourceSpec(name="Campo 1")],
        services=[{"name": "1h", "duration_minutes": 60, "price_cents": 5000}]))
    sandbox = SandboxProvider(pool, "sandbox-secret", clock=deps.clock)
    d = replace(deps, provider=sandbox)
    start = deps.clock.now() + timedelta(days=1)
    start = start.replace(minute=0, second=0, microsecond=0).astimezone(SP).replace(hour=10)
    b = (await hold(d, HoldCommand(v.unit_id, start, start + timedelta(hours=1), (v.resource_ids["Campo 1"],),
                                   customer=customer(77), service_id=v.service_ids["1h"]))).booking
    charge = (await checkout.confirm(d, checkout.ConfirmCommand(b.id))).charge
    assert charge is not None
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "slothold.cli", "sandbox-pay", charge.txid,
        env={**os.environ, "DATABASE_URL": database_url},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    out, _ = await proc.communicate()
    assert proc.returncode == 0, out
    assert f"paid {charge.txid}" in out.decode()
    async with pool.acquire() as conn:
        # The CLI pays on the real clock; in time or late, the slot is free, so the booking confirms.
        assert await conn.fetchval("SELECT status FROM bookings WHERE id = $1", b.id) == "confirmed"


async def test_the_staff_queue_is_live_on_a_subscription(
    database_url: str, redis_url: str, pool: Any, tmp_path: Path
) -> None:
    from tests.integration.cluster import WsClient

    v = await create_venue(pool, VenueSpec(
        unit_name=f"Arena queue {tmp_path.name}", hours=every_day(8, 23), resources=[ResourceSpec(name="Campo 1")],
        services=[{"name": "1h", "duration_minutes": 60, "price_cents": 8000}]))
    with cluster(database_url, redis_url, tmp_path, apis=1, workers=1) as c:
        port = c.apis[0][1]
        ws = await WsClient.connect(port)
        await ws.subscribe("subscription($u: ID!) { queueChanged(unitId: $u) { seq kind type title priority "
                           "bookingId itemId } }", {"u": str(v.unit_id)})
        made = await gql(port, HOLD, {"input": {
            "unitId": str(v.unit_id), "resourceIds": [str(v.resource_ids["Campo 1"])], "startsAt": tomorrow(10),
            "endsAt": tomorrow(11), "customer": {"cpf": cpf(600_001)}, "serviceId": str(v.service_ids["1h"])}})
        bid = made["hold"]["booking"]["id"]
        await gql(port, CONFIRM, {"id": bid})
        await gql(port, 'mutation($id: ID!) { claimPaid(bookingId: $id) { __typename } }', {"id": bid})
        (opened,) = await ws.collect(1)
        item = opened["queueChanged"]
        assert (item["kind"], item["type"], item["title"], item["priority"], item["bookingId"]) == (
            "OPENED", "CUSTOMER_SAYS_PAID", "Cliente diz que pagou", "CRITICAL", bid)
        await gql(port, 'mutation($id: ID!) { denyPaymentClaim(bookingId: $id) { __typename } }', {"id": bid})
        (resolved,) = await ws.collect(1)
        assert (resolved["queueChanged"]["kind"], resolved["queueChanged"]["itemId"]) == ("RESOLVED", item["itemId"])
        await ws.close()


async def test_waitlist_changes_are_live(database_url: str, redis_url: str, pool: Any, tmp_path: Path) -> None:
    from tests.integration.cluster import WsClient

    v = await create_venue(pool, VenueSpec(
        unit_name=f"Arena wl live {tmp_path.name}", hours=every_day(8, 23), resources=[ResourceSpec(name="Campo 1")]))
    with cluster(database_url, redis_url, tmp_path, apis=1, workers=1) as c:
        port = c.apis[0][1]
        taken = await gql(port, HOLD, {"input": {
            "unitId": str(v.unit_id), "resourceIds": [str(v.resource_ids["Campo 1"])], "startsAt": tomorrow(18),
            "endsAt": tomorrow(19), "customer": {"cpf": cpf(610_001)}}})
        ws = await WsClient.connect(port)
        await ws.subscribe("subscription($u: ID!) { waitlistChanged(unitId: $u) { seq kind entryId bookingId } }",
                           {"u": str(v.unit_id)})
        joined = await gql(port, """mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!, $cpf: String) {
            joinSlotWaitlist(unitId: $u, resourceId: $r, startsAt: $s, endsAt: $e, customer: {cpf: $cpf}) {
            ... on SlotWaitlistEntry { id } } }""",
                           {"u": str(v.unit_id), "r": str(v.resource_ids["Campo 1"]), "s": tomorrow(18),
                            "e": tomorrow(19), "cpf": cpf(610_002)})
        entry = joined["joinSlotWaitlist"]["id"]
        await gql(port, 'mutation($id: ID!) { cancel(bookingId: $id) { __typename } }',
                  {"id": taken["hold"]["booking"]["id"]})
        events = [e["waitlistChanged"] for e in await ws.collect(2)]
        assert [(e["kind"], e["entryId"]) for e in events] == [("JOINED", entry), ("OFFERED", entry)]
        assert events[1]["bookingId"] is not None
        await ws.close()
