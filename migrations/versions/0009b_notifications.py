"""Notifications (SPEC §13): in-app notifications, and one delivery row per notification, recipient and channel.

`notification_deliveries` is the record of delivery: the outbox relay plans the rows (one per recipient and
channel, keyed so that a re-published event plans nothing twice), the `deliver_notification` job claims a row
before sending (status `sending` with a lease), and failures come back as `pending` with the next attempt time
(exponential backoff) until the attempts run out (`failed`). A sweep picks up due rows that lost their job.

`notifications` are the in-app ones (persistent, read/unread): for one customer, or for the unit's staff.
Units get a `notification_locale` (pt-BR by default; en available).

Revision ID: 0009b
Revises: 0008
Create Date: 2026-12-01
"""

from migrations.script import run_script

revision = "0009b"
down_revision = "0008"
branch_labels = None
depends_on = None

UP = """
ALTER TABLE units ADD COLUMN notification_locale text NOT NULL DEFAULT 'pt-BR'
    CHECK (notification_locale IN ('pt-BR', 'en'));

CREATE TABLE notification_deliveries (
    id uuid PRIMARY KEY,
    key text NOT NULL UNIQUE,
    unit_id uuid NOT NULL REFERENCES units(id) ON DELETE CASCADE,
    kind text NOT NULL,
    audience text NOT NULL CHECK (audience IN ('customer', 'staff', 'address')),
    customer_id uuid REFERENCES customers(id) ON DELETE CASCADE,
    booking_id uuid,
    channel text NOT NULL CHECK (channel IN ('in_app', 'email', 'whatsapp')),
    address text,
    locale text NOT NULL,
    title text NOT NULL,
    body text NOT NULL,
    status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sending', 'sent', 'failed')),
    attempts int NOT NULL DEFAULT 0,
    last_error text,
    next_attempt_at timestamptz NOT NULL,
    claimed_until timestamptz,
    created_at timestamptz NOT NULL,
    sent_at timestamptz
);
CREATE INDEX notification_deliveries_due ON notification_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX notification_deliveries_claimed ON notification_deliveries (claimed_until) WHERE status = 'sending';

CREATE TABLE notifications (
    id uuid PRIMARY KEY,
    delivery_id uuid UNIQUE REFERENCES notification_deliveries(id) ON DELETE SET NULL,
    unit_id uuid NOT NULL REFERENCES units(id) ON DELETE CASCADE,
    audience text NOT NULL CHECK (audience IN ('customer', 'staff')),
    customer_id uuid REFERENCES customers(id) ON DELETE CASCADE,
    kind text NOT NULL,
    booking_id uuid,
    title text NOT NULL,
    body text NOT NULL,
    created_at timestamptz NOT NULL,
    read_at timestamptz,
    CHECK ((audience = 'customer') = (customer_id IS NOT NULL))
);
CREATE INDEX notifications_customer ON notifications (customer_id, created_at DESC) WHERE customer_id IS NOT NULL;
CREATE INDEX notifications_staff ON notifications (unit_id, created_at DESC) WHERE audience = 'staff';
"""

DOWN = """
DROP TABLE IF EXISTS notifications;
DROP TABLE IF EXISTS notification_deliveries;
ALTER TABLE units DROP COLUMN IF EXISTS notification_locale;
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
