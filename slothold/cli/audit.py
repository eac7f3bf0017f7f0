"""`slothold audit verify [--unit ID]`: walk each unit's booking_events hash chain (migration 0013).

Each row's hash is recomputed in PostgreSQL with the same `booking_event_canonical` function the insert trigger
uses, so the canonical text is defined in one place. The first broken row of a unit is reported: its content no
longer matches its hash (edited), its prev_hash is not the previous row's hash (reordered, re-chained), or a
chain_seq is missing (a deleted row); a chain whose head (booking_event_chain_heads) is past its last row lost
its tail. Events are chained by the worker's relay soon after they commit (migration 0032a): one still without a chain
is a break only once it was recorded more than `UNCHAINED_GRACE` ago (the relay is not running, or stuck).
"""

from __future__ import annotations

import argparse
import asyncio
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from uuid import UUID

from slothold.settings import Settings

_WALK = """
SELECT e.id, e.chain_seq, e.prev_hash, e.hash,
       sha256(coalesce(e.prev_hash, ''::bytea) || convert_to(booking_event_canonical(e), 'UTF8')) AS recomputed,
       lag(e.hash) OVER w AS previous_hash,
       row_number() OVER w AS position
FROM booking_events e
WHERE e.unit_id = $1 AND e.chain_seq IS NOT NULL
WINDOW w AS (ORDER BY e.chain_seq)
ORDER BY e.chain_seq
"""


UNCHAINED_GRACE = timedelta(seconds=60)
"""How long after it was recorded an event may still await its chain (the relay chains within a pass, ~1 s)."""

_UNCHAINED = """
SELECT min(id) AS overdue, count(*) AS n_overdue
FROM booking_events WHERE hash IS NULL AND unit_id = $1 AND recorded_at < now() - $2::interval
"""


@dataclass(frozen=True)
class Break:
    """The first broken link of a unit's chain."""

    unit_id: UUID
    event_id: int | None
    problem: str


async def verify_unit(conn: Any, unit_id: UUID) -> Break | None:
    """None when the unit's chain is intact, else its first broken row."""
    last_seq = 0
    last_hash: bytes | None = None
    async with conn.transaction(isolation="repeatable_read", readonly=True):
        async for r in conn.cursor(_WALK, unit_id, prefetch=1000):
            if r["chain_seq"] != r["position"]:
                return Break(unit_id, r["id"], f"chain_seq {r['chain_seq']} where {r['position']} was expected "
                                              "(a row is missing before it)")
            if r["prev_hash"] != r["previous_hash"]:
                return Break(unit_id, r["id"], "prev_hash differs from the previous row's hash")
            if r["recomputed"] != r["hash"]:
                return Break(unit_id, r["id"], "hash differs from the one recomputed from the row's content "
                                              f"(stored {bytes(r['hash']).hex()[:16]}…, "
                                              f"recomputed {bytes(r['recomputed']).hex()[:16]}…)")
            last_seq, last_hash = r["chain_seq"], r["hash"]
        head = await conn.fetchrow(
            "SELECT last_seq, last_hash FROM booking_event_chain_heads WHERE unit_id = $1", unit_id)
        unchained = await conn.fetchrow(_UNCHAINED, unit_id, UNCHAINED_GRACE)
    if head is not None and (head["last_seq"] != last_seq or head["last_hash"] != last_hash):
        return Break(unit_id, None, f"the chain's head is at {head['last_seq']} but its last row is at {last_seq} "
                                    "(rows are missing at the end, or the last row was changed)")
    if head is None and last_seq:
        return Break(unit_id, None, "the unit has events but no chain head")
    if unchained["n_overdue"]:
        return Break(unit_id, unchained["overdue"], f"{unchained['n_overdue']} event(s) recorded over "
                     f"{UNCHAINED_GRACE.seconds} s ago have no chain yet (is the worker's relay running?)")
    return None


async def verify(pool: Any, unit: UUID | None = None) -> tuple[list[UUID], list[Break]]:
    """Check every unit with events (or just `unit`); returns (units checked, breaks found)."""
    if unit is not None:
        units = [unit]
    else:
        units = [r["unit_id"] for r in await pool.fetch(
            "SELECT unit_id FROM booking_event_chain_heads UNION SELECT DISTINCT unit_id FROM booking_events "
            "ORDER BY 1")]
    breaks = []
    async with pool.acquire() as conn:
        for u in units:
            found = await verify_unit(conn, u)
            if found is not None:
                breaks.append(found)
    return units, breaks


async def _run(database_url: str, unit: UUID | None) -> int:
    from store.db import create_pool

    pool = await create_pool(database_url, 1, 2)
    try:
        units, breaks = await verify(pool, unit)
    finally:
        await pool.close()
    for b in breaks:
        where = f"event {b.event_id}" if b.event_id is not None else "end of chain"
        print(f"BROKEN unit {b.unit_id} at {where}: {b.problem}")
    if breaks:
        print(f"{len(breaks)} of {len(units)} unit chain(s) broken")
        return 1
    print(f"OK: {len(units)} unit chain(s) intact")
    return 0


def cmd_audit(args: argparse.Namespace, settings: Settings) -> int:
    """`slothold audit verify`."""
    url = args.database_url or settings.session_database_url
    if not url:
        print("slothold audit: error: set DATABASE_URL (or pass --database-url)")
        return 2
    unit = None
    if args.unit is not None:
        try:
            unit = UUID(args.unit)
        except ValueError:
            print(f"slothold audit: error: --unit {args.unit!r} is not a UUID")
            return 2
    if args.audit_command == "check":
        return asyncio.run(_check(str(url), unit, args.grace_seconds))
    return asyncio.run(_run(str(url), unit))


async def _check(url: str, unit: UUID | None, grace_seconds: int) -> int:
    from store.db import create_pool
    from store.invariants import check, summary

    pool = await create_pool(url, 1, 2)
    try:
        found = await check(pool, unit, timedelta(seconds=grace_seconds))
    finally:
        await pool.close()
    for v in found:
        print(f"VIOLATION {v.check}: {v.detail}")
    if found:
        print(f"{len(found)} violation(s): {summary(found)}")
        return 1
    print("OK: no overlapping allocations, pooled use within capacity, every history replays, no hold past its "
          "deadline, every payment accounted for")
    return 0


def add_audit_commands(sub: Any) -> None:
    """The `audit` subcommand and its own subcommands."""
    p = sub.add_parser("audit", help="check the booking audit trail",
                       description="The booking_events rows of each unit form a hash chain (SPEC §15); "
                       "`verify` recomputes it and reports the first broken row of each unit.")
    p.add_argument("--database-url", help="PostgreSQL URL (default: $DATABASE_DIRECT_URL, else $DATABASE_URL)")
    asub = p.add_subparsers(dest="audit_command", metavar="ACTION", required=True)
    v = asub.add_parser("verify", help="walk each unit's hash chain; exit 0 if intact, 1 at the first broken row")
    v.add_argument("--unit", help="only this unit's chain")
    c = asub.add_parser("check", help="check SPEC §4's guarantees against the database (store/invariants.py); "
                        "exit 0 if they hold, 1 listing each violation")
    c.add_argument("--unit", help="only this unit")
    c.add_argument("--grace-seconds", type=int, default=60,
                   help="how long past its deadline a hold may still be open (the sweep interval and more)")
    p.set_defaults(func=cmd_audit)
