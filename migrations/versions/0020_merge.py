"""Merge the branches of 0018 (issue 18, venue administration): platform set-up (0019a) and venue flows (0019d).

Revision ID: 0020
Revises: 0019a, 0019d
Create Date: 2026-12-01
"""

revision = "0020"
down_revision = ("0019a", "0019d")
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
