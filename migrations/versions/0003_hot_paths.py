"""Hot paths: allocations carry their booking's status and hold type (the grid reads one table),
a tiny index of the allocations of open holds (the lapsed check of every hold), and a GiST index
for a unit's occupancy over a range.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from migrations.script import run_script

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

UP = """
ALTER TABLE allocations ADD COLUMN status text, ADD COLUMN hold_type text;
UPDATE allocations a SET status = b.status, hold_type = b.hold_type FROM bookings b WHERE b.id = a.booking_id;
CREATE INDEX allocations_open_holds ON allocations (resource_id)
    WHERE occupies AND hold_expires_at IS NOT NULL;
CREATE INDEX allocations_unit_during ON allocations USING gist (unit_id, during) WHERE occupies;
"""

DOWN = """
DROP INDEX IF EXISTS allocations_unit_during;
DROP INDEX IF EXISTS allocations_open_holds;
ALTER TABLE allocations DROP COLUMN IF EXISTS status, DROP COLUMN IF EXISTS hold_type;
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
