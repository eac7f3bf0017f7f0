"""A short storm (bench/storm.py) on real processes with every fault injected: the guarantees hold afterwards."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit
from uuid import uuid4

import asyncpg

from bench.storm import Config, render, run


async def test_a_short_storm_with_faults_keeps_every_guarantee(servers: tuple[str, str], tmp_path: Path) -> None:
    server = urlunsplit(urlsplit(servers[0])._replace(path="", query=""))
    name = f"slothold_storm_{uuid4().hex[:8]}"
    cfg = Config(seconds=14, customers=200, concurrency=12, apis=2, workers=2, units=2, fields=4, subscribers=2,
                 faults=True, server_url=server, database=name, settle_seconds=6, late_share=0.0)
    try:
        report: dict[str, Any] = await run(cfg, tmp_path)
    finally:
        admin = await asyncpg.connect(f"{server}/postgres")
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()
    text = render(report)
    assert report["ok"], text
    stats = report["stats"]
    assert len(stats.faults) == 5, text  # every fault was injected
    assert stats.outcomes[("hold", "BookingPayload")] > 20, text
    assert stats.outcomes[("webhook", "accepted")] > 5, text
    assert report["events"] > 0 and report["reconnects"] > 0, text  # the API restart reconnected subscribers
    assert stats.scrapes > 0 and "slothold_outbox_backlog" in stats.peaks, text  # /metrics read while it ran
