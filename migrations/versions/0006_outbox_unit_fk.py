"""The outbox only takes rows of existing units (a row the relay cannot number would stall it).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30
"""

from migrations.script import run_script

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_script("ALTER TABLE outbox ADD CONSTRAINT outbox_unit_fk FOREIGN KEY (unit_id) REFERENCES units(id);")


def downgrade() -> None:
    run_script("ALTER TABLE outbox DROP CONSTRAINT IF EXISTS outbox_unit_fk;")
