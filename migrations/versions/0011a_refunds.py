"""Refunds of cancelled paid bookings (SPEC §7 "Refunds", §11 "Cancel"), and the sandbox bank's refunds.

Revision ID: 0011a
Revises: 0010
Create Date: 2026-12-01
"""

from migrations.script import run_script

revision = "0011a"
down_revision = "0010"
branch_labels = None
depends_on = None

UP = """
-- One row per refunded payment of a cancelled booking, computed by the policy version the customer accepted.
-- The provider's refund id is derived from `id`, so a retried job never refunds twice.
CREATE TABLE refunds (
    id uuid PRIMARY KEY,
    unit_id uuid NOT NULL REFERENCES units(id),
    booking_id uuid NOT NULL,
    payment_id uuid NOT NULL REFERENCES payments(id),
    paid_cents integer NOT NULL CHECK (paid_cents > 0),
    amount_cents integer NOT NULL CHECK (amount_cents >= 0 AND amount_cents <= paid_cents),
    policy_version integer NOT NULL,
    percent integer NOT NULL CHECK (percent BETWEEN 0 AND 100),
    hours_before_start double precision NOT NULL,
    status text NOT NULL CHECK (status IN ('not_due', 'requested', 'succeeded', 'failed')),
    provider text NOT NULL,
    provider_refund_id text NOT NULL,
    provider_ref text,
    error text,
    attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    claimed_until timestamptz,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    UNIQUE (payment_id),
    FOREIGN KEY (unit_id, booking_id) REFERENCES bookings(unit_id, id),
    CHECK ((amount_cents = 0) = (status = 'not_due'))
);
CREATE INDEX refunds_booking ON refunds (booking_id, created_at);
CREATE INDEX refunds_open ON refunds (updated_at) WHERE status = 'requested';

-- The sandbox bank remembers each refund it was asked for (one per refund id) and how often it was asked.
CREATE TABLE sandbox_refunds (
    refund_id text NOT NULL,
    end_to_end_id text NOT NULL,
    amount_cents integer NOT NULL CHECK (amount_cents > 0),
    return_id text NOT NULL,
    requests integer NOT NULL DEFAULT 1,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (end_to_end_id, refund_id)
);
"""

DOWN = """
DROP TABLE IF EXISTS sandbox_refunds, refunds;
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
