"""Seed gaps (issue 18): who paid an orphan Pix and the unit it is attributed to (RN-HLD-06); offers found by
their claim link's token alone (seed 003).

Revision ID: 0019e
Revises: 0018
Create Date: 2026-12-01

A Pix that matches no charge (an orphan: paid by hand to the key, without our txid) is kept with what the bank
says of its payer (`payer_name`, `payer_document`: a CPF or CNPJ, when the provider sends them) and, when the
system can tell whose it is (domain/orphans.py), with that unit in `unit_id` — so the unit's staff find it
(`orphanPayments`) and link it to a booking (`linkPayment`). An orphan nobody can be told for keeps a NULL unit.

A claim link (`/waitlist/claim/<token>`, `/walk-in/claim/<token>`) names no unit: the offers are indexed by their
token alone (the unique indexes stay per unit).
"""

from migrations.script import run_script

revision = "0019e"
down_revision = "0018"
branch_labels = None
depends_on = None

UP = """
ALTER TABLE payments ADD COLUMN payer_name text CHECK (length(payer_name) <= 140),
                     ADD COLUMN payer_document text CHECK (payer_document ~ '^([0-9]{11}|[0-9]{14})$');
CREATE INDEX payments_unit_orphans ON payments (unit_id, paid_at DESC) WHERE outcome = 'orphan';
CREATE INDEX capacity_waitlist_claim_token ON capacity_waitlist (token) WHERE token IS NOT NULL;
CREATE INDEX walkin_queue_claim_token ON walkin_queue (token) WHERE token IS NOT NULL;
"""

DOWN = """
DROP INDEX IF EXISTS payments_unit_orphans, capacity_waitlist_claim_token, walkin_queue_claim_token;
ALTER TABLE payments DROP COLUMN IF EXISTS payer_document, DROP COLUMN IF EXISTS payer_name;
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
