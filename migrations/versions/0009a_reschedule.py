"""Reschedule (SPEC §11): a booking is replaced at most once and replaces at most one (the links
`rescheduled_from` / `rescheduled_to`, columns since 0001, become unique per unit); a booking's payments are found
by booking (a reschedule moves a confirmed booking's paid charges and their payments to the new booking).

Revision ID: 0009a
Revises: 0008
Create Date: 2026-12-01
"""

from migrations.script import run_script

revision = "0009a"
down_revision = "0008"
branch_labels = None
depends_on = None

UP = """
CREATE UNIQUE INDEX bookings_rescheduled_from ON bookings (unit_id, rescheduled_from)
    WHERE rescheduled_from IS NOT NULL;
CREATE UNIQUE INDEX bookings_rescheduled_to ON bookings (unit_id, rescheduled_to)
    WHERE rescheduled_to IS NOT NULL;
CREATE INDEX payments_booking ON payments (booking_id) WHERE booking_id IS NOT NULL;
"""

DOWN = """
DROP INDEX IF EXISTS payments_booking;
DROP INDEX IF EXISTS bookings_rescheduled_to;
DROP INDEX IF EXISTS bookings_rescheduled_from;
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
