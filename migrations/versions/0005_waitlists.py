"""Waitlists: a slot's waitlist (offers are holds), capacity waitlists with claim tokens, and walk-in queues.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30
"""

from migrations.script import run_script

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

UP = """
CREATE TABLE slot_waitlist (
    id uuid PRIMARY KEY,
    unit_id uuid NOT NULL REFERENCES units(id),
    resource_id uuid NOT NULL,
    during tstzrange NOT NULL,
    customer_id uuid NOT NULL REFERENCES customers(id),
    service_id uuid,
    position bigint GENERATED ALWAYS AS IDENTITY,
    status text NOT NULL DEFAULT 'waiting'
        CHECK (status IN ('waiting', 'offered', 'fulfilled', 'expired', 'cancelled', 'closed')),
    offer_booking_id uuid,
    joined_at timestamptz NOT NULL,
    offered_at timestamptz,
    FOREIGN KEY (unit_id, resource_id) REFERENCES resources(unit_id, id)
);
CREATE UNIQUE INDEX slot_waitlist_once ON slot_waitlist (unit_id, resource_id, during, customer_id)
    WHERE status IN ('waiting', 'offered');
CREATE INDEX slot_waitlist_line ON slot_waitlist (unit_id, resource_id, during, position) WHERE status = 'waiting';
CREATE INDEX slot_waitlist_offer ON slot_waitlist (offer_booking_id) WHERE status = 'offered';

CREATE TABLE capacity_waitlist (
    id uuid PRIMARY KEY,
    unit_id uuid NOT NULL REFERENCES units(id),
    resource_id uuid NOT NULL,
    during tstzrange NOT NULL,
    user_ref text NOT NULL,
    customer_id uuid REFERENCES customers(id),
    service_id uuid,
    party_size integer NOT NULL CHECK (party_size > 0),
    position bigint GENERATED ALWAYS AS IDENTITY,
    status text NOT NULL DEFAULT 'waiting'
        CHECK (status IN ('waiting', 'offered', 'claimed', 'fulfilled', 'expired', 'cancelled')),
    token text,
    offer_expires_at timestamptz,
    booking_id uuid,
    joined_at timestamptz NOT NULL,
    FOREIGN KEY (unit_id, resource_id) REFERENCES resources(unit_id, id),
    CHECK (status <> 'offered' OR (token IS NOT NULL AND booking_id IS NOT NULL))
);
CREATE INDEX capacity_waitlist_booking ON capacity_waitlist (booking_id) WHERE booking_id IS NOT NULL;
CREATE UNIQUE INDEX capacity_waitlist_token ON capacity_waitlist (unit_id, token) WHERE token IS NOT NULL;
CREATE INDEX capacity_waitlist_line ON capacity_waitlist (unit_id, resource_id, during, position)
    WHERE status IN ('waiting', 'offered', 'claimed');

CREATE TABLE walkin_queue (
    id uuid PRIMARY KEY,
    unit_id uuid NOT NULL REFERENCES units(id),
    area text NOT NULL CHECK (area <> ''),
    name text NOT NULL CHECK (name <> ''),
    phone text NOT NULL CHECK (phone ~ '^\\+[1-9][0-9]{7,14}$'),
    party_size integer NOT NULL DEFAULT 1 CHECK (party_size > 0),
    position bigint GENERATED ALWAYS AS IDENTITY,
    status text NOT NULL DEFAULT 'waiting'
        CHECK (status IN ('waiting', 'offered', 'claimed', 'seated', 'cancelled')),
    token text,
    offered_at timestamptz,
    joined_at timestamptz NOT NULL,
    seated_at timestamptz
);
CREATE UNIQUE INDEX walkin_queue_token ON walkin_queue (unit_id, token) WHERE token IS NOT NULL;
CREATE INDEX walkin_queue_line ON walkin_queue (unit_id, area, position) WHERE status IN ('waiting', 'offered');
"""

DOWN = """
DROP TABLE IF EXISTS walkin_queue, capacity_waitlist, slot_waitlist;
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
