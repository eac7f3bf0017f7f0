"""Merge the branches of 0021s: CORS origins (0022c, issue 19), the bookings search (0022d, issue 19), payments
always of one unit and the check-in window (0022p → 0022w, issues 21 and 20).

Revision ID: 0023
Revises: 0022c, 0022d, 0022w
Create Date: 2026-12-02
"""

revision = "0023"
down_revision = ("0022c", "0022d", "0022w")
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
