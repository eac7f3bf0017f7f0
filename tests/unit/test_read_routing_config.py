"""Routed units of work (slothold/read_routing.py) keep the process's configuration pool: without it, a primary
transaction behind PgBouncer loaded the unit cache through the pooler it held a connection of (the topology stall)."""

from __future__ import annotations

from typing import Any, cast

import asyncpg

from domain.services import Deps
from slothold import read_routing
from slothold.read_routing import routed
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
