"""Run a multi-statement SQL script inside a migration (asyncpg prepares single statements only)."""

from __future__ import annotations

from alembic import op
from sqlalchemy.util import await_only


def run_script(sql: str) -> None:
    """Execute `sql` with the simple query protocol on the migration's own connection."""
    driver = op.get_bind().connection.driver_connection
    assert driver is not None
    await_only(driver.execute(sql))
