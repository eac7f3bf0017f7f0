"""unit_allowed_origins (migration 0022c): each unit's registered web origins, and the union the API lets in.

The union is read by every browser request that carries an `Origin` header (api/cors.py), so it is cached in each
process for CACHE_SECONDS: a change made through a unit of work of this process is seen here at once (`forget`,
called on commit), in the other API processes when their copy expires. A failed read keeps the last copy (or the
platform's list alone): the database being away must not turn preflights into errors.
"""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import datetime
from typing import Any
from uuid import UUID

import asyncpg

from domain.origins import AllowedOrigin
from store.bookings import ConnGetter

log = logging.getLogger("slothold.cors")
CACHE_SECONDS = 5.0
_COLUMNS = "origin, created_at, created_by"
_generation = 0
"""Bumped by `forget`: every OriginUnion of this process reloads on its next read."""


def forget() -> None:
    """Forget the cached union in this process (a unit's origins changed here)."""
    global _generation
    _generation += 1


def _origin(r: Any) -> AllowedOrigin:
    return AllowedOrigin(origin=r["origin"], created_at=r["created_at"], created_by=r["created_by"])


class PgAllowedOrigins:
    """A unit's origins on the unit of work's connection (domain.ports.AllowedOriginsRepository)."""

    def __init__(self, conn: ConnGetter) -> None:
        self._conn = conn
        self.touched = False
        """Whether this unit of work changed some unit's origins (its commit then forgets the cached union)."""

    async def lock(self, unit_id: UUID) -> list[AllowedOrigin] | None:
        conn = await self._conn()
        # NO KEY UPDATE: serializes two owners changing the list, without blocking the holds' foreign-key checks.
        if await conn.fetchval("SELECT 1 FROM units WHERE id = $1 FOR NO KEY UPDATE", unit_id) is None:
            return None
        return await self.of_unit(unit_id)

    async def of_unit(self, unit_id: UUID) -> list[AllowedOrigin]:
        conn = await self._conn()
        rows = await conn.fetch(f"SELECT {_COLUMNS} FROM unit_allowed_origins WHERE unit_id = $1 ORDER BY origin",
                                unit_id)
        return [_origin(r) for r in rows]

    async def replace(self, unit_id: UUID, origins: tuple[str, ...], session: str, now: datetime) -> None:
        conn = await self._conn()
        await conn.execute("DELETE FROM unit_allowed_origins WHERE unit_id = $1 AND NOT origin = ANY($2::text[])",
                           unit_id, list(origins))
        await conn.execute(
            "INSERT INTO unit_allowed_origins (unit_id, origin, created_at, created_by) "
            "SELECT $1, o, $3, $4 FROM unnest($2::text[]) o ON CONFLICT (unit_id, origin) DO NOTHING",
            unit_id, list(origins), now, session)
        self.touched = True


class OriginUnion:
    """Every unit's origins and the platform's list, cached (domain.ports.OriginList)."""

    def __init__(self, pool: asyncpg.Pool, platform: frozenset[str] = frozenset(),
                 seconds: float = CACHE_SECONDS) -> None:
        self._pool = pool
        self._platform = platform
        self._seconds = seconds
        self._value: frozenset[str] | None = None
        self._until = 0.0
        self._generation = -1
        self._lock = asyncio.Lock()

    def _fresh(self) -> bool:
        return self._value is not None and self._generation == _generation and time.monotonic() < self._until

    async def allowed(self) -> frozenset[str]:
        if self._fresh():
            assert self._value is not None
            return self._value
        async with self._lock:  # concurrent misses wait for one read
            if not self._fresh():
                seen = _generation  # a change committed during the read makes this copy stale at once
                try:
                    # Bounded, waiting for a connection included: requests with an Origin wait on this read.
                    rows = await asyncio.wait_for(self._pool.fetch("SELECT DISTINCT origin FROM "
                                                                   "unit_allowed_origins"), 2)
                except (TimeoutError, OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as e:
                    log.warning("cannot read the allowed origins (%s): keeping the last list", type(e).__name__)
                    self._value = self._value if self._value is not None else self._platform
                    self._until, self._generation = time.monotonic() + 1, _generation
                else:
                    self._value = self._platform | {r["origin"] for r in rows}
                    self._until, self._generation = time.monotonic() + self._seconds, seen
        assert self._value is not None
        return self._value
