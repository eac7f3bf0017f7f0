"""What PostgreSQL does with the hold path's and the grid's statements: their plans and times (EXPLAIN ANALYZE)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import asyncpg

from bench import _data
from store.bookings import _LAPSED


async def _prepared_plan(conn: asyncpg.Connection, sql: str, *args: Any) -> str:
    """The plan and time of `sql` as the API runs it: a prepared statement, which PostgreSQL plans for its
    parameters the first five times and may then switch to a generic plan (EXPLAIN ANALYZE of the 6th run)."""
    literals = ", ".join("NULL" if a is None else f"'{a.isoformat() if isinstance(a, datetime) else a}'"
                         for a in args)
    await conn.execute(f"PREPARE bench_plan AS {sql}")
    try:
        for _ in range(5):
            await conn.execute(f"EXECUTE bench_plan({literals})")
        doc = await conn.fetchval(f"EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE bench_plan({literals})")
    finally:
        await conn.execute("DEALLOCATE bench_plan")
    doc = json.loads(doc) if isinstance(doc, str) else doc
    return f"{_scans(doc)}, {doc[0]['Execution Time']:.1f} ms in PostgreSQL"


def _scans(plan: Any) -> str:
    """'Seq Scan on t' / 'Index Scan on t using i' for each scan of an EXPLAIN (FORMAT JSON) plan."""
    found: list[str] = []

    def walk(node: dict[str, Any]) -> None:
        if "Relation Name" in node:
            index = f" using {node['Index Name']}" if "Index Name" in node else ""
            found.append(f"{node['Node Type']} on {node['Relation Name']}{index}")
        elif "Index Name" in node:  # a Bitmap Index Scan under its Bitmap Heap Scan
            found.append(f"{node['Node Type']} using {node['Index Name']}")
        for child in node.get("Plans", []):
            walk(child)

    walk((json.loads(plan) if isinstance(plan, str) else plan)[0]["Plan"])
    return "; ".join(found)


async def lapsed_probe(url: str, plan: _data.SlotPlan) -> str:
    """Rows in allocations, and what the hold path's lapsed check costs at that size (EXPLAIN ANALYZE)."""
    conn = await asyncpg.connect(url, server_settings={"jit": "off"})
    try:
        rows = await conn.fetchval("SELECT count(*) FROM allocations")
        rid, s, e = plan.pair(0)
        doc = await conn.fetchval("EXPLAIN (ANALYZE, FORMAT JSON) " + _LAPSED, plan.unit_id, [rid], s, e,
                                  datetime.now(UTC))
        doc = json.loads(doc) if isinstance(doc, str) else doc
        return (f"{rows:,} rows in allocations; the lapsed check of every hold (store/bookings.py _LAPSED) "
                f"takes {doc[0]['Execution Time']:.1f} ms: {_scans(doc)}")
    finally:
        await conn.close()
