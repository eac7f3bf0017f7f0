"""Idempotency keys: the first request under a key runs, retries replay its stored result."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

import asyncpg

from domain.errors import IdempotencyInProgress, IdempotencyKeyReused
from store.bookings import ConnGetter

_CLAIM = """
INSERT INTO idempotency_keys (unit_id, key, operation, fingerprint, expires_at)
VALUES ($1::uuid, $2::text, $3::text, $4::text, $5::timestamptz)
ON CONFLICT DO NOTHING RETURNING 1
"""
_READ = "SELECT operation, fingerprint, response FROM idempotency_keys WHERE unit_id = $1::uuid AND key = $2"
_COMPLETE = "UPDATE idempotency_keys SET response = $3::jsonb WHERE unit_id = $1::uuid AND key = $2::text"


class PgIdempotencyKeys:
    """IdempotencyKeys on the unit of work's connection.

    The claim is an INSERT in the request's own transaction: a concurrent duplicate blocks on the
    unique index until the first commits (then replays) or rolls back (then runs itself).
    """

    def __init__(self, conn: ConnGetter) -> None:
        self._conn = conn

    async def claim(
        self, unit_id: UUID, key: str, operation: str, fingerprint: str, expires_at: datetime
    ) -> dict[str, Any] | None:
        """None: this request owns the key. A dict: the stored result to replay."""
        conn = await self._conn()
        try:
            if await conn.fetchval(_CLAIM, unit_id, key, operation, fingerprint, expires_at):
                return None
        except asyncpg.LockNotAvailableError as e:
            raise IdempotencyInProgress(key) from e
        row = await conn.fetchrow(_READ, unit_id, key)
        if row is None or row["response"] is None:
            raise IdempotencyInProgress(key)
        if row["operation"] != operation or row["fingerprint"] != fingerprint:
            raise IdempotencyKeyReused(key)
        response: dict[str, Any] = row["response"]
        return response

    async def complete(self, unit_id: UUID, key: str, response: dict[str, Any]) -> None:
        """Store the result that retries under this key will replay."""
        conn = await self._conn()
        await conn.execute(_COMPLETE, unit_id, key, response)
