"""Calendar feeds (issue 23): iCalendar (RFC 5545) subscriptions of a customer's bookings or of a unit's agenda.

Revision ID: 0024f
Revises: 0023
Create Date: 2026-12-02

`calendar_feeds`: one row per feed URL handed out (`createCalendarFeed`). `scope` says whose bookings it shows:
`customer` (that customer's own at the unit), `unit` (the unit's whole agenda, with customers' names: staff) or
`resource` (one resource's agenda: staff). A staff feed keeps the staff or integrator token that made it
(`token_id`): it stops working when that token is revoked or expires, as everything opened with the token does.
The URL's secret is stored as its SHA-256 digest only (as staff
tokens are, store/access.py); the plaintext is in `createCalendarFeed`'s answer, once. A revoked feed answers
404 (api/calendar_feeds.py). Lookups are by digest (indexed); the unique and foreign-key constraints carry
unit_id.
"""

from migrations.script import run_script

revision = "0024f"
down_revision = "0023"
branch_labels = None
depends_on = None

UP = r"""
CREATE TABLE calendar_feeds (
    id uuid PRIMARY KEY,
    unit_id uuid NOT NULL REFERENCES units(id),
    scope text NOT NULL CHECK (scope IN ('customer', 'unit', 'resource')),
    customer_id uuid REFERENCES customers(id),
    resource_id uuid,
    name text NOT NULL CHECK (length(name) <= 80),
    secret_hash bytea NOT NULL CHECK (length(secret_hash) = 32),
    created_at timestamptz NOT NULL,
    created_by text NOT NULL,
    token_id uuid REFERENCES access_tokens(id),
    revoked_at timestamptz,
    revoked_by text,
    UNIQUE (unit_id, id),
    UNIQUE (unit_id, secret_hash),
    FOREIGN KEY (unit_id, resource_id) REFERENCES resources(unit_id, id),
    CHECK ((scope = 'customer') = (customer_id IS NOT NULL)),
    CHECK ((scope = 'resource') = (resource_id IS NOT NULL)),
    CHECK ((revoked_at IS NULL) = (revoked_by IS NULL))
);
CREATE INDEX calendar_feeds_secret ON calendar_feeds (secret_hash);
CREATE INDEX calendar_feeds_unit ON calendar_feeds (unit_id, created_at DESC, id DESC);
CREATE INDEX calendar_feeds_customer ON calendar_feeds (customer_id, unit_id) WHERE customer_id IS NOT NULL;
"""

DOWN = """
DROP TABLE IF EXISTS calendar_feeds;
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
