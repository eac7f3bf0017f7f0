"""Join the two branches written side by side: refunds (0011a), no-shows and appointment reminders (0011b).

Revision ID: 0012
Revises: 0011a, 0011b
Create Date: 2026-12-01
"""

revision = "0012"
down_revision = ("0011a", "0011b")
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
