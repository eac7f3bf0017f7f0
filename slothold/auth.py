"""Authentication of HTTP requests and websocket connections: bearer token → Principal (domain/access.py).

HTTP: `Authorization: Bearer <token>`. Websockets (browsers cannot set headers there): the same header on the
upgrade request, or `{"authorization": "Bearer <token>"}` (or `{"token": "<token>"}`) in the
graphql-transport-ws `connection_init` payload; a bad token there closes the socket with 4403.

Lookups are cached per process for `CACHE_SECONDS`, so a revoked token stops working within that time.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from datetime import datetime
from typing import Any

from domain.access import ANONYMOUS, Principal, Unauthenticated
from store.access import PgAccess, digest

CACHE_SECONDS = 2.0
CACHE_SIZE = 10_000


def bearer(value: str | None) -> str | None:
    """The token of an `Authorization` value ("Bearer x" or just "x"), None if empty."""
    if not value:
        return None
    value = value.strip()
    if value[:7].lower() == "bearer ":
        value = value[7:].strip()
    return value or None


class Authenticator:
    """Turns bearer tokens into principals, with a short cache."""

    def __init__(self, access: PgAccess) -> None:
        self.access = access
        self._cache: OrderedDict[bytes, tuple[float, Principal | None]] = OrderedDict()

    async def principal(self, token: str | None, now: datetime) -> Principal:
        """The caller: ANONYMOUS without a token; Unauthenticated for a token that is not (or no longer) valid."""
        if token is None:
            return ANONYMOUS
        key = digest(token)
        hit = self._cache.get(key)
        t = time.monotonic()
        if hit is not None and hit[0] > t:
            found = hit[1]
        else:
            found = await self.access.principal(token, now) if len(token) <= 200 else None
            self._cache[key] = (t + CACHE_SECONDS, found)
            self._cache.move_to_end(key)
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        if found is None:
            raise Unauthenticated("the bearer token is unknown, revoked or expired")
        return found

    def forget(self) -> None:
        """Drop the cache (after a revocation in this process)."""
        self._cache.clear()


def token_from_params(params: Any) -> str | None:
    """The token of a connection_init payload."""
    if not isinstance(params, dict):
        return None
    for key in ("authorization", "Authorization"):
        if isinstance(params.get(key), str):
            return bearer(params[key])
    headers = params.get("headers")
    if isinstance(headers, dict):
        for key in ("authorization", "Authorization"):
            if isinstance(headers.get(key), str):
                return bearer(headers[key])
    token = params.get("token")
    return token.strip() or None if isinstance(token, str) else None
