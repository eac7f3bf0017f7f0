"""The web origins allowed to call the API from a browser (CORS), registered by each unit's owners (issue 19).

Revision ID: 0022c
Revises: 0021s
Create Date: 2026-12-10

`unit_allowed_origins`: one row per origin a unit's owner registered with `setAllowedOrigins`, as browsers send
it in an `Origin` header: `scheme://host[:port]`, lower-case, no path, no default port (domain/origins.py checks
and normalises it; the CHECK below is a last line). The API answers preflights and adds CORS headers for the union
of every unit's origins and the platform's list (SLOTHOLD_CORS_ORIGINS), read with a short per-process cache
(store/allowed_origins.py).
"""

from migrations.script import run_script

revision = "0022c"
down_revision = "0021s"
branch_labels = None
depends_on = None

UP = r"""
CREATE TABLE unit_allowed_origins (
    unit_id uuid NOT NULL REFERENCES units(id),
    origin text NOT NULL CHECK (length(origin) <= 300 AND origin = lower(origin)
                                AND origin ~ '^https?://[^/?#*@[:space:]]+$'),
    created_at timestamptz NOT NULL,
    created_by text NOT NULL,
    PRIMARY KEY (unit_id, origin)
);
"""

DOWN = """
DROP TABLE IF EXISTS unit_allowed_origins;
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
