"""GraphQL-over-HTTP behaviour of SlotholdGraphQL, on a throwaway schema (no database, no Slothold schema)."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

import httpx
import pytest
import strawberry
from starlette.applications import Starlette
from starlette.routing import Route, WebSocketRoute
from starlette.testclient import TestClient
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL

from api.graphql.view import (
    APPLICATION_JSON,
    GRAPHQL_RESPONSE_JSON,
    SlotholdGraphQL,
    negotiate_media_type,
    static_routes,
)

GRJ = GRAPHQL_RESPONSE_JSON
MAX_BODY = 2_000


@strawberry.type
class Query:
    @strawberry.field
    def hello(self) -> str | None:
        return "world"

    @strawberry.field
    def boom(self) -> str | None:
        raise RuntimeError("resolver failed")

    @strawberry.field
    def echo(self, n: int) -> int:
        return n


@strawberry.type
class Mutation:
    @strawberry.mutation
    def bump(self) -> int:
        return 1


@strawberry.type
class Subscription:
    @strawberry.subscription
    async def count(self, up_to: int) -> AsyncGenerator[int, None]:
        for i in range(up_to):
            yield i


schema = strawberry.Schema(query=Query, mutation=Mutation, subscription=Subscription)


def make_app() -> Starlette:
    view: SlotholdGraphQL = SlotholdGraphQL(
        schema, subscription_protocols=(GRAPHQL_TRANSPORT_WS_PROTOCOL,), max_body_bytes=MAX_BODY
    )
    return Starlette(routes=[Route("/graphql", view), WebSocketRoute("/graphql", view), *static_routes()])


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=make_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c


async def post(
    client: httpx.AsyncClient, body: Any, accept: str | None = GRJ, content_type: str = "application/json"
) -> httpx.Response:
    headers = {"content-type": content_type}
    if accept is not None:
        headers["accept"] = accept
    content = body if isinstance(body, (bytes, str)) else json.dumps(body)
    return await client.post("/graphql", content=content, headers=headers)


def assert_json_error(response: httpx.Response, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].split(";")[0] in (GRJ, APPLICATION_JSON)
    payload: dict[str, Any] = response.json()
    assert isinstance(payload["errors"], list) and payload["errors"][0]["message"]
    assert "Traceback" not in response.text
    return payload


# --- GraphiQL ---------------------------------------------------------------------------------------


async def test_graphiql_page_is_offline_and_its_assets_are_served(client: httpx.AsyncClient) -> None:
    page = await client.get("/graphql", headers={"accept": "text/html"})
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    html = page.text
    assert "GraphiQL.createFetcher" in html and "subscriptionUrl" in html  # ws subscriptions still wired

    urls = re.findall(r"""\b(?:src|href)\s*=\s*["']([^"']*)["']""", html)
    external = [u for u in urls if re.match(r"(?i)(https?:)?//", u)]
    assert external == []
    assert "unpkg.com" not in html and "integrity=" not in html

    assets = [u for u in urls if u.startswith("/static/")]
    assert len(assets) == 7  # react, react-dom, js-cookie, graphiql js+css, explorer js+css
    for url in assets:
        asset = await client.get(url)
        assert asset.status_code == 200, url
        expected = "javascript" if url.endswith(".js") else "text/css"
        assert expected in asset.headers["content-type"], url
        assert len(asset.content) > 500, url


async def test_graphiql_js_bundles_the_graphql_transport_ws_client(client: httpx.AsyncClient) -> None:
    bundle = await client.get("/static/graphiql/graphiql@3.8.3/graphiql.min.js")
    assert b"graphql-transport-ws" in bundle.content


# --- Accept negotiation and status codes ----------------------------------------------------------------


async def test_graphql_response_json_happy_path(client: httpx.AsyncClient) -> None:
    response = await post(client, {"query": "{ hello }"})
    assert response.status_code == 200
    assert response.headers["content-type"] == f"{GRJ}; charset=utf-8"
    assert response.json() == {"data": {"hello": "world"}}


async def test_get_query_with_variables(client: httpx.AsyncClient) -> None:
    params = {"query": "query Q($n: Int!) { echo(n: $n) }", "variables": '{"n": 7}', "operationName": ""}
    response = await client.get("/graphql", params=params, headers={"accept": GRJ})
    assert response.status_code == 200
    assert response.json() == {"data": {"echo": 7}}


@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        (None, APPLICATION_JSON),
        ("*/*", APPLICATION_JSON),
        (APPLICATION_JSON, APPLICATION_JSON),
        (f"{APPLICATION_JSON}, {GRJ}", GRJ),
        (f"{GRJ};q=0.5, {APPLICATION_JSON}", APPLICATION_JSON),
        (f"{GRJ}; charset=utf-8, {APPLICATION_JSON}; charset=utf-8", GRJ),
        ("application/*", APPLICATION_JSON),
        (f"text/html, {GRJ};q=0.9", GRJ),
    ],
)
async def test_accept_negotiation(client: httpx.AsyncClient, accept: str | None, expected: str) -> None:
    assert negotiate_media_type(accept) == expected
    response = await post(client, {"query": "{ hello }"}, accept=accept)
    assert response.status_code == 200
    assert response.headers["content-type"] == f"{expected}; charset=utf-8"


async def test_field_error_keeps_200_with_data(client: httpx.AsyncClient) -> None:
    response = await post(client, {"query": "{ hello boom }"})
    assert response.status_code == 200
    payload = response.json()
    assert payload["data"] == {"hello": "world", "boom": None}
    assert payload["errors"][0]["path"] == ["boom"]


async def test_syntax_error_is_400_with_graphql_response_json(client: httpx.AsyncClient) -> None:
    response = await post(client, {"query": "{"})
    assert response.status_code == 400
    assert response.headers["content-type"] == f"{GRJ}; charset=utf-8"
    payload = response.json()
    assert "data" not in payload and "Syntax Error" in payload["errors"][0]["message"]


async def test_validation_error_status_depends_on_media_type(client: httpx.AsyncClient) -> None:
    body = {"query": "{ nope }"}

    strict = await post(client, body, accept=GRJ)
    assert strict.status_code == 400
    assert strict.headers["content-type"] == f"{GRJ}; charset=utf-8"
    assert "data" not in strict.json() and "nope" in strict.json()["errors"][0]["message"]

    legacy = await post(client, body, accept=APPLICATION_JSON)
    assert legacy.status_code == 200
    assert legacy.headers["content-type"] == f"{APPLICATION_JSON}; charset=utf-8"
    assert "nope" in legacy.json()["errors"][0]["message"]


async def test_variable_coercion_error_is_a_request_error(client: httpx.AsyncClient) -> None:
    body = {"query": "query Q($n: Int!) { echo(n: $n) }", "variables": {"n": "seven"}}
    strict = await post(client, body, accept=GRJ)
    assert strict.status_code == 400 and "data" not in strict.json()
    assert (await post(client, body, accept=APPLICATION_JSON)).status_code == 200


@pytest.mark.parametrize("accept", [GRJ, APPLICATION_JSON])
@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        (b'{"query":', "JSON"),
        (b"NONSENSE", "JSON"),
        (b'{"query": "\xff"}', "UTF-8"),
        (b'"{ hello }"', "JSON object"),
        (b"[1, 2]", ""),
        ({"qeury": "{ hello }"}, "query"),
        ({"query": "{ hello }", "variables": [7]}, "variables"),
        ({"query": "{ hello }", "operationName": 3}, "operationName"),
        ({"query": 42}, "query"),
    ],
)
async def test_malformed_request_is_400_json_error(
    client: httpx.AsyncClient, accept: str, body: Any, fragment: str
) -> None:
    payload = assert_json_error(await post(client, body, accept=accept), 400)
    assert fragment in payload["errors"][0]["message"]


async def test_bad_variables_in_get_are_400(client: httpx.AsyncClient) -> None:
    response = await client.get(
        "/graphql", params={"query": "{ hello }", "variables": "{"}, headers={"accept": GRJ}
    )
    payload = assert_json_error(response, 400)
    assert "variables" in payload["errors"][0]["message"]


@pytest.mark.parametrize("method", ["GET", "POST"])
async def test_subscription_over_plain_http_is_refused(client: httpx.AsyncClient, method: str) -> None:
    query = "subscription { count(upTo: 2) }"
    if method == "GET":
        response = await client.get("/graphql", params={"query": query}, headers={"accept": GRJ})
    else:
        response = await post(client, {"query": query})
    payload = assert_json_error(response, 400)
    assert "WebSocket" in payload["errors"][0]["message"]


async def test_bad_json_names_the_problem(client: httpx.AsyncClient) -> None:
    response = await post(client, b'{"query":', accept=APPLICATION_JSON)
    payload = assert_json_error(response, 400)
    assert list(payload) == ["errors"] and len(payload["errors"]) == 1
    assert payload["errors"][0]["message"].startswith("Unable to parse request body as JSON: ")
    assert response.headers["content-type"] == f"{APPLICATION_JSON}; charset=utf-8"


async def test_mutation_via_get_is_405(client: httpx.AsyncClient) -> None:
    response = await client.get("/graphql", params={"query": "mutation { bump }"}, headers={"accept": GRJ})
    assert_json_error(response, 405)
    assert response.headers["allow"] == "POST"
    assert (await post(client, {"query": "mutation { bump }"})).json() == {"data": {"bump": 1}}


async def test_other_methods_are_405(client: httpx.AsyncClient) -> None:
    response = await client.put("/graphql", content=b"{}", headers={"accept": GRJ})
    assert_json_error(response, 405)
    assert response.headers["allow"] == "GET, POST"


@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain",
        "application/x-www-form-urlencoded",
        "application/graphql",
        "application/json; charset=latin-1",
    ],
)
async def test_unsupported_content_type_is_415(client: httpx.AsyncClient, content_type: str) -> None:
    response = await post(client, {"query": "{ hello }"}, content_type=content_type)
    assert_json_error(response, 415)


async def test_missing_content_type_is_415(client: httpx.AsyncClient) -> None:
    response = await client.post("/graphql", content=b'{"query":"{ hello }"}', headers={"accept": GRJ})
    assert_json_error(response, 415)


@pytest.mark.parametrize("accept", ["application/xml", "text/html"])
async def test_unacceptable_accept_is_406(client: httpx.AsyncClient, accept: str) -> None:
    response = await post(client, {"query": "{ hello }"}, accept=accept)
    assert_json_error(response, 406)
    assert response.headers["content-type"] == f"{APPLICATION_JSON}; charset=utf-8"
    get = await client.get("/graphql", params={"query": "{ hello }"}, headers={"accept": accept})
    assert get.status_code == 406


async def test_oversized_body_with_content_length_is_413(client: httpx.AsyncClient) -> None:
    query = "{ hello }" + " " * MAX_BODY
    response = await post(client, {"query": query})
    payload = assert_json_error(response, 413)
    assert str(MAX_BODY) in payload["errors"][0]["message"]


async def test_oversized_chunked_body_is_413(client: httpx.AsyncClient) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"query": "{ hello }'
        for _ in range(10):
            yield b" " * 500
        yield b'"}'

    response = await client.post(
        "/graphql", content=chunks(), headers={"content-type": "application/json", "accept": GRJ}
    )
    assert "content-length" not in response.request.headers
    assert_json_error(response, 413)


async def test_body_just_under_the_limit_is_fine(client: httpx.AsyncClient) -> None:
    body = json.dumps({"query": "{ hello }" + " " * (MAX_BODY - 40)})
    assert len(body) <= MAX_BODY
    assert (await post(client, body)).status_code == 200


# --- websockets ----------------------------------------------------------------------------------------


def test_subscription_over_graphql_transport_ws() -> None:
    with (
        TestClient(make_app()) as test_client,
        test_client.websocket_connect("/graphql", subprotocols=[GRAPHQL_TRANSPORT_WS_PROTOCOL]) as ws,
    ):
        assert ws.accepted_subprotocol == GRAPHQL_TRANSPORT_WS_PROTOCOL
        ws.send_json({"type": "connection_init"})
        assert ws.receive_json() == {"type": "connection_ack"}
        ws.send_json(
            {"id": "1", "type": "subscribe", "payload": {"query": "subscription { count(upTo: 3) }"}}
        )
        values = []
        while (message := ws.receive_json())["type"] == "next":
            assert message["id"] == "1"
            values.append(message["payload"]["data"]["count"])
        assert message == {"id": "1", "type": "complete"}
        assert values == [0, 1, 2]
