"""Merge the branches of 0025: the audit chain at commit time (0026a, issue 22) and paying a series by period
(0026p, issue 23).

Revision ID: 0027
Revises: 0026a, 0026p
Create Date: 2026-12-02
"""

revision = "0027"
down_revision = ("0026a", "0026p")
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
