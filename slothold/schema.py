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
from slothold.executor import SharedEventExecutor


def _is_internal(error: GraphQLError) -> bool:
    # Errors with an original exception came from our code (a bug or an outage): never show them.
    # Parse, validation and coercion errors have none and tell the client what to fix.
    return error.original_error is not None and not isinstance(error.original_error, GraphQLError)


def build_schema() -> strawberry.Schema:
    """The Slothold GraphQL schema with error masking and parser/validation caches."""
    return strawberry.Schema(
        query=merge_types("Query", (Query, PaymentQuery)),
        mutation=merge_types("Mutation", (Mutation, PaymentMutation, CatalogMutation)),
        subscription=Subscription,
        execution_context_class=SharedEventExecutor,
        extensions=[
            lambda: MaskErrors(should_mask_error=_is_internal,
                               error_message="Internal error; it has been logged. Quote the request id."),
            lambda: ParserCache(maxsize=256),
            lambda: ValidationCache(maxsize=256),
        ],
    )


schema = build_schema()
