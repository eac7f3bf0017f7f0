"""Persisted queries: Apollo's automatic persisted queries (APQ) and an allow-list mode, for HTTP and websockets.

A request names its document by hash in ``extensions.persistedQuery = {"version": 1, "sha256Hash": "<hex>"}``:

* the hash alone: the document is looked up (the allow-list's manifest, or the APQ store: a per-process LRU in
  front of Redis, shared by every API process, with a TTL); unknown → ``PersistedQueryNotFound`` with code
  ``PERSISTED_QUERY_NOT_FOUND`` and HTTP 200, the answer Apollo's clients expect (they send the document again with
  its hash);
* the hash and the document: the document's sha256 must be the hash (``PERSISTED_QUERY_HASH_MISMATCH``, 400);
  in APQ mode the document is stored once it has passed validation (the view calls ``register``), so a document
  the limits refuse is never kept;
* a version other than 1: ``PERSISTED_QUERY_VERSION_NOT_SUPPORTED`` (400).

Modes (``SLOTHOLD_PERSISTED_QUERIES``): ``off`` (any ``persistedQuery`` gets ``PersistedQueryNotSupported``, 200,
after which Apollo's clients send plain documents), ``apq`` (the default) and ``allowlist``: only the manifest's
documents run, named by hash alone (unknown → ``PERSISTED_QUERY_NOT_IN_LIST``, 404) or sent whole, with or without
their hash (a document whose hash is not listed → ``QUERY_NOT_IN_SAFELIST``, 403); nothing is registered. The
codes of the last two are Apollo Router's. Whatever way a document arrives, the schema then parses and validates it
with every limit (depth, cost, aliases, tokens, text lengths): this module only finds the text.
"""

from __future__ import annotations

import hashlib
import logging
import re
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final

from api.graphql.guards import GraphQLHTTPError
from domain.errors import ErrorCode

if TYPE_CHECKING:
    from redis.asyncio import Redis

log = logging.getLogger("slothold.persisted")

KEY_PREFIX: Final = "slothold:apq:"
"""Redis keys of the APQ store: the prefix and the document's sha256."""
_HASH: Final = re.compile(r"[0-9a-f]{64}")


class PersistedQueryMode(StrEnum):
    """How the endpoint treats `extensions.persistedQuery` (SLOTHOLD_PERSISTED_QUERIES)."""

    OFF = "off"
    APQ = "apq"
    ALLOWLIST = "allowlist"


def document_hash(query: str) -> str:
    """The id of a document in APQ and in a persisted query manifest: the lowercase hex sha256 of its UTF-8 text."""
    return hashlib.sha256(query.encode()).hexdigest()


class PersistedQueryError(GraphQLHTTPError):
    """A refusal of the persisted-query protocol: an HTTP status, a message and an ``extensions.code``."""

    def __init__(self, status_code: int, message: str, code: ErrorCode) -> None:
        super().__init__(status_code, message, {"cache-control": "private, no-store"})
        self.code = str(code)

    def as_error(self) -> dict[str, Any]:
        """The GraphQL error, as sent in a response's `errors` or a websocket `error` message."""
        return {"message": self.reason, "extensions": {"code": self.code}}


def not_found() -> PersistedQueryError:
    return PersistedQueryError(200, "PersistedQueryNotFound", ErrorCode.PERSISTED_QUERY_NOT_FOUND)


class PersistedQueryStore:
    """The APQ documents: a bounded LRU of this process in front of Redis (shared by the API processes, each entry
    with a TTL). A document is immutable for its hash, so the LRU never goes stale. While Redis is unreachable the
    store steps aside (one warning per outage): a lookup is a miss, so clients send the document again, and a
    registration is skipped — requests never fail for it."""

    def __init__(self, redis: Redis | None, ttl_seconds: int, local_size: int,
                 retry_redis_seconds: float = 5) -> None:
        self.redis = redis
        self.ttl_seconds = ttl_seconds
        self.local_size = local_size
        self.retry_redis_seconds = retry_redis_seconds
        self._local: OrderedDict[str, str] = OrderedDict()
        self._down_until = 0.0
        self._down = False

    def _remember(self, sha: str, query: str) -> None:
        if self.local_size <= 0:
            return
        self._local[sha] = query
        self._local.move_to_end(sha)
        while len(self._local) > self.local_size:
            self._local.popitem(last=False)

    async def get(self, sha: str) -> str | None:
        """The document stored under `sha`, or None."""
        hit = self._local.get(sha)
        if hit is not None:
            self._local.move_to_end(sha)
            return hit
        raw = await self._redis("look up", "get", KEY_PREFIX + sha)
        if not isinstance(raw, bytes | str):
            return None
        query = raw.decode() if isinstance(raw, bytes) else raw
        if document_hash(query) != sha:  # never run a document that is not the one its hash names
            return None
        self._remember(sha, query)
        return query

    async def put(self, sha: str, query: str) -> None:
        """Store a document under its hash (the caller checked it), for `ttl_seconds`."""
        self._remember(sha, query)
        await self._redis("store", "set", KEY_PREFIX + sha, query, ex=max(1, self.ttl_seconds))

    async def _redis(self, doing: str, command: str, *args: Any, **kwargs: Any) -> Any:
        if self.redis is None or time.monotonic() < self._down_until:
            return None
        try:
            answer = await getattr(self.redis, command)(*args, **kwargs)
        except Exception as e:  # Redis down, slow or misbehaving: the clients send their documents again
            self._down_until = time.monotonic() + self.retry_redis_seconds
            if not self._down:
                self._down = True
                log.warning("persisted queries: cannot %s documents in Redis: %s: %s", doing, type(e).__name__, e)
            return None
        if self._down:
            self._down = False
            log.warning("persisted queries: Redis is back")
        return answer


@dataclass(frozen=True)
class Resolved:
    """The document a request runs, and the hash to register it under once it has passed validation."""

    query: str | None
    register: str | None = None


class PersistedQueries:
    """The protocol of one endpoint: its mode, the APQ store and the allow-list's manifest (id → document)."""

    def __init__(self, mode: PersistedQueryMode, store: PersistedQueryStore | None = None,
                 manifest: Mapping[str, str] | None = None) -> None:
        if mode is PersistedQueryMode.ALLOWLIST and manifest is None:
            raise ValueError("the allow-list mode needs a manifest (SLOTHOLD_PERSISTED_QUERY_MANIFEST)")
        self.mode = mode
        self.store = store if store is not None else PersistedQueryStore(None, 0, 1000)
        self.manifest: Mapping[str, str] = manifest or {}

    @property
    def allowlist(self) -> bool:
        return self.mode is PersistedQueryMode.ALLOWLIST

    async def resolve(self, query: Any, extensions: Any) -> Resolved:
        """The document to run for a request's `query` and `extensions`, or a PersistedQueryError.

        A request without `persistedQuery` runs its `query` as sent (outside the allow-list mode); anything that is
        not a string is left to the view's own checks."""
        persisted = extensions.get("persistedQuery") if isinstance(extensions, dict) else None
        if persisted is None:
            if self.allowlist and isinstance(query, str) and document_hash(query) not in self.manifest:
                raise _not_in_safelist()
            return Resolved(query)
        if self.mode is PersistedQueryMode.OFF:
            raise PersistedQueryError(200, "PersistedQueryNotSupported", ErrorCode.PERSISTED_QUERY_NOT_SUPPORTED)
        sha = _hash_of(persisted)
        if isinstance(query, str):
            if document_hash(query) != sha:
                raise PersistedQueryError(400, "provided sha does not match query: `sha256Hash` must be the "
                                          "lowercase hex SHA-256 of the query's UTF-8 text",
                                          ErrorCode.PERSISTED_QUERY_HASH_MISMATCH)
            if self.allowlist:
                if sha not in self.manifest:
                    raise _not_in_safelist()
                return Resolved(query)
            return Resolved(query, register=sha)
        if query is not None:
            return Resolved(query)  # not a string: the view answers 400 for it
        if self.allowlist:
            listed = self.manifest.get(sha)
            if listed is None:
                raise PersistedQueryError(404, f"Persisted query {sha!r} not found in the persisted query list",
                                          ErrorCode.PERSISTED_QUERY_NOT_IN_LIST)
            return Resolved(listed)
        stored = await self.store.get(sha) if _HASH.fullmatch(sha) else None
        if stored is None:
            raise not_found()
        return Resolved(stored)

    async def register(self, sha: str, query: str) -> None:
        """Keep a verified, validated document (APQ mode only)."""
        if self.mode is PersistedQueryMode.APQ:
            await self.store.put(sha, query)


def _hash_of(persisted: Any) -> str:
    if not isinstance(persisted, dict):
        raise PersistedQueryError(400, "`extensions.persistedQuery` must be an object: {\"version\": 1, "
                                  "\"sha256Hash\": \"<hex sha256 of the query>\"}", ErrorCode.BAD_REQUEST)
    version = persisted.get("version")
    if version != 1 or isinstance(version, bool):
        raise PersistedQueryError(400, f"Unsupported persisted query version {version!r}: only version 1 is "
                                  "supported", ErrorCode.PERSISTED_QUERY_VERSION_NOT_SUPPORTED)
    sha = persisted.get("sha256Hash")
    if not isinstance(sha, str) or not sha:
        raise PersistedQueryError(400, "`extensions.persistedQuery.sha256Hash` must be the hex SHA-256 of the "
                                  "query", ErrorCode.BAD_REQUEST)
    return sha.lower()


def _not_in_safelist() -> PersistedQueryError:
    return PersistedQueryError(403, "The operation body was not found in the persisted query safelist: this "
                               "server runs only the documents of its manifest", ErrorCode.QUERY_NOT_IN_SAFELIST)
