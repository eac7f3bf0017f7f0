"""Merge the branches of 0018 (issue 18, venue administration): platform set-up (0019a), the layout (0019b:
hours exceptions), price bands (0019c), venue flows (0019d) and the seeds' examples (0019e: payers of orphan
Pix, offer tokens by themselves).

Revision ID: 0020
Revises: 0019a, 0019b, 0019c, 0019d, 0019e
Create Date: 2026-12-01
"""

revision = "0020"
down_revision = ("0019a", "0019b", "0019c", "0019d", "0019e")
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
