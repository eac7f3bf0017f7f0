"""Refunds: one per (payment, booking), not one per payment — a series period's single Pix pays several occurrences,
and each cancelled occurrence refunds its own share of it (issue 23).

Revision ID: 0028r
Revises: 0026p
Create Date: 2026-12-02

A payment still refunds a plain booking once (it pays one booking); a period's Pix can now be refunded once per
occurrence it paid, each refund at most that occurrence's share (domain/refunds.py), and the provider's partial
refunds of one Pix add up to at most what was paid.
"""

from migrations.script import run_script

revision = "0028r"
down_revision = "0026p"
branch_labels = None
depends_on = None

UP = """
ALTER TABLE refunds
    ADD CONSTRAINT refunds_unit_payment_booking_key UNIQUE (unit_id, payment_id, booking_id),
    DROP CONSTRAINT refunds_unit_payment_key;
"""

DOWN = """
ALTER TABLE refunds
    ADD CONSTRAINT refunds_unit_payment_key UNIQUE (unit_id, payment_id),
    DROP CONSTRAINT refunds_unit_payment_booking_key;
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
