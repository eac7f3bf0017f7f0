"""The strawberry.Schema, assembled from the root types that resolvers/ defines."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any, ClassVar

import strawberry
from graphql import GraphQLError, GraphQLSyntaxError
from strawberry.extensions import AddValidationRules, MaskErrors, ParserCache, ValidationCache
from strawberry.tools import merge_types
from strawberry.types import ExecutionContext
from strawberry.types.execution import PreExecutionError

from api.graphql.executor import SharedEventExecutor
from api.graphql.limits import CODES, DocumentSizeLimiter, QueryLimits, query_limit_rules
from api.graphql.text_guard import UnstorableTextGuard
from api.graphql.text_limits import guard_text_lengths
from domain.errors import DomainError, ErrorCode
from resolvers.audit import AuditQuery
from resolvers.auth import AuthMutation, AuthQuery
from resolvers.availability import AvailabilityQuery
from resolvers.booking_search import BookingSearchQuery
from resolvers.bookings import BookingMutation, BookingQuery, NoShowMutation, RescheduleMutation
from resolvers.calendar_feeds import CalendarFeedMutation, CalendarFeedQuery
from resolvers.catalog import CatalogMutation
from resolvers.checkout import CheckoutMutation, CheckoutQuery
from resolvers.customers import CustomerMutation
from resolvers.hold_types import HoldTypeMutation, HoldTypeQuery
from resolvers.layout import LayoutMutation, LayoutQuery
from resolvers.nodes import NodeQuery
from resolvers.notifications import NotificationMutation, NotificationQuery, NotificationSubscription
from resolvers.origins import OriginMutation, OriginQuery
from resolvers.queue import QueueMutation, QueueQuery
from resolvers.seatmaps import SeatMapMutation, SeatMapQuery
from resolvers.series import SeriesMutation, SeriesQuery
from resolvers.service_catalog import ServiceCatalogMutation, ServiceCatalogQuery
from resolvers.setup import SetupMutation, StaffTokenMutation, StaffTokenQuery
from resolvers.subscriptions import Subscription
from resolvers.units import UnitQuery, UnitSettingsMutation
from resolvers.venue_flows import VenueFlowsMutation, VenueFlowsQuery
from resolvers.venue_log import VenueLogQuery, VenueLogSubscription
from resolvers.waitlists import WaitlistMutation, WaitlistQuery, WaitlistSubscription
from resolvers.webhooks import WebhookMutation, WebhookQuery
from schema.refusals import MEMBERS, top_level_extensions

log = logging.getLogger("slothold.limits")


class Masking(MaskErrors):
    """MaskErrors without its runtime-Protocol isinstance check, which it makes for every subscription
    result sent (13 % of the API's CPU per delivery at 1,000 subscribers, bench/RESULTS.md)."""

    def on_operation(self) -> Iterator[None]:
        try:
            yield from super().on_operation()
        except GraphQLError as error:  # a syntax error from ParserCache's parse: it leaves before any result exists
            _give_code(error, before_execution=True)
            raise

    def _process_result(self, result: object) -> None:
        errors = getattr(result, "errors", None)
        if errors:
            processed = self._process_errors(errors)
            for error in processed:
                _give_code(error, before_execution=isinstance(result, PreExecutionError))
            result.errors = processed  # type: ignore[attr-defined]

    def anonymise_error(self, error: GraphQLError) -> GraphQLError:
        refusal = error.original_error
        if isinstance(refusal, DomainError):
            # A refusal that no member of a result union carried (schema/refusals.py): a list field, a subscription,
            # a union without its type (Busy from any unit of work): said clearly, with its code.
            return GraphQLError(refusal.message, nodes=error.nodes, source=error.source, positions=error.positions,
                                path=error.path, extensions=top_level_extensions(refusal))
        masked = super().anonymise_error(error)
        masked.extensions = {"code": str(ErrorCode.INTERNAL_ERROR)}
        return masked


def _give_code(error: GraphQLError, before_execution: bool) -> None:
    """Every error a client gets carries `extensions.code`: graphql-core's own (parse, validation, variables) get
    `invalid_syntax`, `invalid_document` or `invalid_variables`; any other without one, `field_error`."""
    if (error.extensions or {}).get("code"):
        return
    if isinstance(error, GraphQLSyntaxError):
        code = ErrorCode.INVALID_SYNTAX
    elif before_execution:
        code = ErrorCode.INVALID_DOCUMENT
    elif error.path is None:
        code = ErrorCode.INVALID_VARIABLES  # graphql-core coerces variable values before anything runs
    else:
        code = ErrorCode.FIELD_ERROR
    error.extensions = {**(error.extensions or {}), "code": str(code)}


def _is_internal(error: GraphQLError) -> bool:
    # Errors with an original exception came from our code (a bug or an outage): never show them —
    # and the domain's refusals, which Masking.anonymise_error rewrites as clear errors with their code.
    # Parse, validation and coercion errors have none and tell the client what to fix.
    return error.original_error is not None and not isinstance(error.original_error, GraphQLError)


class SlotholdSchema(strawberry.Schema):
    """strawberry.Schema that logs the API's limit refusals as one warning line each, and the domain's refusals
    raised outside a result union (access, input) as one info line, without a traceback."""

    ROOTS: ClassVar[dict[str, str]] = {
        "query": "What can be read: units and their grids, bookable slots, bookings, the staff queue, waitlists, "
                 "payments, hold types, seat maps, the venue's set-up and its logs. Send a bearer token (a staff or "
                 "integrator token, or a customer session); without one only public reads answer.",
        "mutation": "What can be done: hold, confirm, pay, cancel and move bookings; work the staff queue and the "
                    "waitlists; set up the venue (owners and the platform). Every mutation checks the caller's role "
                    "or scopes and unit; those that create or pay take an idempotency key.",
        "subscription": "Live changes over graphql-transport-ws (websocket at /graphql): slots, one booking, the staff "
                        "queue, waitlists, notifications and the venue's set-up. Each event carries the unit's seq: "
                        "resubscribe with since: <last seq> to get what was missed first.",
    }
    """The descriptions of the root types (merge_types makes them without one)."""

    def __init__(self, **kwargs: Any) -> None:
        for key, text in self.ROOTS.items():
            if kwargs.get(key) is not None:
                kwargs[key].__strawberry_definition__.description = text
        super().__init__(**kwargs)

    def process_errors(self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None) -> None:
        others = []
        for error in errors:
            code = (error.extensions or {}).get("code")
            if code in CODES:
                log.warning("refused: %s", error.message, extra={"code": code})
            elif isinstance(error.original_error, DomainError):  # an expected refusal (access, input): no traceback
                log.info("refused: %s", error.message, extra={"code": error.original_error.code})
            else:
                others.append(error)
        super().process_errors(others, execution_context)


def build_schema(limits: QueryLimits | None = None) -> strawberry.Schema:
    """The Slothold GraphQL schema with error masking, parser/validation caches and the query limits."""
    limits = limits or QueryLimits()
    rules = query_limit_rules(limits)  # once per schema: the validation cache is keyed by these classes
    built = SlotholdSchema(
        # The order of the parts is the order of the root types' fields in the SDL (schema/schema.graphql).
        query=merge_types("Query", (UnitQuery, BookingQuery, BookingSearchQuery, AvailabilityQuery, QueueQuery,
                                    CheckoutQuery, WaitlistQuery, AuthQuery, WebhookQuery, NotificationQuery,
                                    AuditQuery,
                                    HoldTypeQuery, SeatMapQuery, VenueLogQuery, VenueFlowsQuery,
                                    StaffTokenQuery, ServiceCatalogQuery,
                                    LayoutQuery, OriginQuery, CalendarFeedQuery, SeriesQuery, NodeQuery)),
        mutation=merge_types("Mutation", (BookingMutation, CheckoutMutation, QueueMutation, CatalogMutation,
                                          WaitlistMutation, AuthMutation, CustomerMutation, UnitSettingsMutation,
                                          WebhookMutation, RescheduleMutation, NotificationMutation, NoShowMutation,
                                          HoldTypeMutation, SeatMapMutation, VenueFlowsMutation,
                                          SetupMutation, StaffTokenMutation, ServiceCatalogMutation,
                                          LayoutMutation, OriginMutation, CalendarFeedMutation,
                                          SeriesMutation)),
        subscription=merge_types("Subscription", (Subscription, WaitlistSubscription, NotificationSubscription,
                                                  VenueLogSubscription)),
        execution_context_class=SharedEventExecutor,
        exception_handlers=MEMBERS,  # a refusal becomes its member of the field's result union (schema/refusals.py)
        extensions=[
            lambda: Masking(should_mask_error=_is_internal,
                               error_message="Internal error; it has been logged. Quote the request id."),
            lambda: DocumentSizeLimiter(limits.max_tokens),
            UnstorableTextGuard,
            lambda: AddValidationRules(rules),
            lambda: ParserCache(maxsize=256),
            lambda: ValidationCache(maxsize=256),
        ],
    )
    guard_text_lengths(built._schema)  # every text argument has a maximum length (slothold/text_limits.py)
    return built


schema = build_schema()
