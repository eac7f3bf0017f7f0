"""A short run of the topology harness (bench/topology.py): primary + streaming replica, PgBouncer, Redis with 3
sentinels, 2 APIs and 2 workers under the storm's traffic, with the replica stopped, the Redis primary killed,
PgBouncer restarted and an API killed — every guarantee holds afterwards.

It was opt-in while a stall went unexplained (no hold through PgBouncer after its restart): the processes' unit
cache loaded through the pool its own transactions held (tests/api/test_pool_nesting.py); it has its own pool now."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench._storm_config import Config
from bench.topology import render_topology, run_topology
from slothold.cli.embedded.pgbouncer import pgbouncer_bin
from slothold.cli.embedded.replica import pg_bin_dir
from slothold.cli.embedded.sentinel import system_redis
from store.db import CONFIG_POOL_SIZE


async def test_a_short_storm_on_the_topology_with_its_faults_keeps_every_guarantee(tmp_path: Path) -> None:
    missing = [name for name, found in (("pgbouncer", pgbouncer_bin()), ("initdb/pg_basebackup", pg_bin_dir()),
                                        ("redis-server", system_redis())) if found is None]
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)}")
    cfg = Config(seconds=16, customers=200, concurrency=10, apis=2, workers=2, units=2, fields=4, subscribers=2,
                 faults=True, database="slothold_topology", settle_seconds=6, late_share=0.0, pgbouncer=6)
    report, figures = await run_topology(cfg, tmp_path)
    text = render_topology(report, figures)
    print("\n" + text)
    assert report["ok"], text
    stats = report["stats"]
    assert len(stats.faults) == 4, text  # every fault was injected
    assert figures.failover_seconds and figures.pgbouncer_down_seconds, text
    assert stats.outcomes[("hold", "BookingPayload")] >= 5, text  # (a machine busy with other work sells less)
    assert figures.lag_samples > 0, text  # the replica's lag was watched
    # PgBouncer's cap + the relays + the configuration pools (2 APIs, 2 workers) (+ a moment's overlap)
    assert stats.backends <= 6 + 2 + CONFIG_POOL_SIZE * 4 + 2, text
