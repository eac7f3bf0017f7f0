"""The strawberry.Schema, assembled from the root types that resolvers/ defines."""

from __future__ import annotations

import strawberry
from graphql import GraphQLError
from strawberry.extensions import MaskErrors, ParserCache, ValidationCache
from strawberry.tools import merge_types

from resolvers.mutations import Mutation
from resolvers.payments import CatalogMutation, PaymentMutation, PaymentQuery
from resolvers.queries import Query
from resolvers.subscriptions import Subscription
from resolvers.waitlists import WaitlistMutation, WaitlistQuery, WaitlistSubscription
from slothold.executor import SharedEventExecutor


class Masking(MaskErrors):
    """MaskErrors without its runtime-Protocol isinstance check, which it makes for every subscription
    result sent (13 % of the API's CPU per delivery at 1,000 subscribers, bench/RESULTS.md)."""

    def _process_result(self, result: object) -> None:
        errors = getattr(result, "errors", None)
        if errors:
            result.errors = self._process_errors(errors)  # type: ignore[attr-defined]


def _is_internal(error: GraphQLError) -> bool:
    # Errors with an original exception came from our code (a bug or an outage): never show them.
    # Parse, validation and coercion errors have none and tell the client what to fix.
    return error.original_error is not None and not isinstance(error.original_error, GraphQLError)


def build_schema() -> strawberry.Schema:
    """The Slothold GraphQL schema with error masking and parser/validation caches."""
    return strawberry.Schema(
        query=merge_types("Query", (Query, PaymentQuery, WaitlistQuery)),
        mutation=merge_types("Mutation", (Mutation, PaymentMutation, CatalogMutation, WaitlistMutation)),
        subscription=merge_types("Subscription", (Subscription, WaitlistSubscription)),
        execution_context_class=SharedEventExecutor,
        extensions=[
            lambda: Masking(should_mask_error=_is_internal,
                               error_message="Internal error; it has been logged. Quote the request id."),
            lambda: ParserCache(maxsize=256),
            lambda: ValidationCache(maxsize=256),
        ],
    )


schema = build_schema()
