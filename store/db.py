"""Connection pool and the translation of PostgreSQL refusals into domain errors."""

from __future__ import annotations

import json
from typing import Any

import asyncpg

SERVER_SETTINGS = {
    # Grid queries are short; JIT compilation would cost more than it saves (PERFORMANCE-NOTES).
    "jit": "off",
    # A lock wait longer than this is answered as "busy" instead of queueing forever.
    "lock_timeout": "5000",
    "statement_timeout": "30000",
    "application_name": "slothold",
}


async def _init_connection(conn: asyncpg.Connection) -> None:
    await conn.set_type_codec("jsonb", encoder=json.dumps, decoder=json.loads, schema="pg_catalog")
    await conn.set_type_codec("json", encoder=json.dumps, decoder=json.loads, schema="pg_catalog")


async def create_pool(database_url: str, min_size: int = 2, max_size: int = 20,
                      application_name: str = "slothold") -> asyncpg.Pool:
    """Open the process's pool of connections to PostgreSQL (named `application_name` in pg_stat_activity)."""
    pool: Any = await asyncpg.create_pool(
        database_url, min_size=min_size, max_size=max_size, init=_init_connection,
        server_settings={**SERVER_SETTINGS, "application_name": application_name},
    )
    return pool
