"""Audit trail: the session (token or customer session) behind each change (SPEC §15 "channel/session").

Revision ID: 0015a
Revises: 0014a
Create Date: 2026-12-01

`booking_events.session` names the credential a change came through — `staff:<token id>`, `client:<token id>`,
`customer:<session id>`, `system:<token id>` — never a secret; NULL for the platform's own jobs (expiry, sweeps)
and for rows written before this revision. The chained hash covers it: the canonical text gains the session as a
13th element when it is set, and stays exactly what it was when it is NULL, so every existing chain still
verifies.
"""

from migrations.script import run_script

revision = "0015a"
down_revision = "0014a"
branch_labels = None
depends_on = None

UP = """
ALTER TABLE booking_events ADD COLUMN session text;

CREATE OR REPLACE FUNCTION booking_event_canonical(e booking_events) RETURNS text LANGUAGE sql STABLE AS $$
    SELECT (jsonb_build_array(
        e.id, e.unit_id, e.booking_id, e.old_status, e.new_status, e.hold_type, e.actor, e.channel, e.reason,
        e.resources,
        (extract(epoch FROM e.at) * 1000000)::bigint,
        (extract(epoch FROM e.recorded_at) * 1000000)::bigint
    ) || CASE WHEN e.session IS NULL THEN '[]'::jsonb ELSE jsonb_build_array(e.session) END)::text
$$;
"""

DOWN = """
CREATE OR REPLACE FUNCTION booking_event_canonical(e booking_events) RETURNS text LANGUAGE sql STABLE AS $$
    SELECT jsonb_build_array(
        e.id, e.unit_id, e.booking_id, e.old_status, e.new_status, e.hold_type, e.actor, e.channel, e.reason,
        e.resources,
        (extract(epoch FROM e.at) * 1000000)::bigint,
        (extract(epoch FROM e.recorded_at) * 1000000)::bigint
    )::text
$$;
ALTER TABLE booking_events DROP COLUMN IF EXISTS session;
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
