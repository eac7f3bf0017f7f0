"""Flows that differ by venue (issue 18): unit parameters, payments recorded by hand, waitlists on or off.

Revision ID: 0019d
Revises: 0018
Create Date: 2026-12-01

Units get three parameters, each defaulting to today's behaviour: `manual_payments_enabled` (staff with the right
may record a payment taken outside Pix), `check_in_required` (false: confirmed bookings complete by themselves after
their end, and no no-show suggestion is raised), `notification_matrix` (per event, whether the customer and the
staff/owner are told; `{}` is seed 002's matrix). `manual_payments` keeps each payment recorded by hand (method,
amount, reason, who and when), apart from the Pix `payments`, appended only. Resources and seat events get
`waitlist_enabled` (default true).
"""

from migrations.script import run_script

revision = "0019d"
down_revision = "0018"
branch_labels = None
depends_on = None

UP = """
ALTER TABLE units ADD COLUMN manual_payments_enabled boolean NOT NULL DEFAULT true;
ALTER TABLE units ADD COLUMN check_in_required boolean NOT NULL DEFAULT true;
ALTER TABLE units ADD COLUMN notification_matrix jsonb NOT NULL DEFAULT '{}'
    CHECK (jsonb_typeof(notification_matrix) = 'object');
ALTER TABLE resources ADD COLUMN waitlist_enabled boolean NOT NULL DEFAULT true;
ALTER TABLE seat_events ADD COLUMN waitlist_enabled boolean NOT NULL DEFAULT true;

CREATE TABLE manual_payments (
    id uuid PRIMARY KEY,
    unit_id uuid NOT NULL,
    booking_id uuid NOT NULL,
    method text NOT NULL CHECK (method IN ('cash', 'card', 'transfer', 'other')),
    amount_cents integer NOT NULL CHECK (amount_cents > 0),
    reason text NOT NULL CHECK (reason <> ''),
    actor text NOT NULL,
    session text NOT NULL,
    recorded_at timestamptz NOT NULL,
    UNIQUE (unit_id, id),
    FOREIGN KEY (unit_id, booking_id) REFERENCES bookings(unit_id, id)
);
CREATE INDEX manual_payments_unit ON manual_payments (unit_id, recorded_at);
CREATE INDEX manual_payments_booking ON manual_payments (unit_id, booking_id);

CREATE FUNCTION manual_payments_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'manual_payments is append-only';
END $$;
CREATE TRIGGER manual_payments_append_only BEFORE UPDATE OR DELETE ON manual_payments
    FOR EACH ROW EXECUTE FUNCTION manual_payments_append_only();
"""

DOWN = """
DROP TABLE IF EXISTS manual_payments;
DROP FUNCTION IF EXISTS manual_payments_append_only();
ALTER TABLE seat_events DROP COLUMN IF EXISTS waitlist_enabled;
ALTER TABLE resources DROP COLUMN IF EXISTS waitlist_enabled;
ALTER TABLE units DROP COLUMN IF EXISTS notification_matrix;
ALTER TABLE units DROP COLUMN IF EXISTS check_in_required;
ALTER TABLE units DROP COLUMN IF EXISTS manual_payments_enabled;
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
