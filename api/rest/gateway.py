"""Runs a REST endpoint's GraphQL document against the app's own schema, in-process, with the GraphQL view's
context, and turns the answer into JSON or a problem.

Nothing here decides a rule: authentication (the same `Authorization: Bearer`), authorization, rate limits, the
Idempotency-Key header (read by the resolvers from the request's headers, exactly as over GraphQL), the use cases
and their refusals are the GraphQL API's own. The door only maps the result union's member, or a top-level error,
to an HTTP status (api/rest/problems.py).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import Response
from strawberry.types.graphql import OperationType

from api.graphql.guards import GraphQLHTTPError
from api.rest.documents import OPERATIONS, Operation, document
from api.rest.problems import problem
from domain.errors import ErrorCode
from resolvers.context import Context

ContextFor = Callable[[Request], Awaitable[Context]]
"""Builds the context of a request exactly as the GraphQL view does (slothold/app.py's request_context)."""

_KINDS: Final = {"query": OperationType.QUERY, "mutation": OperationType.MUTATION}
_VARIABLE: Final = re.compile(r"^Variable '\$(\w+)' (has invalid value(?: at \.([\w.\[\]]+))?: ?)?")
_NAMED_FIELD: Final = re.compile(r"(?:required|unknown) field '(\w+)'")
_LEFT_OUT: Final = frozenset({"__typename", "code", "message"})


@dataclass(frozen=True)
class Hidden:
    """A path id whose object the caller may not see: answered exactly like a missing one (404)."""

    kind: str
    """What the id names, for the problem's detail ("booking")."""
    value: str
    """The id as the caller gave it."""
    fields: frozenset[str] = frozenset({"id", "bookingId"})
    """The GraphQL fields a NotFound of that object names."""


@dataclass(frozen=True)
class Answer:
    """A GraphQL answer: the success member's fields, or the problem response to send instead."""

    data: dict[str, Any] | None
    refusal: Response | None


class Gateway:
    """The REST door's one way into the API: a fixed document per operation, run by the schema itself."""

    def __init__(self, schema: Any, context_for: ContextFor) -> None:
        self.schema = schema
        self.context_for = context_for
        self.documents = {op.name: document(schema._schema, op) for op in OPERATIONS}

    async def run(self, request: Request, op: Operation, variables: Mapping[str, Any],
                  names: Mapping[str, str] | None = None, hidden: Hidden | None = None) -> Answer:
        """Run `op` with `variables` as `request`'s caller. `names` renames GraphQL variables and fields to the
        REST names in problems (``{"input": ""}``: the body is the input); `hidden` makes an unseen object 404."""
        instance = request.url.path
        try:
            context = await self.context_for(request)
        except GraphQLHTTPError as e:  # the database cannot say who is calling
            return Answer(None, problem(ErrorCode.BUSY, e.reason, instance, e.status_code, headers=e.headers))
        result = await self.schema.execute(
            self.documents[op.name], variable_values=dict(variables), context_value=context,
            operation_name=op.name, allowed_operation_types={_KINDS[op.kind]})
        names = names or {}
        if result.errors:
            return Answer(None, self._top_level(request, result.errors[0], names, hidden))
        found: dict[str, Any] = (result.data or {})["result"]
        if found["__typename"] == op.success:
            return Answer({k: v for k, v in found.items() if k != "__typename"}, None)
        code = str(found["code"])
        if hidden is not None and code == ErrorCode.NOT_FOUND and found.get("field") in hidden.fields:
            return Answer(None, _not_found(hidden, instance))
        members = {k: v for k, v in found.items() if k not in _LEFT_OUT}
        if "field" in members:
            members["field"] = _rest_name(str(members["field"]), names)
        return Answer(None, problem(code, str(found["message"]), instance, extensions=members))

    def _top_level(self, request: Request, error: Any, names: Mapping[str, str], hidden: Hidden | None
                   ) -> Response:
        instance = request.url.path
        extensions = dict(error.extensions or {})
        code = str(extensions.pop("code", ErrorCode.INTERNAL_ERROR))
        message = str(error.message)
        if hidden is not None and (code == ErrorCode.FORBIDDEN or (
                code == ErrorCode.NOT_FOUND and extensions.get("field") in hidden.fields)):
            return _not_found(hidden, instance)
        if code == ErrorCode.INVALID_VARIABLES:
            message, field = _variable_error(message, names)
            if field is not None:
                extensions["field"] = field
        elif "field" in extensions:
            extensions["field"] = _rest_name(str(extensions["field"]), names)
        headers = {}
        if code == ErrorCode.UNAUTHENTICATED and request.headers.get("authorization"):
            headers["www-authenticate"] = 'Bearer error="invalid_token"'
        elif code == ErrorCode.UNAUTHENTICATED:
            headers["www-authenticate"] = "Bearer"
        return problem(code, message, instance, extensions=extensions, headers=headers)


def _not_found(hidden: Hidden, instance: str) -> Response:
    """The one answer for a missing object and for one the caller may not see."""
    return problem(ErrorCode.NOT_FOUND, f"{hidden.kind} {hidden.value} not found", instance,
                   extensions={"field": "id"})


def _rest_name(field: str, names: Mapping[str, str]) -> str:
    """A GraphQL argument path ("input.startsAt", "bookingId") as the REST request names it ("startsAt", "id")."""
    head, _, rest = field.partition(".")
    if head in names:
        renamed = names[head]
        return f"{renamed}.{rest}" if renamed and rest else (rest or renamed)
    return field


def _variable_error(message: str, names: Mapping[str, str]) -> tuple[str, str | None]:
    """graphql-core's "Variable '$x' has invalid value ..." as the REST request sees it, and the field it names."""
    m = _VARIABLE.match(message)
    if m is None:
        return message, None
    variable, invalid, path = m.groups()
    rest = message[m.end():]
    named = _NAMED_FIELD.search(rest)
    inner = path or (named.group(1) if named else None)
    field = _rest_name(f"{variable}.{inner}" if inner else variable, names)
    where = f"`{field}`" if field else "the request body"
    return (f"Invalid value for {where}: {rest}" if invalid else f"{where} {rest}"), field or None
