"""Authentication of HTTP requests and websocket connections: bearer token → Principal (domain/access.py).

HTTP: `Authorization: Bearer <token>`. Websockets (browsers cannot set headers there): the same header on the
upgrade request, or `{"authorization": "Bearer <token>"}` (or `{"token": "<token>"}`) in the
graphql-transport-ws `connection_init` payload; a bad token there closes the socket with 4403.

Lookups are cached per process for `CACHE_SECONDS`, so a revoked token stops working within that time.

What is already open follows too (`LiveCredentials`): every API process checks, about once a second and in one
query, the tokens and customer sessions of its open websockets, and closes with 4403 each socket whose credentials
no longer hold: revoked (`slothold token revoke`, `signOut`), expired, or granting another reach than the socket
authenticated with (kind, tenant, unit, role, scopes, customer). It reads PostgreSQL only, so it works with Redis
down; a revocation in this process (`signOut`) triggers a check at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Coroutine
from datetime import datetime
from typing import Any, Protocol
from uuid import UUID

from domain.access import ANONYMOUS, Principal, Unauthenticated
from domain.ports import Clock
from store.access import PgAccess, digest, reach_digest

log = logging.getLogger("slothold.auth")

CACHE_SECONDS = 2.0
CACHE_SIZE = 10_000
CHECK_SECONDS = 1.0
"""How often LiveCredentials checks the credentials of the open websockets."""


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

    def __init__(self, access: PgAccess, on_forget: Callable[[], None] | None = None) -> None:
        self.access = access
        self._on_forget = on_forget
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
        """Drop the cache (after a revocation in this process), and have what is open checked at once."""
        self._cache.clear()
        if self._on_forget is not None:
            self._on_forget()

    def drop(self, token_ids: set[UUID]) -> None:
        """Forget the cached principals of these tokens or sessions (LiveCredentials found them lapsed): requests
        with them are refused at once here rather than when the cache entry ages out."""
        for key in [k for k, (_, found) in self._cache.items() if found is not None and found.token_id in token_ids]:
            del self._cache[key]


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


class Connection(Protocol):
    """An open connection that acts with one principal's credentials (slothold/fanout.py's handler)."""

    def credentials_lapsed(self) -> Coroutine[Any, Any, None]:
        """End the connection: its credentials were revoked, expired or changed."""
        ...


class LiveCredentials:
    """The credentials of this process's open websockets, checked against the database every `interval` seconds.

    One query per check for all of them (`PgAccess.lapsed_credentials`: each distinct (token, reach) pair once,
    the answer empty unless something lapsed), and nothing per event or per message: registering is a dict insert
    when a socket authenticates, unregistering one when it closes.
    """

    def __init__(self, access: PgAccess, clock: Clock, interval: float = CHECK_SECONDS,
                 on_lapse: Callable[[set[UUID]], None] | None = None) -> None:
        """`on_lapse` hears the ids of the tokens and sessions found lapsed (Authenticator.drop)."""
        self.access = access
        self.clock = clock
        self.interval = interval
        self.on_lapse = on_lapse
        self._open: dict[tuple[UUID, UUID], dict[Connection, float]] = {}
        """(token or session id, reach digest) → the connections opened with it, and when each registered."""
        self._key_of: dict[Connection, tuple[UUID, UUID]] = {}
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._failing = False
        self.cut = 0
        """Connections closed so far (tests, metrics)."""

    @property
    def connection_count(self) -> int:
        return len(self._key_of)

    def register(self, connection: Connection, principal: Principal) -> None:
        """Watch a connection that authenticated as `principal` (a no-op without a token or session)."""
        if principal.token_id is None:
            return
        self.unregister(connection)
        key = (principal.token_id, reach_digest(principal))
        self._open.setdefault(key, {})[connection] = time.monotonic()
        self._key_of[connection] = key

    def unregister(self, connection: Connection) -> None:
        key = self._key_of.pop(connection, None)
        if key is None:
            return
        conns = self._open.get(key)
        if conns is not None:
            conns.pop(connection, None)
            if not conns:
                del self._open[key]

    def poke(self) -> None:
        """Check now rather than at the next tick (a credential was just revoked in this process)."""
        self._wake.set()

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    async def check(self) -> int:
        """One check: close the connections whose credentials no longer hold; how many were closed."""
        if not self._open:
            return 0
        started = time.monotonic()
        lapsed_keys = await self.access.lapsed_credentials(list(self._open), self.clock.now())
        lapsed: list[Connection] = []
        for key in lapsed_keys:
            # A connection registered while the query ran may have seen a newer row than the query did.
            lapsed += [c for c, since in self._open.get(key, {}).items() if since < started]
        if not lapsed:
            return 0
        if self.on_lapse is not None:
            self.on_lapse({token_id for token_id, _ in lapsed_keys})
        for connection in lapsed:
            self.unregister(connection)
            self.cut += 1
            task = asyncio.create_task(connection.credentials_lapsed())
            task.add_done_callback(_retrieve)
        log.info("closed %d websocket(s): their token or session was revoked, expired or changed", len(lapsed))
        return len(lapsed)

    async def _run(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.interval)
            self._wake.clear()
            try:
                await asyncio.wait_for(self.check(), max(5.0, self.interval * 5))
                if self._failing:
                    self._failing = False
                    log.warning("checking the credentials of open websockets again")
            except asyncio.CancelledError:
                raise
            except Exception as e:  # the database is away: keep what is open, say so once, retry next tick
                if not self._failing:
                    self._failing = True
                    log.warning("cannot check the credentials of open websockets: %s: %s", type(e).__name__, e)


def _retrieve(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("closing a websocket whose credentials lapsed failed: %r", task.exception())
