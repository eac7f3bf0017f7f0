"""The HTTP surface around the GraphQL API: health, readiness, GraphiQL, SDL, masking."""

from __future__ import annotations

from typing import Any
from uuid import uuid4

import httpx
import pytest

from slothold.app import create_app
from slothold.cli.embedded import free_port
from slothold.cli.sdl import SDL_PATH, sdl
from slothold.settings import Settings
from tests.api.conftest import Api
from tests.venues import arena


def test_the_committed_sdl_matches_the_schema() -> None:
    assert SDL_PATH.read_text() == sdl(), "schema/schema.graphql drifted: run `python -m slothold.cli.sdl`"


async def test_health_and_readiness(api: Api) -> None:
    assert (await api.http.get("/healthz")).json() == {"status": "ok"}
    ready = await api.http.get("/readyz")
    assert ready.status_code == 200
    assert ready.json() == {"status": "ready", "database": "ok", "redis": "ok"}


async def test_readiness_fails_when_redis_is_unreachable(database_url: str) -> None:
    app = create_app(Settings(database_url=database_url, redis_url=f"redis://127.0.0.1:{free_port()}/0"))
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
            r = await c.get("/readyz")
    assert r.status_code == 503
    assert r.json()["redis"].startswith("unreachable")


async def test_graphiql_is_served_without_a_cdn(api: Api) -> None:
    page = await api.http.get("/graphql", headers={"accept": "text/html"})
    assert page.status_code == 200
    assert "unpkg.com" not in page.text and "https://" not in page.text.split("<body")[0]
    assert (await api.http.get("/")).status_code == 200


async def test_every_response_carries_a_request_id(api: Api) -> None:
    r = await api.http.post("/graphql", json={"query": "{ __typename }"}, headers={"x-request-id": "abc123"})
    assert r.headers["x-request-id"] == "abc123"


async def test_an_internal_failure_is_masked_and_leaks_no_trace(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    from domain import queries

    async def boom(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError('relation "secret_table" does not exist at /srv/app.py line 3')

    monkeypatch.setattr(queries, "unit_with_resources", boom)
    r = await api.http.post("/graphql", json={"query": '{ unit(id: "5107d0de-0000-4000-8000-000000000001") '
                                              '{ __typename } }'})
    body = r.json()
    assert r.status_code == 200
    assert body["errors"][0]["message"].startswith("Internal error")
    assert "secret_table" not in r.text and "Traceback" not in r.text


async def test_unknown_fields_are_a_client_error_with_the_spec_media_type(api: Api) -> None:
    r = await api.http.post("/graphql", json={"query": "{ nope }"},
                            headers={"accept": "application/graphql-response+json"})
    assert r.status_code == 400
    assert r.headers["content-type"].startswith("application/graphql-response+json")
    assert "nope" in r.json()["errors"][0]["message"]


async def test_a_refusal_outside_a_result_union_is_a_clear_error_not_an_internal_one(api: Api, pool: Any) -> None:
    r = await api.http.post("/graphql", json={"query": '{ queue(unitId: "not-an-id") { id } }'})
    (error,) = r.json()["errors"]
    assert error["message"].startswith("unitId is not a valid id")
    assert error["extensions"] == {"code": "invalid_id", "field": "unitId"}
    r = await api.http.post("/graphql", json={"query": f'{{ queue(unitId: "{uuid4()}") {{ id }} }}'})
    assert r.json()["errors"][0]["extensions"] == {"code": "not_found", "field": "unitId"}
    v = await arena(pool)
    r = await api.http.post("/graphql", json={
        "query": f'{{ queue(unitId: "{v.unit_id}", statuses: [NOPE]) {{ id }} }}'})
    assert r.json()["errors"][0]["extensions"] == {"code": "invalid_document"}  # the enum QueueItemStatus refuses it
