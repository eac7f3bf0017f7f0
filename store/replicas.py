"""Read replicas for reads that tolerate staleness: a pool per replica and how far behind each one is.

Every `interval` seconds each replica's lag is measured against the primary: a replica that has replayed
everything the primary had written when asked (pg_current_wal_insert_lsn) lags 0; otherwise its lag is the age of
the last transaction it replayed (pg_last_xact_replay_timestamp) — an idle primary's replica is never taken for
stale, a replica whose replay stopped grows stale by the second. A replica that does not answer, is not in
recovery, or lags more than `max_lag` seconds is skipped; with none left, reads go to the primary.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import math
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import asyncpg

from store.db import create_pool

log = logging.getLogger("slothold.replicas")

T = TypeVar("T")

MEASURE_TIMEOUT = 2.0
"""Seconds one step of a measure (the primary's WAL position, a replica's connection or its lag) may take."""

_LAG = """
SELECT pg_is_in_recovery() AS standby,
       coalesce(pg_last_wal_replay_lsn() >= $1::text::pg_lsn, false) AS caught_up,
       extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp())::float8 AS age
"""


class ReadReplicas:
    """The replicas of `primary`, by URL; `pool()` picks a fresh one (round robin) or the primary."""

    def __init__(self, primary: asyncpg.Pool, urls: list[str], max_lag: float = 2.0, interval: float = 0.5,
                 pool_max: int = 10, on_lag: Callable[[int, float], None] | None = None) -> None:
        self.primary, self.urls, self.max_lag, self.interval = primary, urls, max_lag, interval
        self.pool_max = pool_max
        self.on_lag = on_lag
        self.pools: list[asyncpg.Pool | None] = [None] * len(urls)
        self.lags: list[float] = [math.inf] * len(urls)
        self._turn = itertools.count()
        self._task: asyncio.Task[None] | None = None
        self._winding: set[int] = set()
        """Servers (-1 the primary, else a replica's index) whose last timed-out step is still winding down."""

    async def start(self) -> None:
        """Measure once (so the first reads already know), then keep measuring in the background."""
        await self.measure()
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        for p in self.pools:
            if p is not None:
                await p.close()

    def pool(self) -> asyncpg.Pool:
        """A replica lagging at most `max_lag` seconds (taking turns among them), else the primary."""
        fresh = [p for p, lag in zip(self.pools, self.lags, strict=True) if p is not None and lag <= self.max_lag]
        if not fresh:
            return self.primary
        return fresh[next(self._turn) % len(fresh)]

    async def measure(self) -> None:
        """Each replica's lag now (inf when it cannot be measured, whatever the reason)."""
        try:
            written: str | None = await self._bounded(-1, self.primary.fetchval(
                "SELECT pg_current_wal_insert_lsn()::text"))
        except Exception as e:
            log.warning("cannot read the primary's WAL position (%s: %s); replicas skipped", type(e).__name__, e)
            written = None
        for i, url in enumerate(self.urls):
            lag = math.inf
            try:
                if self.pools[i] is None:
                    # min 0: asyncpg keeps no floor of connections to restore (and log) while a replica is down
                    self.pools[i] = await self._bounded(i, create_pool(url, 0, self.pool_max,
                                                                       application_name="slothold-read"))
                pool = self.pools[i]
                assert pool is not None
                if written is not None:
                    r = await self._bounded(i, pool.fetchrow(_LAG, written))
                    if r is not None and r["standby"]:
                        lag = 0.0 if r["caught_up"] else (r["age"] if r["age"] is not None else math.inf)
            except Exception as e:
                # Whatever a server going away makes asyncpg raise (OSError, PostgresError, an EOFError or an internal
                # error mid-handshake, a time-out): the replica is skipped, and measuring goes on.
                if self.lags[i] != math.inf:
                    log.warning("replica %d unreachable (%s: %s); reads go elsewhere", i, type(e).__name__, e)
            self.lags[i] = lag
            if self.on_lag is not None:
                self.on_lag(i, lag)

    async def _bounded(self, key: int, step: Coroutine[Any, Any, T]) -> T:
        """`step`'s result within MEASURE_TIMEOUT, else TimeoutError — without waiting for a cancelled step to wind
        down (asyncpg's clean-up of a connection to a dead server may itself wait): measuring never stalls. While
        an earlier step of the same server is still winding down, no other is started for it."""
        if key in self._winding:
            step.close()
            raise TimeoutError("an earlier measure of this server has not ended yet")
        task = asyncio.ensure_future(step)
        try:
            done, _ = await asyncio.wait({task}, timeout=MEASURE_TIMEOUT)
        except asyncio.CancelledError:
            task.cancel()
            raise
        if task in done:
            return task.result()
        self._winding.add(key)
        task.cancel()

        def ended(t: asyncio.Future[T]) -> None:
            self._winding.discard(key)
            if not t.cancelled():
                t.exception()  # retrieved: not logged as never retrieved

        task.add_done_callback(ended)
        raise TimeoutError(f"no answer within {MEASURE_TIMEOUT} s")

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                await self.measure()
            except Exception:  # never stop measuring: a lag left as it was would keep a dead replica in use
                log.exception("measuring the replicas failed; skipping them until the next measure")
                self.lags = [math.inf] * len(self.urls)
                for i in range(len(self.urls)):
                    if self.on_lag is not None:
                        self.on_lag(i, math.inf)
