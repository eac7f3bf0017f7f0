"""Anti-fraud (RN-HLD-05): who blacklisted a customer, when and why; operational alerts at most once per unit and
day (the "Teto de holds atingido" alert), guaranteed by a unique index rather than by a check.

The counts themselves (open holds, expirations, a day's hold pressure) are served by existing indexes:
bookings_customer, booking_events_booking and allocations_unit_during.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01
"""

from migrations.script import run_script

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

UP = """
ALTER TABLE customers
    ADD COLUMN blacklist_reason text,
    ADD COLUMN blacklist_changed_at timestamptz,
    ADD COLUMN blacklist_changed_by text;

CREATE UNIQUE INDEX queue_items_daily_alert ON queue_items (unit_id, type, (payload->>'alert_day'))
    WHERE payload ? 'alert_day';
"""

DOWN = """
DROP INDEX IF EXISTS queue_items_daily_alert;
ALTER TABLE customers DROP COLUMN IF EXISTS blacklist_reason, DROP COLUMN IF EXISTS blacklist_changed_at,
    DROP COLUMN IF EXISTS blacklist_changed_by;
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
