"""Sharding readiness, read from the live migrated schema (pg_catalog): distributed by unit, every guarantee stays one
shard's (docs/scaling.md).

Citus enforces a unique or exclusion constraint (a unique index too) on a distributed table only when it includes
the distribution column — for an exclusion constraint, compared with `=` —, and a foreign key between distributed
tables only when both sides are co-located on it. Distributed by `unit_id`, guarantee 1 (no slot sold twice:
`allocations_no_overlap`, `EXCLUDE (unit_id WITH =, resource_id WITH =, during WITH &&)`) survives. So every venue
table — a table with a `unit_id` column — must keep `unit_id` in each of its unique, exclusion and foreign-key
constraints and unique indexes, unless it is meant to be a reference table (REFERENCE, with why). The tables without
`unit_id` (tenants, organizations, units, customers, ...) are reference tables: any table may reference them (Citus
allows a distributed table to reference a reference table), but a table referencing a venue table must be a
distributed venue table itself, co-located on `unit_id`.

What does not comply yet is listed, by constraint, in KNOWN_GAPS with the change it needs (docs/scaling.md, "What
would change"): the test fails on any other violation — a new table or constraint must comply — and on a listed gap
that is gone, so the list only shrinks. Primary keys on a lone `id` are one such change, for every table at once
(each becomes (unit_id, id)); the test checks they are all of that one mechanical kind.
"""

from __future__ import annotations

from typing import Any

import asyncpg

DISTRIBUTION = "unit_id"

REFERENCE = {
    "access_tokens": "read by the digest of a bearer token on every request, before any unit is known; a tenant-wide "
                     "or system token has no unit (unit_id NULL); few rows, rarely written",
    "customer_sessions": "a customer's session is the tenant's (it spans its units), read by digest on every request",
}
"""Venue tables meant to be reference tables (replicated to every node), and why."""

KNOWN_GAPS: dict[str, str] = {}
"""Constraints of distributed tables without unit_id today, and the change each needs."""

_TABLES = """
SELECT c.oid, c.relname,
       EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'unit_id'
               AND NOT a.attisdropped) AS venue
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relname <> 'alembic_version'
"""

_CONSTRAINTS = """
SELECT con.conname::text AS name, con.contype::text AS kind, con.conrelid AS rel, con.confrelid AS ref,
       ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY k(n, i)
             JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.n ORDER BY k.i) AS cols,
       ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY k(n, i)
             JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.n ORDER BY k.i) AS ref_cols,
       ARRAY(SELECT op.oprname::text FROM unnest(con.conexclop) o(id) JOIN pg_operator op ON op.oid = o.id)
           AS ops,
       pg_get_constraintdef(con.oid) AS def
FROM pg_constraint con JOIN pg_namespace n ON n.oid = con.connamespace
WHERE n.nspname = 'public' AND con.contype IN ('p', 'u', 'x', 'f')
UNION ALL
SELECT ic.relname::text, 'i', ix.indrelid, 0::oid,
       ARRAY(SELECT a.attname::text FROM unnest(ix.indkey::int2[]) k(n)
             JOIN pg_attribute a ON a.attrelid = ix.indrelid AND a.attnum = k.n), ARRAY[]::text[], ARRAY[]::text[],
       pg_get_indexdef(ix.indexrelid)
FROM pg_index ix JOIN pg_class ic ON ic.oid = ix.indexrelid JOIN pg_namespace n ON n.oid = ic.relnamespace
WHERE n.nspname = 'public' AND ix.indisunique
  AND NOT EXISTS (SELECT 1 FROM pg_constraint con WHERE con.conindid = ix.indexrelid)
"""


async def violations(conn: asyncpg.Connection) -> tuple[dict[str, str], dict[str, str]]:
    """(constraint name → what is wrong, for every constraint but primary keys; table → its primary key, for the
    distributed tables whose primary key lacks unit_id)."""
    tables = {r["oid"]: (r["relname"], r["venue"]) for r in await conn.fetch(_TABLES)}
    distributed = {oid for oid, (name, venue) in tables.items() if venue and name not in REFERENCE}
    wrong: dict[str, str] = {}
    keys: dict[str, str] = {}
    for c in await conn.fetch(_CONSTRAINTS):
        if c["rel"] not in tables:
            continue
        table, _ = tables[c["rel"]]
        key, cols = DISTRIBUTION, list(c["cols"])
        if c["kind"] == "f":
            if c["ref"] not in distributed:
                continue  # a reference table may be referenced by anyone
            pairs = dict(zip(c["ref_cols"], cols, strict=True))
            if c["rel"] not in distributed or pairs.get(key) != key:
                wrong[c["name"]] = f"{table}: {c['def']} (not co-located on the distribution column)"
        elif c["rel"] in distributed:
            if c["kind"] == "x":
                if key not in cols or c["ops"][cols.index(key)] != "=":
                    wrong[c["name"]] = f"{table}: {c['def']} (no `{key} WITH =`)"
            elif key not in cols:
                if c["kind"] == "p":
                    keys[table] = c["def"]
                else:
                    wrong[c["name"]] = f"{table}: {c['def']}"
    return wrong, keys


async def test_every_unique_exclusion_and_foreign_key_of_a_venue_table_keeps_unit_id(pool: Any) -> None:
    async with pool.acquire() as conn:
        wrong, keys = await violations(conn)
        venue = {r["relname"] for r in await conn.fetch(_TABLES) if r["venue"]}
        overlap = await conn.fetchval(
            "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = 'allocations_no_overlap'")
    new = {k: v for k, v in wrong.items() if k not in KNOWN_GAPS}
    assert not new, "constraints of a distributed (venue) table without unit_id — add it, or list the table as a " \
                    "reference table with why:\n" + "\n".join(f"- {k}: {v}" for k, v in sorted(new.items()))
    fixed = sorted(set(KNOWN_GAPS) - set(wrong))
    assert not fixed, f"these gaps are gone: take them out of KNOWN_GAPS (and docs/scaling.md): {fixed}"
    assert set(REFERENCE) <= venue, "a listed reference table has no unit_id (or is gone)"
    # Guarantee 1 is one shard's: the exclusion constraint compares unit_id with =.
    assert overlap is not None and overlap.startswith("EXCLUDE USING gist (unit_id WITH =")
    # The primary keys that lack unit_id are all a lone `id`: one mechanical change, (unit_id, id), for all.
    assert set(keys.values()) == {"PRIMARY KEY (id)"}, keys
