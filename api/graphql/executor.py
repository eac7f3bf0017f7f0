"""Subscription events are executed once per event and query, not once per subscriber.

A thousand dashboards watching one unit subscribe with the same document; every event they receive is the
same object (resolvers/subscriptions.py memoises them by unit and sequence). Executing the selection set
for each subscriber was most of the API's CPU at 1,000 subscribers, so per-event results are shared here,
keyed by the event object, the operation, the variables and the caller's share scope (`result_key`).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, ClassVar

from graphql import OperationType
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext

SHARED_RESULTS = 512


def result_key(root: object, operation: object, variables: dict[str, Any], context: object
               ) -> tuple[Any, ...] | None:
    """What a shared event's result is kept under: the event, the operation, the variables and the caller's share
    scope — the same `Context.share_scope()` that groups subscribers (slothold/fanout.py), so two callers of
    different reach never get each other's result. None when the context has no share scope."""
    scope_of = getattr(context, "share_scope", None)
    if scope_of is None:
        return None
    return (id(root), id(operation), tuple(sorted((k, repr(v)) for k, v in variables.items())), scope_of())


class SharedEventExecutor(StrawberryGraphQLCoreExecutionContext):
    """graphql-core executor that reuses the result of a shared subscription event."""

    _results: ClassVar[OrderedDict[tuple[Any, ...], tuple[Any, Any]]] = OrderedDict()

    def build_per_event_executor(self, payload: Any) -> Any:
        """graphql-core 3.3.2 copies the subscription's executor per event, memo included: the memo is keyed
        on field lists that are new for every event, so each event would stay in it until the subscription
        ends (~3.4 KiB per event). Each event gets a memo of its own instead."""
        executor = super().build_per_event_executor(payload)
        executor._relevant_sub_fields = {}
        return executor

    def execute_operation(self, serially: bool | None = None) -> Any:
        root = self.root_value
        if self.operation.operation is not OperationType.SUBSCRIPTION or not getattr(root, "shared_event", False):
            return super().execute_operation(serially)
        key = result_key(root, self.operation, getattr(self.variable_values, "coerced", None) or {},
                         self.context_value)
        if key is None:  # a caller without a share scope never shares a result
            return super().execute_operation(serially)
        hit = self._results.get(key)
        if hit is not None and hit[0] is root:
            self._results.move_to_end(key)
            return hit[1]
        result = super().execute_operation(serially)
        if not self.is_awaitable(result):  # events are plain data: their results are ready at once
            self._results[key] = (root, result)  # holding `root` keeps its id from being reused
            while len(self._results) > SHARED_RESULTS:
                self._results.popitem(last=False)
        return result
