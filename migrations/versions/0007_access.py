"""Access: staff, integrator and system tokens, customer login codes and customer sessions (SPEC §14).

A system token (the platform's operators, tests, benchmarks) reaches every tenant; it is issued only with the
CLI (`slothold token create --system`).

Secrets are stored as SHA-256 digests only; a token's plaintext is shown once, when it is issued.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from migrations.script import run_script

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

UP = """
CREATE TABLE access_tokens (
    id uuid PRIMARY KEY,
    tenant_id uuid REFERENCES tenants(id),
    unit_id uuid REFERENCES units(id),
    kind text NOT NULL CHECK (kind IN ('staff', 'client', 'system')),
    role text CHECK (role IN ('operator', 'manager', 'owner')),
    scopes text[] NOT NULL DEFAULT '{}',
    name text NOT NULL CHECK (name <> ''),
    secret_hash bytea NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz,
    CHECK ((kind = 'staff') = (role IS NOT NULL)),
    CHECK (kind = 'client' OR scopes = '{}'),
    CHECK ((kind = 'system') = (tenant_id IS NULL)),
    CHECK (kind <> 'system' OR unit_id IS NULL)
);
CREATE INDEX access_tokens_tenant ON access_tokens (tenant_id, unit_id);

CREATE TABLE customer_login_codes (
    id uuid PRIMARY KEY,
    unit_id uuid NOT NULL REFERENCES units(id),
    destination text NOT NULL,
    code_hash bytea NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    used_at timestamptz
);
CREATE INDEX customer_login_codes_destination ON customer_login_codes (unit_id, destination, created_at DESC);

CREATE TABLE customer_sessions (
    id uuid PRIMARY KEY,
    unit_id uuid NOT NULL REFERENCES units(id),
    tenant_id uuid NOT NULL REFERENCES tenants(id),
    customer_id uuid NOT NULL REFERENCES customers(id),
    secret_hash bytea NOT NULL UNIQUE,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    revoked_at timestamptz
);
CREATE INDEX customer_sessions_customer ON customer_sessions (customer_id);
"""

DOWN = """
DROP TABLE IF EXISTS customer_sessions;
DROP TABLE IF EXISTS customer_login_codes;
DROP TABLE IF EXISTS access_tokens;
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
