"""Where the flash sale's time goes in PostgreSQL: pg_stat_activity sampled while it runs (wait events, and the
statements the backends are in), and pg_stat_statements when the server preloads it."""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from dataclasses import dataclass, field

import asyncpg

_ACTIVITY = """
SELECT pid, state, coalesce(wait_event_type || ':' || wait_event, 'CPU') AS wait, left(query, 400) AS query,
       CASE WHEN wait_event_type = 'Lock' THEN pg_blocking_pids(pid) END AS blockers
FROM pg_stat_activity
WHERE datname = $1 AND pid <> pg_backend_pid() AND backend_type = 'client backend' AND state <> 'idle'
"""


def statement(query: str) -> str:
    """A short, stable name of a statement: its first words, CTE names and tables."""
    q = " ".join(query.split())
    if q.upper() in ("BEGIN", "COMMIT", "ROLLBACK") or q.upper().startswith(("BEGIN", "COMMIT")):
        return q.split()[0].upper()
    if "pg_advisory_xact_lock(5107006" in q:  # store/seatmaps.py _LOCK_ROW, _LOCK_EVENT
        return ("best-available: waiting for a row's lock" if "':'" in q
                else "best-available: waiting for the event's lock")
    if "pg_try_advisory_xact_lock(5107006" in q:
        return "best-available: trying rows' locks"
    if "uuid_send(t.resource_id)" in q:
        return "best-available: the event's taken seats"
    m = re.match(r"(?i)(WITH\s+(\w+)|SELECT|INSERT INTO \w+|UPDATE \w+|DELETE FROM \w+)", q)
    head = m.group(0) if m else q[:30]
    tables = sorted(set(re.findall(r"(?i)\b(?:FROM|JOIN|INTO|UPDATE)\s+(\w+)", q)))[:5]
    return f"{head[:40]} … [{', '.join(tables)}]"


@dataclass
class Activity:
    samples: int = 0
    backends: int = 0
    waits: Counter[str] = field(default_factory=Counter)
    statements: Counter[str] = field(default_factory=Counter)
    idle_in_transaction: int = 0
    holders: Counter[str] = field(default_factory=Counter)
    """What the backends others waited for (on a row lock: the unit's audit chain head) were doing."""

    def lines(self, top: int = 8) -> list[str]:
        if not self.samples:
            return ["no pg_stat_activity samples"]
        n = self.samples
        out = [f"pg_stat_activity, {n} samples: {self.backends / n:.1f} backends in a transaction on average "
               f"({self.idle_in_transaction / n:.1f} idle in transaction: waiting for the API)"]
        busy = sum(self.waits.values()) or 1
        out.append("waits of active backends: " + "; ".join(f"{k} {v / busy:.0%}"
                                                            for k, v in self.waits.most_common(top)))
        out.append("statements active backends were in: " + "; ".join(
            f"{k} {v / busy:.0%}" for k, v in self.statements.most_common(top)))
        held = sum(self.holders.values())
        if held:
            out.append("what the backends others waited for on a row lock (Lock:transactionid) were doing, per "
                       "waiter: " + "; ".join(f"{k} {v / held:.0%}" for k, v in self.holders.most_common(top)))
        return out


async def sample_activity(url: str, db: str, stop: asyncio.Event, every: float = 0.02) -> Activity:
    """Sample pg_stat_activity of database `db` until `stop` is set."""
    act = Activity()
    conn = await asyncpg.connect(url)
    try:
        while not stop.is_set():
            rows = await conn.fetch(_ACTIVITY, db)
            act.samples += 1
            act.backends += len(rows)
            by_pid = {r["pid"]: r for r in rows}
            for r in rows:
                if r["wait"] == "Lock:transactionid":
                    for b in r["blockers"] or ():
                        h = by_pid.get(b)
                        act.holders["gone" if h is None else "waiting for the API (idle in transaction)"
                                    if h["state"] == "idle in transaction" else
                                    f"{statement(h['query'])} ({h['wait']})"] += 1
                if r["state"] == "idle in transaction":
                    act.idle_in_transaction += 1
                    continue
                act.waits[r["wait"]] += 1
                act.statements[statement(r["query"])] += 1
            try:
                await asyncio.wait_for(stop.wait(), every)
            except TimeoutError:
                pass
    finally:
        await conn.close()
    return act


async def statements_ready(url: str) -> bool:
    """pg_stat_statements in this database, reset (False when the server does not preload it)."""
    conn = await asyncpg.connect(url)
    try:
        preload = await conn.fetchval("SELECT current_setting('shared_preload_libraries')")
        if "pg_stat_statements" not in preload:
            return False
        await conn.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        await conn.execute("SELECT pg_stat_statements_reset()")
        return True
    finally:
        await conn.close()


async def top_statements(url: str, top: int = 8) -> list[str]:
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(
            "SELECT query, calls, total_exec_time, mean_exec_time FROM pg_stat_statements "
            "WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) "
            "ORDER BY total_exec_time DESC LIMIT $1", top)
    finally:
        await conn.close()
    total = sum(r["total_exec_time"] for r in rows) or 1
    return ["pg_stat_statements (top by total time): " + "; ".join(
        f"{statement(r['query'])}: {r['calls']:,} calls, {r['mean_exec_time']:.2f} ms mean, "
        f"{r['total_exec_time'] / total:.0%}" for r in rows)]
