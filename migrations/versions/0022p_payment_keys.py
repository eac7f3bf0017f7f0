"""Payments always of one unit; an orphan Pix nobody can be told for waits in a table of its own (issue 21).

Revision ID: 0022p
Revises: 0021s
Create Date: 2026-12-02

Distributed by unit_id (docs/scaling.md), a payment must carry its unit from the start, and a bank's payment id must
be claimed once across all units. So:

- `received_pix` (a reference table: no unit) claims each (provider, provider payment id) once, in the transaction
  that records it — the exactly-once of every Pix, whichever unit it turns out to be;
- `unattributed_payments` keeps an orphan Pix that no charge claimed and no unit could be told for
  (domain/orphans.py) — platform data, not any unit's; linking one to a booking moves it into `payments`;
- `payments.unit_id` becomes NOT NULL, its keys (unit_id, id) and (unit_id, provider, provider payment id), its
  charge's foreign key (unit_id, charge_id); refunds and credits reference (unit_id, payment_id);
- the in-app notification's delivery: FOREIGN KEY (unit_id, delivery_id) ... ON DELETE SET NULL (delivery_id), the
  column list PostgreSQL 15 brought (README: PostgreSQL 15 or newer).
"""

from migrations.script import run_script

revision = "0022p"
down_revision = "0021s"
branch_labels = None
depends_on = None

UP = """
CREATE TABLE received_pix (
    provider text NOT NULL,
    provider_payment_id text NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (provider, provider_payment_id)
);
INSERT INTO received_pix (provider, provider_payment_id, received_at)
    SELECT provider, provider_payment_id, created_at FROM payments;

CREATE TABLE unattributed_payments (
    id uuid PRIMARY KEY,
    provider text NOT NULL,
    provider_payment_id text NOT NULL,
    txid text,
    amount_cents integer NOT NULL CHECK (amount_cents > 0),
    paid_at timestamptz NOT NULL,
    payer_name text CHECK (length(payer_name) <= 140),
    payer_document text CHECK (payer_document ~ '^([0-9]{11}|[0-9]{14})$'),
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (provider, provider_payment_id),
    FOREIGN KEY (provider, provider_payment_id) REFERENCES received_pix (provider, provider_payment_id)
);
CREATE INDEX unattributed_payments_paid ON unattributed_payments (paid_at);
INSERT INTO unattributed_payments (id, provider, provider_payment_id, txid, amount_cents, paid_at, payer_name,
                                   payer_document, created_at)
    SELECT id, provider, provider_payment_id, txid, amount_cents, paid_at, payer_name, payer_document, created_at
    FROM payments WHERE unit_id IS NULL;
DELETE FROM payments WHERE unit_id IS NULL;

ALTER TABLE payments ALTER COLUMN unit_id SET NOT NULL,
    ADD CONSTRAINT payments_unit_id_id_key UNIQUE (unit_id, id),
    ADD CONSTRAINT payments_unit_provider_payment_key UNIQUE (unit_id, provider, provider_payment_id),
    DROP CONSTRAINT payments_provider_provider_payment_id_key,
    ADD CONSTRAINT payments_received_fkey FOREIGN KEY (provider, provider_payment_id)
        REFERENCES received_pix (provider, provider_payment_id),
    ADD CONSTRAINT payments_unit_charge_fkey FOREIGN KEY (unit_id, charge_id) REFERENCES charges (unit_id, id),
    DROP CONSTRAINT payments_charge_id_fkey;

ALTER TABLE customer_credits
    ADD CONSTRAINT customer_credits_unit_payment_fkey FOREIGN KEY (unit_id, payment_id)
        REFERENCES payments (unit_id, id),
    DROP CONSTRAINT customer_credits_payment_id_fkey;

ALTER TABLE refunds
    ADD CONSTRAINT refunds_unit_payment_key UNIQUE (unit_id, payment_id),
    DROP CONSTRAINT refunds_payment_id_key,
    ADD CONSTRAINT refunds_unit_payment_fkey FOREIGN KEY (unit_id, payment_id) REFERENCES payments (unit_id, id),
    DROP CONSTRAINT refunds_payment_id_fkey;

ALTER TABLE notification_deliveries ADD CONSTRAINT notification_deliveries_unit_id_id_key UNIQUE (unit_id, id);
ALTER TABLE notifications
    ADD CONSTRAINT notifications_unit_delivery_fkey FOREIGN KEY (unit_id, delivery_id)
        REFERENCES notification_deliveries (unit_id, id) ON DELETE SET NULL (delivery_id),
    DROP CONSTRAINT notifications_delivery_id_fkey;
"""

DOWN = """
ALTER TABLE notifications
    ADD CONSTRAINT notifications_delivery_id_fkey FOREIGN KEY (delivery_id) REFERENCES notification_deliveries(id)
        ON DELETE SET NULL,
    DROP CONSTRAINT notifications_unit_delivery_fkey;
ALTER TABLE notification_deliveries DROP CONSTRAINT notification_deliveries_unit_id_id_key;

ALTER TABLE refunds
    ADD CONSTRAINT refunds_payment_id_fkey FOREIGN KEY (payment_id) REFERENCES payments(id),
    DROP CONSTRAINT refunds_unit_payment_fkey,
    ADD CONSTRAINT refunds_payment_id_key UNIQUE (payment_id),
    DROP CONSTRAINT refunds_unit_payment_key;

ALTER TABLE customer_credits
    ADD CONSTRAINT customer_credits_payment_id_fkey FOREIGN KEY (payment_id) REFERENCES payments(id),
    DROP CONSTRAINT customer_credits_unit_payment_fkey;

ALTER TABLE payments ALTER COLUMN unit_id DROP NOT NULL,
    ADD CONSTRAINT payments_charge_id_fkey FOREIGN KEY (charge_id) REFERENCES charges(id),
    DROP CONSTRAINT payments_unit_charge_fkey,
    DROP CONSTRAINT payments_received_fkey,
    ADD CONSTRAINT payments_provider_provider_payment_id_key UNIQUE (provider, provider_payment_id),
    DROP CONSTRAINT payments_unit_provider_payment_key,
    DROP CONSTRAINT payments_unit_id_id_key;
INSERT INTO payments (id, unit_id, provider, provider_payment_id, txid, amount_cents, paid_at, outcome, payer_name,
                      payer_document, created_at)
    SELECT id, NULL, provider, provider_payment_id, txid, amount_cents, paid_at, 'orphan', payer_name,
           payer_document, created_at FROM unattributed_payments;
DROP TABLE unattributed_payments;
DROP TABLE received_pix;
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
