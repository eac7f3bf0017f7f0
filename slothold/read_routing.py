"""Which reads go to a replica (DATABASE_READ_URL): the public reads that tolerate staleness, nothing else.

A GraphQL query whose root fields are all public reads — `bookableSlots`, `seatMap`, `unit`, `holdTypes` (and
`__typename`) — opens its units of work on a replica lagging at most SLOTHOLD_REPLICA_MAX_LAG_SECONDS
(store/replicas.py), else on the primary. Every mutation, every subscription (replays with `since` included: they
stay on the primary, which has every event), every staff read (the grid, the queue, bookings) and anything a write
decides on (holds, confirm, anti-fraud counts, idempotency keys) runs on the primary. A slot offered from a stale
replica and taken meanwhile is refused by the primary's exclusion constraint like any race: `SlotTaken` with
alternatives, never a double booking. The choice is made here, in the composition root, from the parsed
operation: resolvers and use cases are unchanged.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import replace

import asyncpg
from graphql import DocumentNode
from prometheus_client import Gauge
from strawberry.extensions import SchemaExtension

from api.graphql.caching import document_reads_only
from domain.services import Deps
from store.replicas import ReadReplicas
from store.uow import PgUnitOfWork

PUBLIC_READS = frozenset({"bookableSlots", "seatMap", "unit", "holdTypes", "__typename"})
CACHEABLE_READS = PUBLIC_READS | {"seatEvents", "services"}
"""The root fields whose answer to an anonymous GET a CDN may keep (api/graphql/caching.py): the public reads, the
same for every caller without a token — the replica's and the two lists of a unit's public catalogue (`me` is not:
it names the caller)."""

REPLICA_LAG = Gauge("slothold_replica_lag_seconds",
                    "How far behind the primary each read replica is (+Inf: unreachable or not a replica); past "
                    "SLOTHOLD_REPLICA_MAX_LAG_SECONDS its reads go to the primary.", ["replica"])

_on_replica: ContextVar[bool] = ContextVar("slothold_on_replica", default=False)


def routable(document: DocumentNode, operation_name: str | None) -> bool:
    """Whether the operation to run is a query of public reads only (through fragments at the root too)."""
    return document_reads_only(document, operation_name, PUBLIC_READS)


class ReplicaReads(SchemaExtension):
    """Marks the execution of a routable operation, so its units of work open on a replica."""

    def on_execute(self) -> Iterator[None]:
        ec = self.execution_context
        token = None
        if ec.graphql_document is not None and routable(ec.graphql_document, ec.operation_name):
            token = _on_replica.set(True)
        try:
            yield
        finally:
            if token is not None:
                _on_replica.reset(token)


def routed(deps: Deps, primary: asyncpg.Pool, replicas: ReadReplicas, config_pool: asyncpg.Pool | None = None
           ) -> Deps:
    """`deps` whose units of work open on a fresh replica inside a routable operation, else on the primary; either
    way the process's configuration cache loads from `config_pool` (store/uow.py)."""
    def uow() -> PgUnitOfWork:
        return PgUnitOfWork(replicas.pool() if _on_replica.get() else primary, config_pool)

    return replace(deps, uow=uow)


def lag_metric(replica: int, lag: float) -> None:
    REPLICA_LAG.labels(str(replica)).set(lag)
