"""Realtime and jobs: per-unit event sequences, outbox wake-ups, hold reminders.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from migrations.script import run_script

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

UP = """
-- The relay numbers each unit's events 1, 2, 3, ... in the order it sees them committed.
CREATE TABLE unit_sequences (
    unit_id uuid PRIMARY KEY REFERENCES units(id),
    last_seq bigint NOT NULL DEFAULT 0 CHECK (last_seq >= 0)
);
CREATE INDEX outbox_unsequenced ON outbox (id) WHERE seq IS NULL;
CREATE INDEX outbox_created ON outbox (created_at) WHERE published_at IS NOT NULL;

-- Wake the relay as soon as outbox rows commit (NOTIFY is delivered at commit, never on rollback).
CREATE FUNCTION outbox_wake_relay() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('slothold_outbox', '');
    RETURN NULL;
END;
$$;
CREATE TRIGGER outbox_wake_relay AFTER INSERT ON outbox
    FOR EACH STATEMENT EXECUTE FUNCTION outbox_wake_relay();

ALTER TABLE bookings ADD COLUMN remind_at timestamptz, ADD COLUMN reminded_at timestamptz;
CREATE INDEX bookings_checked_in_end ON bookings (upper(during)) WHERE status = 'checked_in';
"""

DOWN = """
DROP INDEX IF EXISTS bookings_checked_in_end;
ALTER TABLE bookings DROP COLUMN IF EXISTS remind_at, DROP COLUMN IF EXISTS reminded_at;
DROP TRIGGER IF EXISTS outbox_wake_relay ON outbox;
DROP FUNCTION IF EXISTS outbox_wake_relay();
DROP INDEX IF EXISTS outbox_created;
DROP INDEX IF EXISTS outbox_unsequenced;
DROP TABLE IF EXISTS unit_sequences;
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
