"""The short storm (tests/integration/test_storm.py) through PgBouncer in transaction mode, its server connections
capped far below the processes' pools (2 APIs × 20 + 2 workers × 10): every guarantee holds, with every fault.

Opt-in (SLOTHOLD_STORM_PGBOUNCER_TEST=1; or `python -m bench.storm --pgbouncer N`): the topology test
(tests/integration/test_topology.py), in the suite by default, runs the same storm through PgBouncer with the same
cap and checks, and faults of its own (PgBouncer restarted, the Redis primary killed, the replica stopped), so the
suite keeps one of the two ~40 s runs."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit
from uuid import uuid4

import asyncpg
import pytest

from bench.storm import Config, render, run
from slothold.cli.embedded.pgbouncer import pgbouncer_bin
from store.db import CONFIG_POOL_SIZE

SERVER_CONNECTIONS = 6


async def test_a_short_storm_through_pgbouncer_keeps_every_guarantee(servers: tuple[str, str], tmp_path: Path) -> None:
    if os.environ.get("SLOTHOLD_STORM_PGBOUNCER_TEST") != "1":
        pytest.skip("opt-in: the topology test runs the storm through PgBouncer (SLOTHOLD_STORM_PGBOUNCER_TEST=1)")
    if pgbouncer_bin() is None:
        pytest.skip("pgbouncer is not installed (apt-get install pgbouncer; ./test installs it when run as root)")
    server = urlunsplit(urlsplit(servers[0])._replace(path="", query=""))
    name = f"slothold_storm_{uuid4().hex[:8]}"
    cfg = Config(seconds=14, customers=200, concurrency=12, apis=2, workers=2, units=2, fields=4, subscribers=2,
                 faults=True, server_url=server, database=name, settle_seconds=6, late_share=0.0,
                 pgbouncer=SERVER_CONNECTIONS)
    try:
        report: dict[str, Any] = await run(cfg, tmp_path)
    finally:
        admin = await asyncpg.connect(f"{server}/postgres")
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()
    text = render(report)
    print("\n" + text)
    assert report["ok"], text
    stats = report["stats"]
    assert len(stats.faults) == 5, text
    assert stats.outcomes[("hold", "BookingPayload")] >= 5, text  # traffic flowed (less on a machine busy elsewhere)
    assert report["events"] > 0, text
    # the pooler's server connections plus the two relays' direct sessions, the configuration pools' (a few per
    # process: 3 APIs, 2 workers; store/uow.py) and a moment's overlap while PgBouncer replaces the connections the
    # PostgreSQL fault cut
    assert stats.backends <= SERVER_CONNECTIONS + 2 + CONFIG_POOL_SIZE * 5 + 2, text
