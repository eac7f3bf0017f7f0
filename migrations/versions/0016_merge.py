"""Merge the branches of 0013: seat maps and the audit session (0014a → 0015a) with the WhatsApp channel (0014b).

Revision ID: 0016
Revises: 0015a, 0014b
Create Date: 2026-12-01
"""

revision = "0016"
down_revision = ("0015a", "0014b")
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
