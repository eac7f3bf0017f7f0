"""SQL that more than one migration writes: the audit chain's commit-time trigger (0029a, and 0032a's downgrade) and
the append-only guard of booking_events (0029a, 0032a). Migrations are history: change nothing here, add new text."""

CHAIN_AT_COMMIT = """
CREATE FUNCTION booking_events_chain_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    canon bytea := convert_to(booking_event_canonical(NEW), 'UTF8');
    seq bigint;
    prev bytea;
    h bytea;
BEGIN
    INSERT INTO booking_event_chain_heads AS hd (unit_id, last_seq, prev_hash, last_hash)
    VALUES (NEW.unit_id, 1, NULL, sha256(canon))
    ON CONFLICT (unit_id) DO UPDATE
        SET last_seq = hd.last_seq + 1, prev_hash = hd.last_hash, last_hash = sha256(hd.last_hash || canon)
    RETURNING hd.last_seq, hd.prev_hash, hd.last_hash INTO seq, prev, h;
    UPDATE booking_events SET chain_seq = seq, prev_hash = prev, hash = h WHERE id = NEW.id AND hash IS NULL;
    RETURN NULL;
END;
$$;
CREATE CONSTRAINT TRIGGER booking_events_chain_at_commit AFTER INSERT ON booking_events
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION booking_events_chain_at_commit();
"""

APPEND_ONLY = """
CREATE OR REPLACE FUNCTION booking_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.hash IS NULL AND OLD.chain_seq IS NULL AND NEW.hash IS NOT NULL
       AND NEW.chain_seq IS NOT NULL
       AND (NEW.id, NEW.unit_id, NEW.booking_id, NEW.old_status, NEW.new_status, NEW.hold_type, NEW.actor,
            NEW.channel, NEW.reason, NEW.resources, NEW.at, NEW.recorded_at, NEW.session)
           IS NOT DISTINCT FROM
           (OLD.id, OLD.unit_id, OLD.booking_id, OLD.old_status, OLD.new_status, OLD.hold_type, OLD.actor,
            OLD.channel, OLD.reason, OLD.resources, OLD.at, OLD.recorded_at, OLD.session) THEN
        RETURN NEW;  -- %s
    END IF;
    RAISE EXCEPTION 'booking_events is append-only: %% is not allowed', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;
"""
"""The guard's function, `%` the comment on the one UPDATE it lets through."""
