"""Merge the branches of 0023: calendar feeds (0024f) and recurring bookings (0024s), both issue 23.

Revision ID: 0025
Revises: 0024f, 0024s
Create Date: 2026-12-02
"""

revision = "0025"
down_revision = ("0024f", "0024s")
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
