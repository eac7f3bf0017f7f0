"""Run SQLAlchemy Core statements on an asyncpg connection (compiled for the asyncpg dialect)."""

from __future__ import annotations

from typing import Any

import asyncpg
from sqlalchemy.engine import make_url
from sqlalchemy.sql import Executable

_DIALECT = make_url("postgresql+asyncpg://").get_dialect()()
"""SQLAlchemy's asyncpg dialect (named by URL: its class's constructor is not annotated, `Dialect`'s is)."""


def compiled(stmt: Executable) -> tuple[str, list[Any]]:
    """SQL text with $n placeholders and the parameters in order."""
    c = stmt.compile(dialect=_DIALECT)  # type: ignore[attr-defined]
    return str(c), [c.params[name] for name in (c.positiontup or [])]


async def execute(conn: asyncpg.Connection, stmt: Executable) -> str:
    """Execute a Core statement."""
    sql, params = compiled(stmt)
    return await conn.execute(sql, *params)  # type: ignore[no-any-return]


async def fetch(conn: asyncpg.Connection, stmt: Executable) -> list[asyncpg.Record]:
    """Fetch the rows of a Core statement."""
    sql, params = compiled(stmt)
    return await conn.fetch(sql, *params)  # type: ignore[no-any-return]
