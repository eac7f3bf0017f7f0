"""Paying a series by period (issue 23): the unit's `series_charge_days_ahead` (how many days before a period starts
its Pix is charged, 7 by default) and each period's deadline (when its occurrences are released unpaid).

Revision ID: 0026p
Revises: 0025
Create Date: 2026-12-02
"""

from migrations.script import run_script

revision = "0026p"
down_revision = "0025"
branch_labels = None
depends_on = None

UP = """
ALTER TABLE units ADD COLUMN series_charge_days_ahead integer NOT NULL DEFAULT 7
    CHECK (series_charge_days_ahead BETWEEN 1 AND 60);
ALTER TABLE series_periods ADD COLUMN deadline_at timestamptz;
UPDATE series_periods SET deadline_at = due_at + interval '1 day' WHERE deadline_at IS NULL;
ALTER TABLE series_periods ALTER COLUMN deadline_at SET NOT NULL, ADD CHECK (deadline_at > due_at);
CREATE INDEX series_periods_deadline ON series_periods (deadline_at) WHERE status IN ('open', 'charged');
"""

DOWN = """
DROP INDEX IF EXISTS series_periods_deadline;
ALTER TABLE series_periods DROP COLUMN IF EXISTS deadline_at;
ALTER TABLE units DROP COLUMN IF EXISTS series_charge_days_ahead;
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
