"""The API and the worker through PgBouncer in transaction mode (Debian's 1.18: no prepared statements tracked), with
far fewer server connections than the processes' pools: holds race and the relay's live events arrive, and only
the relay's session (its advisory lock and LISTEN) goes to PostgreSQL directly."""

from __future__ import annotations

import asyncio
import subprocess
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import asyncpg
import pytest

from slothold.cli.embedded.pgbouncer import PgBouncer, pgbouncer_bin, start_pgbouncer
from store.db import CONFIG_POOL_SIZE, create_pool
from tests.integration.cluster import WsClient, cluster, gql
from tests.integration.test_realtime import SLOTS, slot_seqs, tomorrow, window
from tests.venues import arena, cpf

SERVER_CONNECTIONS = 4
"""PgBouncer's cap on server connections to the test database (the processes' pools add up to 2×12 + 2×10)."""
HARNESS = "pgbouncer-test"

HOLD = """mutation($input: HoldInput!, $key: String) { hold(input: $input, idempotencyKey: $key) {
  __typename ... on BookingPayload { booking { id } replayed } ... on Error { code message } } }"""


@pytest.fixture
def bouncer(database_url: str, tmp_path: Path) -> Iterator[PgBouncer]:
    if pgbouncer_bin() is None:
        pytest.skip("pgbouncer is not installed (apt-get install pgbouncer; ./test installs it when run as root)")
    name = urlsplit(database_url).path.lstrip("/")
    b = start_pgbouncer(tmp_path / "pgbouncer", database_url, pool_size=SERVER_CONNECTIONS,
                        max_db_connections=SERVER_CONNECTIONS, databases=[name])
    try:
        yield b
    finally:
        b.stop()


def show(b: PgBouncer, what: str) -> list[dict[str, str]]:
    """A SHOW of PgBouncer's console (simple query protocol only: psql, not asyncpg)."""
    out = subprocess.run(["psql", b.admin_url, "-X", "-A", "-F", "\t", "-P", "footer=off", "-c", f"SHOW {what}"],
                         capture_output=True, text=True, check=True, timeout=10).stdout.splitlines()
    head = out[0].split("\t")
    return [dict(zip(head, line.split("\t"), strict=False)) for line in out[1:]]


async def server_backends(conn: asyncpg.Connection, before: list[int] | None = None) -> dict[str, int]:
    """The test database's backends by application name, the harness's own aside, and those already there `before`
    (pids: the test session's own pool, idle, from earlier tests)."""
    rows = await conn.fetch("SELECT application_name AS a, count(*) AS n FROM pg_stat_activity "
                            "WHERE datname = current_database() AND application_name <> $1 "
                            "AND pid <> ALL($2::int[]) GROUP BY 1", HARNESS, before or [])
    return {r["a"]: r["n"] for r in rows}


async def backend_pids(conn: asyncpg.Connection | asyncpg.Pool) -> list[int]:
    """The pids of the test database's backends now."""
    return [r["pid"] for r in await conn.fetch("SELECT pid FROM pg_stat_activity WHERE datname = current_database()")]


async def test_api_and_worker_through_pgbouncer_race_holds_and_relay_live_events(
    database_url: str, redis_url: str, bouncer: PgBouncer, tmp_path: Path
) -> None:
    pool = await create_pool(database_url, 1, 4, application_name=HARNESS)
    pooled = bouncer.url_for(database_url)
    peak: dict[str, int] = {}
    """The most backends seen at once: the pooler's server connections ("pooled") and the relays' ("relay")."""
    stop = asyncio.Event()
    before: list[int] = []

    name = urlsplit(database_url).path.lstrip("/")

    async def watch() -> None:  # the most server connections seen at once, by kind
        async with pool.acquire() as conn:
            while not stop.is_set():
                now = await server_backends(conn, before)
                relay = now.pop("slothold-relay", 0)
                peak["relay"] = max(peak.get("relay", 0), relay)
                peak["config"] = max(peak.get("config", 0), now.pop("slothold-config", 0))
                peak["other"] = max(peak.get("other", 0), sum(now.values()))
                await asyncio.sleep(0.05)

    async def watch_pooler() -> None:  # the pooler's own count of its server connections to the test database
        while not stop.is_set():
            for row in await asyncio.to_thread(show, bouncer, "POOLS"):
                if row["database"] == name:
                    servers = sum(int(row.get(k) or 0) for k in ("sv_active", "sv_idle", "sv_used", "sv_tested",
                                                                "sv_login"))
                    peak["pooled"] = max(peak.get("pooled", 0), servers)
            await asyncio.sleep(0.1)

    try:
        v = await arena(pool, fields=4, hold_ceiling_percent=100)  # every slot of the day may be held at once
        before = await backend_pids(pool)  # the test session's own (idle) connections, not the cluster's
        with cluster(pooled, redis_url, tmp_path, apis=2, workers=2, DATABASE_DIRECT_URL=database_url,
                     SLOTHOLD_DB_POOL_MIN="4", SLOTHOLD_DB_POOL_MAX="12",
                     SLOTHOLD_HOLD_RATE_PER_TOKEN="0") as c:
            watcher = asyncio.gather(watch(), watch_pooler())
            ports = [port for _, port in c.apis]
            ws = await WsClient.connect(ports[0])
            await ws.subscribe(SLOTS, window(v))
            await asyncio.sleep(0.5)

            async def hold(i: int) -> tuple[int, str, str | None]:
                slot = i % 24  # 24 slots (4 fields × 6 hours), each wanted by 3 customers at once
                data = await gql(ports[i % 2], HOLD, {"key": f"k{i}-{v.unit_id}", "input": {
                    "unitId": str(v.unit_id), "resourceIds": [str(v.resource_ids[f"Campo {1 + slot % 4}"])],
                    "startsAt": tomorrow(9 + slot // 4).isoformat(), "endsAt": tomorrow(10 + slot // 4).isoformat(),
                    "customer": {"cpf": cpf(700_000 + i)}}})
                answer = data["hold"]
                kind = answer["__typename"]
                if kind not in ("BookingPayload", "SlotTaken"):
                    kind += f" {answer.get('code')}: {answer.get('message')}"
                return slot, kind, (answer.get("booking") or {}).get("id")

            answers = await asyncio.gather(*(hold(i) for i in range(72)))
            winners = {slot: b for slot, kind, b in answers if kind == "BookingPayload"}
            kinds = Counter(kind for _, kind, _ in answers)
            assert len(winners) == 24 and kinds["BookingPayload"] == 24, (kinds, answers)
            assert {kind for _, kind, _ in answers} == {"BookingPayload", "SlotTaken"}, answers
            live = await ws.collect(24, timeout=20)
            assert {e["slotChanged"]["bookingId"] for e in live} == set(winners.values())
            assert [e["slotChanged"]["seq"] for e in live] == await slot_seqs(pool, v.unit_id)
            # an idempotent retry through the pooler (on the other API) answers the same booking
            first = next(i for i, a in enumerate(answers) if a[1] == "BookingPayload")
            again = await gql(ports[(first + 1) % 2], HOLD, {"key": f"k{first}-{v.unit_id}", "input": {
                "unitId": str(v.unit_id), "resourceIds": [str(v.resource_ids[f"Campo {1 + first % 4}"])],
                "startsAt": tomorrow(9 + first // 4).isoformat(), "endsAt": tomorrow(10 + first // 4).isoformat(),
                "customer": {"cpf": cpf(700_000 + first)}}})
            assert again["hold"] == {"__typename": "BookingPayload",
                                     "booking": {"id": answers[first][2]}, "replayed": True}, again
            await ws.close()
            pools = {p["database"]: p for p in show(bouncer, "POOLS")}
            logs = c.logs()
            stop.set()
            await watcher
        print(f"\npeak server backends by application: {peak}; PgBouncer pool: {pools}")
        # Through the pooler: at most its cap of server connections (its own count), whichever process's client they
        # serve. The database's count of the other backends, by name, is the pooler's plus whatever else opened one
        # meanwhile (a CI run met one of another process's): a process bypassing the pooler would add its pool (≥ 2).
        assert 0 < peak["pooled"] <= SERVER_CONNECTIONS, peak
        assert peak["other"] <= SERVER_CONNECTIONS + 1, peak
        # The relays' sessions are direct: one per worker (one leads, the other waits for the lock).
        assert peak["relay"] == 2, peak
        # So are the configuration pools' (store/uow.py): a few per process, never the pooler's server connections.
        assert peak["config"] <= CONFIG_POOL_SIZE * 4, peak
        assert "prepared statement" not in logs and "session settings differ" not in logs, logs
        assert "Traceback" not in logs, logs
        async with pool.acquire() as conn:  # the session settings reach the pooled server connections
            via = await asyncpg.connect(pooled, statement_cache_size=0)
            try:
                settings = await via.fetchrow("SELECT current_setting('jit') AS jit, "
                                              "current_setting('lock_timeout') AS lock_timeout")
            finally:
                await via.close()
            assert dict(settings or {}) == {"jit": "off", "lock_timeout": "5s"}
            assert await conn.fetchval("SELECT count(*) FROM bookings WHERE unit_id = $1", v.unit_id) == 24
    finally:
        stop.set()
        await pool.close()


async def test_while_pgbouncer_is_down_a_caller_that_cannot_be_authenticated_gets_503_busy(
    database_url: str, redis_url: str, bouncer: PgBouncer, tmp_path: Path
) -> None:
    import httpx

    from store.access import STAFF_PREFIX

    with cluster(bouncer.url_for(database_url), redis_url, tmp_path, apis=1, workers=0,
                 DATABASE_DIRECT_URL=database_url) as c:
        port = c.apis[0][1]
        assert (await gql(port, "{ __typename }"))["__typename"] == "Query"
        bouncer.stop()
        async with httpx.AsyncClient(timeout=10) as http:
            r = await http.post(f"http://127.0.0.1:{port}/graphql", json={"query": "{ __typename }"},
                                headers={"authorization": f"Bearer {STAFF_PREFIX}never-seen-before"})
        assert r.status_code == 503 and r.headers.get("retry-after") == "1", r.text
        assert r.json()["errors"][0]["extensions"]["code"] == "busy", r.text
        assert "Exception in ASGI application" not in c.logs(), c.logs()  # (asyncpg logs its own reconnect tries)
