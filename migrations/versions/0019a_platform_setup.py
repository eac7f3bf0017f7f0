"""Platform set-up (issue 18): a unit's currency and owner e-mail, and staff tokens that expire and say when they
were last used.

Revision ID: 0019a
Revises: 0018
Create Date: 2026-12-01

`units.currency` is the ISO 4217 code of the unit's prices (default BRL, what every unit so far charges);
`units.owner_email` is where owner notifications go (the WhatsApp number for alerts already is
`units.owner_alert_whatsapp`). `access_tokens.expires_at` (NULL: never) ends a staff or integrator token at that
instant, like a revocation; `access_tokens.last_used_at` is when the API last authenticated a request with it
(kept to the minute: store/access.py writes it at most once a minute per token and process).
"""

from migrations.script import run_script

revision = "0019a"
down_revision = "0018"
branch_labels = None
depends_on = None

UP = """
ALTER TABLE units ADD COLUMN currency text NOT NULL DEFAULT 'BRL' CHECK (currency ~ '^[A-Z]{3}$');
ALTER TABLE units ADD COLUMN owner_email text CHECK (owner_email IS NULL OR owner_email LIKE '%_@_%');
ALTER TABLE access_tokens ADD COLUMN expires_at timestamptz;
ALTER TABLE access_tokens ADD COLUMN last_used_at timestamptz;
"""

DOWN = """
ALTER TABLE access_tokens DROP COLUMN IF EXISTS last_used_at;
ALTER TABLE access_tokens DROP COLUMN IF EXISTS expires_at;
ALTER TABLE units DROP COLUMN IF EXISTS owner_email;
ALTER TABLE units DROP COLUMN IF EXISTS currency;
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
