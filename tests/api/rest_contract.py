"""The REST door's contract for tests: a client on the in-process app, and `check`, which fails unless a response is
one the OpenAPI document (api/rest/openapi.py) describes — its status for that operation, its media type, its
body against the response schema (JSON Schema 2020-12, formats checked) and the headers it documents."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from jsonschema import Draft202012Validator, FormatChecker
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from api.rest.openapi import OPENAPI
from slothold.app import create_app
from slothold.settings import Settings
from tests.api.conftest import system_token
from tests.conftest import MutableClock

DOC: Resource[Any] = Resource.from_contents(OPENAPI, default_specification=DRAFT202012)
URI = "urn:slothold:openapi"
REGISTRY: Registry[Any] = Registry().with_resource(URI, DOC)
OPTIONAL_HEADERS = {"Idempotent-Replayed"}
"""Documented headers that only some answers of that status carry."""


def _template(path: str) -> str | None:
    """The OpenAPI path a concrete path matches."""
    for template in OPENAPI["paths"]:
        pattern = "^" + re.sub(r"\{[^}]+\}", "[^/]+", template) + "$"
        if re.match(pattern, path):
            return template
    return None


def check(response: httpx.Response) -> Any:
    """The response's JSON body, after checking it against the OpenAPI document."""
    method, path = response.request.method.lower(), response.request.url.path
    template = _template(path)
    operation = OPENAPI["paths"].get(template or "", {}).get(method)
    if operation is None:  # an unknown path or another method: the document's shared problem answers
        name = "MethodNotAllowed" if template is not None else "NotFound"
        spec = OPENAPI["components"]["responses"][name]
        assert response.status_code == {"NotFound": 404, "MethodNotAllowed": 405}[name], response.text
    else:
        spec = operation["responses"].get(str(response.status_code))
        assert spec is not None, f"{method} {template} does not document {response.status_code}: {response.text}"
    media_type = response.headers.get("content-type", "").split(";")[0]
    assert media_type in spec["content"], (media_type, spec)
    schema = spec["content"][media_type]["schema"]
    if "$ref" in schema:
        schema = {"$ref": URI + schema["$ref"]}
    body = response.json()
    Draft202012Validator(schema, registry=REGISTRY, format_checker=FormatChecker()).validate(body)
    for header in spec.get("headers", {}):
        if header not in OPTIONAL_HEADERS:
            assert header.lower() in response.headers, (header, response.headers)
    return body


@asynccontextmanager
async def rest_app(database_url: str, redis_url: str, clock: MutableClock, **settings: Any
                   ) -> AsyncIterator[tuple[httpx.AsyncClient, str]]:
    """(a client without a token, a system token) on an in-process app."""
    app = create_app(Settings(database_url=database_url, redis_url=redis_url, db_pool_max=10, **settings),
                     clock=clock)
    async with app.router.lifespan_context(app):
        token = await system_token(app.state.slothold["access"])
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://slothold.test") as client:
            yield client, token


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}
