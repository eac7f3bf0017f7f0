"""WhatsApp channel (issue 10, seed 001): conversations, the inbox of received messages and the replies sent.

- `whatsapp_conversations`: one row per (unit, customer phone): the state of the menu conversation and what it
  has gathered so far (day, field, time, the open booking...). The row is locked (`FOR UPDATE`) while a message of
  that phone is handled, so two messages of one phone are handled one after the other.
- `whatsapp_inbox`: every message received, once (its WhatsApp message id is the key, so the Cloud API's retries
  are recorded once); `processed_at` is set in the same transaction that moves the conversation. Pending messages
  are handled in the order of their WhatsApp timestamp, then of arrival.
- `whatsapp_replies`: the bot's answers, written in that same transaction and sent after commit (`sent_at`).

Revision ID: 0014b
Revises: 0013
Create Date: 2026-12-01
"""

from migrations.script import run_script

revision = "0014b"
down_revision = "0013"
branch_labels = None
depends_on = None

UP = """
CREATE TABLE whatsapp_conversations (
    unit_id uuid NOT NULL REFERENCES units(id) ON DELETE CASCADE,
    phone text NOT NULL,
    state text NOT NULL DEFAULT 'start',
    data jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (unit_id, phone)
);

CREATE TABLE whatsapp_inbox (
    unit_id uuid NOT NULL REFERENCES units(id) ON DELETE CASCADE,
    message_id text NOT NULL,
    phone text NOT NULL,
    arrival bigserial,
    sent_at timestamptz NOT NULL,
    kind text NOT NULL,
    body text,
    received_at timestamptz NOT NULL,
    processed_at timestamptz,
    PRIMARY KEY (unit_id, message_id)
);
CREATE INDEX whatsapp_inbox_pending ON whatsapp_inbox (unit_id, phone, sent_at, arrival)
    WHERE processed_at IS NULL;

CREATE TABLE whatsapp_replies (
    id bigserial PRIMARY KEY,
    unit_id uuid NOT NULL REFERENCES units(id) ON DELETE CASCADE,
    phone text NOT NULL,
    in_reply_to text,
    body text NOT NULL,
    created_at timestamptz NOT NULL,
    sent_at timestamptz,
    last_error text
);
CREATE INDEX whatsapp_replies_unsent ON whatsapp_replies (created_at) WHERE sent_at IS NULL;
"""

DOWN = """
DROP TABLE whatsapp_replies;
DROP TABLE whatsapp_inbox;
DROP TABLE whatsapp_conversations;
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
