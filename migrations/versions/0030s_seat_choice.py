"""Best available reads what is taken by index, not by scanning (issue 22 point 3: the flash sale).

Revision ID: 0030s
Revises: 0029a
Create Date: 2026-12-02

A best-available choice reads which seats of its event are taken: occupying allocations over the event's range
(the exclusion constraint's gist serves those), seats whose booking completed (a completed booking no longer
occupies, but its seat shows SOLD: no index covered them, so the choice scanned every allocation the venue ever
had), and resources out of use (it scanned every resource of the unit). Both get a partial index here, small (only
such rows) and written only when a row enters it.

The seat views (`PgSeatMaps.occupants`: a seat map, a refused lockSeats) read `occupies OR status = 'completed'`
too: with no index for the second arm that was a scan of every allocation (a parallel seq scan, 157 ms for a
5,000-seat event over 208,000 allocations of a venue's history, measured); with this one a BitmapOr of the two
partial indexes (a few ms).
"""

from migrations.script import run_script

revision = "0030s"
down_revision = "0029a"
branch_labels = None
depends_on = None

UP = """
CREATE INDEX allocations_completed ON allocations USING gist (unit_id, resource_id, during)
    WHERE status = 'completed';
CREATE INDEX resources_inactive ON resources (unit_id) WHERE NOT active;
"""

DOWN = """
DROP INDEX IF EXISTS resources_inactive;
DROP INDEX IF EXISTS allocations_completed;
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
