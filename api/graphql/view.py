"""The GraphQL HTTP endpoint: strawberry's ASGI view made to follow GraphQL-over-HTTP, with offline GraphiQL.

Mount one instance for both HTTP and websocket scopes at the same path::

    view = SlotholdGraphQL(schema, subscription_protocols=(GRAPHQL_TRANSPORT_WS_PROTOCOL,))
    app = Starlette(
        routes=[
            Route("/graphql", view),  # no ``methods=``: the view answers 405 itself, with a JSON body
            WebSocketRoute("/graphql", view),  # graphql-transport-ws subscriptions
            *static_routes(),  # GraphiQL's scripts and styles under /static/graphiql/
        ]
    )

What this class changes on top of :class:`strawberry.asgi.GraphQL`:

* ``Accept`` negotiation between ``application/graphql-response+json`` and ``application/json``
  (406 when neither is acceptable), with the spec's status codes for each (see ``create_response``);
* refusals are JSON GraphQL responses ``{"errors": [{"message": ..., "extensions": {"code": ...}}]}``, never
  plain text: 405 (other methods, or a mutation via GET, with ``Allow``; ``method_not_allowed``), 406
  (``not_acceptable``), 413 (body over ``max_body_bytes``, ``body_too_large``), 415 (a POST body that is not
  ``application/json``; ``unsupported_media_type``), 400 (malformed request; ``bad_request``);
* a websocket message over ``max_body_bytes`` closes the socket with 1009 ("message too big"), whatever the
  server's own frame limit (uvicorn's ``ws_max_size``, which ``slothold serve`` sets to the same value); one of a
  shape strawberry's handler would crash on (not an object, a ``subscribe`` without a string ``id`` or an object
  ``payload`` with a string ``query``) closes it with 4400;
* a document with several operations and no ``operationName`` is a request error with code
  ``operation_name_required`` (GraphQL spec, GetOperation; strawberry would run the first one): 400 under
  ``application/graphql-response+json``, 200 under ``application/json``, like any request error;
* GraphiQL is served from this package's static files instead of unpkg;
* persisted queries (``persisted``: Apollo's APQ and an allow-list mode) resolve a request's document from its
  ``extensions.persistedQuery`` before anything runs, and answers carry ``Cache-Control``, ``Vary`` and, for public
  reads by GET, an ``ETag`` (``caching``).

The pieces it is made of: ``media`` (Accept negotiation), ``operations`` (what it reads of a document), ``guards``
(its refusals and their errors), ``graphiql`` (the offline page and its static routes), ``persisted`` and
``caching``.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Final

from cross_web import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from strawberry.asgi import GraphQL
from strawberry.exceptions import MissingQueryError
from strawberry.http import GraphQLHTTPResponse, GraphQLRequestData
from strawberry.http.ides import GraphQL_IDE
from strawberry.http.parse_content_type import parse_content_type
from strawberry.http.typevars import Context, RootValue
from strawberry.schema.exceptions import CannotGetOperationTypeError, InvalidOperationTypeError
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.types.execution import ExecutionResult, PreExecutionError
from strawberry.types.graphql import OperationType

from api.graphql.caching import CACHEABLE_STATE, apply_cache_headers, public_request, reads_only
from api.graphql.graphiql import offline_graphiql_html, static_routes
from api.graphql.guards import (
    HTTP_ERROR_CODES,
    GraphQLHTTPError,
    _BodyTooLargeError,
    _check_message_shape,
    _MalformedMessageError,
    _MessageTooLargeError,
    _NestedTooDeeplyError,
)
from api.graphql.media import APPLICATION_JSON, GRAPHQL_RESPONSE_JSON, _mime_type, negotiate_media_type
from api.graphql.operations import _is_request_error, operation_name_required, parse_document, several_operations
from api.graphql.persisted import PersistedQueries, Resolved

if TYPE_CHECKING:
    from cross_web import AsyncHTTPRequestAdapter
    from starlette.types import Message, Receive, Scope, Send
    from starlette.websockets import WebSocket
    from strawberry.http.types import QueryParams
    from strawberry.schema import BaseSchema
    from strawberry.types.execution import SubscriptionExecutionResult

DEFAULT_MAX_BODY_BYTES: Final = 1_000_000


class SlotholdGraphQL(GraphQL[Context, RootValue]):
    """Strawberry's ASGI GraphQL app with GraphQL-over-HTTP status codes, a body guard and offline GraphiQL.

    Override ``get_context`` / ``get_root_value`` as with strawberry's class.
    """

    graphiql_static_url: str = "/static/graphiql/"
    # Used for an absent Accept header and for */*: the spec's legacy-compatible choice.
    default_media_type: str = APPLICATION_JSON

    def __init__(
        self,
        schema: BaseSchema,
        *,
        graphql_ide: GraphQL_IDE | None = "graphiql",
        allow_queries_via_get: bool = True,
        keep_alive: bool = False,
        keep_alive_interval: float = 1,
        subscription_protocols: Sequence[str] = (GRAPHQL_TRANSPORT_WS_PROTOCOL,),
        connection_init_wait_timeout: timedelta = timedelta(minutes=1),
        multipart_uploads_enabled: bool = False,
        max_subscriptions_per_connection: int | None = 100,
        allowed_origins: Sequence[str] = (),
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        max_query_tokens: int | None = None,
        persisted_queries: PersistedQueries | None = None,
        public_fields: Collection[str] = (),
        public_max_age: int = 0,
    ) -> None:
        """Same arguments as strawberry's ``GraphQL`` (keyword-only), plus ``max_body_bytes``,
        ``max_query_tokens`` (where this view's own parses stop; the schema enforces its limit itself),
        ``persisted_queries`` (None: ``extensions.persistedQuery`` is ignored), and the root fields whose answers
        to an anonymous GET may be cached for ``public_max_age`` seconds (0: none)."""
        if graphql_ide not in ("graphiql", None):
            raise ValueError(
                "only the bundled offline GraphiQL is supported (graphql_ide='graphiql' or None)"
            )
        super().__init__(
            schema,
            graphql_ide=graphql_ide,
            allow_queries_via_get=allow_queries_via_get,
            keep_alive=keep_alive,
            keep_alive_interval=keep_alive_interval,
            subscription_protocols=subscription_protocols,
            connection_init_wait_timeout=connection_init_wait_timeout,
            multipart_uploads_enabled=multipart_uploads_enabled,
            max_subscriptions_per_connection=max_subscriptions_per_connection,
            allowed_origins=allowed_origins,
        )
        self.max_body_bytes = max_body_bytes
        self.max_query_tokens = max_query_tokens
        self.persisted_queries = persisted_queries
        self.public_fields = frozenset(public_fields)
        self.public_max_age = public_max_age

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """ASGI entry point for both ``http`` and ``websocket`` scopes."""
        if scope["type"] == "websocket":
            try:
                await super().__call__(scope, self._guard_messages(receive), send)
            except _MessageTooLargeError:
                await send({"type": "websocket.close", "code": 1009,
                            "reason": f"Message is larger than {self.max_body_bytes} bytes."})
            except _MalformedMessageError as exc:
                await send({"type": "websocket.close", "code": 4400, "reason": str(exc)})
            return
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        request = Request(scope, receive=self._guard_body(receive))
        try:
            self._preflight(request)
            response = await self.run(request)
        except HTTPException as exc:
            response = self._error_response(
                request, exc.status_code, exc.reason, getattr(exc, "headers", None), getattr(exc, "code", None)
            )
        except _BodyTooLargeError:
            response = self._error_response(request, 413, self._too_large_message(), code="body_too_large")
        response = apply_cache_headers(request, response, self.public_max_age)
        await response(scope, receive, send)

    def negotiate(self, request: Request | WebSocket) -> str | None:
        """The response media type for this request's Accept header, or None if it accepts neither."""
        return negotiate_media_type(request.headers.get("accept"), self.default_media_type)

    def should_render_graphql_ide(self, request: Any) -> bool:
        """GraphiQL for a browser's GET without a document — but not for a persisted query's GET, which names its
        document in `extensions` alone (and may Accept */*)."""
        return super().should_render_graphql_ide(request) and request.query_params.get("extensions") is None

    async def render_graphql_ide(self, request: Request) -> Response:
        """GraphiQL, loading its assets from ``graphiql_static_url`` rather than a CDN."""
        return HTMLResponse(offline_graphiql_html(self.graphiql_static_url))

    async def get_sub_response(self, request: Request | WebSocket) -> Response:
        sub_response = await super().get_sub_response(request)
        # Carries the negotiated type to create_response, which only sees the sub-response.
        sub_response.media_type = self.negotiate(request) or APPLICATION_JSON
        return sub_response

    async def parse_http_body(
        self, request: AsyncHTTPRequestAdapter
    ) -> GraphQLRequestData | list[GraphQLRequestData]:
        if request.method == "POST" and _mime_type(request.content_type) == APPLICATION_JSON:
            # Strawberry assumes an object here (a JSON string or number would crash it with a 500).
            body = self.parse_json(await request.get_body())
            items = body if isinstance(body, list) else [body]
            if not all(isinstance(item, dict) for item in items):
                raise GraphQLHTTPError(400, "The request body must be a JSON object.")
        parsed = await super().parse_http_body(request)
        for data in parsed if isinstance(parsed, list) else [parsed]:
            if data.operation_name == "":
                data.operation_name = None  # the spec makes "" the same as omitting it
            if not isinstance(data.operation_name, str | None):
                raise GraphQLHTTPError(
                    400, "The GraphQL operation's `operationName` must be a string or null."
                )
        return parsed

    async def execute_operation(
        self,
        request: Request,
        request_adapter: AsyncHTTPRequestAdapter,
        request_data: GraphQLRequestData | list[GraphQLRequestData],
        context: Context,
        root_value: RootValue | None,
        sub_response: Response,
    ) -> ExecutionResult | list[ExecutionResult] | SubscriptionExecutionResult:
        # Each document is found (persisted queries) before anything runs, and registered once it has passed
        # validation; then whether its answer may be public (a GET of public reads, anonymous, without errors).
        items = request_data if isinstance(request_data, list) else [request_data]
        resolved = [await self._resolve(item) for item in items]
        result = await super().execute_operation(request, request_adapter, request_data, context, root_value,
                                                 sub_response)
        outcomes = result if isinstance(result, list) else [result]
        for item, found, outcome in zip(items, resolved, outcomes, strict=False):
            if (found.register and isinstance(item.query, str) and isinstance(outcome, ExecutionResult)
                    and not _is_request_error(outcome) and self.persisted_queries is not None):
                await self.persisted_queries.register(found.register, item.query)
        if (isinstance(result, ExecutionResult) and not result.errors and public_request(request)
                and reads_only(items[0].query, items[0].operation_name, self.public_fields, self.max_query_tokens)):
            setattr(request.state, CACHEABLE_STATE, True)
        return result

    async def _resolve(self, data: GraphQLRequestData) -> Resolved:
        if self.persisted_queries is None:
            return Resolved(data.query)
        found = await self.persisted_queries.resolve(data.query, data.extensions)
        data.query = found.query
        return found

    async def execute_single(
        self,
        request: Request,
        request_adapter: AsyncHTTPRequestAdapter,
        sub_response: Response,
        context: Context,
        root_value: RootValue | None,
        request_data: GraphQLRequestData,
    ) -> ExecutionResult:
        # Strawberry's own version, except that plain HTTP never runs a subscription (strawberry would
        # resolve it like a query and answer a null-field error) and that GET refuses mutations with 405.
        method = request_adapter.method
        allowed = OperationType.from_http(method) - {OperationType.SUBSCRIPTION}
        if method == "GET" and not self.allow_queries_via_get:
            allowed -= {OperationType.QUERY}
        query = request_data.query
        if request_data.operation_name is None and isinstance(query, str) and several_operations(
                query, self.max_query_tokens):
            return PreExecutionError(data=None, errors=[operation_name_required()])
        try:
            return await self.schema.execute(
                request_data.query,
                root_value=root_value,
                variable_values=request_data.variables,
                context_value=context,
                operation_name=request_data.operation_name,
                allowed_operation_types=allowed,
                operation_extensions=request_data.extensions,
            )
        except CannotGetOperationTypeError as exc:
            raise GraphQLHTTPError(400, exc.as_http_error_reason()) from exc
        except InvalidOperationTypeError as exc:
            if exc.operation_type is OperationType.SUBSCRIPTION:
                protocols = ", ".join(self.websocket_subprotocols) or "none enabled"
                message = f"Subscriptions are served over WebSocket at this URL (subprotocols: {protocols})."
                raise GraphQLHTTPError(400, message) from exc
            if method == "GET":
                raise GraphQLHTTPError(405, exc.as_http_error_reason(method), {"Allow": "POST"}) from exc
            raise GraphQLHTTPError(400, exc.as_http_error_reason(method)) from exc
        except MissingQueryError as exc:
            raise GraphQLHTTPError(400, "No GraphQL query found in the request.") from exc

    def parse_json(self, data: str | bytes) -> Any:
        """Decode a JSON request body or parameter; a 400 that says what is wrong if it isn't JSON."""
        try:
            return self.decode_json(data)
        except _NestedTooDeeplyError as exc:
            raise GraphQLHTTPError(400, "Unable to parse request body as JSON: it is nested too deeply.") from exc
        except json.JSONDecodeError as exc:
            raise GraphQLHTTPError(400, f"Unable to parse request body as JSON: {exc}") from exc
        except UnicodeDecodeError as exc:
            raise GraphQLHTTPError(400, "Unable to parse request body as JSON: it is not UTF-8.") from exc

    def decode_json(self, data: str | bytes) -> Any:
        """json.loads, with arrays or objects nested thousands deep (the decoder recurses until Python's limit) a
        decoding error like any other: a 400 over HTTP, a 4400 close on a websocket — never an unhandled error."""
        try:
            return super().decode_json(data)
        except RecursionError:
            text = data if isinstance(data, str) else data.decode("utf-8", "replace")
            raise _NestedTooDeeplyError("nested too deeply", text[:100], 0) from None

    def parse_query_params(self, params: QueryParams) -> dict[str, Any]:
        try:
            return super().parse_query_params(params)
        except HTTPException as exc:
            message = "The `variables` and `extensions` query parameters must be JSON-encoded objects."
            raise GraphQLHTTPError(400, message) from exc

    async def process_result(self, request: Request, result: ExecutionResult) -> GraphQLHTTPResponse:
        response_data = await super().process_result(request, result)
        if _is_request_error(result):
            # A request error has no "data" entry at all (GraphQL spec, "Response Format").
            response_data.pop("data", None)
        return response_data

    def create_response(
        self,
        response_data: GraphQLHTTPResponse | list[GraphQLHTTPResponse],
        sub_response: Response,
    ) -> Response:
        """JSON response in the negotiated media type; 400 for request errors under graphql-response+json.

        With ``application/json`` every well-formed request gets 200 (legacy rule), unless a resolver set
        a status on the sub-response.
        """
        response = super().create_response(response_data, sub_response)
        media_type = sub_response.media_type or APPLICATION_JSON
        response.headers["content-type"] = f"{media_type}; charset=utf-8"
        if (
            media_type == GRAPHQL_RESPONSE_JSON
            and not sub_response.status_code
            and isinstance(response_data, dict)
            and "data" not in response_data
        ):
            response.status_code = 400
        return response

    def _preflight(self, request: Request) -> None:
        """Refuse what strawberry would mishandle, before any hook runs."""
        if request.method not in ("GET", "POST"):
            raise GraphQLHTTPError(
                405, "GraphQL only supports GET and POST requests.", {"Allow": "GET, POST"}
            )
        content_length = request.headers.get("content-length", "")
        if content_length.isdigit() and int(content_length) > self.max_body_bytes:
            raise _BodyTooLargeError
        adapter = self.request_adapter_class(request)
        if self.should_render_graphql_ide(adapter):
            if not self.graphql_ide:
                raise GraphQLHTTPError(404, "GraphiQL is not offered by this server"
                                       + (" (it runs only the documents of its persisted query manifest)."
                                          if self.persisted_queries and self.persisted_queries.allowlist else "."))
            return
        if self._get_stream_transport_from_headers(request.headers) is not None:
            return  # SSE / multipart subscriptions, when enabled, negotiate their own media type
        if self.negotiate(request) is None:
            raise GraphQLHTTPError(
                406, f"Accept must allow {GRAPHQL_RESPONSE_JSON} or {APPLICATION_JSON}.", {"Vary": "Accept"}
            )
        if request.method == "POST":
            content_type = request.headers.get("content-type")
            mime_type = _mime_type(content_type)
            allowed = {APPLICATION_JSON} | (
                {"multipart/form-data"} if self.multipart_uploads_enabled else set()
            )
            if mime_type not in allowed:
                raise GraphQLHTTPError(
                    415,
                    f"Unsupported Content-Type {content_type!r}: send the request as {APPLICATION_JSON}."
                    if content_type
                    else f"Missing Content-Type: send the request as {APPLICATION_JSON}.",
                    {"Accept-Post": ", ".join(sorted(allowed))},
                )
            charset = parse_content_type(content_type or "")[1].get("charset", "utf-8")
            if mime_type == APPLICATION_JSON and charset.lower() not in ("utf-8", "utf8"):
                raise GraphQLHTTPError(415, f"Unsupported charset {charset!r}: the body must be UTF-8.")

    def _guard_body(self, receive: Receive) -> Receive:
        received = 0

        async def guarded() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body_bytes:
                    raise _BodyTooLargeError
            return message

        return guarded

    def _guard_messages(self, receive: Receive) -> Receive:
        async def guarded() -> Message:
            message = await receive()
            if message["type"] == "websocket.receive":
                text, data = message.get("text"), message.get("bytes")
                # A str of n characters is at least n bytes of UTF-8: only long ones need encoding to measure.
                size = len(data) if data is not None else len(text or "")
                if text is not None and size * 4 > self.max_body_bytes:
                    size = len(text.encode())
                if size > self.max_body_bytes:
                    raise _MessageTooLargeError
                if text is not None:
                    _check_message_shape(text, self.persisted_queries is not None)
            return message

        return guarded

    def _too_large_message(self) -> str:
        return f"Request body is larger than {self.max_body_bytes} bytes."

    def _error_response(
        self, request: Request, status_code: int, message: str, headers: Mapping[str, str] | None = None,
        code: str | None = None,
    ) -> Response:
        media_type = (self.negotiate(request) if status_code != 406 else None) or APPLICATION_JSON
        error: dict[str, Any] = {"message": message,
                                 "extensions": {"code": code or HTTP_ERROR_CODES.get(status_code, "bad_request")}}
        return Response(
            self.encode_json({"errors": [error]}),
            status_code=status_code,
            headers=dict(headers or {}),
            media_type=f"{media_type}; charset=utf-8",
        )


__all__ = [
    "APPLICATION_JSON",
    "GRAPHQL_RESPONSE_JSON",
    "GraphQLHTTPError",
    "SlotholdGraphQL",
    "negotiate_media_type",
    "offline_graphiql_html",
    "operation_name_required",
    "parse_document",
    "several_operations",
    "static_routes",
]
