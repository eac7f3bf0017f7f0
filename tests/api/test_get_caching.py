"""Caching headers of the GraphQL endpoint (issue 19 point 5): an anonymous GET of public reads is
`Cache-Control: public, max-age=N` with an ETag (and 304 for it), everything else `private, no-store`; every answer
varies on Accept, Authorization and Origin."""

from __future__ import annotations

from typing import Any

import httpx

from tests.api.apq_support import UNIT, Apps, apps, pq, unique, unit

__all__ = ["apps", "unit"]  # fixtures

SLOTS = ("query Slots($u: ID!, $from: DateTime!, $to: DateTime!) { bookableSlots(unitId: $u, from: $from, to: $to) "
         "{ __typename } holdTypes(unitId: $u) { __typename } }")
DAY = {"from": "2026-12-08T11:00:00Z", "to": "2026-12-08T14:00:00Z"}


def _vary(r: httpx.Response) -> set[str]:
    return {v.strip().lower() for v in r.headers.get("vary", "").split(",")}


def _public(r: httpx.Response, max_age: int) -> None:
    assert r.status_code == 200 and "errors" not in r.json(), r.text
    assert r.headers["cache-control"] == f"public, max-age={max_age}"
    assert r.headers["etag"].startswith('"')
    assert {"accept", "authorization", "origin"} <= _vary(r)


def _private(r: httpx.Response) -> None:
    assert r.headers["cache-control"] == "private, no-store", (r.status_code, r.headers)
    assert "etag" not in r.headers
    assert {"accept", "authorization", "origin"} <= _vary(r)


async def test_an_anonymous_get_of_public_reads_is_public_with_an_etag(apps: Apps, unit: str) -> None:
    async with apps(graphql_get_max_age=7) as api:
        params: dict[str, Any] = {"query": SLOTS, "variables": {"u": unit, **DAY}}
        first = await api.get(params)
        _public(first, 7)
        again = await api.get(params, **{"if-none-match": first.headers["etag"]})
        assert again.status_code == 304 and again.content == b""
        assert again.headers["etag"] == first.headers["etag"] and again.headers["cache-control"] == "public, max-age=7"
        # the media type is part of the answer: another Accept, another ETag
        other = await api.get(params, accept="application/json")
        _public(other, 7)
        assert other.headers["etag"] != first.headers["etag"]
        # a persisted query's hit is cached the same way (what a CDN in front of APQ GETs keeps)
        query = unique(UNIT)
        assert (await api.post({"query": query, "extensions": pq(query), "variables": {"u": unit}})).status_code \
            == 200
        _public(await api.get({"extensions": pq(query), "variables": {"u": unit}}), 7)


async def test_everything_else_is_private(apps: Apps, unit: str) -> None:
    async with apps(graphql_get_max_age=7) as api:
        params: dict[str, Any] = {"query": SLOTS, "variables": {"u": unit, **DAY}}
        _private(await api.get(params, authorization=f"Bearer {api.token}"))  # authenticated
        _private(await api.post(params))  # POST
        _private(await api.get({"query": "{ me { kind } }"}))  # not a public read: it names the caller
        _private(await api.get({"query": "query($u: ID!) { unit(id: $u) { __typename } me { kind } }",
                                "variables": {"u": unit}}))  # a public read with another field
        errors = await api.get({"query": UNIT})  # its variable missing
        assert errors.json().get("errors"), errors.text
        _private(errors)  # an answer with errors
        _private(await api.get({"query": "{ unit("}))  # a document that does not parse
        _private(await api.get({"extensions": pq(unique(UNIT))}))  # a persisted query miss
        _private(await api.http.get("/graphql", params={"query": SLOTS}, headers={"accept": "text/plain"}))  # 406
    async with apps(graphql_get_max_age=0) as api:  # 0 turns public caching off
        _private(await api.get({"query": SLOTS, "variables": {"u": unit, **DAY}}))


async def test_a_public_read_through_a_fragment_is_public_and_an_introspection_is_not(apps: Apps, unit: str) -> None:
    async with apps() as api:
        fragment = "query($u: ID!) { ...F } fragment F on Query { unit(id: $u) { __typename } }"
        _public(await api.get({"query": fragment, "variables": {"u": unit}}), 5)
        _private(await api.get({"query": "{ __schema { queryType { name } } }"}))

