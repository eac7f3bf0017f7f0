"""Raw malformed requests: bodies that are not JSON, wrong content types, queries that are not strings, huge
variables, deep documents, alias floods. None may get a 5xx, an internal error or a leak, or write anything; the
API's limits (slothold/limits.py) refuse the abusive shapes with their codes."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.conftest import PROFILE, Fuzzer
from tests.fuzz.generator import ODD_STRINGS

JSON_HEADERS = {"content-type": "application/json", "accept": "application/graphql-response+json"}


def aliases(n: int) -> str:
    return "{ " + " ".join(f"a{i}: me {{ kind }}" for i in range(n)) + " }"


def fragment_cycle() -> str:
    return "query { me { ...A } } fragment A on Me { kind ...B } fragment B on Me { kind ...A }"


DEEPEST = ('query { seatMap(eventId: "00000000-0000-0000-0000-000000000000") { ... on SeatMapView { sections { rows '
           '{ seats { id } } } } } }')
"""The deepest path the schema has (5 levels): it has no cycles, so the depth limit (10) guards only against a schema
that grows one; deeper documents are invalid documents, or syntax errors past graphql-core's nesting limit."""

LIMITS = [
    ({"invalid_document"}, DEEPEST.replace("{ id }", "{ id { deeper } }")),
    ({"invalid_syntax"}, "{ me " + "{ kind " * 1500 + "}" * 1501),
    ({"too_many_aliases"}, aliases(200)),
    ({"query_too_large"}, "{ " + " ".join(["__typename"] * 5000) + " }"),
    ({"query_too_costly"}, "{ " + " ".join(f'q{i}: queue(unitId: "x", first: 500) {{ id type priority status }}'
                                           for i in range(25)) + " }"),
]


@pytest.mark.parametrize(("codes", "query"), LIMITS, ids=[next(iter(c)) for c, _ in LIMITS])
async def test_abusive_documents_are_refused_with_their_code(fuzzer: Fuzzer, codes: set[str], query: str) -> None:
    for caller in ("system", "anonymous"):
        outcome = await fuzzer.check_raw("POST", json.dumps({"query": query}),
                                         {**JSON_HEADERS, **fuzzer.world.headers(caller)}, sent=[query])
        found = {(e.get("extensions") or {}).get("code") for e in outcome.body.get("errors") or ()}
        assert codes & found, (codes, outcome.body)
        assert outcome.status == 400 and "data" not in outcome.body


async def test_the_deepest_document_the_schema_allows_runs(fuzzer: Fuzzer) -> None:
    query = DEEPEST.replace("00000000-0000-0000-0000-000000000000", fuzzer.world.ids["seat_event"][0])
    outcome = await fuzzer.check_raw("POST", json.dumps({"query": query}), JSON_HEADERS)
    assert outcome.status == 200 and outcome.body["data"]["seatMap"]["sections"], outcome.body


async def test_a_body_over_the_limit_gets_413_and_its_code(fuzzer: Fuzzer) -> None:
    body = json.dumps({"query": "query($v: String) { me { kind } }", "variables": {"v": "x" * 1_100_000}})
    outcome = await fuzzer.check_raw("POST", body, JSON_HEADERS)
    assert outcome.status == 413 and outcome.body["errors"][0]["extensions"]["code"] == "body_too_large"


FIXED: list[tuple[str, str, bytes | str | None, dict[str, str]]] = [
    ("POST", "not json", b"{not json", JSON_HEADERS),
    ("POST", "empty body", b"", JSON_HEADERS),
    ("POST", "not utf-8", b'{"query": "\xff\xfe"}', JSON_HEADERS),
    ("POST", "json string", b'"{ me { kind } }"', JSON_HEADERS),
    ("POST", "json number", b"42", JSON_HEADERS),
    ("POST", "json null", b"null", JSON_HEADERS),
    ("POST", "json list of numbers", b"[1, 2]", JSON_HEADERS),
    ("POST", "batch", json.dumps([{"query": "{ me { kind } }"}] * 3), JSON_HEADERS),
    ("POST", "empty batch", b"[]", JSON_HEADERS),
    ("POST", "query null", b'{"query": null}', JSON_HEADERS),
    ("POST", "query number", b'{"query": 1}', JSON_HEADERS),
    ("POST", "query list", b'{"query": ["{ me { kind } }"]}', JSON_HEADERS),
    ("POST", "query object", b'{"query": {"me": 1}}', JSON_HEADERS),
    ("POST", "query empty", b'{"query": ""}', JSON_HEADERS),
    ("POST", "variables string", b'{"query": "{ me { kind } }", "variables": "x"}', JSON_HEADERS),
    ("POST", "variables list", b'{"query": "{ me { kind } }", "variables": [1]}', JSON_HEADERS),
    ("POST", "variables number", b'{"query": "{ me { kind } }", "variables": 1}', JSON_HEADERS),
    ("POST", "operationName number", b'{"query": "{ me { kind } }", "operationName": 1}', JSON_HEADERS),
    ("POST", "unknown operationName", b'{"query": "query A { me { kind } }", "operationName": "B"}', JSON_HEADERS),
    ("POST", "two anonymous operations", b'{"query": "{ me { kind } } { me { kind } }"}', JSON_HEADERS),
    ("POST", "extensions string", b'{"query": "{ me { kind } }", "extensions": "x"}', JSON_HEADERS),
    ("POST", "subscription over http", b'{"query": "subscription { queueChanged(unitId: \\"x\\") { seq } }"}',
     JSON_HEADERS),
    ("POST", "fragment cycle", json.dumps({"query": fragment_cycle()}), JSON_HEADERS),
    ("POST", "deep json variables", '{"query": "query($v: JSON) { me { kind } }", "variables": {"v": '
     + "[" * 100_000 + "]" * 100_000 + "}}", JSON_HEADERS),
    ("POST", "deep json body", "[" * 100_000 + "]" * 100_000, JSON_HEADERS),
    ("POST", "deep list literal", json.dumps({"query": "{ unit(id: " + "[" * 3000 + "]" * 3000 + ") { __typename } }"}),
     JSON_HEADERS),
    ("POST", "deep selection", json.dumps({"query": "{ me " + "{ kind " * 1500 + "}" * 1501}), JSON_HEADERS),
    ("POST", "deep input object", json.dumps({"query": "{ unit(id: " + "{a: " * 1500 + "1" + "}" * 1500
                                                       + ") { __typename } }"}), JSON_HEADERS),
    ("POST", "text/plain", "{ me { kind } }", {"content-type": "text/plain"}),
    ("POST", "form", "query=%7B%20me%20%7B%20kind%20%7D%20%7D", {"content-type": "application/x-www-form-urlencoded"}),
    ("POST", "multipart", b"--x\r\n\r\n--x--", {"content-type": "multipart/form-data; boundary=x"}),
    ("POST", "no content type", b'{"query": "{ me { kind } }"}', {}),
    ("POST", "latin-1 charset", b'{"query": "{ me { kind } }"}', {"content-type": "application/json; charset=latin-1"}),
    ("POST", "graphql content type", "{ me { kind } }", {"content-type": "application/graphql"}),
    ("POST", "accept nothing we speak", b'{"query": "{ me { kind } }"}', {"content-type": "application/json",
                                                                          "accept": "text/html"}),
    ("GET", "mutation by GET", None, {}),
    ("PUT", "put", b'{"query": "{ me { kind } }"}', JSON_HEADERS),
    ("DELETE", "delete", None, {}),
    ("PATCH", "patch", b"{}", JSON_HEADERS),
    ("POST", "bad bearer", b'{"query": "{ me { kind } }"}', {**JSON_HEADERS, "authorization": "Bearer \x7f"}),
    ("POST", "basic auth", b'{"query": "{ me { kind } }"}', {**JSON_HEADERS, "authorization": "Basic YTpi"}),
    ("POST", "huge bearer", b'{"query": "{ me { kind } }"}', {**JSON_HEADERS, "authorization": "Bearer " + "a" * 8000}),
    ("POST", "bad idempotency key", b'{"query": "{ me { kind } }"}', {**JSON_HEADERS, "idempotency-key": "x" * 9000}),
]


@pytest.mark.parametrize(("method", "name", "content", "headers"), FIXED, ids=[f[1] for f in FIXED])
async def test_malformed_request(fuzzer: Fuzzer, method: str, name: str, content: Any,
                                 headers: dict[str, str]) -> None:
    path = "/graphql"
    if name == "mutation by GET":
        path = '/graphql?query=mutation%20%7B%20signOut%20%7D'
    outcome = await fuzzer.check_raw(method, content, headers, sent=[name], path=path)
    if outcome.status >= 400:
        assert outcome.body.get("errors"), outcome.body


def _bodies() -> st.SearchStrategy[Any]:
    scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=30),
                        st.sampled_from(ODD_STRINGS))
    json_values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                                st.dictionaries(st.text(max_size=8), inner,
                                                                                max_size=4)), max_leaves=12)
    queries = st.one_of(st.sampled_from(["{ me { kind } }", "query($u: ID!) { unit(id: $u) { __typename } }",
                                         "mutation { signOut }", "{", "}", "{ __schema { types { name } } }",
                                         "query Q { me { kind } } mutation Q { signOut }", "{ me { kind }",
                                         "{ nope }", "{ me(x: 1) { kind } }", "{ me @skip(if: $x) { kind } }",
                                         "query($x: Int = \"a\") { me { kind } }", "{ ...F }", "fragment F on Me "
                                         "{ kind }", "{ me { ... on Query { me { kind } } } }", "{ __typename }"]),
                        st.text(max_size=60), json_values)
    body = st.fixed_dictionaries({}, optional={"query": queries, "variables": json_values,
                                               "operationName": st.one_of(st.text(max_size=8), json_values),
                                               "extensions": json_values})
    return st.one_of(body, body, json_values, st.lists(body, max_size=3))


@PROFILE
@given(body=_bodies(), caller=st.sampled_from(["system", "anonymous"]))
async def test_random_request_bodies(fuzzer: Fuzzer, body: Any, caller: str) -> None:
    sent = [str(body)]
    try:
        text = json.dumps(body)
    except ValueError:
        return
    sent += _strings(body)
    await fuzzer.check_raw("POST", text, {**JSON_HEADERS, **fuzzer.world.headers(caller)}, sent=sent)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [str(k), *_strings(v)]]
    return [str(value)] if value is not None else []
