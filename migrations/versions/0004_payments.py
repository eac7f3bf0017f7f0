"""Payments: versioned prices and cancellation policies, charges, payments, webhook receipts,
Pix failure streaks, customer credits, swaps, and the sandbox provider's own bank.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

from migrations.script import run_script

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

UP = """
CREATE TABLE service_prices (
    unit_id uuid NOT NULL,
    service_id uuid NOT NULL,
    version integer NOT NULL CHECK (version > 0),
    price_cents integer NOT NULL CHECK (price_cents >= 0),
    payment_rule text NOT NULL CHECK (payment_rule IN ('full', 'deposit_percent', 'deposit_cents')),
    deposit_percent integer CHECK (deposit_percent BETWEEN 1 AND 100),
    deposit_cents integer CHECK (deposit_cents >= 0),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (unit_id, service_id, version),
    FOREIGN KEY (unit_id, service_id) REFERENCES services(unit_id, id),
    CHECK (payment_rule <> 'deposit_percent' OR deposit_percent IS NOT NULL),
    CHECK (payment_rule <> 'deposit_cents' OR deposit_cents IS NOT NULL)
);
ALTER TABLE services ADD COLUMN price_version integer NOT NULL DEFAULT 1;
INSERT INTO service_prices (unit_id, service_id, version, price_cents, payment_rule, deposit_percent, deposit_cents)
SELECT unit_id, id, 1, price_cents, payment_rule, deposit_percent, deposit_cents FROM services;

CREATE TABLE cancellation_policies (
    unit_id uuid NOT NULL REFERENCES units(id),
    version integer NOT NULL CHECK (version > 0),
    tiers jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (unit_id, version)
);
ALTER TABLE units ADD COLUMN policy_version integer NOT NULL DEFAULT 1;
INSERT INTO cancellation_policies (unit_id, version, tiers) SELECT id, 1, cancellation_tiers FROM units;

ALTER TABLE bookings
    ADD COLUMN swapped_from uuid,
    ADD COLUMN swapped_to uuid,
    ADD COLUMN due_now_cents integer NOT NULL DEFAULT 0,
    ADD COLUMN paid_cents integer NOT NULL DEFAULT 0;

CREATE TABLE charges (
    id uuid PRIMARY KEY,
    unit_id uuid NOT NULL,
    booking_id uuid NOT NULL,
    provider text NOT NULL,
    txid text NOT NULL CHECK (txid ~ '^[A-Za-z0-9]{26,35}$'),
    provider_ref text,
    amount_cents integer NOT NULL CHECK (amount_cents > 0),
    status text NOT NULL CHECK (status IN ('creating', 'pending', 'paid', 'cancelled', 'expired', 'failed')),
    brcode text,
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (unit_id, id),
    UNIQUE (unit_id, provider, txid),
    FOREIGN KEY (unit_id, booking_id) REFERENCES bookings(unit_id, id)
);
CREATE INDEX charges_txid ON charges (txid);
CREATE INDEX charges_booking ON charges (booking_id);

-- Payments that reached the account. unit_id is NULL only for an orphan (no charge matched yet).
CREATE TABLE payments (
    id uuid PRIMARY KEY,
    unit_id uuid REFERENCES units(id),
    charge_id uuid REFERENCES charges(id),
    booking_id uuid,
    provider text NOT NULL,
    provider_payment_id text NOT NULL,
    txid text,
    amount_cents integer NOT NULL CHECK (amount_cents > 0),
    paid_at timestamptz NOT NULL,
    outcome text NOT NULL CHECK (outcome IN ('confirmed', 'late_confirmed', 'refund_due', 'credited', 'orphan',
                                             'refunded')),
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (provider, provider_payment_id)
);
CREATE INDEX payments_unit ON payments (unit_id, created_at);
CREATE INDEX payments_orphans ON payments (created_at) WHERE outcome = 'orphan';

CREATE TABLE webhook_receipts (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    provider text NOT NULL,
    authentic boolean NOT NULL,
    detail text NOT NULL DEFAULT '',
    payload text NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE pix_failure_streaks (
    unit_id uuid PRIMARY KEY REFERENCES units(id),
    streak integer NOT NULL DEFAULT 0 CHECK (streak >= 0),
    alerted boolean NOT NULL DEFAULT false,
    last_alert_on date
);

CREATE TABLE customer_credits (
    id uuid PRIMARY KEY,
    unit_id uuid NOT NULL REFERENCES units(id),
    customer_id uuid REFERENCES customers(id),
    payment_id uuid NOT NULL REFERENCES payments(id),
    amount_cents integer NOT NULL CHECK (amount_cents > 0),
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (unit_id, payment_id)
);

-- The sandbox provider's pretend bank (development, demo and tests).
CREATE TABLE sandbox_charges (
    txid text PRIMARY KEY,
    amount_cents integer NOT NULL,
    status text NOT NULL CHECK (status IN ('ATIVA', 'CONCLUIDA', 'REMOVIDA_PELO_USUARIO_RECEBEDOR')),
    expires_at timestamptz NOT NULL,
    description text NOT NULL DEFAULT '',
    end_to_end_id text,
    paid_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now()
);
"""

DOWN = """
DROP TABLE IF EXISTS sandbox_charges, customer_credits, pix_failure_streaks, webhook_receipts, payments, charges;
ALTER TABLE bookings DROP COLUMN IF EXISTS swapped_from, DROP COLUMN IF EXISTS swapped_to,
    DROP COLUMN IF EXISTS due_now_cents, DROP COLUMN IF EXISTS paid_cents;
ALTER TABLE units DROP COLUMN IF EXISTS policy_version;
DROP TABLE IF EXISTS cancellation_policies;
ALTER TABLE services DROP COLUMN IF EXISTS price_version;
DROP TABLE IF EXISTS service_prices;
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
