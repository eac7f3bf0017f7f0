"""Test servers: DATABASE_URL / REDIS_URL when set, otherwise embedded PostgreSQL and Redis.

Each session gets a fresh database (created and migrated here, dropped at the end), so the suite
never touches data it did not make. Tests isolate from each other by creating their own venue.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

from domain.services import Deps
from slothold.cli.migrate import upgrade
from store import uow as uow_module
from store.db import create_pool
from store.uow import PgUnitOfWork

uow_module.STRICT_NESTING = True  # a unit of work inside another's transaction fails the test (store/uow.py)


class MutableClock:
    """A clock the test moves by hand."""

    def __init__(self, now: datetime) -> None:
        self._now = now

    def now(self) -> datetime:
        return self._now

    def set(self, now: datetime) -> None:
        self._now = now

    def advance(self, **kwargs: float) -> None:
        self._now += timedelta(**kwargs)


@pytest.fixture(scope="session")
def servers() -> Iterator[tuple[str, str]]:
    """(server url, redis url): from the environment, or embedded servers started for this run."""
    db, redis = os.environ.get("DATABASE_URL"), os.environ.get("REDIS_URL")
    with ExitStack() as stack:
        if not db or not redis:
            from slothold.cli.embedded import start_postgres, start_redis

            base = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="slothold-test-")))
            if not db:
                pg = start_postgres(base / "pg")
                stack.callback(pg.stop)
                db = pg.url
            if not redis:
                rd = start_redis(base / "redis")
                stack.callback(rd.stop)
                redis = rd.url
        yield db, redis


def _with_db(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/" + name))


@pytest.fixture(scope="session")
async def database_url(servers: tuple[str, str]) -> AsyncIterator[str]:
    """A fresh, migrated database for this test session."""
    server = servers[0]
    name = f"slothold_test_{uuid.uuid4().hex[:10]}"
    admin = await asyncpg.connect(server)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    url = _with_db(server, name)
    await asyncio.to_thread(upgrade, url)
    yield url
    admin = await asyncpg.connect(server)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


@pytest.fixture(scope="session")
def redis_url(servers: tuple[str, str]) -> str:
    """The session's Redis. On a shared server (REDIS_URL) a database of its own, emptied first: test runs side by
    side on one machine (and the workers of one parallel run) would otherwise take each other's arq jobs (same
    queue, same cron job ids)."""
    url = servers[1]
    if os.environ.get("REDIS_URL"):
        import random

        import redis as redis_sync

        # pytest-xdist's workers (gw0, gw1, …) of one run share a run id: from it they take consecutive databases
        run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
        base = int(run, 16) % 15 if run else random.SystemRandom().randrange(15)
        worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
        url = urlunsplit(urlsplit(url)._replace(path=f"/{1 + (base + worker) % 15}"))
        client = redis_sync.Redis.from_url(url)
        try:
            client.flushdb()
        finally:
            client.close()
    return url


@pytest.fixture(scope="session")
async def pool(database_url: str) -> AsyncIterator[asyncpg.Pool]:
    p = await create_pool(database_url, min_size=2, max_size=25)
    yield p
    await p.close()


# Monday 2026-12-07 09:00 in São Paulo (UTC-3): a day with no DST edge.
T0 = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> MutableClock:
    return MutableClock(T0)


@pytest.fixture
def deps(pool: asyncpg.Pool, clock: MutableClock) -> Deps:
    from domain.waitlist import promote_after_release

    return Deps(uow=lambda: PgUnitOfWork(pool), clock=clock, on_release=promote_after_release)
