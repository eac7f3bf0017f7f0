"""Outgoing webhooks for integrators: endpoints (a URL, event types, a signing secret) and one delivery row per
(endpoint, outbox event) — unique, so relaying an event twice never schedules it twice.

The delivery keeps the body it sends (outbox rows are pruned after their retention; retries and replays are
not), its status, attempts, last response and next attempt. Secrets are stored as given: the worker must sign
with them (a digest would not do); they are never returned by queries.

Revision ID: 0009c
Revises: 0008
Create Date: 2026-12-01
"""

from migrations.script import run_script

revision = "0009c"
down_revision = "0008"
branch_labels = None
depends_on = None

UP = """
CREATE TABLE webhook_endpoints (
    id uuid PRIMARY KEY,
    unit_id uuid NOT NULL REFERENCES units(id),
    url text NOT NULL CHECK (url <> ''),
    event_types text[] NOT NULL CHECK (cardinality(event_types) > 0),
    secret text NOT NULL,
    previous_secret text,
    previous_secret_until timestamptz,
    enabled boolean NOT NULL DEFAULT true,
    description text,
    created_by text NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE INDEX webhook_endpoints_unit ON webhook_endpoints (unit_id) WHERE enabled;

CREATE TABLE webhook_deliveries (
    id uuid PRIMARY KEY,
    endpoint_id uuid NOT NULL REFERENCES webhook_endpoints(id),
    unit_id uuid NOT NULL REFERENCES units(id),
    outbox_id bigint NOT NULL,
    event_id uuid NOT NULL,
    event_type text NOT NULL,
    seq bigint NOT NULL,
    body jsonb NOT NULL,
    status text NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'sending', 'retrying', 'delivered', 'failed', 'cancelled')),
    attempts int NOT NULL DEFAULT 0,
    round_attempts int NOT NULL DEFAULT 0,
    next_attempt_at timestamptz,
    last_attempt_at timestamptz,
    response_code int,
    latency_ms int,
    last_error text,
    delivered_at timestamptz,
    created_at timestamptz NOT NULL,
    UNIQUE (endpoint_id, outbox_id)
);
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (endpoint_id, created_at DESC);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at)
    WHERE status IN ('pending', 'sending', 'retrying');
"""

DOWN = """
DROP TABLE IF EXISTS webhook_deliveries;
DROP TABLE IF EXISTS webhook_endpoints;
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
