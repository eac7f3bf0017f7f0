"""The CORS middleware (api/cors.py) around a stand-in app: preflights, the headers of actual requests, the paths
it covers, and the origin check of websocket handshakes."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from starlette.types import Receive, Scope, Send

from api.cors import ALLOW_HEADERS, EXPOSE_HEADERS, MAX_AGE, CorsMiddleware

WIDGET = "https://widget.example"
OTHER = "https://evil.example"


class Backend:
    """The app behind the middleware: answers 200 (with a Vary of its own on /v1), counts what reaches it."""

    def __init__(self) -> None:
        self.reached: list[tuple[str, str]] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            self.reached.append(("websocket", scope["path"]))
            await receive()
            await send({"type": "websocket.accept"})
            return
        self.reached.append((scope["method"], scope["path"]))
        headers = [(b"content-type", b"application/json")]
        if scope["path"].startswith("/v1"):
            headers.append((b"vary", b"Accept"))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"{}"})


class Lookups:
    def __init__(self) -> None:
        self.count = 0

    async def __call__(self) -> frozenset[str]:
        self.count += 1
        return frozenset({WIDGET})


@pytest.fixture
def backend() -> Backend:
    return Backend()


@pytest.fixture
def lookups() -> Lookups:
    return Lookups()


@pytest.fixture
async def client(backend: Backend, lookups: Lookups) -> Any:
    app = CorsMiddleware(backend, allowed=lookups, own_origins=frozenset({"https://reservas.example"}))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://api.test") as c:
        yield c


def preflight(origin: str, method: str = "POST") -> dict[str, str]:
    return {"origin": origin, "access-control-request-method": method,
            "access-control-request-headers": "authorization, content-type"}


@pytest.mark.parametrize("path", ["/graphql", "/v1/holds", "/v1/holds/abc/confirm", "/v1"])
async def test_a_preflight_from_an_allowed_origin_is_answered_here(client: httpx.AsyncClient, backend: Backend,
                                                                   path: str) -> None:
    r = await client.options(path, headers=preflight(WIDGET))
    assert r.status_code == 204 and r.content == b""
    assert r.headers["access-control-allow-origin"] == WIDGET
    assert r.headers["access-control-allow-methods"] == "GET, POST"
    allowed = {h.strip() for h in r.headers["access-control-allow-headers"].split(",")}
    assert {"authorization", "content-type", "idempotency-key", "x-request-id"} <= allowed
    assert r.headers["access-control-allow-headers"] == ALLOW_HEADERS
    assert r.headers["access-control-max-age"] == str(MAX_AGE)
    assert r.headers["vary"] == "Origin"
    assert "access-control-allow-credentials" not in r.headers  # bearer tokens only, never cookies
    assert backend.reached == []  # never the GraphQL view (which answers OPTIONS with 405)


async def test_a_preflight_from_another_origin_gets_no_cors_headers(client: httpx.AsyncClient,
                                                                    backend: Backend) -> None:
    r = await client.options("/graphql", headers=preflight(OTHER))
    assert r.status_code == 403
    assert not [h for h in r.headers if h.startswith("access-control-")]
    assert r.headers["vary"] == "Origin"
    assert "setAllowedOrigins" in r.text and OTHER in r.text
    assert backend.reached == []


async def test_an_actual_request_from_an_allowed_origin_gets_allow_origin_and_exposed_headers(
        client: httpx.AsyncClient, backend: Backend) -> None:
    r = await client.post("/graphql", json={}, headers={"origin": WIDGET})
    assert r.status_code == 200 and backend.reached == [("POST", "/graphql")]
    assert r.headers["access-control-allow-origin"] == WIDGET
    assert r.headers["access-control-expose-headers"] == EXPOSE_HEADERS
    assert {"x-request-id", "retry-after", "location"} <= {h.strip() for h in EXPOSE_HEADERS.split(",")}
    assert r.headers["vary"] == "Origin"
    assert "access-control-allow-credentials" not in r.headers
    r = await client.get("/v1/availability", headers={"origin": WIDGET})
    assert r.headers["access-control-allow-origin"] == WIDGET
    assert r.headers["vary"] == "Accept, Origin"  # added to the app's own Vary


async def test_an_actual_request_from_another_origin_or_none_gets_no_cors_headers(client: httpx.AsyncClient,
                                                                                  backend: Backend) -> None:
    for headers in ({"origin": OTHER}, {"origin": "null"}, {}):
        r = await client.post("/graphql", json={}, headers=headers)
        assert r.status_code == 200  # it runs (bearer tokens need no CSRF guard); the browser hides the answer
        assert not [h for h in r.headers if h.startswith("access-control-")], headers
        assert r.headers["vary"] == "Origin"  # a cache in front keeps one answer per origin
    assert len(backend.reached) == 3


@pytest.mark.parametrize("path", ["/webhooks/pix", "/metrics", "/healthz", "/readyz", "/", "/graphqlx",
                                  "/v1x", "/claim/abc"])
async def test_other_paths_are_untouched(client: httpx.AsyncClient, backend: Backend, lookups: Lookups,
                                         path: str) -> None:
    r = await client.options(path, headers=preflight(WIDGET))
    assert r.status_code == 200 and backend.reached == [("OPTIONS", path)]  # the app answers, as without CORS
    r = await client.get(path, headers={"origin": WIDGET})
    assert not [h for h in r.headers if h.startswith("access-control-")] and "Origin" not in r.headers.get("vary", "")
    assert lookups.count == 0


async def test_an_options_request_that_is_no_preflight_reaches_the_app(client: httpx.AsyncClient,
                                                                        backend: Backend) -> None:
    await client.options("/graphql")
    await client.options("/graphql", headers={"origin": WIDGET})  # no Access-Control-Request-Method
    assert backend.reached == [("OPTIONS", "/graphql")] * 2


async def test_requests_without_an_origin_or_from_the_api_itself_cost_no_lookup(client: httpx.AsyncClient,
                                                                                lookups: Lookups) -> None:
    await client.post("/graphql", json={})
    r = await client.post("/graphql", json={}, headers={"origin": "http://api.test"})  # the web demo's own page
    assert r.status_code == 200 and lookups.count == 0


async def _handshake(app: CorsMiddleware, headers: list[tuple[bytes, bytes]]) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []
    incoming = [{"type": "websocket.connect"}]

    async def receive() -> dict[str, Any]:
        return incoming.pop(0) if incoming else {"type": "websocket.disconnect", "code": 1000}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "websocket", "path": "/graphql", "headers": [(b"host", b"api.test"), *headers],
             "subprotocols": ["graphql-transport-ws"]}
    await app(scope, receive, send)
    return sent


@pytest.mark.parametrize(("origin", "accepted"), [
    (None, True),  # not a browser
    ("http://api.test", True),  # a page the API serves (the web demo, GraphiQL)
    ("https://reservas.example", True),  # its public base URL, behind a proxy that renames the host
    (WIDGET, True),
    (OTHER, False),
    ("null", False),
    ("chrome-extension://api.test", False),  # the host's name, but no web page of it
])
async def test_a_websocket_handshake_from_an_unknown_origin_is_refused_before_accept(
        backend: Backend, lookups: Lookups, origin: str | None, accepted: bool) -> None:
    app = CorsMiddleware(backend, allowed=lookups, own_origins=frozenset({"https://reservas.example"}))
    sent = await _handshake(app, [(b"origin", origin.encode())] if origin else [])
    if accepted:
        assert sent == [{"type": "websocket.accept"}] and backend.reached == [("websocket", "/graphql")]
    else:
        assert [m["type"] for m in sent] == ["websocket.close"] and backend.reached == []
