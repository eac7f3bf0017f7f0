"""Connection pool and the translation of PostgreSQL refusals into domain errors."""

from __future__ import annotations

import json
import logging
from typing import Any

import asyncpg

log = logging.getLogger("slothold.db")

SERVER_SETTINGS = {
    # Grid queries are short; JIT compilation would cost more than it saves (PERFORMANCE-NOTES).
    "jit": "off",
    # A lock wait longer than this is answered as "busy" instead of queueing forever.
    "lock_timeout": "5000",
    "statement_timeout": "30000",
    "application_name": "slothold",
}


class PooledConnection(asyncpg.Connection):  # type: ignore[misc]
    """A pool's connection, released without asyncpg's reset query (`pg_advisory_unlock_all(); CLOSE ALL;
    UNLISTEN *; RESET ALL`): an open transaction is still rolled back on release, but nothing else is sent.

    Nothing Slothold runs on a pool keeps session state (advisory locks are pg_advisory_xact_lock, SETs are SET
    LOCAL, cursors live in transactions; the relay's session lock and LISTEN use a connection of their own), so the
    reset was one more round trip on every release — a hold's transaction and each cached configuration read — for
    nothing (bench/RESULTS.md, issue 22). Through a transaction-mode pooler (PgBouncer) it would even be harmful: it
    would run on whichever server connection the pooler lends and undo its settings (connect_query) for everyone."""

    def get_reset_query(self) -> str:
        return ""


async def _init_connection(conn: asyncpg.Connection) -> None:
    await conn.set_type_codec("jsonb", encoder=json.dumps, decoder=json.loads, schema="pg_catalog")
    await conn.set_type_codec("json", encoder=json.dumps, decoder=json.loads, schema="pg_catalog")


CONFIG_POOL_SIZE = 2
"""Connections of a process's configuration pool (store/uow.py): loads of the few-seconds cache of units and
resources, rare and short."""


async def create_config_pool(settings_session_url: str) -> asyncpg.Pool:
    """The process's configuration pool, on PostgreSQL itself (DATABASE_DIRECT_URL when a pooler is in front): it
    takes no server connection of the pooler's, so loads never queue behind the transactions waiting for them."""
    return await create_pool(settings_session_url, 0, CONFIG_POOL_SIZE, application_name="slothold-config")


async def create_pool(database_url: str, min_size: int = 2, max_size: int = 20,
                      application_name: str = "slothold", behind_pooler: bool = False) -> asyncpg.Pool:
    """Open the process's pool of connections to PostgreSQL (named `application_name` in pg_stat_activity).

    `behind_pooler`: `database_url` is a transaction-mode pooler (PgBouncer 1.18: no prepared statements across
    transactions, only a few startup parameters). Then asyncpg's statement cache is off (each query is parsed
    unnamed, in the same round trip as its execution), the session settings are not sent (the pooler sets them on its
    server connections: connect_query, or ALTER ROLE / DATABASE ... SET — checked here, a warning when they differ)
    and connections are not reset on release. Nothing Slothold runs on a pool keeps session state: its advisory locks
    are pg_advisory_xact_lock, its SETs are SET LOCAL; the relay's session lock and LISTEN use a direct connection.
    """
    if not behind_pooler:
        pool: Any = await asyncpg.create_pool(
            database_url, min_size=min_size, max_size=max_size, init=_init_connection,
            connection_class=PooledConnection,
            server_settings={**SERVER_SETTINGS, "application_name": application_name},
        )
        return pool
    pool = await asyncpg.create_pool(
        database_url, min_size=min_size, max_size=max_size, init=_init_connection, statement_cache_size=0,
        connection_class=PooledConnection, server_settings={"application_name": application_name},
    )
    await _check_session_settings(pool)
    return pool


async def _check_session_settings(pool: asyncpg.Pool) -> None:
    wanted = {k: v for k, v in SERVER_SETTINGS.items() if k != "application_name"}
    rows = await pool.fetch("SELECT name, setting FROM pg_settings WHERE name = ANY($1::text[])", list(wanted))
    found = {r["name"]: r["setting"] for r in rows}
    wrong = {k: found.get(k) for k, v in wanted.items() if found.get(k) != v}
    if wrong:
        log.warning("behind the pooler, the server's session settings differ from what Slothold expects: %s "
                    "(wanted %s; set them with the pooler's connect_query or ALTER ROLE ... SET)", wrong, wanted)
