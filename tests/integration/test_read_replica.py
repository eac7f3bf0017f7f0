"""Public reads on a streaming replica (a real one: initdb, pg_basebackup -R, streaming), skipped once it lags past
the bound: a slot offered from the stale replica and taken meanwhile is `SlotTaken` with alternatives, never a
double booking; the lag is a metric; writes, staff reads and subscriptions stay on the primary."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import httpx
import pytest

from slothold.cli.embedded.replica import PrimaryWithReplica, pg_bin_dir
from slothold.cli.migrate import upgrade
from store.db import create_pool
from tests.integration.cluster import cluster, gql, wait_until
from tests.integration.test_realtime import tomorrow
from tests.venues import arena, cpf

MAX_LAG = 6.0  # generous: on a loaded machine the steps from the last replayed write to the stale read take seconds
BOOKABLE = """query($u: ID!, $from: DateTime!, $to: DateTime!, $r: ID) {
  bookableSlots(unitId: $u, from: $from, to: $to, resourceId: $r) { ... on BookableSlots { slots { startsAt } } } }"""
HOLD = """mutation($input: HoldInput!) { hold(input: $input) { __typename ... on BookingPayload { booking { id } }
  ... on SlotTaken { alternatives { resourceId startsAt } } } }"""


@pytest.fixture
def servers_pair(tmp_path: Path) -> Iterator[PrimaryWithReplica]:
    if pg_bin_dir() is None:
        pytest.skip("no system PostgreSQL with initdb and pg_basebackup (apt-get install postgresql)")
    pair = PrimaryWithReplica(tmp_path / "pg").start()
    try:
        yield pair
    finally:
        pair.stop()


def _db(url: str, name: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))


async def lag_metric(port: int) -> float | None:
    async with httpx.AsyncClient(timeout=5) as http:
        text = (await http.get(f"http://127.0.0.1:{port}/metrics")).text
    for line in text.splitlines():
        if line.startswith('slothold_replica_lag_seconds{replica="0"}'):
            return float(line.split()[-1])
    return None


async def test_public_reads_use_a_fresh_replica_and_a_stale_offer_is_refused_by_the_primary(
    servers_pair: PrimaryWithReplica, redis_url: str, tmp_path: Path
) -> None:
    admin = await asyncpg.connect(servers_pair.primary.url)
    await admin.execute("CREATE DATABASE slothold")
    await admin.close()
    primary_url, replica_url = _db(servers_pair.primary.url, "slothold"), _db(servers_pair.replica.url, "slothold")
    await asyncio.to_thread(upgrade, primary_url)
    pool = await create_pool(primary_url, 1, 4, application_name="harness")
    replica = None
    try:
        v = await arena(pool, fields=2, hold_ceiling_percent=100)
        for _ in range(100):  # the replica has the new database and the venue
            try:
                replica = await asyncpg.connect(replica_url)
                if await replica.fetchval("SELECT count(*) FROM units WHERE id = $1", v.unit_id):
                    break
                await replica.close()
            except (OSError, asyncpg.PostgresError):
                pass
            replica = None
            await asyncio.sleep(0.1)
        assert replica is not None, servers_pair.logs()
        field = str(v.resource_ids["Campo 1"])
        window = {"u": str(v.unit_id), "from": tomorrow(9).isoformat(), "to": tomorrow(10).isoformat(), "r": field}

        def hold_input(n: int, resource: str = field) -> dict[str, Any]:
            return {"input": {"unitId": str(v.unit_id), "resourceIds": [resource], "startsAt": tomorrow(9).isoformat(),
                              "endsAt": tomorrow(10).isoformat(), "customer": {"cpf": cpf(800_000 + n)}}}

        async def offered() -> bool:
            return bool((await gql(port, BOOKABLE, window))["bookableSlots"]["slots"])

        async def caught_up() -> bool:
            lsn = await pool.fetchval("SELECT pg_current_wal_insert_lsn()::text")
            return bool(await replica.fetchval("SELECT pg_last_wal_replay_lsn() >= $1::text::pg_lsn", lsn))

        with cluster(primary_url, redis_url, tmp_path, apis=1, workers=1, DATABASE_READ_URL=replica_url,
                     SLOTHOLD_REPLICA_MAX_LAG_SECONDS=str(MAX_LAG), SLOTHOLD_HOLD_RATE_PER_TOKEN="0") as c:
            port = c.apis[0][1]
            assert await offered()
            # A fresh write just replayed (so the replica's last transaction is recent), then replay stops.
            touched = await gql(port, HOLD, hold_input(1, str(v.resource_ids["Campo 2"])))
            assert touched["hold"]["__typename"] == "BookingPayload"
            assert await wait_until(caught_up, timeout=10, every=0.05)
            await replica.execute("SELECT pg_wal_replay_pause()")
            paused = time.monotonic()
            first = await gql(port, HOLD, hold_input(2))
            assert first["hold"]["__typename"] == "BookingPayload", first
            stale = await offered()  # the replica has not seen the hold: still within the bound, it offers the slot
            assert time.monotonic() - paused < MAX_LAG, "too slow to read within the bound"
            assert stale, "the public read did not come from the (paused) replica"
            second = await gql(port, HOLD, hold_input(3))  # taking the stale offer: the primary refuses
            assert second["hold"]["__typename"] == "SlotTaken", second
            assert second["hold"]["alternatives"], second
            # Past the bound the replica is skipped: the same read comes from the primary.

            async def lagging() -> bool:
                lag = await lag_metric(port)
                return lag is not None and lag > MAX_LAG
            assert await wait_until(lagging, timeout=15, every=0.25), c.logs()
            assert not await offered()
            await replica.execute("SELECT pg_wal_replay_resume()")

            async def fresh() -> bool:  # back within the bound, and it has replayed what the primary wrote
                # (not `lag == 0.0`: that needs a measurement at an instant the primary wrote nothing since, and the
                # worker's crons write every second — once in three CI runs none came within 15 s)
                lag = await lag_metric(port)
                return lag is not None and lag <= MAX_LAG and await caught_up()
            assert await wait_until(fresh, timeout=15, every=0.25), c.logs()
            assert not await offered()  # caught up: the replica agrees with the primary
            await replica.close()
            replica = None
            servers_pair.stop_replica()  # a replica that is gone is skipped: reads go on, from the primary

            async def gone() -> bool:
                return await lag_metric(port) == float("inf")
            assert await wait_until(gone, timeout=15, every=0.25), c.logs()
            assert not await offered()
            assert "Traceback" not in c.logs(), c.logs()
        n = await pool.fetchval("SELECT count(*) FROM allocations WHERE resource_id = $1::uuid", field)
        assert n == 1  # one booking of the slot, whatever the replica said
    finally:
        if replica is not None:
            await replica.close()
        await pool.close()
