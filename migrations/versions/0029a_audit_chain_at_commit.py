"""Audit trail: the hash chain is written at commit time, not at insert (issue 22: the ceiling of one unit).

Revision ID: 0029a
Revises: 0028r
Create Date: 2026-12-02

Until now a BEFORE INSERT trigger advanced the unit's chain head (`booking_event_chain_heads`) as each event was
inserted, so every transaction writing an event of a unit held that head's row lock from its insert until its COMMIT
returned: through the rest of its statements and every client round trip after the insert — on a busy machine,
mostly the API waiting for a core to send COMMIT. Holds of one unit ran one at a time for that whole span (the
benchmarks' "where the time goes": 70–80 % of backends waiting on that lock).

Measured (bench/RESULTS.md, 2026-12-02 08:00): direct-SQL holds 511/s → 601/s on a quiet machine, PostgreSQL's CPU per
hold unchanged (2.58 → 2.52 ms): the backends wait less.

Now the insert leaves the chain columns empty and a DEFERRABLE INITIALLY DEFERRED constraint trigger chains each
new row when its transaction commits (in insertion order, the deferred queue's order): it advances the head and
writes `chain_seq`, `prev_hash` and `hash` into the row. The head's lock is taken at commit and held only through
the commit itself. The chain is the same chain — same canonical text (booking_event_canonical), same formula, same
`slothold audit verify` — and every committed row has it: a transaction cannot commit without its deferred
triggers running, and rows of a rolled-back savepoint or transaction are never chained (nor seen).

Append-only stays: the only UPDATE booking_events accepts is that one, setting the chain columns of a row that has
none yet, with every other column unchanged (such a row exists only inside the transaction that inserted it).
An insert cannot bring its own chain values: the insert trigger clears them.
"""

from migrations.audit_chain_sql import APPEND_ONLY, CHAIN_AT_COMMIT
from migrations.script import run_script

revision = "0029a"
down_revision = "0028r"
branch_labels = None
depends_on = None

UP = f"""
DROP TRIGGER booking_events_chain ON booking_events;
DROP FUNCTION booking_events_chain();

ALTER TABLE booking_events ALTER COLUMN chain_seq DROP NOT NULL, ALTER COLUMN hash DROP NOT NULL;
-- The chaining UPDATE touches no indexed column, so it is a HOT update (no new index entries). chain_seq's uniqueness
-- per unit is the head row's: every row's number comes from advancing its unit's head under that row's lock.
DROP INDEX booking_events_chain;
ALTER TABLE booking_events SET (fillfactor = 90);

CREATE FUNCTION booking_events_unchained() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.chain_seq := NULL;
    NEW.prev_hash := NULL;
    NEW.hash := NULL;
    RETURN NEW;
END;
$$;
CREATE TRIGGER booking_events_unchained BEFORE INSERT ON booking_events
    FOR EACH ROW EXECUTE FUNCTION booking_events_unchained();

{CHAIN_AT_COMMIT}
{APPEND_ONLY % 'the commit-time chaining of a row inserted by this very transaction'}
"""

DOWN = """
DROP TRIGGER IF EXISTS booking_events_chain_at_commit ON booking_events;
DROP FUNCTION IF EXISTS booking_events_chain_at_commit();
DROP TRIGGER IF EXISTS booking_events_unchained ON booking_events;
DROP FUNCTION IF EXISTS booking_events_unchained();
CREATE OR REPLACE FUNCTION booking_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'booking_events is append-only: % is not allowed', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;
ALTER TABLE booking_events ALTER COLUMN chain_seq SET NOT NULL, ALTER COLUMN hash SET NOT NULL;
ALTER TABLE booking_events RESET (fillfactor);
CREATE UNIQUE INDEX booking_events_chain ON booking_events (unit_id, chain_seq);
CREATE FUNCTION booking_events_chain() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    canon bytea := convert_to(booking_event_canonical(NEW), 'UTF8');
BEGIN
    INSERT INTO booking_event_chain_heads AS h (unit_id, last_seq, prev_hash, last_hash)
    VALUES (NEW.unit_id, 1, NULL, sha256(canon))
    ON CONFLICT (unit_id) DO UPDATE
        SET last_seq = h.last_seq + 1, prev_hash = h.last_hash, last_hash = sha256(h.last_hash || canon)
    RETURNING h.last_seq, h.prev_hash, h.last_hash INTO NEW.chain_seq, NEW.prev_hash, NEW.hash;
    RETURN NEW;
END;
$$;
CREATE TRIGGER booking_events_chain BEFORE INSERT ON booking_events
    FOR EACH ROW EXECUTE FUNCTION booking_events_chain();
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
