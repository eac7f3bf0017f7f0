"""An in-process API client on the test database and Redis, with the test's clock."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from slothold.app import create_app
from slothold.settings import Settings
from store.access import PgAccess
from tests.conftest import MutableClock


async def system_token(access: PgAccess) -> str:
    """A platform token: these tests exercise the engine; tests/api/test_access.py exercises the roles."""
    _, token = await access.issue_token(None, None, "system", None, [], "tests")
    return token


class Api:
    """A thin GraphQL client over httpx."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.http = client

    async def gql(self, query: str, variables: dict[str, Any] | None = None,
                  headers: dict[str, str] | None = None) -> dict[str, Any]:
        r = await self.http.post("/graphql", json={"query": query, "variables": variables or {}},
                                 headers={"accept": "application/graphql-response+json", **(headers or {})})
        body: dict[str, Any] = r.json()
        assert r.status_code == 200, body
        assert "errors" not in body, body["errors"]
        return body["data"]  # type: ignore[no-any-return]


@pytest.fixture
async def api(database_url: str, redis_url: str, clock: MutableClock) -> AsyncIterator[Api]:
    app = create_app(Settings(database_url=database_url, redis_url=redis_url, db_pool_max=25), clock=clock)
    async with app.router.lifespan_context(app):
        token = await system_token(app.state.slothold["access"])
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://slothold.test",
                                     headers={"authorization": f"Bearer {token}"}) as client:
            yield Api(client)
