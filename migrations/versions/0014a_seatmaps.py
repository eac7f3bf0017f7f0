"""Seat maps (seed 004): numbered seats as exclusive resources, grouped in sections and rows, and seat events.

Revision ID: 0014a
Revises: 0013
Create Date: 2026-12-01

A seat is an ordinary exclusive resource (so the exclusion constraint on allocations keeps one booking per seat
and time) that does not appear on the unit's slot grid (`resources.on_grid = false`): seats are sold per event,
not per grid slot. `seats` gives each one its section, row and label on a seat map; a `seat_events` row is a
performance of a map over a time range. Seat states are derived, never stored: ACTIVE (free), LOCKED (held,
pending_payment, verifying), SOLD (confirmed, checked_in, completed), BLOCKED (a block over the event).
"""

from migrations.script import run_script

revision = "0014a"
down_revision = "0013"
branch_labels = None
depends_on = None

UP = """
ALTER TABLE resources ADD COLUMN on_grid boolean NOT NULL DEFAULT true;

CREATE TABLE seat_maps (
    id uuid PRIMARY KEY,
    unit_id uuid NOT NULL REFERENCES units(id),
    group_id uuid NOT NULL,
    name text NOT NULL CHECK (name <> ''),
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (unit_id, id),
    UNIQUE (unit_id, name),
    FOREIGN KEY (unit_id, group_id) REFERENCES resource_groups(unit_id, id)
);

CREATE TABLE seats (
    unit_id uuid NOT NULL,
    resource_id uuid NOT NULL,
    seat_map_id uuid NOT NULL,
    section text NOT NULL CHECK (section <> ''),
    row_label text NOT NULL CHECK (row_label <> ''),
    seat_label text NOT NULL CHECK (seat_label <> ''),
    sort integer NOT NULL,
    PRIMARY KEY (unit_id, resource_id),
    UNIQUE (unit_id, seat_map_id, section, row_label, seat_label),
    FOREIGN KEY (unit_id, resource_id) REFERENCES resources(unit_id, id),
    FOREIGN KEY (unit_id, seat_map_id) REFERENCES seat_maps(unit_id, id)
);
CREATE INDEX seats_map ON seats (unit_id, seat_map_id, sort);

CREATE TABLE seat_events (
    id uuid PRIMARY KEY,
    unit_id uuid NOT NULL,
    seat_map_id uuid NOT NULL,
    name text NOT NULL CHECK (name <> ''),
    during tstzrange NOT NULL CHECK (NOT isempty(during)),
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (unit_id, id),
    FOREIGN KEY (unit_id, seat_map_id) REFERENCES seat_maps(unit_id, id)
);
CREATE INDEX seat_events_map ON seat_events (unit_id, seat_map_id);

ALTER TABLE blocks ADD COLUMN seat_event_id uuid;
"""

DOWN = """
ALTER TABLE blocks DROP COLUMN IF EXISTS seat_event_id;
DROP TABLE IF EXISTS seat_events, seats, seat_maps;
ALTER TABLE resources DROP COLUMN IF EXISTS on_grid;
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
