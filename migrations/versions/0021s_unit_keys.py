"""Keys of one unit: unit_id in the unique keys and foreign keys that lacked it (issue 21, sharding readiness).

Revision ID: 0021s
Revises: 0020
Create Date: 2026-12-01

Distributed by unit_id (Citus, docs/scaling.md), a unique key or a foreign key is enforced only when it includes
the distribution column. These already held within one unit — a notification delivery's key, an in-app
notification's delivery, a no-show suggestion's booking, a webhook delivery's endpoint and outbox row are all one
unit's — so adding unit_id changes no answer: it says so in the schema. `appointment_reminders` gains the unit_id
of its booking. tests/services/test_sharding_schema.py checks every such constraint; what is left (payments, and
the in-app notification's foreign key to its delivery) is listed there with why.
"""

from migrations.script import run_script

revision = "0021s"
down_revision = "0020"
branch_labels = None
depends_on = None

UP = """
ALTER TABLE notification_deliveries ADD CONSTRAINT notification_deliveries_unit_key UNIQUE (unit_id, key),
    DROP CONSTRAINT notification_deliveries_key_key;

ALTER TABLE notifications ADD CONSTRAINT notifications_unit_delivery UNIQUE (unit_id, delivery_id),
    DROP CONSTRAINT notifications_delivery_id_key;

CREATE UNIQUE INDEX queue_items_unit_no_show ON queue_items (unit_id, booking_id) WHERE type = 'no_show_suggestion';
DROP INDEX queue_items_no_show;

ALTER TABLE webhook_endpoints ADD CONSTRAINT webhook_endpoints_unit_id_id_key UNIQUE (unit_id, id);
ALTER TABLE webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_unit_endpoint_outbox UNIQUE (unit_id, endpoint_id, outbox_id),
    DROP CONSTRAINT webhook_deliveries_endpoint_id_outbox_id_key,
    ADD CONSTRAINT webhook_deliveries_unit_endpoint_fkey FOREIGN KEY (unit_id, endpoint_id)
        REFERENCES webhook_endpoints (unit_id, id),
    DROP CONSTRAINT webhook_deliveries_endpoint_id_fkey;

ALTER TABLE appointment_reminders ADD COLUMN unit_id uuid;
UPDATE appointment_reminders r SET unit_id = b.unit_id FROM bookings b WHERE b.id = r.booking_id;
ALTER TABLE appointment_reminders ALTER COLUMN unit_id SET NOT NULL,
    DROP CONSTRAINT appointment_reminders_pkey,
    ADD CONSTRAINT appointment_reminders_pkey PRIMARY KEY (unit_id, booking_id, offset_minutes),
    DROP CONSTRAINT appointment_reminders_booking_id_fkey,
    ADD CONSTRAINT appointment_reminders_unit_booking_fkey FOREIGN KEY (unit_id, booking_id)
        REFERENCES bookings (unit_id, id) ON DELETE CASCADE;
"""

DOWN = """
ALTER TABLE appointment_reminders DROP CONSTRAINT appointment_reminders_unit_booking_fkey,
    DROP CONSTRAINT appointment_reminders_pkey,
    ADD CONSTRAINT appointment_reminders_pkey PRIMARY KEY (booking_id, offset_minutes),
    ADD CONSTRAINT appointment_reminders_booking_id_fkey FOREIGN KEY (booking_id) REFERENCES bookings(id)
        ON DELETE CASCADE,
    DROP COLUMN unit_id;

ALTER TABLE webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_endpoint_id_fkey FOREIGN KEY (endpoint_id) REFERENCES webhook_endpoints(id),
    DROP CONSTRAINT webhook_deliveries_unit_endpoint_fkey,
    ADD CONSTRAINT webhook_deliveries_endpoint_id_outbox_id_key UNIQUE (endpoint_id, outbox_id),
    DROP CONSTRAINT webhook_deliveries_unit_endpoint_outbox;
ALTER TABLE webhook_endpoints DROP CONSTRAINT webhook_endpoints_unit_id_id_key;

CREATE UNIQUE INDEX queue_items_no_show ON queue_items (booking_id) WHERE type = 'no_show_suggestion';
DROP INDEX queue_items_unit_no_show;

ALTER TABLE notifications ADD CONSTRAINT notifications_delivery_id_key UNIQUE (delivery_id),
    DROP CONSTRAINT notifications_unit_delivery;

ALTER TABLE notification_deliveries ADD CONSTRAINT notification_deliveries_key_key UNIQUE (key),
    DROP CONSTRAINT notification_deliveries_unit_key;
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
