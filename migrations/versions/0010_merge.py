"""Join the three branches written side by side: reschedule (0009a), notifications (0009b), webhooks (0009c).

Revision ID: 0010
Revises: 0009a, 0009b, 0009c
Create Date: 2026-12-01
"""

revision = "0010"
down_revision = ("0009a", "0009b", "0009c")
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
