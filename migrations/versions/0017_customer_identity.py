"""Customer identity: which contacts of a record were proved, and who changed a record (issue 16).

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-01

A contact is *proved* when a sign-in code reached it (or a channel that authenticates the sender, WhatsApp,
wrote from it): `phone_proved_at` / `email_proved_at`. Only proved contacts link a session to records other than
its own (store/access.py `is_same_person`), and a sign-in finds the record whose contact is proved first.
Existing rows are marked proved where a used login code went to their phone or e-mail.

`customer_changes` keeps every change of an existing record's identifiers or name: the field, the old and new
values, whether the old value was proved, and the session that made it (`staff:<token>`, `client:<token>`,
`customer:<session>`, `system:<token>`, `whatsapp:<phone>`), appended only.
"""

from migrations.script import run_script

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

UP = """
ALTER TABLE customers ADD COLUMN phone_proved_at timestamptz, ADD COLUMN email_proved_at timestamptz,
    ADD COLUMN created_by text;

UPDATE customers c SET phone_proved_at = p.at FROM (
    SELECT o.tenant_id, l.destination, min(l.used_at) AS at
    FROM customer_login_codes l JOIN units u ON u.id = l.unit_id JOIN organizations o ON o.id = u.organization_id
    WHERE l.used_at IS NOT NULL AND l.destination LIKE '+%' GROUP BY 1, 2
) p WHERE c.tenant_id = p.tenant_id AND c.phone = p.destination;

UPDATE customers c SET email_proved_at = p.at FROM (
    SELECT o.tenant_id, l.destination, min(l.used_at) AS at
    FROM customer_login_codes l JOIN units u ON u.id = l.unit_id JOIN organizations o ON o.id = u.organization_id
    WHERE l.used_at IS NOT NULL AND l.destination LIKE '%@%' GROUP BY 1, 2
) p WHERE c.tenant_id = p.tenant_id AND lower(c.email) = p.destination;

CREATE INDEX customers_email ON customers (tenant_id, lower(email)) WHERE email IS NOT NULL;

CREATE TABLE customer_changes (
    id bigserial PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants(id),
    customer_id uuid NOT NULL REFERENCES customers(id),
    field text NOT NULL CHECK (field IN ('cpf', 'phone', 'email', 'name')),
    old_value text,
    new_value text,
    was_proved boolean NOT NULL DEFAULT false,
    session text NOT NULL,
    at timestamptz NOT NULL
);
CREATE INDEX customer_changes_customer ON customer_changes (customer_id, at);

CREATE FUNCTION customer_changes_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'customer_changes is append-only';
END $$;
CREATE TRIGGER customer_changes_append_only BEFORE UPDATE OR DELETE ON customer_changes
    FOR EACH ROW EXECUTE FUNCTION customer_changes_append_only();
"""

DOWN = """
DROP TABLE IF EXISTS customer_changes;
DROP FUNCTION IF EXISTS customer_changes_append_only();
DROP INDEX IF EXISTS customers_email;
ALTER TABLE customers DROP COLUMN IF EXISTS phone_proved_at, DROP COLUMN IF EXISTS email_proved_at,
    DROP COLUMN IF EXISTS created_by;
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
