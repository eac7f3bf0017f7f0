"""What the storm watches while it runs: the peaks of the APIs' /metrics figures and every process's memory."""

from __future__ import annotations

import asyncio
from collections import defaultdict

import asyncpg
import httpx

from bench._storm_config import HARNESS, Stats
from bench._storm_system import System

WATCHED = {"slothold_outbox_backlog": "outbox backlog", "slothold_relay_lag_seconds": "relay lag (s)",
           "slothold_job_lag_seconds": "job lag (s)", "slothold_lapsed_holds": "lapsed holds not yet expired",
           "slothold_lapsed_hold_max_age_seconds": "oldest lapsed hold (s)", "slothold_subscribers": "subscribers",
           "slothold_expirations_total": "expirations", "slothold_holds_total": "holds (all outcomes)",
           "slothold_conflicts_total": "conflicts"}


async def scrape_metrics(system: System, stats: Stats, stop: asyncio.Event) -> None:
    """Read every API's /metrics every 2 s while the storm runs; keep the peak of each watched figure (summed over
    processes for per-process ones, the cluster-wide ones are the same in every process)."""
    from prometheus_client.parser import text_string_to_metric_families

    cluster_wide = {"slothold_outbox_backlog", "slothold_relay_lag_seconds", "slothold_job_lag_seconds",
                    "slothold_lapsed_holds", "slothold_lapsed_hold_max_age_seconds", "slothold_expirations_total"}
    async with httpx.AsyncClient(timeout=3) as http:
        while not stop.is_set():
            totals: dict[str, float] = defaultdict(float)
            for port in system.ports:
                try:
                    r = await http.get(f"http://127.0.0.1:{port}/metrics")
                except httpx.HTTPError:
                    stats.scrape_failures += 1
                    continue
                if r.status_code != 200:
                    stats.scrape_failures += 1
                    continue
                stats.scrapes += 1
                for family in text_string_to_metric_families(r.text):
                    for sample in family.samples:
                        if sample.name in WATCHED:
                            if sample.name in cluster_wide:
                                totals[sample.name] = max(totals[sample.name], sample.value)
                            else:
                                totals[sample.name] += sample.value
            for name, value in totals.items():
                stats.peaks[name] = max(stats.peaks.get(name, 0.0), value)
            try:
                await asyncio.wait_for(stop.wait(), 2.0)
            except TimeoutError:
                pass


async def sample_memory(system: System, stats: Stats, stop: asyncio.Event, pool: asyncpg.Pool | None = None
                        ) -> None:
    """Peak memory per process and, with the harness's `pool`, the most backends the system held at once."""
    while not stop.is_set():
        for p in system.procs():
            stats.rss[p.name] = max(stats.rss.get(p.name, 0.0), p.rss_mib())
        if pool is not None:
            try:
                stats.backends = max(stats.backends, await pool.fetchval(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                    "AND application_name <> $1", HARNESS))
            except (OSError, asyncpg.PostgresError):
                pass
        try:
            await asyncio.wait_for(stop.wait(), 1.0)
        except TimeoutError:
            pass
