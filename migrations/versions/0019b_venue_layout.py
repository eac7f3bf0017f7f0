"""Venue layout (issue 18): dated exceptions to opening hours (closed days and special hours), and grid blocks
apart from seat blocks.

Revision ID: 0019b
Revises: 0018
Create Date: 2026-12-01

`hours_exceptions` holds one row per unit (resource_id NULL) or resource and local date: `closed` (a holiday: no
windows) or `special` (the day's windows replace the weekly hours, as [[opens_minute, closes_minute], ...]). A
resource's own exception for a date wins over the unit's; the unit's (closed or special) applies to every resource
that day. Grid blocks reuse `blocks` and allocations with `block_id` (migration 0001), so the exclusion constraint
and the pooled counters make a block and a concurrent hold race-safe; `blocks.seat_event_id IS NULL` tells a grid
block from a seat block.
"""

from migrations.script import run_script

revision = "0019b"
down_revision = "0018"
branch_labels = None
depends_on = None

UP = """
CREATE TABLE hours_exceptions (
    id uuid PRIMARY KEY,
    unit_id uuid NOT NULL REFERENCES units(id),
    resource_id uuid,
    day date NOT NULL,
    kind text NOT NULL CHECK (kind IN ('closed', 'special')),
    windows jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(windows) = 'array'),
    reason text NOT NULL DEFAULT '',
    created_by text NOT NULL DEFAULT 'system',
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (unit_id, id),
    FOREIGN KEY (unit_id, resource_id) REFERENCES resources(unit_id, id),
    CHECK ((kind = 'closed') = (windows = '[]'::jsonb))
);
CREATE UNIQUE INDEX hours_exceptions_one_a_day
    ON hours_exceptions (unit_id, coalesce(resource_id, '00000000-0000-0000-0000-000000000000'::uuid), day);

-- The pooled slots a grid block took whole (their counters give them back when it goes).
ALTER TABLE blocks ADD COLUMN pool_slots timestamptz[];
CREATE INDEX blocks_unit_grid ON blocks USING gist (unit_id, during) WHERE seat_event_id IS NULL;
"""

DOWN = """
DROP INDEX IF EXISTS blocks_unit_grid;
ALTER TABLE blocks DROP COLUMN IF EXISTS pool_slots;
DROP TABLE IF EXISTS hours_exceptions;
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
