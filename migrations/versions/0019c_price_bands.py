"""Services an owner sets up, and their price bands (issue 18).

Revision ID: 0019c
Revises: 0018
Create Date: 2026-12-01

- `services.durations`: the allowed lengths in slots of the unit's grid (NULL: a service made before this
  revision, sold at any length, as before).
- `service_resources`: the resources a service runs on (none: a service made before this revision, on any).
- `service_price_bands`: the bands ("faixas") of one price version of a service, one row per band and weekday
  (0 = Monday), minutes after local midnight; the EXCLUDE constraint keeps the bands of one version from
  overlapping. A price version is `service_prices` (0004) plus its bands.
- `booking_price_versions`: the price version a hold was made at, so that its quote and its charge keep the price
  its customer saw even when the owner publishes new prices or bands during the hold.
"""

from migrations.script import run_script

revision = "0019c"
down_revision = "0018"
branch_labels = None
depends_on = None

UP = """
ALTER TABLE services ADD COLUMN durations integer[]
    CHECK (durations IS NULL OR (cardinality(durations) > 0 AND 0 < ALL (durations)));

CREATE TABLE service_resources (
    unit_id uuid NOT NULL,
    service_id uuid NOT NULL,
    resource_id uuid NOT NULL,
    PRIMARY KEY (unit_id, service_id, resource_id),
    FOREIGN KEY (unit_id, service_id) REFERENCES services(unit_id, id),
    FOREIGN KEY (unit_id, resource_id) REFERENCES resources(unit_id, id)
);

CREATE TABLE service_price_bands (
    unit_id uuid NOT NULL,
    service_id uuid NOT NULL,
    version integer NOT NULL,
    position integer NOT NULL CHECK (position >= 0),
    weekday smallint NOT NULL CHECK (weekday BETWEEN 0 AND 6),
    from_minute integer NOT NULL CHECK (from_minute BETWEEN 0 AND 1439),
    to_minute integer NOT NULL CHECK (to_minute BETWEEN 1 AND 1440),
    price_cents integer NOT NULL CHECK (price_cents >= 0),
    payment_rule text NOT NULL CHECK (payment_rule IN ('full', 'deposit_percent', 'deposit_cents')),
    deposit_percent integer CHECK (deposit_percent BETWEEN 1 AND 100),
    deposit_cents integer CHECK (deposit_cents >= 0),
    PRIMARY KEY (unit_id, service_id, version, position, weekday),
    FOREIGN KEY (unit_id, service_id, version) REFERENCES service_prices(unit_id, service_id, version),
    CHECK (from_minute < to_minute),
    CHECK (payment_rule <> 'deposit_percent' OR deposit_percent IS NOT NULL),
    CHECK (payment_rule <> 'deposit_cents' OR deposit_cents IS NOT NULL),
    EXCLUDE USING gist (unit_id WITH =, service_id WITH =, version WITH =, weekday WITH =,
                        int4range(from_minute, to_minute) WITH &&)
);

CREATE TABLE booking_price_versions (
    unit_id uuid NOT NULL,
    booking_id uuid NOT NULL,
    service_id uuid NOT NULL,
    version integer NOT NULL,
    PRIMARY KEY (unit_id, booking_id),
    FOREIGN KEY (unit_id, booking_id) REFERENCES bookings(unit_id, id),
    FOREIGN KEY (unit_id, service_id, version) REFERENCES service_prices(unit_id, service_id, version)
);
"""

DOWN = """
DROP TABLE IF EXISTS booking_price_versions, service_price_bands, service_resources;
ALTER TABLE services DROP COLUMN IF EXISTS durations;
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
