"""What the persisted-query and caching tests share: an in-process app on the test database and Redis (any
Settings given), a unit, a Redis client, and the documents and helpers they send."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from api.graphql.persisted import document_hash
from slothold.app import create_app
from slothold.settings import Settings
from tests.api.conftest import system_token
from tests.venues import arena

GRJ = "application/graphql-response+json"
UNIT = "query Unit($u: ID!) { unit(id: $u) { __typename } }"
DEEP = "query Deep($u: ID!) { unit(id: $u) { ... on Unit { resources { id } } } }"  # 3 levels
PAY = 'mutation Pay { sandboxPay(txid: "nope") { __typename } }'


class Client:
    """An in-process app; `token` is a system token of its database."""

    def __init__(self, http: httpx.AsyncClient, token: str) -> None:
        self.http = http
        self.token = token

    async def post(self, body: dict[str, Any], **headers: str) -> httpx.Response:
        return await self.http.post("/graphql", json=body, headers={"accept": GRJ, **headers})

    async def get(self, params: dict[str, Any], **headers: str) -> httpx.Response:
        encoded = {k: v if isinstance(v, str) else json.dumps(v) for k, v in params.items()}
        return await self.http.get("/graphql", params=encoded, headers={"accept": GRJ, **headers})


Apps = Callable[..., AbstractAsyncContextManager[Client]]


@pytest.fixture
def apps(database_url: str, redis_url: str) -> Apps:
    @asynccontextmanager
    async def app(**settings: Any) -> AsyncIterator[Client]:
        created = create_app(Settings(database_url=database_url, redis_url=redis_url,
                                      **{"db_pool_max": 4, "log_level": "WARNING", **settings}))
        async with created.router.lifespan_context(created):
            token = await system_token(created.state.slothold["access"])
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=created),
                                         base_url="http://slothold.test") as http:
                yield Client(http, token)

    return app


@pytest.fixture
async def unit(pool: Any) -> str:
    return str((await arena(pool, fields=1)).unit_id)


@pytest.fixture
async def redis(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(redis_url)
    yield client
    await client.aclose()


def pq(query: str, version: Any = 1) -> dict[str, Any]:
    return {"persistedQuery": {"version": version, "sha256Hash": document_hash(query)}}


def unique(query: str) -> str:
    """The document with a comment of its own: a hash no other test (or earlier run on this Redis) registered."""
    return f"# {uuid.uuid4()}\n{query}"


def refusal(r: httpx.Response) -> tuple[int, str, str]:
    body = r.json()
    assert "data" not in body, body
    (error,) = body["errors"]
    return r.status_code, error["message"], error["extensions"]["code"]
