"""No-show suggestions and appointment reminders (SPEC §11).

Units get `no_show_grace_minutes` (15: a confirmed booking with no check-in that long after its start raises one
"Possível falta" staff-queue item) and `appointment_reminder_minutes` (the offsets before the start at which the
customer of a confirmed booking is reminded; 1440 and 120 by default, empty: none).

`queue_items_no_show` makes the suggestion once per booking (a job run twice, or on two workers, raises one item);
`appointment_reminders` records each reminder sent (once per booking and offset). `bookings_confirmed_start` keeps
both sweeps to the confirmed bookings near now.

Revision ID: 0011b
Revises: 0010
Create Date: 2026-12-01
"""

from migrations.script import run_script

revision = "0011b"
down_revision = "0010"
branch_labels = None
depends_on = None

UP = """
ALTER TABLE units ADD COLUMN no_show_grace_minutes integer NOT NULL DEFAULT 15
    CHECK (no_show_grace_minutes BETWEEN 0 AND 1440);
ALTER TABLE units ADD COLUMN appointment_reminder_minutes integer[] NOT NULL DEFAULT '{1440,120}'
    CHECK (array_position(appointment_reminder_minutes, NULL) IS NULL);

CREATE UNIQUE INDEX queue_items_no_show ON queue_items (booking_id) WHERE type = 'no_show_suggestion';
CREATE INDEX bookings_confirmed_start ON bookings (lower(during)) WHERE status = 'confirmed';

CREATE TABLE appointment_reminders (
    booking_id uuid NOT NULL REFERENCES bookings(id) ON DELETE CASCADE,
    offset_minutes integer NOT NULL,
    sent_at timestamptz NOT NULL,
    PRIMARY KEY (booking_id, offset_minutes)
);
"""

DOWN = """
DROP TABLE IF EXISTS appointment_reminders;
DROP INDEX IF EXISTS bookings_confirmed_start;
DROP INDEX IF EXISTS queue_items_no_show;
ALTER TABLE units DROP COLUMN IF EXISTS appointment_reminder_minutes;
ALTER TABLE units DROP COLUMN IF EXISTS no_show_grace_minutes;
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
