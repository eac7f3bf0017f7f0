"""The check-in window (issue 20): check-in is accepted from `check_in_opens_minutes` before a booking's start
until its end (120 minutes by default).

Revision ID: 0022w
Revises: 0022p
Create Date: 2026-12-02
"""

from migrations.script import run_script

revision = "0022w"
down_revision = "0022p"
branch_labels = None
depends_on = None

UP = """
ALTER TABLE units ADD COLUMN check_in_opens_minutes integer NOT NULL DEFAULT 120
    CHECK (check_in_opens_minutes BETWEEN 0 AND 1440);
"""

DOWN = """
ALTER TABLE units DROP COLUMN IF EXISTS check_in_opens_minutes;
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
