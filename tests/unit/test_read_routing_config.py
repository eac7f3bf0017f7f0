"""Routed units of work (slothold/read_routing.py) keep the process's configuration pool: without it, a primary
transaction behind PgBouncer loaded the unit cache through the pooler it held a connection of (the topology stall)."""

from __future__ import annotations

import asyncio
import math
import time
from typing import Any, cast

import asyncpg
import pytest

from domain.services import Deps
from slothold import read_routing
from slothold.read_routing import routed
from store import replicas as replicas_module
from store.replicas import ReadReplicas
from store.uow import PgUnitOfWork


def test_routed_units_of_work_load_the_configuration_from_the_configuration_pool() -> None:
    primary, replica, config = (cast(asyncpg.Pool, object()) for _ in range(3))
    replicas = ReadReplicas(primary, ["postgresql://replica/x"])
    replicas.pools, replicas.lags = [replica], [0.0]
    deps = routed(Deps(uow=cast(Any, lambda: None), clock=cast(Any, None)), primary, replicas, config)
    on_primary = deps.uow()
    assert isinstance(on_primary, PgUnitOfWork) and on_primary._pool is primary
    assert on_primary.units._pool is config
    token = read_routing._on_replica.set(True)  # inside a routable operation (ReplicaReads)
    try:
        on_replica = deps.uow()
    finally:
        read_routing._on_replica.reset(token)
    assert isinstance(on_replica, PgUnitOfWork) and on_replica._pool is replica and on_replica.units._pool is config


class _Primary:
    async def fetchval(self, _sql: str) -> str:
        return "0/1"


class _Replica:
    """A replica's pool whose lag query fails as `how` says: raises it, or never answers (and ignores being
    cancelled for a while, as a connection's clean-up to a dead server can)."""

    def __init__(self, how: BaseException | None) -> None:
        self.how = how
        self.calls = 0

    async def fetchrow(self, _sql: str, _written: str) -> Any:
        self.calls += 1
        if self.how is not None:
            raise self.how
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            await asyncio.sleep(0.3)  # winding down
            raise

    async def close(self) -> None:
        pass


@pytest.mark.parametrize("how", [EOFError("stream ended"), RuntimeError("asyncpg internal error"), None],
                         ids=["eof", "unexpected", "hangs"])
async def test_a_replica_that_fails_in_any_way_is_skipped_and_measuring_goes_on(
        how: BaseException | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """A CI run once found a stopped replica still taken for fresh: its lag stayed as last measured. Whatever the
    lag query raises, or if it never answers, the replica is skipped and the next measures still run."""
    monkeypatch.setattr(replicas_module, "MEASURE_TIMEOUT", 0.05)
    seen: list[float] = []
    replica = _Replica(how)
    replicas = ReadReplicas(cast(asyncpg.Pool, _Primary()), ["postgresql://replica/x"], interval=0.01,
                            on_lag=lambda _i, lag: seen.append(lag))
    replicas.pools, replicas.lags = [cast(asyncpg.Pool, replica)], [0.0]
    started = time.monotonic()
    await replicas.start()
    try:
        await asyncio.sleep(0.5)
    finally:
        await replicas.stop()
    assert time.monotonic() - started < 2
    assert replicas.lags == [math.inf] and replicas.pool() is replicas.primary
    assert len(seen) >= 3 and set(seen) == {math.inf}  # it kept measuring
    assert replica.calls >= (3 if how is not None else 1)
