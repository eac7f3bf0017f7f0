"""The embedded PostgreSQL and Redis servers start, persist their data, restart and recover from crashes."""

from __future__ import annotations

import os
import signal
import socket
import time
from pathlib import Path

import asyncpg
import psutil
import pytest
import redis

from slothold.cli.embedded import (
    EmbeddedServerError,
    embedded_services,
    free_port,
    start_postgres,
    start_redis,
)


def _accepts(port: int) -> bool:
    """Whether something listens on 127.0.0.1:port."""
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _wait_dead(pid: int) -> None:
    """Wait until pid has exited or is a zombie."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return
        except psutil.NoSuchProcess:
            return
        time.sleep(0.05)
    raise AssertionError(f"process {pid} is still alive")


def test_free_port_is_bindable() -> None:
    port = free_port()
    assert 1024 <= port <= 65535
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))


async def test_data_survives_a_clean_restart(tmp_path: Path) -> None:
    pg = start_postgres(tmp_path / "pg")
    cache = start_redis(tmp_path / "redis")
    try:
        assert pg.url == f"postgresql://postgres@127.0.0.1:{pg.port}/slothold"
        assert cache.url == f"redis://127.0.0.1:{cache.port}/0"
        assert not pg.reused and not cache.reused

        conn = await asyncpg.connect(pg.url)
        try:
            await conn.execute("CREATE EXTENSION IF NOT EXISTS btree_gist")
            version = await conn.fetchval("SHOW server_version_num")
            assert int(version) >= 180000
            assert await conn.fetchval("SHOW jit") == "off"
            assert await conn.fetchval("SHOW max_connections") == "300"
            assert await conn.fetchval("SHOW fsync") == "on"
            await conn.execute(
                "CREATE TABLE slot (id int PRIMARY KEY, room int, during tstzrange,"
                " EXCLUDE USING gist (room WITH =, during WITH &&))"
            )
            await conn.execute("INSERT INTO slot VALUES (1, 7, tstzrange(now(), now() + interval '1 hour'))")
        finally:
            await conn.close()

        client = redis.Redis.from_url(cache.url)
        assert client.ping()
        client.set("hold:1", "kept")
        client.close()

        # Starting again while running reuses the servers rather than starting second ones.
        again_pg = start_postgres(tmp_path / "pg")
        again_cache = start_redis(tmp_path / "redis")
        assert again_pg.reused and again_pg.url == pg.url
        assert again_cache.reused and again_cache.url == cache.url
    finally:
        pg.stop()
        cache.stop()
    assert not _accepts(pg.port)
    assert not _accepts(cache.port)
    assert not (tmp_path / "pg" / "postmaster.pid").exists()

    with start_postgres(tmp_path / "pg") as pg2, start_redis(tmp_path / "redis") as cache2:
        assert not pg2.reused and not cache2.reused
        assert pg2.port == pg.port  # the previous port is preferred when free: stable URLs
        conn = await asyncpg.connect(pg2.url)
        try:
            assert await conn.fetchval("SELECT room FROM slot WHERE id = 1") == 7
            with pytest.raises(asyncpg.ExclusionViolationError):
                await conn.execute(
                    "INSERT INTO slot VALUES (2, 7, tstzrange(now(), now() + interval '1 min'))"
                )
        finally:
            await conn.close()
        client = redis.Redis.from_url(cache2.url)
        assert client.get("hold:1") == b"kept"
        client.close()
    assert pg2.stopped and cache2.stopped
    assert not _accepts(pg2.port)


async def test_restart_after_a_crash(tmp_path: Path) -> None:
    pg = start_postgres(tmp_path / "pg")
    cache = start_redis(tmp_path / "redis")
    conn = await asyncpg.connect(pg.url)
    await conn.execute("CREATE TABLE booking (id int PRIMARY KEY)")
    await conn.execute("INSERT INTO booking VALUES (42)")
    await conn.close()
    client = redis.Redis.from_url(cache.url)
    client.set("k", "v")
    client.config_set("appendfsync", "always")  # every write is fsynced from now on
    client.set("k2", "v2")
    client.close()

    pg_pid = int((tmp_path / "pg" / "postmaster.pid").read_text().split()[0])
    redis_pid = int((tmp_path / "redis" / "redis.pid").read_text().split()[0])
    os.kill(pg_pid, signal.SIGKILL)
    os.kill(redis_pid, signal.SIGKILL)
    _wait_dead(pg_pid)
    _wait_dead(redis_pid)
    assert (tmp_path / "pg" / "postmaster.pid").exists()  # stale, left behind by the crash

    with start_postgres(tmp_path / "pg") as pg2, start_redis(tmp_path / "redis") as cache2:
        assert not pg2.reused and not cache2.reused
        conn = await asyncpg.connect(pg2.url)
        assert await conn.fetchval("SELECT id FROM booking") == 42
        await conn.close()
        # The crashed servers' handles: no-ops, they must not stop their successors.
        cache.stop()
        pg.stop()
        assert _accepts(pg2.port) and _accepts(cache2.port)
        client = redis.Redis.from_url(cache2.url)
        assert client.get("k2") == b"v2"
        client.close()


def test_embedded_services_and_port_conflict(tmp_path: Path) -> None:
    with embedded_services(tmp_path) as (database_url, redis_url):
        assert database_url.startswith("postgresql://postgres@127.0.0.1:")
        assert redis_url.startswith("redis://127.0.0.1:")
        assert redis.Redis.from_url(redis_url).ping()
        port = int(database_url.rsplit(":", 1)[1].split("/")[0])
        with pytest.raises(EmbeddedServerError, match="already running on port"):
            start_postgres(tmp_path / "pg", port=port + 1 if port < 65535 else port - 1)
    assert not _accepts(port)
    assert (tmp_path / "pg" / "postgresql.log").exists()
    assert (tmp_path / "redis" / "appendonly.aof").exists()
