"""Apply Alembic migrations to a database URL."""

from __future__ import annotations

from alembic import command
from alembic.config import Config

from slothold.settings import PROJECT_ROOT


def alembic_url(database_url: str) -> str:
    """The SQLAlchemy URL (asyncpg driver) for a libpq-style postgresql:// URL."""
    for prefix in ("postgresql+asyncpg://", "postgresql://", "postgres://"):
        if database_url.startswith(prefix):
            return "postgresql+asyncpg://" + database_url[len(prefix):]
    raise ValueError(f"DATABASE_URL must start with postgresql://, got {database_url.split(':', 1)[0]}:")


def upgrade(database_url: str, revision: str = "heads") -> None:
    """Bring the database schema up to `revision` (idempotent)."""
    cfg = Config(str(PROJECT_ROOT / "alembic.ini"))
    cfg.set_main_option("script_location", str(PROJECT_ROOT / "migrations"))
    cfg.set_main_option("sqlalchemy.url", alembic_url(database_url).replace("%", "%%"))
    command.upgrade(cfg, revision)
