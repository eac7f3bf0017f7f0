"""CORS for browsers on other sites (a venue's booking widget, issue 19), and the origin check of websockets.

On `/graphql` (HTTP) and `/v1/...` only — never webhooks, metrics, health or the pages the app serves itself:

* a preflight (OPTIONS with `Origin` and `Access-Control-Request-Method`) is answered here and never reaches the
  GraphQL view: 204 with the CORS headers when the origin is allowed, 403 without any otherwise (the browser then
  blocks the request);
* an actual request from an allowed origin gets `Access-Control-Allow-Origin` (its origin, echoed) and
  `Access-Control-Expose-Headers`; from any other origin, none. Every answer says `Vary: Origin`, so that a cache
  in front (a CDN for GET queries) keeps one copy per origin.

Allowed: the union of every unit's registered origins and the platform's list (domain/origins.py; cached for a
few seconds per process, store/allowed_origins.py). A preflight names no unit, so it cannot be one unit's list;
what a caller may do on which unit is still decided by its token (domain/access.py). The API authenticates by
bearer token, never by cookie, so `Access-Control-Allow-Credentials` is never sent (a page must not send cookies).

Browsers apply no CORS to websockets: a websocket handshake on /graphql is refused before it is accepted (HTTP
403) when it carries an `Origin` that is neither the API's own (the pages it serves: the web demo, GraphiQL) nor
an allowed one — cross-site websocket hijacking. Clients that are not browsers send no `Origin` and are let in.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("slothold.cors")

ALLOW_METHODS = "GET, POST"
ALLOW_HEADERS = "accept, authorization, content-type, idempotency-key, x-request-id"
"""The request headers the API reads (a preflight lists those a page wants to send)."""
EXPOSE_HEADERS = "x-request-id, retry-after, location"
"""The response headers a page may read besides the safelisted ones (content-type...)."""
CHECKED_ORIGIN = "slothold.allowed_origin"
"""The scope key where a websocket's origin, once let in here, is left for the GraphQL view (which refuses any
cross-origin handshake by itself: slothold/app.py's GraphQLEndpoint.is_websocket_origin_allowed reads it)."""
MAX_AGE = 600
"""Seconds a browser may reuse a preflight's answer: an origin taken off the list stops working within it."""


def covered(path: str) -> bool:
    """Whether CORS applies to the path: the GraphQL endpoint and the REST door."""
    return path == "/graphql" or path == "/v1" or path.startswith("/v1/")


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers") or ():
        if key == name:
            return bytes(value).decode("latin-1")
    return None


def _with_vary(headers: Iterable[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """The headers with `Origin` added to (or as) their Vary."""
    out, varied = [], False
    for key, value in headers:
        if key.lower() == b"vary":
            varied = True
            if b"origin" not in value.lower() and value.strip() != b"*":
                value = value + b", Origin"
        out.append((key, value))
    return out if varied else [*out, (b"vary", b"Origin")]


class CorsMiddleware:
    """CORS headers and preflights on /graphql and /v1, and the websocket origin check (see the module)."""

    def __init__(self, app: ASGIApp, allowed: Callable[[], Awaitable[frozenset[str]]],
                 own_origins: frozenset[str] = frozenset()) -> None:
        """`allowed`: the allowed origins (cached by its owner); `own_origins`: the API's own public origins
        besides the one its requests name in `Host` (the public base URL behind a proxy)."""
        self.app = app
        self._allowed = allowed
        self._own = own_origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or not covered(scope["path"]):
            await self.app(scope, receive, send)
            return
        origin = _header(scope, b"origin")
        if scope["type"] == "websocket":
            if origin is None or await self._lets_in(scope, origin):
                if origin is not None:
                    scope[CHECKED_ORIGIN] = origin
                await self.app(scope, receive, send)
            else:
                await self._refuse_websocket(scope, receive, send, origin)
            return
        if scope["method"] == "OPTIONS" and origin is not None \
                and _header(scope, b"access-control-request-method") is not None:
            await self._preflight(send, origin, await self._lets_in(scope, origin))
            return
        extra: list[tuple[bytes, bytes]] = []
        if origin is not None and await self._lets_in(scope, origin):
            extra = [(b"access-control-allow-origin", origin.encode("latin-1")),
                     (b"access-control-expose-headers", EXPOSE_HEADERS.encode())]

        async def send_with_cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*_with_vary(message.get("headers") or []), *extra]
            await send(message)

        await self.app(scope, receive, send_with_cors)

    def _own_origin(self, scope: Scope, origin: str) -> bool:
        """The API's own pages: the origin names the host the request was sent to, or the public base URL."""
        host = _header(scope, b"host")
        scheme, _, netloc = origin.lower().partition("://")
        return (host is not None and scheme in ("http", "https") and netloc == host.lower()) \
            or origin.lower() in self._own

    async def _lets_in(self, scope: Scope, origin: str) -> bool:
        """The API's own origin (checked first: no lookup), or an allowed one."""
        return self._own_origin(scope, origin) or origin.lower() in await self._allowed()

    async def _preflight(self, send: Send, origin: str, allowed: bool) -> None:
        if allowed:
            headers = [(b"access-control-allow-origin", origin.encode("latin-1")),
                       (b"access-control-allow-methods", ALLOW_METHODS.encode()),
                       (b"access-control-allow-headers", ALLOW_HEADERS.encode()),
                       (b"access-control-max-age", str(MAX_AGE).encode()), (b"vary", b"Origin")]
            await send({"type": "http.response.start", "status": 204, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return
        body = (f"CORS: the origin {origin[:100]} is not allowed to call this API from a browser; the unit's owner "
                "registers it with setAllowedOrigins (or the platform lists it in SLOTHOLD_CORS_ORIGINS).\n").encode()
        await send({"type": "http.response.start", "status": 403,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"vary", b"Origin"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    async def _refuse_websocket(self, scope: Scope, receive: Receive, send: Send, origin: str) -> None:
        """Close before accepting: the server answers the handshake with HTTP 403."""
        log.warning("websocket refused: origin not allowed", extra={"origin": origin[:100], "path": scope["path"]})
        message: dict[str, Any] = dict(await receive())
        if message.get("type") == "websocket.connect":
            await send({"type": "websocket.close", "code": 1008, "reason": "origin not allowed"})
