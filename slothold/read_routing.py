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
from graphql import DocumentNode, FieldNode, OperationDefinitionNode, OperationType
from prometheus_client import Gauge
from strawberry.extensions import SchemaExtension

from domain.services import Deps
from store.replicas import ReadReplicas
from store.uow import PgUnitOfWork

PUBLIC_READS = frozenset({"bookableSlots", "seatMap", "unit", "holdTypes", "__typename"})

REPLICA_LAG = Gauge("slothold_replica_lag_seconds",
                    "How far behind the primary each read replica is (+Inf: unreachable or not a replica); past "
                    "SLOTHOLD_REPLICA_MAX_LAG_SECONDS its reads go to the primary.", ["replica"])

_on_replica: ContextVar[bool] = ContextVar("slothold_on_replica", default=False)


def routable(document: DocumentNode, operation_name: str | None) -> bool:
    """Whether the operation to run is a query of public reads only (a fragment at the root: no)."""
    ops = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    chosen = [o for o in ops if operation_name is None or (o.name is not None and o.name.value == operation_name)]
    if len(chosen) != 1 or chosen[0].operation != OperationType.QUERY:
        return False
    return all(isinstance(s, FieldNode) and s.name.value in PUBLIC_READS for s in chosen[0].selection_set.selections)


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


def routed(deps: Deps, primary: asyncpg.Pool, replicas: ReadReplicas) -> Deps:
    """`deps` whose units of work open on a fresh replica inside a routable operation, else on the primary."""
    def uow() -> PgUnitOfWork:
        return PgUnitOfWork(replicas.pool() if _on_replica.get() else primary)

    return replace(deps, uow=uow)


def lag_metric(replica: int, lag: float) -> None:
    REPLICA_LAG.labels(str(replica)).set(lag)
