"""Where each Redis client of a process connects: REDIS_URL, or the primary that Redis Sentinel names.

With REDIS_SENTINELS ("host:port,host:port,...") and REDIS_SENTINEL_MASTER (default "slothold"), every client —
arq (jobs and the relay's scheduling), the realtime hub and the relay's publishing (broadcaster), the hold rate
limits, readiness and metrics — asks the sentinels for the current primary whenever it opens a connection
(redis-py's SentinelConnectionPool), so a failover is one more lost connection: the hub and the relay reconnect to the
promoted replica as they reconnect to a restarted Redis, and a connection to a demoted primary (READONLY) is dropped
for the new one. REDIS_URL then gives only the database number, user and password.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urlsplit

import redis.asyncio as aioredis
from arq.connections import RedisSettings
from broadcaster import Broadcast
from broadcaster._backends.redis import RedisBackend
from broadcaster._base import Event
from redis.asyncio.sentinel import Sentinel

from slothold.settings import Settings

DEFAULT_URL = "redis://127.0.0.1:6379/0"


def sentinel_addresses(spec: str) -> list[tuple[str, int]]:
    """"host:port,host:port" → [(host, port), ...] (port 26379 when left out); ValueError naming a bad entry."""
    out: list[tuple[str, int]] = []
    for entry in (e.strip() for e in spec.split(",")):
        if not entry:
            continue
        host, _, port = entry.rpartition(":") if ":" in entry else (entry, "", "26379")
        if not host or not port.isdigit():
            raise ValueError(f"REDIS_SENTINELS: {entry!r} is not host:port")
        out.append((host.strip("[]"), int(port)))
    return out


def _url(settings: Settings) -> str:
    return settings.redis_url or DEFAULT_URL


def _auth(settings: Settings) -> dict[str, Any]:
    parts = urlsplit(_url(settings))
    db = parts.path.lstrip("/")
    return {"db": int(db) if db.isdigit() else 0, "username": parts.username or None,
            "password": parts.password or None}


SENTINEL_TIMEOUT = 1.0
"""Seconds to wait for a sentinel's answer before asking the next one."""


def redis_client(settings: Settings, timeout: float | None = None, connect_timeout: float | None = None
                 ) -> aioredis.Redis:
    """A client of the primary, with `timeout` (seconds) on each command and `connect_timeout` (default: `timeout`)
    on connecting."""
    connect_timeout = connect_timeout if connect_timeout is not None else timeout
    if not settings.redis_sentinels:
        direct: aioredis.Redis = aioredis.Redis.from_url(_url(settings), socket_connect_timeout=connect_timeout,
                                                         socket_timeout=timeout)
        return direct
    sentinel = Sentinel(  # type: ignore[no-untyped-call]
        sentinel_addresses(settings.redis_sentinels),
        sentinel_kwargs={"socket_timeout": SENTINEL_TIMEOUT, "socket_connect_timeout": SENTINEL_TIMEOUT},
        **_auth(settings))
    client: aioredis.Redis = sentinel.master_for(settings.redis_master, redis_class=aioredis.Redis,
                                                 socket_timeout=timeout, socket_connect_timeout=connect_timeout)
    return client


def arq_settings(settings: Settings) -> RedisSettings:
    """arq's RedisSettings: REDIS_URL, or the sentinels and the master's name."""
    if not settings.redis_sentinels:
        return RedisSettings.from_dsn(_url(settings))
    auth = _auth(settings)
    return RedisSettings(host=sentinel_addresses(settings.redis_sentinels), sentinel=True,
                         sentinel_master=settings.redis_master, database=auth["db"], username=auth["username"],
                         password=auth["password"], conn_timeout=2, conn_retries=3, conn_retry_delay=1)


class _ClientBackend(RedisBackend):
    """broadcaster's Redis backend on a client we give it (a Sentinel-managed one): broadcaster 0.3.1 only takes a
    URL. Everything else — and what api/realtime/hub.py looks at (`_conn`, `_listener`) — is RedisBackend's."""

    def __init__(self, client: aioredis.Redis) -> None:  # RedisBackend.__init__ takes a URL: not called
        self._conn = client
        self._pubsub = client.pubsub()
        self._ready = asyncio.Event()
        self._queue: asyncio.Queue[Event] = asyncio.Queue()
        self._listener: asyncio.Task[None] | None = None


def broadcast(settings: Settings) -> Broadcast:
    """A new (unconnected) Broadcast on the primary."""
    if not settings.redis_sentinels:
        return Broadcast(_url(settings))
    # No command timeout: the subscription's connection waits for messages (the hub pings it every second).
    return Broadcast(backend=_ClientBackend(redis_client(settings, None, 2.0)))
