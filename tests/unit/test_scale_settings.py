"""The settings of a pooled database and of Redis Sentinel, and the clients built from them (no I/O)."""

from __future__ import annotations

from unittest import mock

import pytest

from slothold.redis_conn import arq_settings, sentinel_addresses
from slothold.settings import Settings


def test_a_direct_url_beside_the_pooled_one_means_the_pools_are_behind_a_pooler() -> None:
    env = {"DATABASE_URL": "postgresql://s@pgbouncer:6432/slothold", "DATABASE_DIRECT_URL": "postgresql://s@pg/slothold",
           "REDIS_URL": "redis://r:6379/0"}
    with mock.patch.dict("os.environ", env, clear=True):
        s = Settings.from_env()
    assert s.database_pooled and s.session_database_url == "postgresql://s@pg/slothold"
    assert not Settings(database_url="postgresql://pg/x").database_pooled
    same = Settings(database_url="postgresql://pg/x", database_direct_url="postgresql://pg/x")
    assert not same.database_pooled and same.session_database_url == "postgresql://pg/x"


def test_sentinels_are_parsed_and_make_redis_url_optional() -> None:
    assert sentinel_addresses("a:26379, b:26380,c") == [("a", 26379), ("b", 26380), ("c", 26379)]
    with pytest.raises(ValueError, match="'a:x'"):
        sentinel_addresses("a:x")
    env = {"DATABASE_URL": "postgresql://pg/x", "REDIS_SENTINELS": "127.0.0.1:26379,127.0.0.1:26380",
           "REDIS_SENTINEL_MASTER": "main"}
    with mock.patch.dict("os.environ", env, clear=True):
        s = Settings.from_env()
    assert s.redis_url and s.redis_master == "main"
    arq = arq_settings(Settings(redis_url="redis://:pw@ignored:1/3", redis_sentinels=s.redis_sentinels,
                                redis_master="main"))
    assert (arq.sentinel, arq.sentinel_master, arq.host, arq.database, arq.password) == (
        True, "main", [("127.0.0.1", 26379), ("127.0.0.1", 26380)], 3, "pw")
    plain = arq_settings(Settings(redis_url="redis://r:6380/2"))
    assert (plain.sentinel, plain.host, plain.port, plain.database) == (False, "r", 6380, 2)
