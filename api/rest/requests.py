"""What the REST door reads of a request before GraphQL sees it: the JSON body, the Idempotency-Key header it
requires on every POST, and query parameters typed as the GraphQL arguments they fill.

Each function answers the value, or the problem response to send instead (a 400, 413 or 415 that names the fault).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from typing import Any, Final

from graphql import GraphQLField, get_named_type
from starlette.requests import Request
from starlette.responses import Response

from api.rest.problems import bad_request, problem
from domain.errors import ErrorCode

IDEMPOTENCY_HEADER: Final = "Idempotency-Key"
_INTEGER: Final = re.compile(r"^-?\d{1,18}$")


async def json_body(request: Request, max_bytes: int, required: bool) -> dict[str, Any] | Response:
    """The request's JSON object ({} for an empty body when it is optional)."""
    instance = request.url.path
    length = request.headers.get("content-length", "")
    too_large = problem(ErrorCode.BODY_TOO_LARGE, f"Request body is larger than {max_bytes} bytes.", instance)
    if length.isdigit() and int(length) > max_bytes:
        return too_large
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > max_bytes:
            return too_large
    if not raw.strip():
        if required:
            return bad_request("The request body must be a JSON object.", instance)
        return {}
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type != "application/json":
        return problem(ErrorCode.UNSUPPORTED_MEDIA_TYPE, "Send the request body as application/json.", instance,
                       headers={"accept-post": "application/json"})
    try:
        body = json.loads(raw)
    except RecursionError:
        return bad_request("Unable to parse request body as JSON: it is nested too deeply.", instance)
    except UnicodeDecodeError:
        return bad_request("Unable to parse request body as JSON: it is not UTF-8.", instance)
    except ValueError as e:
        return bad_request(f"Unable to parse request body as JSON: {e}", instance)
    if not isinstance(body, dict):
        return bad_request("The request body must be a JSON object.", instance)
    return body


def require_key(request: Request) -> Response | None:
    """A 400 when the request has no Idempotency-Key header (its value is checked by the use case, as over
    GraphQL)."""
    if request.headers.get(IDEMPOTENCY_HEADER, "").strip():
        return None
    return bad_request(f"The {IDEMPOTENCY_HEADER} header is required: send a unique key per request (a UUID) and "
                       "the same key when retrying it.", request.url.path, ErrorCode.REQUIRED, IDEMPOTENCY_HEADER)


def only_known(request: Request, given: Collection[str], known: Collection[str], where: str) -> Response | None:
    """A 400 naming the first of `given` that is not one of `known`."""
    for name in given:
        if name not in known:
            return bad_request(f"Unknown {where} {name!r}; expected one of: {', '.join(sorted(known))}.",
                               request.url.path, ErrorCode.UNKNOWN_FIELD, name)
    return None


def arguments_of(field: GraphQLField, skip: Collection[str] = ("idempotencyKey",)) -> list[str]:
    """The arguments of a GraphQL field a REST request may give (the key comes as a header)."""
    return [name for name in field.args if name not in skip]


def typed(field: GraphQLField, params: Mapping[str, str]) -> dict[str, Any]:
    """Query parameters as the variables of `field`'s arguments: an integer written as digits becomes an int where
    the argument is an Int (anything else goes as given, for GraphQL to refuse in its words)."""
    out: dict[str, Any] = {}
    for name, value in params.items():
        arg = field.args.get(name)
        is_int = arg is not None and getattr(get_named_type(arg.type), "name", "") == "Int"
        out[name] = int(value) if is_int and _INTEGER.match(value) else value
    return out
