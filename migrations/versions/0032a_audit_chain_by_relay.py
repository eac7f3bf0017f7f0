"""Audit trail: the relay chains committed events; a booking's transaction no longer touches the unit's chain head.

Revision ID: 0032a
Revises: 0031s
Create Date: 2026-12-04

Since 0029a each transaction writing an event of a unit advanced the unit's chain head (`booking_event_chain_heads`)
at its COMMIT, and held that row's lock through the commit itself — through the WAL flush. Every commit of one unit
waited for the previous one's flush: one unit committed at most one transaction per fsync, and group commit could
never batch them. `bench.holds` (2026-12-04, pg_stat_statements): the head's upsert ran 22 ms on average for a hold
whose other statements take 2 ms, nearly all of it waiting for that lock; direct-SQL holds 535/s with the trigger,
742/s without it (CPU-bound then, 1.9 of 2 cores).

Now events are inserted unchained (the insert trigger still clears any chain values an insert brings) and
`booking_events_chain_pending(batch)` chains committed, unchained rows in id order, one transaction a batch: the
relay's leader calls it on every pass (jobs/relay.py), right after numbering the outbox, so a row is chained within a
relay pass of its commit (woken by the outbox's NOTIFY; at least once a second). The chain is the same chain — same
canonical text, same formula, one per unit, the head advanced under its row lock — in the order the chainer took the
rows, and `slothold audit verify` checks it as before and reports rows not chained long after they were recorded.
Rows of a rolled-back transaction are never seen, so never chained. Two chainers (a leader handing over) cannot chain
a row twice: each locks the rows it chains, and a row chained meanwhile no longer matches `hash IS NULL`.

Append-only stays: the only UPDATE booking_events accepts sets the chain columns of a row that has none, with every
other column unchanged; `booking_events_unchained` finds those rows (a partial index, empty but for the rows
awaiting the chainer). The chaining UPDATE is no longer a HOT update (the index's predicate reads `hash`): it costs the
chainer new index entries, off every booking's path.
"""

from migrations.audit_chain_sql import APPEND_ONLY, CHAIN_AT_COMMIT
from migrations.script import run_script

revision = "0032a"
down_revision = "0031s"
branch_labels = None
depends_on = None

CHAIN_PENDING = """
CREATE FUNCTION booking_events_chain_pending(batch int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    e booking_events%ROWTYPE;
    canon bytea;
    seq bigint;
    prev bytea;
    h bytea;
    n int := 0;
BEGIN
    FOR e IN SELECT * FROM booking_events WHERE hash IS NULL ORDER BY id LIMIT batch FOR UPDATE LOOP
        canon := convert_to(booking_event_canonical(e), 'UTF8');
        INSERT INTO booking_event_chain_heads AS hd (unit_id, last_seq, prev_hash, last_hash)
        VALUES (e.unit_id, 1, NULL, sha256(canon))
        ON CONFLICT (unit_id) DO UPDATE
            SET last_seq = hd.last_seq + 1, prev_hash = hd.last_hash, last_hash = sha256(hd.last_hash || canon)
        RETURNING hd.last_seq, hd.prev_hash, hd.last_hash INTO seq, prev, h;
        UPDATE booking_events SET chain_seq = seq, prev_hash = prev, hash = h WHERE id = e.id;
        n := n + 1;
    END LOOP;
    RETURN n;
END;
$$;
"""

UP = f"""
DROP TRIGGER booking_events_chain_at_commit ON booking_events;
DROP FUNCTION booking_events_chain_at_commit();
CREATE INDEX booking_events_unchained ON booking_events (id) WHERE hash IS NULL;
{CHAIN_PENDING}
{APPEND_ONLY % "the chaining of a committed row that has no chain yet (booking_events_chain_pending)"}
"""

DOWN = f"""
{APPEND_ONLY % "the commit-time chaining of a row inserted by this very transaction"}
SELECT booking_events_chain_pending(2147483647);
DROP FUNCTION booking_events_chain_pending(int);
DROP INDEX booking_events_unchained;
{CHAIN_AT_COMMIT}
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
