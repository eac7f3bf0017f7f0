"""What the view refuses before strawberry handles a request: its HTTP-level errors (each with its
`extensions.code`), a body or websocket message over the size limit, a websocket message of a shape strawberry's
handler would crash on, and JSON nested too deeply to decode."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Final

from cross_web import HTTPException

HTTP_ERROR_CODES: Final = {400: "bad_request", 404: "not_found", 405: "method_not_allowed", 406: "not_acceptable",
                            413: "body_too_large", 415: "unsupported_media_type", 503: "busy"}
"""`extensions.code` of the refusals this view answers itself (every error a client gets carries a code)."""


class GraphQLHTTPError(HTTPException):
    """An HTTP-level refusal, answered as ``{"errors": [{"message": reason}]}`` with extra headers."""

    def __init__(self, status_code: int, reason: str, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(status_code, reason)
        self.headers: dict[str, str] = dict(headers or {})


class _NestedTooDeeplyError(json.JSONDecodeError):
    """A JSON text nested deeper than the decoder can recurse."""


class _MalformedMessageError(Exception):
    """A graphql-transport-ws message of the wrong shape; strawberry's handler assumes the shape and would fail."""


def _check_message_shape(text: str, persisted: bool = False) -> None:
    """Refuse a JSON message strawberry's graphql-transport-ws handler would crash on (it indexes the message, its
    `id` and `payload` without checking their types): not an object, a `subscribe` whose `id` is not a string or
    whose `payload` is not an object with a string `query` (and object `variables`/`extensions`, a string
    `operationName`, when given), a `complete` whose `id` is not a string. With `persisted` (the view resolves
    persisted queries) the `query` may be left out when `extensions.persistedQuery` names the document. Text that is
    not JSON is left to strawberry (it closes with 4400 itself)."""
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):
        return
    if not isinstance(message, dict):
        raise _MalformedMessageError("A message must be a JSON object.")
    kind = message.get("type")
    if kind in ("subscribe", "complete") and not isinstance(message.get("id"), str):
        raise _MalformedMessageError(f"A {kind} message needs a string id.")
    if kind == "subscribe":
        payload = message.get("payload")
        named = persisted and isinstance(payload, dict) and isinstance(payload.get("extensions"), dict) \
            and payload["extensions"].get("persistedQuery") is not None and payload.get("query") is None
        if not isinstance(payload, dict) or not (isinstance(payload.get("query"), str) or named):
            raise _MalformedMessageError("A subscribe message needs a payload object with a string query.")
        if not isinstance(payload.get("variables"), dict | None) or not isinstance(payload.get("extensions"),
                                                                                  dict | None):
            raise _MalformedMessageError("A subscribe message's variables and extensions must be objects.")
        if not isinstance(payload.get("operationName"), str | None):
            raise _MalformedMessageError("A subscribe message's operationName must be a string.")


class _BodyTooLargeError(Exception):
    """Raised by the guarded ``receive`` once the body grows past the limit."""


class _MessageTooLargeError(Exception):
    """Raised by the guarded websocket ``receive`` for a message past the limit."""
