"""The REST door's endpoints under /v1: the core flow of a booking client (availability, hold, confirm, cancel, read)
over the GraphQL API's own use cases (api/rest/gateway.py), and the OpenAPI document that describes them.

    GET  /v1/availability              bookableSlots(unitId, from, to, resourceId, slots, quantity, first)
    POST /v1/holds                     hold(input: <body>)                       201, Location; Idempotency-Key
    POST /v1/holds/{id}/confirm        confirm(bookingId, contact, channel)      the Pix charge; Idempotency-Key
    POST /v1/bookings/{id}/cancel      cancel(bookingId, reason)                 Idempotency-Key
    GET  /v1/bookings/{id}             booking(id)
    GET  /v1/openapi.json              the OpenAPI 3.1 document (api/rest/openapi.py)

Every refusal is an `application/problem+json` (api/rest/problems.py): another method is 405 with Allow, another
path under /v1 is 404.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import Receive, Scope, Send

from api.rest import documents as docs
from api.rest.gateway import ContextFor, Gateway, Hidden
from api.rest.openapi import OPENAPI
from api.rest.problems import problem
from api.rest.requests import arguments_of, json_body, only_known, require_key, typed
from domain.errors import ErrorCode

Handler = Callable[[Request], Awaitable[Response]]
log = logging.getLogger("slothold.rest")


class Methods:
    """An ASGI endpoint with one handler per HTTP method; any other method is a 405 problem with Allow (or, with
    `fallback`, that handler's answer whatever the method)."""

    def __init__(self, handlers: Mapping[str, Handler], fallback: Handler | None = None) -> None:
        self.handlers = dict(handlers)
        self.fallback = fallback

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        handler = self.handlers.get(request.method, self.fallback)
        if handler is None:
            allowed = ", ".join(self.handlers)
            response = problem(ErrorCode.METHOD_NOT_ALLOWED, f"{request.method} is not allowed here; use {allowed}.",
                               request.url.path, headers={"allow": allowed})
        else:
            try:
                response = await handler(request)
            except Exception:  # a bug of the door itself: logged, answered as a problem like any other
                log.exception("REST request failed")
                response = problem(ErrorCode.INTERNAL_ERROR, "Internal error; it has been logged. Quote the "
                                   "request id.", request.url.path)
        await response(scope, receive, send)


def rest_routes(schema: Any, context_for: ContextFor, max_body_bytes: int) -> list[BaseRoute]:
    """The /v1 mount: `schema` is the app's strawberry schema, `context_for` builds a request's context as the
    GraphQL view does."""
    gateway = Gateway(schema, context_for)
    fields = {op.name: _root_field(schema, op) for op in docs.OPERATIONS}

    async def availability(request: Request) -> Response:
        field = fields[docs.AVAILABILITY.name]
        params = dict(request.query_params)
        refused = only_known(request, params, arguments_of(field), "query parameter")
        if refused is not None:
            return refused
        answer = await gateway.run(request, docs.AVAILABILITY, typed(field, params))
        return answer.refusal or JSONResponse(answer.data)

    async def hold(request: Request) -> Response:
        body = await _keyed_body(request, max_body_bytes, required=True)
        if isinstance(body, Response):
            return body
        answer = await gateway.run(request, docs.HOLD, {"input": body}, names={"input": ""})
        if answer.refusal is not None:
            return answer.refusal
        assert answer.data is not None
        booking = answer.data["booking"]
        return _json(booking, answer.data, 201, {"location": f"/v1/bookings/{booking['id']}"})

    async def change(request: Request, op: docs.Operation, shape: Callable[[dict[str, Any]], Any]) -> Response:
        body = await _keyed_body(request, max_body_bytes, required=False)
        if isinstance(body, Response):
            return body
        refused = only_known(request, body, arguments_of(fields[op.name], ("idempotencyKey", "bookingId")), "field")
        if refused is not None:
            return refused
        bid = request.path_params["id"]
        answer = await gateway.run(request, op, {**body, "bookingId": bid}, names={"bookingId": "id"},
                                   hidden=Hidden("booking", bid))
        if answer.refusal is not None:
            return answer.refusal
        assert answer.data is not None
        return _json(shape(answer.data), answer.data, 200)

    async def confirm(request: Request) -> Response:
        return await change(request, docs.CONFIRM, lambda d: {"booking": d["booking"], "charge": d["charge"]})

    async def cancel(request: Request) -> Response:
        return await change(request, docs.CANCEL, lambda d: d["booking"])

    async def booking(request: Request) -> Response:
        bid = request.path_params["id"]
        answer = await gateway.run(request, docs.BOOKING_READ, {"id": bid}, hidden=Hidden("booking", bid))
        return answer.refusal or JSONResponse(answer.data)

    async def openapi(request: Request) -> Response:
        return JSONResponse(OPENAPI)

    async def unknown(request: Request) -> Response:
        return problem(ErrorCode.NOT_FOUND, f"There is no {request.url.path} in this API; see /v1/openapi.json.",
                       request.url.path)

    return [Mount("/v1", routes=[
        Route("/availability", Methods({"GET": availability})),
        Route("/holds", Methods({"POST": hold})),
        Route("/holds/{id}/confirm", Methods({"POST": confirm})),
        Route("/bookings/{id}/cancel", Methods({"POST": cancel})),
        Route("/bookings/{id}", Methods({"GET": booking})),
        Route("/openapi.json", Methods({"GET": openapi})),
        Route("/{path:path}", Methods({}, fallback=unknown)),
    ])]


async def _keyed_body(request: Request, max_body_bytes: int, required: bool) -> dict[str, Any] | Response:
    """The JSON body of a POST, which must carry an Idempotency-Key header."""
    return require_key(request) or await json_body(request, max_body_bytes, required)


def _json(body: Any, data: Mapping[str, Any], status: int, headers: dict[str, str] | None = None) -> Response:
    """A success; a replay under the same Idempotency-Key says so in Idempotent-Replayed (its body is the same)."""
    out = dict(headers or {})
    if data.get("replayed"):
        out["idempotent-replayed"] = "true"
    return JSONResponse(body, status_code=status, headers=out)


def _root_field(schema: Any, op: docs.Operation) -> Any:
    root = schema._schema.query_type if op.kind == "query" else schema._schema.mutation_type
    return root.fields[op.field]
