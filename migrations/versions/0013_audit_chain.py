"""Audit trail hash chain: each booking_events row is chained to the previous row of its unit.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01

Per unit, the rows form one chain ordered by `chain_seq` (1, 2, 3, ...):

    hash = sha256(coalesce(prev_hash, '') || convert_to(booking_event_canonical(row), 'UTF8'))

where `prev_hash` is the `hash` of the row with chain_seq - 1 of the same unit (NULL for the first row).

The canonical text is defined once, by the SQL function `booking_event_canonical(booking_events)`, used both
by the insert trigger and by `slothold audit verify`: the JSON array (PostgreSQL `jsonb::text`, so strings are
escaped and NULLs are an explicit `null`) of, in this order,

    id, unit_id, booking_id, old_status, new_status, hold_type, actor, channel, reason, resources,
    at and recorded_at as epoch microseconds (integers, so no time zone or formatting enters).

A BEFORE INSERT trigger computes chain_seq, prev_hash and hash. The chain's head of each unit lives in
`booking_event_chain_heads`; the trigger advances it with one INSERT ... ON CONFLICT DO UPDATE ... RETURNING,
whose row lock serialises inserts of one unit (two concurrent transactions cannot chain to the same predecessor:
the second waits for the first to commit or roll back). Units do not wait for one another.

Rows that exist when this runs are chained here, per unit in id order.
"""

from migrations.script import run_script

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

UP = """
ALTER TABLE booking_events
    ADD COLUMN chain_seq bigint,
    ADD COLUMN prev_hash bytea,
    ADD COLUMN hash bytea;

CREATE TABLE booking_event_chain_heads (
    unit_id uuid PRIMARY KEY,
    last_seq bigint NOT NULL,
    prev_hash bytea,
    last_hash bytea NOT NULL
);

CREATE FUNCTION booking_event_canonical(e booking_events) RETURNS text LANGUAGE sql STABLE AS $$
    SELECT jsonb_build_array(
        e.id, e.unit_id, e.booking_id, e.old_status, e.new_status, e.hold_type, e.actor, e.channel, e.reason,
        e.resources,
        (extract(epoch FROM e.at) * 1000000)::bigint,
        (extract(epoch FROM e.recorded_at) * 1000000)::bigint
    )::text
$$;

-- Chain the rows already there (the append-only trigger is lifted for this backfill only).
ALTER TABLE booking_events DISABLE TRIGGER booking_events_no_update_delete;
DO $$
DECLARE
    r booking_events;
    cur_unit uuid;
    prev bytea;
    seq bigint;
    h bytea;
BEGIN
    FOR r IN SELECT * FROM booking_events ORDER BY unit_id, id LOOP
        IF cur_unit IS DISTINCT FROM r.unit_id THEN
            cur_unit := r.unit_id;
            prev := NULL;
            seq := 0;
        END IF;
        seq := seq + 1;
        h := sha256(coalesce(prev, ''::bytea) || convert_to(booking_event_canonical(r), 'UTF8'));
        UPDATE booking_events SET chain_seq = seq, prev_hash = prev, hash = h WHERE id = r.id;
        INSERT INTO booking_event_chain_heads (unit_id, last_seq, prev_hash, last_hash)
        VALUES (r.unit_id, seq, prev, h)
        ON CONFLICT (unit_id) DO UPDATE
            SET last_seq = EXCLUDED.last_seq, prev_hash = EXCLUDED.prev_hash, last_hash = EXCLUDED.last_hash;
        prev := h;
    END LOOP;
END;
$$;
ALTER TABLE booking_events ENABLE TRIGGER booking_events_no_update_delete;

ALTER TABLE booking_events
    ALTER COLUMN chain_seq SET NOT NULL,
    ALTER COLUMN hash SET NOT NULL;
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

DOWN = """
DROP TRIGGER IF EXISTS booking_events_chain ON booking_events;
DROP FUNCTION IF EXISTS booking_events_chain();
DROP INDEX IF EXISTS booking_events_chain;
DROP FUNCTION IF EXISTS booking_event_canonical(booking_events);
-- Dropping columns does not fire the append-only row trigger.
ALTER TABLE booking_events DROP COLUMN IF EXISTS hash, DROP COLUMN IF EXISTS prev_hash,
    DROP COLUMN IF EXISTS chain_seq;
DROP TABLE IF EXISTS booking_event_chain_heads;
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
