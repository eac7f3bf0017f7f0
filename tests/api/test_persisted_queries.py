"""Persisted queries over HTTP (issue 19 point 5), on the real app, PostgreSQL and Redis: Apollo's APQ (miss,
registration, hit, by POST and GET, shared by two apps through Redis), its refusals (hash mismatch, bad version,
off), the allow-list mode, mutations by GET, and the limits on a persisted document. Websockets:
test_persisted_queries_ws.py; caching headers: test_get_caching.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis

from api.graphql.manifest import build_manifest
from api.graphql.persisted import KEY_PREFIX, PersistedQueryStore, document_hash
from slothold.settings import Settings
from tests.api.apq_support import DEEP, PAY, UNIT, Apps, apps, pq, redis, refusal, unique, unit

__all__ = ["apps", "redis", "unit"]  # fixtures

async def test_apq_miss_then_register_then_hit_by_post(apps: Apps, unit: str, redis: aioredis.Redis) -> None:
    query = unique(UNIT)
    async with apps() as api:
        miss = await api.post({"extensions": pq(query), "variables": {"u": unit}})
        # Apollo's answer, which its clients take as "send the document again": HTTP 200, whatever the media type.
        assert refusal(miss) == (200, "PersistedQueryNotFound", "PERSISTED_QUERY_NOT_FOUND")
        assert miss.headers["cache-control"] == "private, no-store"
        registered = await api.post({"query": query, "extensions": pq(query), "variables": {"u": unit}})
        assert registered.status_code == 200 and registered.json() == {"data": {"unit": {"__typename": "Unit"}}}
        hit = await api.post({"extensions": pq(query), "variables": {"u": unit}})
        assert hit.status_code == 200 and hit.json() == registered.json()
    stored = await redis.get(KEY_PREFIX + document_hash(query))
    assert stored is not None and stored.decode() == query
    assert 0 < await redis.ttl(KEY_PREFIX + document_hash(query)) <= 86_400


async def test_apq_miss_then_register_then_hit_by_get(apps: Apps, unit: str) -> None:
    query = unique(UNIT)
    async with apps() as api:
        # Accept */* (what many clients send) and no `query`: the persisted query, not GraphiQL's page
        miss = await api.get({"extensions": pq(query), "variables": {"u": unit}}, accept="*/*")
        assert refusal(miss) == (200, "PersistedQueryNotFound", "PERSISTED_QUERY_NOT_FOUND")
        registered = await api.get({"query": query, "extensions": pq(query), "variables": {"u": unit}})
        assert registered.status_code == 200, registered.text
        hit = await api.get({"extensions": pq(query), "variables": {"u": unit}, "operationName": "Unit"})
        assert hit.status_code == 200 and hit.json() == {"data": {"unit": {"__typename": "Unit"}}}
        assert hit.headers["cache-control"].startswith("public, max-age=")


async def test_a_document_registered_through_one_app_is_found_by_another(apps: Apps, unit: str) -> None:
    query = unique(UNIT)
    async with apps() as first, apps() as second:  # two processes' worth of state, one Redis
        assert refusal(await second.post({"extensions": pq(query), "variables": {"u": unit}}))[2] == \
            "PERSISTED_QUERY_NOT_FOUND"
        assert (await first.post({"query": query, "extensions": pq(query), "variables": {"u": unit}})).json() == \
            {"data": {"unit": {"__typename": "Unit"}}}
        hit = await second.post({"extensions": pq(query), "variables": {"u": unit}})
        assert hit.json() == {"data": {"unit": {"__typename": "Unit"}}}


async def test_a_hash_that_is_not_the_documents_is_refused_and_not_stored(apps: Apps, unit: str,
                                                                         redis: aioredis.Redis) -> None:
    query, other = unique(UNIT), unique(UNIT)
    async with apps() as api:
        r = await api.post({"query": query, "extensions": pq(other), "variables": {"u": unit}})
        status, message, code = refusal(r)
        assert (status, code) == (400, "PERSISTED_QUERY_HASH_MISMATCH") and "does not match" in message
        assert refusal(await api.post({"extensions": pq(other), "variables": {"u": unit}}))[2] == \
            "PERSISTED_QUERY_NOT_FOUND"
    assert await redis.exists(KEY_PREFIX + document_hash(other), KEY_PREFIX + document_hash(query)) == 0


@pytest.mark.parametrize("version", [2, 0, "1", None, True])
async def test_a_version_other_than_1_is_refused(apps: Apps, unit: str, version: Any) -> None:
    async with apps() as api:
        r = await api.post({"query": UNIT, "extensions": pq(UNIT, version), "variables": {"u": unit}})
        status, message, code = refusal(r)
        assert (status, code) == (400, "PERSISTED_QUERY_VERSION_NOT_SUPPORTED") and "version" in message


async def test_malformed_persisted_query_extensions_are_bad_requests(apps: Apps, unit: str) -> None:
    async with apps() as api:
        for extensions in ({"persistedQuery": "abc"}, {"persistedQuery": {"version": 1}},
                           {"persistedQuery": {"version": 1, "sha256Hash": 12}}):
            r = await api.post({"query": UNIT, "extensions": extensions, "variables": {"u": unit}})
            assert refusal(r)[::2] == (400, "bad_request"), extensions
        # a hash-only request naming no possible document is a miss, not an error of the server
        r = await api.post({"extensions": {"persistedQuery": {"version": 1, "sha256Hash": "not-hex"}}})
        assert refusal(r)[2] == "PERSISTED_QUERY_NOT_FOUND"


async def test_with_persisted_queries_off_apollo_clients_are_told_to_send_documents(apps: Apps, unit: str) -> None:
    async with apps(persisted_queries="off") as api:
        r = await api.post({"query": UNIT, "extensions": pq(UNIT), "variables": {"u": unit}})
        assert refusal(r) == (200, "PersistedQueryNotSupported", "PERSISTED_QUERY_NOT_SUPPORTED")
        assert (await api.post({"query": UNIT, "variables": {"u": unit}})).json() == \
            {"data": {"unit": {"__typename": "Unit"}}}


async def test_the_limits_apply_to_a_persisted_document(apps: Apps, unit: str, redis: aioredis.Redis) -> None:
    deep = unique(DEEP)
    async with apps(max_query_depth=2) as api:
        # registering one the limits refuse: refused like any document, and not kept
        r = await api.post({"query": deep, "extensions": pq(deep), "variables": {"u": unit}})
        assert refusal(r)[::2] == (400, "query_too_deep")
        assert refusal(await api.post({"extensions": pq(deep), "variables": {"u": unit}}))[2] == \
            "PERSISTED_QUERY_NOT_FOUND"
        # one already in the store (another process with looser limits registered it): refused when it runs
        await redis.set(KEY_PREFIX + document_hash(deep), deep, ex=60)
        for _ in range(2):  # from Redis, then from the process's own cache
            r = await api.post({"extensions": pq(deep), "variables": {"u": unit}})
            assert refusal(r)[::2] == (400, "query_too_deep")
        big = unique("query Big { me { kind" + " kind" * 2_500 + " } }")
        await redis.set(KEY_PREFIX + document_hash(big), big, ex=60)
        assert refusal(await api.post({"extensions": pq(big)}))[::2] == (400, "query_too_large")


async def test_a_stored_text_that_is_not_its_hashs_document_never_runs(apps: Apps, unit: str,
                                                                       redis: aioredis.Redis) -> None:
    query = unique(UNIT)
    await redis.set(KEY_PREFIX + document_hash(query), "query { me { kind } }", ex=60)
    async with apps() as api:
        assert refusal(await api.post({"extensions": pq(query), "variables": {"u": unit}}))[2] == \
            "PERSISTED_QUERY_NOT_FOUND"


async def test_a_mutation_by_get_is_refused_however_it_is_named(apps: Apps) -> None:
    query = unique(PAY)
    async with apps() as api:
        r = await api.get({"query": PAY})
        assert r.status_code == 405 and r.headers["allow"] == "POST" and refusal(r)[2] == "method_not_allowed"
        # registered by POST (where it runs), then named by its hash in a GET: still 405
        assert (await api.post({"query": query, "extensions": pq(query)})).status_code == 200
        r = await api.get({"extensions": pq(query)})
        assert r.status_code == 405 and r.headers["allow"] == "POST"
        assert r.headers["cache-control"] == "private, no-store"


@pytest.fixture
def manifest(tmp_path: Path) -> Path:
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(build_manifest([("ops.graphql", UNIT + "\n" + DEEP + "\n" + PAY)])))
    return path


def body_of(manifest: Path, name: str) -> str:
    ops = json.loads(manifest.read_text())["operations"]
    return next(str(op["body"]) for op in ops if op["name"] == name)


async def test_the_allowlist_runs_only_the_manifests_documents(apps: Apps, unit: str, manifest: Path,
                                                               redis: aioredis.Redis) -> None:
    listed, unlisted = body_of(manifest, "Unit"), unique(UNIT)
    ok = {"data": {"unit": {"__typename": "Unit"}}}
    async with apps(persisted_queries="allowlist", persisted_query_manifest=str(manifest)) as api:
        # by hash alone (POST and GET), whole with its hash, and whole without it
        assert (await api.post({"extensions": pq(listed), "variables": {"u": unit}})).json() == ok
        assert (await api.get({"extensions": pq(listed), "variables": {"u": unit}})).json() == ok
        assert (await api.post({"query": listed, "extensions": pq(listed), "variables": {"u": unit}})).json() == ok
        assert (await api.post({"query": listed, "variables": {"u": unit}})).json() == ok
        # anything else is refused before it runs, for every caller
        status, message, code = refusal(await api.post({"extensions": pq(unlisted), "variables": {"u": unit}}))
        assert (status, code) == (404, "PERSISTED_QUERY_NOT_IN_LIST") and document_hash(unlisted) in message
        for body in ({"query": UNIT, "variables": {"u": unit}},  # the same operation, spelled differently
                     {"query": unlisted, "extensions": pq(unlisted), "variables": {"u": unit}}):  # registration
            for auth in ({}, {"authorization": f"Bearer {api.token}"}):
                assert refusal(await api.post(body, **auth))[::2] == (403, "QUERY_NOT_IN_SAFELIST")
        assert refusal(await api.get({"query": UNIT, "variables": {"u": unit}}))[::2] == \
            (403, "QUERY_NOT_IN_SAFELIST")
        # a listed document still meets the limits and the GET rules
        deep = await api.post({"extensions": pq(body_of(manifest, "Deep")), "variables": {"u": unit}})
        assert len(deep.json()["data"]["unit"]["resources"]) == 1
        assert (await api.get({"extensions": pq(body_of(manifest, "Pay"))})).status_code == 405
        # nothing was registered, and GraphiQL is not offered
        assert await redis.exists(KEY_PREFIX + document_hash(unlisted)) == 0
        page = await api.http.get("/graphql", headers={"accept": "text/html"})
        assert page.status_code == 404 and "manifest" in refusal(page)[1]
    async with apps(persisted_queries="allowlist", persisted_query_manifest=str(manifest),
                    max_query_depth=2) as api:
        r = await api.post({"extensions": pq(body_of(manifest, "Deep")), "variables": {"u": unit}})
        assert refusal(r)[::2] == (400, "query_too_deep")


def test_the_settings_refuse_a_mode_they_do_not_know_and_an_allowlist_without_manifest() -> None:
    with pytest.raises(ValueError, match="off, apq or allowlist"):
        Settings(persisted_queries="sometimes").persisted_query_mode()
    with pytest.raises(ValueError, match="SLOTHOLD_PERSISTED_QUERY_MANIFEST"):
        Settings(persisted_queries="allowlist").persisted_query_mode()
    assert Settings().persisted_query_mode() == "apq"


async def test_while_redis_is_unreachable_the_store_steps_aside(caplog: pytest.LogCaptureFixture) -> None:
    from tests.live import free_port

    dead = aioredis.Redis(host="127.0.0.1", port=free_port(), socket_connect_timeout=0.5, socket_timeout=0.5)
    store = PersistedQueryStore(dead, 60, local_size=1)
    query, other = unique(UNIT), unique(UNIT)
    try:
        assert await store.get(document_hash(query)) is None  # a miss: the client sends the document again
        await store.put(document_hash(query), query)  # skipped in Redis, kept in this process
        assert await store.get(document_hash(query)) == query
        await store.put(document_hash(other), other)  # the process's cache is bounded
        assert await store.get(document_hash(query)) is None and await store.get(document_hash(other)) == other
    finally:
        await dead.aclose()
    warnings = [r for r in caplog.records if "persisted queries" in r.getMessage()]
    assert len(warnings) == 1  # one per outage


async def test_the_claim_pages_documents_run_under_a_manifest_the_command_wrote(apps: Apps, unit: str,
                                                                                tmp_path: Path) -> None:
    from api.claim_pages import CLAIM_DOCUMENTS
    from slothold.cli.manifest import manifest_of

    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(manifest_of([])))
    async with apps(persisted_queries="allowlist", persisted_query_manifest=str(path)) as api:
        r = await api.post({"query": CLAIM_DOCUMENTS["ClaimWalkIn"], "variables": {"u": unit, "t": "not-a-token"}})
        assert r.status_code == 200 and r.json()["data"]["claimWalkIn"]["__typename"] != "WalkIn", r.text
