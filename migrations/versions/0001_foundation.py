"""Foundation: tenants to units, resources, hours, blocks, services, customers, bookings,
allocations with their exclusion constraint, pooled capacity counters, the append-only audit
trail, idempotency keys, the outbox and the staff queue.

Every table that belongs to a venue carries unit_id, and every unique or exclusion constraint
on such a table includes it, so the schema can later be distributed by unit.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from migrations.script import run_script

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

STATUSES = (
    "'held','pending_payment','verifying','confirmed','checked_in','completed','cancelled','no_show','expired'"
)

UP = f"""
CREATE EXTENSION IF NOT EXISTS btree_gist;

CREATE TABLE tenants (
    id uuid PRIMARY KEY,
    name text NOT NULL CHECK (name <> ''),
    hold_types jsonb NOT NULL DEFAULT '{{}}',
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE organizations (
    id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants(id),
    name text NOT NULL CHECK (name <> ''),
    hold_types jsonb NOT NULL DEFAULT '{{}}',
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE units (
    id uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations(id),
    name text NOT NULL CHECK (name <> ''),
    timezone text NOT NULL,
    min_advance_minutes integer NOT NULL DEFAULT 60 CHECK (min_advance_minutes >= 0),
    max_advance_days integer NOT NULL DEFAULT 30 CHECK (max_advance_days > 0),
    slot_minutes integer NOT NULL DEFAULT 60 CHECK (slot_minutes BETWEEN 5 AND 1440),
    hold_ttl_seconds integer NOT NULL DEFAULT 600 CHECK (hold_ttl_seconds > 0),
    hold_ttl_payment_seconds integer NOT NULL DEFAULT 900 CHECK (hold_ttl_payment_seconds > 0),
    hold_min_seconds integer NOT NULL DEFAULT 300 CHECK (hold_min_seconds >= 0),
    waitlist_hold_seconds integer NOT NULL DEFAULT 600 CHECK (waitlist_hold_seconds > 0),
    capacity_offer_ttl_seconds integer NOT NULL DEFAULT 86400 CHECK (capacity_offer_ttl_seconds > 0),
    charge_margin_seconds integer NOT NULL DEFAULT 120 CHECK (charge_margin_seconds >= 0),
    pix_failures_before_alert integer NOT NULL DEFAULT 3 CHECK (pix_failures_before_alert > 0),
    owner_alert_whatsapp text,
    open_holds_per_customer integer NOT NULL DEFAULT 1 CHECK (open_holds_per_customer > 0),
    cooldown_expirations integer NOT NULL DEFAULT 3 CHECK (cooldown_expirations > 0),
    cooldown_window_days integer NOT NULL DEFAULT 7 CHECK (cooldown_window_days > 0),
    cooldown_hours integer NOT NULL DEFAULT 48 CHECK (cooldown_hours >= 0),
    hold_ceiling_percent integer NOT NULL DEFAULT 30 CHECK (hold_ceiling_percent BETWEEN 0 AND 100),
    verification_wait_seconds integer NOT NULL DEFAULT 1800 CHECK (verification_wait_seconds > 0),
    hold_reminder_seconds integer NOT NULL DEFAULT 300 CHECK (hold_reminder_seconds >= 0),
    sweep_interval_seconds integer NOT NULL DEFAULT 30 CHECK (sweep_interval_seconds > 0),
    payment_rule text NOT NULL DEFAULT 'full' CHECK (payment_rule IN ('full', 'deposit_percent', 'deposit_cents')),
    cancellation_tiers jsonb NOT NULL DEFAULT
        '[{{"min_hours": 24, "percent": 100}}, {{"min_hours": 6, "percent": 50}}, {{"min_hours": 0, "percent": 0}}]',
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE resource_groups (
    id uuid PRIMARY KEY,
    unit_id uuid NOT NULL REFERENCES units(id),
    name text NOT NULL CHECK (name <> ''),
    sort integer NOT NULL DEFAULT 0,
    UNIQUE (unit_id, id),
    UNIQUE (unit_id, name)
);

CREATE TABLE resources (
    id uuid PRIMARY KEY,
    unit_id uuid NOT NULL REFERENCES units(id),
    group_id uuid,
    name text NOT NULL CHECK (name <> ''),
    kind text NOT NULL CHECK (kind IN ('exclusive', 'pooled')),
    capacity integer NOT NULL DEFAULT 1 CHECK (capacity > 0),
    sort integer NOT NULL DEFAULT 0,
    attributes jsonb NOT NULL DEFAULT '{{}}',
    active boolean NOT NULL DEFAULT true,
    UNIQUE (unit_id, id),
    UNIQUE (unit_id, name),
    FOREIGN KEY (unit_id, group_id) REFERENCES resource_groups(unit_id, id),
    CHECK (kind = 'pooled' OR capacity = 1)
);

CREATE TABLE opening_hours (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    unit_id uuid NOT NULL REFERENCES units(id),
    resource_id uuid,
    weekday smallint NOT NULL CHECK (weekday BETWEEN 0 AND 6),
    opens_minute integer NOT NULL CHECK (opens_minute BETWEEN 0 AND 1439),
    closes_minute integer NOT NULL CHECK (closes_minute BETWEEN 1 AND 1440),
    FOREIGN KEY (unit_id, resource_id) REFERENCES resources(unit_id, id),
    CHECK (opens_minute < closes_minute)
);
CREATE INDEX opening_hours_unit ON opening_hours (unit_id);

CREATE TABLE blocks (
    id uuid PRIMARY KEY,
    unit_id uuid NOT NULL REFERENCES units(id),
    resource_id uuid NOT NULL,
    during tstzrange NOT NULL CHECK (NOT isempty(during)),
    reason text NOT NULL DEFAULT '',
    created_by text NOT NULL DEFAULT 'system',
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (unit_id, id),
    FOREIGN KEY (unit_id, resource_id) REFERENCES resources(unit_id, id)
);

CREATE TABLE services (
    id uuid PRIMARY KEY,
    unit_id uuid NOT NULL REFERENCES units(id),
    name text NOT NULL CHECK (name <> ''),
    duration_minutes integer NOT NULL CHECK (duration_minutes > 0),
    price_cents integer NOT NULL DEFAULT 0 CHECK (price_cents >= 0),
    payment_rule text NOT NULL DEFAULT 'full' CHECK (payment_rule IN ('full', 'deposit_percent', 'deposit_cents')),
    deposit_percent integer CHECK (deposit_percent BETWEEN 1 AND 100),
    deposit_cents integer CHECK (deposit_cents >= 0),
    active boolean NOT NULL DEFAULT true,
    UNIQUE (unit_id, id)
);

CREATE TABLE customers (
    id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants(id),
    cpf char(11),
    phone text CHECK (phone ~ '^\\+[1-9][0-9]{{7,14}}$'),
    name text,
    email text,
    blacklisted boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    CHECK (cpf IS NOT NULL OR phone IS NOT NULL),
    UNIQUE (tenant_id, cpf)
);
CREATE INDEX customers_phone ON customers (tenant_id, phone);

CREATE TABLE bookings (
    id uuid PRIMARY KEY,
    unit_id uuid NOT NULL REFERENCES units(id),
    customer_id uuid REFERENCES customers(id),
    service_id uuid,
    status text NOT NULL CHECK (status IN ({STATUSES})),
    hold_type text,
    channel text NOT NULL DEFAULT 'api',
    created_by text NOT NULL DEFAULT 'system',
    during tstzrange NOT NULL CHECK (NOT isempty(during)),
    hold_expires_at timestamptz,
    quantity integer NOT NULL DEFAULT 1 CHECK (quantity > 0),
    price_cents integer NOT NULL DEFAULT 0 CHECK (price_cents >= 0),
    version integer NOT NULL DEFAULT 1,
    acceptance jsonb,
    rescheduled_from uuid,
    rescheduled_to uuid,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (unit_id, id),
    FOREIGN KEY (unit_id, service_id) REFERENCES services(unit_id, id),
    CHECK (status NOT IN ('held', 'pending_payment', 'verifying') OR hold_expires_at IS NOT NULL)
);
CREATE INDEX bookings_locked_deadline ON bookings (hold_expires_at)
    WHERE status IN ('held', 'pending_payment', 'verifying');
CREATE INDEX bookings_customer ON bookings (customer_id, status);
CREATE INDEX bookings_unit_during ON bookings USING gist (unit_id, during);

CREATE TABLE allocations (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    unit_id uuid NOT NULL,
    booking_id uuid,
    block_id uuid,
    resource_id uuid NOT NULL,
    during tstzrange NOT NULL CHECK (NOT isempty(during)),
    quantity integer NOT NULL DEFAULT 1 CHECK (quantity > 0),
    pooled boolean NOT NULL,
    occupies boolean NOT NULL DEFAULT true,
    hold_expires_at timestamptz,
    FOREIGN KEY (unit_id, booking_id) REFERENCES bookings(unit_id, id),
    FOREIGN KEY (unit_id, block_id) REFERENCES blocks(unit_id, id),
    FOREIGN KEY (unit_id, resource_id) REFERENCES resources(unit_id, id),
    CHECK ((booking_id IS NULL) <> (block_id IS NULL)),
    CHECK (pooled OR quantity = 1),
    CONSTRAINT allocations_no_overlap EXCLUDE USING gist (
        unit_id WITH =, resource_id WITH =, during WITH &&
    ) WHERE (occupies AND NOT pooled)
);
CREATE INDEX allocations_pooled ON allocations USING gist (unit_id, resource_id, during)
    WHERE occupies AND pooled;
CREATE INDEX allocations_booking ON allocations (booking_id);

-- Pooled capacity: one counter per resource and grid slot. The CHECK makes "capacity never
-- exceeded" a property of the single INSERT .. ON CONFLICT DO UPDATE that takes places.
CREATE TABLE pool_usage (
    unit_id uuid NOT NULL,
    resource_id uuid NOT NULL,
    slot_start timestamptz NOT NULL,
    used integer NOT NULL CONSTRAINT pool_usage_not_negative CHECK (used >= 0),
    capacity integer NOT NULL,
    PRIMARY KEY (unit_id, resource_id, slot_start),
    FOREIGN KEY (unit_id, resource_id) REFERENCES resources(unit_id, id),
    CONSTRAINT pool_usage_within_capacity CHECK (used <= capacity)
);

CREATE TABLE booking_events (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    unit_id uuid NOT NULL,
    booking_id uuid NOT NULL,
    old_status text CHECK (old_status IN ({STATUSES})),
    new_status text NOT NULL CHECK (new_status IN ({STATUSES})),
    hold_type text,
    actor text NOT NULL,
    channel text NOT NULL,
    reason text,
    resources jsonb NOT NULL DEFAULT '[]',
    at timestamptz NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (unit_id, booking_id) REFERENCES bookings(unit_id, id)
);
CREATE INDEX booking_events_booking ON booking_events (booking_id, id);
CREATE INDEX booking_events_unit_at ON booking_events (unit_id, at);

CREATE FUNCTION booking_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'booking_events is append-only: % is not allowed', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;
CREATE TRIGGER booking_events_no_update_delete
    BEFORE UPDATE OR DELETE ON booking_events
    FOR EACH ROW EXECUTE FUNCTION booking_events_append_only();
CREATE TRIGGER booking_events_no_truncate
    BEFORE TRUNCATE ON booking_events
    FOR EACH STATEMENT EXECUTE FUNCTION booking_events_append_only();

CREATE TABLE idempotency_keys (
    unit_id uuid NOT NULL REFERENCES units(id),
    key text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
    operation text NOT NULL,
    fingerprint text NOT NULL,
    response jsonb NOT NULL DEFAULT 'null',
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (unit_id, key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

CREATE TABLE outbox (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    unit_id uuid NOT NULL,
    topic text NOT NULL,
    payload jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    seq bigint,
    published_at timestamptz
);
CREATE INDEX outbox_unpublished ON outbox (id) WHERE published_at IS NULL;
CREATE UNIQUE INDEX outbox_unit_seq ON outbox (unit_id, seq) WHERE seq IS NOT NULL;

CREATE TABLE queue_items (
    id uuid PRIMARY KEY,
    unit_id uuid NOT NULL REFERENCES units(id),
    type text NOT NULL,
    priority text NOT NULL CHECK (priority IN ('critical', 'high', 'normal')),
    booking_id uuid,
    payload jsonb NOT NULL DEFAULT '{{}}',
    status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'acknowledged', 'resolved')),
    created_at timestamptz NOT NULL DEFAULT now(),
    acknowledged_by text,
    acknowledged_at timestamptz,
    resolved_by text,
    resolved_at timestamptz,
    UNIQUE (unit_id, id),
    FOREIGN KEY (unit_id, booking_id) REFERENCES bookings(unit_id, id)
);
CREATE INDEX queue_items_open ON queue_items (unit_id, status, created_at);
"""

DOWN = """
DROP TABLE IF EXISTS queue_items, outbox, idempotency_keys;
DROP TRIGGER IF EXISTS booking_events_no_truncate ON booking_events;
DROP TRIGGER IF EXISTS booking_events_no_update_delete ON booking_events;
DROP TABLE IF EXISTS booking_events;
DROP FUNCTION IF EXISTS booking_events_append_only();
DROP TABLE IF EXISTS pool_usage, allocations, bookings, customers, services, blocks, opening_hours,
    resources, resource_groups, units, organizations, tenants;
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
