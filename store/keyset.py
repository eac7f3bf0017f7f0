"""Keyset pages in SQL (domain/pages.py): one statement for the rows, one EXISTS for the far side of a cursor.

A list's key is a row of SQL expressions ending with the row's id, all sorted the same way, so "after this key" is
one row-value comparison, `(k1, ..., id) > ($n, ..., $m)`, that an index on those expressions serves. The page reads
`limit + 1` rows in the direction of travel: the extra one only says whether more follow. Never OFFSET.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

import asyncpg

from domain.pages import Key, Ordering, Page, PageRequest

_SQL_TYPES: dict[type, str] = {datetime: "timestamptz", UUID: "uuid", int: "bigint", str: "text"}

_AT_OR_BEHIND = {">": "<=", "<": ">="}
"""Rows at a cursor or behind it, for a travel in the direction of the comparison."""


@dataclass(frozen=True)
class Keyset:
    """A list's ordering and the SQL expressions of its key, in the same order as `ordering.types`."""

    ordering: Ordering
    columns: tuple[str, ...]

    def __post_init__(self) -> None:
        assert len(self.columns) == len(self.ordering.types), self.ordering.name

    def compare(self, op: str, first_param: int) -> str:
        params = ", ".join(f"${first_param + i}::{_SQL_TYPES[t]}" for i, t in enumerate(self.ordering.types))
        return f"({', '.join(self.columns)}) {op} ({params})"

    def ops(self) -> tuple[str, str]:
        """The comparisons of rows after and before a key, in the list's order."""
        return (">", "<") if not self.ordering.descending else ("<", ">")

    def order(self, backward: bool) -> str:
        down = self.ordering.descending != backward
        return ", ".join(f"{c} {'DESC' if down else 'ASC'}" for c in self.columns)


async def fetch_page(db: asyncpg.Connection, keyset: Keyset, columns: str, source: str, where: str, args: list[Any],
                     page: PageRequest) -> Page[asyncpg.Record]:
    """The page of `SELECT columns FROM source WHERE where` (its parameters `args`, $1..$n) that `page` asks for,
    in the list's order, with each row's key."""
    after_op, before_op = keyset.ops()
    conditions, values = [f"({where})"], list(args)
    if page.after is not None:
        conditions.append(keyset.compare(after_op, len(values) + 1))
        values += list(page.after)
    if page.before is not None:
        conditions.append(keyset.compare(before_op, len(values) + 1))
        values += list(page.before)
    keys = ", ".join(f"{c} AS _k{i}" for i, c in enumerate(keyset.columns))
    rows = list(await db.fetch(
        f"SELECT {columns}, {keys} FROM {source} WHERE {' AND '.join(conditions)} "
        f"ORDER BY {keyset.order(page.backward)} LIMIT {int(page.limit) + 1}", *values))
    more = len(rows) > page.limit
    rows = rows[:page.limit]
    if page.backward:
        rows.reverse()
    has_next, has_previous = (False, more) if page.backward else (more, False)
    # The far side of the cursor the page started from: any row at it or beyond (the cursor's own row included,
    # should it still exist). Relay lets a server answer false there; one indexed EXISTS answers it right.
    cursor, travel = (page.before, before_op) if page.backward else (page.after, after_op)
    if cursor is not None:
        found = bool(await db.fetchval(
            f"SELECT EXISTS (SELECT 1 FROM {source} WHERE ({where}) AND "
            f"{keyset.compare(_AT_OR_BEHIND[travel], len(args) + 1)})", *args, *cursor))
        if page.backward:
            has_next = found
        else:
            has_previous = found
    return Page(rows, [_key(r, len(keyset.columns)) for r in rows], has_next, has_previous)


def _key(row: asyncpg.Record, n: int) -> Key:
    return tuple(row[f"_k{i}"] for i in range(n))


async def pool_page(pool: asyncpg.Pool, keyset: Keyset, columns: str, source: str, where: str, args: list[Any],
                    page: PageRequest) -> Page[dict[str, Any]]:
    """fetch_page on a connection of the pool, in one read-only snapshot; the rows as dicts."""
    async with pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
        return (await fetch_page(conn, keyset, columns, source, where, args, page)).map(dict)
