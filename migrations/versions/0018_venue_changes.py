"""Venue changes: who changed what in a venue's set-up, and when (issue 18).

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-01

Every change an owner, a manager or the platform makes to a venue's set-up (resources, hours, closed days, grid
blocks, services, price bands, parameters, contacts, staff tokens, flows) is one row of `venue_changes`, appended
only: the entity (`resource`, `hours`, `block`, `service`...), its id, the action (`created`, `updated`, `removed`),
the values before and after (JSON, absent for a creation or a removal), the session that made it (`staff:<token>`,
`client:<token>`, `system:<token>`, `cli`) and when. The same transaction writes a `venue_changed` outbox event, so
dashboards see the change live (`venueChanged`) and integrators can follow it.
"""

from migrations.script import run_script

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

UP = """
CREATE TABLE venue_changes (
    id bigserial PRIMARY KEY,
    unit_id uuid NOT NULL REFERENCES units(id),
    entity text NOT NULL CHECK (entity ~ '^[a-z_]{1,40}$'),
    entity_id text NOT NULL,
    action text NOT NULL CHECK (action IN ('created', 'updated', 'removed')),
    before jsonb,
    after jsonb,
    session text NOT NULL,
    at timestamptz NOT NULL
);
CREATE INDEX venue_changes_unit ON venue_changes (unit_id, id);

CREATE FUNCTION venue_changes_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'venue_changes is append-only';
END $$;
CREATE TRIGGER venue_changes_append_only BEFORE UPDATE OR DELETE ON venue_changes
    FOR EACH ROW EXECUTE FUNCTION venue_changes_append_only();
"""

DOWN = """
DROP TABLE IF EXISTS venue_changes;
DROP FUNCTION IF EXISTS venue_changes_append_only();
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
