"""Recurring bookings (issue 23): a series of weekly occurrences held, accepted and changed together, and its
periods (the calendar months a later step charges one at a time). Each occurrence is an ordinary booking that
knows its series and its place in it.

Revision ID: 0024s
Revises: 0023
Create Date: 2026-12-02
"""

from migrations.script import run_script

revision = "0024s"
down_revision = "0023"
branch_labels = None
depends_on = None

UP = """
CREATE TABLE series (
    id uuid PRIMARY KEY,
    unit_id uuid NOT NULL REFERENCES units(id),
    customer_id uuid REFERENCES customers(id),
    service_id uuid,
    status text NOT NULL CHECK (status IN ('held', 'confirmed', 'cancelled', 'expired')),
    mode text NOT NULL CHECK (mode IN ('all_or_nothing', 'free_only')),
    channel text NOT NULL,
    created_by text NOT NULL,
    every_weeks smallint NOT NULL CHECK (every_weeks BETWEEN 1 AND 52),
    local_start time NOT NULL,
    minutes integer NOT NULL CHECK (minutes > 0),
    first_day date NOT NULL,
    occurrences_asked smallint CHECK (occurrences_asked BETWEEN 1 AND 60),
    until_day date,
    resource_ids uuid[],
    group_id uuid,
    quantity integer NOT NULL DEFAULT 1,
    hold_type text,
    acceptance jsonb,
    charge_ahead_days smallint NOT NULL DEFAULT 7 CHECK (charge_ahead_days BETWEEN 0 AND 60),
    version integer NOT NULL DEFAULT 1,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    UNIQUE (unit_id, id),
    FOREIGN KEY (unit_id, service_id) REFERENCES services(unit_id, id),
    FOREIGN KEY (unit_id, group_id) REFERENCES resource_groups(unit_id, id)
);
CREATE INDEX series_unit_created ON series (unit_id, created_at DESC, id DESC);
CREATE INDEX series_customer ON series (customer_id) WHERE customer_id IS NOT NULL;

-- The periods a series is paid by (a calendar month of the unit's time zone): the first is due at acceptance,
-- the later ones `charge_ahead_days` before they start (due_at); an unpaid one is released at its deadline.
CREATE TABLE series_periods (
    id uuid PRIMARY KEY,
    unit_id uuid NOT NULL REFERENCES units(id),
    series_id uuid NOT NULL,
    starts_on date NOT NULL,
    ends_on date NOT NULL,
    due_at timestamptz NOT NULL,
    status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'charged', 'paid', 'released', 'cancelled')),
    amount_cents integer NOT NULL DEFAULT 0 CHECK (amount_cents >= 0),
    charge_id uuid,
    reminded_at timestamptz,
    paid_at timestamptz,
    paid_by text,
    CHECK (ends_on > starts_on),
    UNIQUE (unit_id, id),
    UNIQUE (unit_id, series_id, starts_on),
    FOREIGN KEY (unit_id, series_id) REFERENCES series(unit_id, id),
    FOREIGN KEY (unit_id, charge_id) REFERENCES charges(unit_id, id)
);
CREATE INDEX series_periods_due ON series_periods (due_at) WHERE status = 'open';

ALTER TABLE bookings ADD COLUMN series_id uuid, ADD COLUMN series_index smallint, ADD COLUMN period_id uuid,
    ADD CONSTRAINT bookings_series_fk FOREIGN KEY (unit_id, series_id) REFERENCES series(unit_id, id),
    ADD CONSTRAINT bookings_period_fk FOREIGN KEY (unit_id, period_id) REFERENCES series_periods(unit_id, id),
    ADD CONSTRAINT bookings_series_index CHECK ((series_id IS NULL) = (series_index IS NULL));
CREATE INDEX bookings_series ON bookings (unit_id, series_id, series_index) WHERE series_id IS NOT NULL;
"""

DOWN = """
ALTER TABLE bookings DROP CONSTRAINT IF EXISTS bookings_series_index, DROP CONSTRAINT IF EXISTS bookings_period_fk,
    DROP CONSTRAINT IF EXISTS bookings_series_fk, DROP COLUMN IF EXISTS period_id,
    DROP COLUMN IF EXISTS series_index, DROP COLUMN IF EXISTS series_id;
DROP TABLE IF EXISTS series_periods;
DROP TABLE IF EXISTS series;
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
