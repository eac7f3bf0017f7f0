"""Every text input has a maximum length (issue 16, slothold/text_limits.py): for every String and ID argument and
input field of the live schema, read by introspection, one character over its limit is refused with `too_long`
naming the input's path — as the typed InvalidInput where the field's result union has it, else as a top-level
error — in a literal and in a variable, and nothing is written; at its limit it is never `too_long` nor an internal
error (no column is narrower than the API's limit)."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
import websockets

from api.graphql.text_limits import limit_for
from slothold.app import create_app
from slothold.settings import Settings
from tests.fuzz.checks import judge
from tests.fuzz.conftest import Fuzzer
from tests.fuzz.generator import ID_KINDS, ID_OF_FIELD, STRING_HINTS, RootField, Schema, literal, named, type_sdl
from tests.fuzz.world import World
from tests.live import serving
from tests.venues import cpf

HEADERS = {"content-type": "application/json", "accept": "application/graphql-response+json"}
FILLERS: dict[str, Any] = {"ID": "5107d0de-0000-4000-8000-00000000ffff", "String": "x", "Int": 1, "Float": 1.0,
                           "Boolean": False, "DateTime": "2026-12-08T19:00:00-03:00", "Date": "2026-12-08", "JSON": {}}
"""A value of each scalar that GraphQL's coercion accepts (what the resolver would make of it does not matter: the
limit is checked before any resolver runs)."""


@dataclass(frozen=True)
class TextInput:
    """One String or ID position of a root field's arguments: the field, the argument, the input fields down to it."""

    root: RootField
    argument: str
    fields: tuple[str, ...]
    scalar: str

    @property
    def name(self) -> str:
        return (self.argument, *self.fields)[-1]

    def __str__(self) -> str:
        return ".".join((self.root.name, self.argument, *self.fields))


def text_inputs(schema: Schema) -> list[TextInput]:
    out: list[TextInput] = []

    def walk(root: RootField, argument: str, type_ref: dict[str, Any], fields: tuple[str, ...], seen: set[str]) -> None:
        t = schema.types[named(type_ref)["name"]]
        if t["kind"] == "SCALAR" and t["name"] in ("String", "ID", "JSON"):
            out.append(TextInput(root, argument, fields, t["name"]))
        elif t["kind"] == "INPUT_OBJECT" and t["name"] not in seen:
            for f in t["inputFields"]:
                walk(root, argument, f["type"], (*fields, f["name"]), seen | {t["name"]})

    for operation in ("query", "mutation", "subscription"):
        for root in schema.root_fields(operation):
            for arg in root.args:
                walk(root, arg.name, arg.type, (), set())
    return out


def _filler(world: World, root: str, name: str, scalar: str) -> Any:
    """A plausible value for an argument or input field: a real id of the fuzz venue of the kind its name says (so
    that, at the limit, requests reach the database), a hinted string, else FILLERS."""
    if scalar == "ID":
        kind = ID_OF_FIELD.get(root) if name == "id" else ID_KINDS.get(name.lower())
        return (world.ids.get(kind or "") or [FILLERS["ID"]])[0]
    if scalar == "String":
        return STRING_HINTS.get(name.lower(), [FILLERS["String"]])[0]
    if scalar == "DateTime":  # an hour on the grid, in the booking window
        return "2026-12-13T20:00:00-03:00" if name in ("endsAt", "to") else "2026-12-13T19:00:00-03:00"
    return FILLERS[scalar]


def _filled(world: World, schema: Schema, root: str, name: str, type_ref: dict[str, Any], rest: tuple[str, ...],
            text: str | None) -> tuple[Any, str]:
    """A value of `type_ref` (the type of `name`) with `text` at the end of the input fields `rest` (required fields
    filled in; None: a filler), and the path suffix the refusal names (list items as [0])."""
    if type_ref["kind"] == "NON_NULL":
        return _filled(world, schema, root, name, type_ref["ofType"], rest, text)
    if type_ref["kind"] == "LIST":
        item, path = _filled(world, schema, root, name, type_ref["ofType"], rest, text)
        return [item], "[0]" + path
    t = schema.types[type_ref["name"]]
    if t["kind"] == "INPUT_OBJECT":
        value: dict[str, Any] = {}
        path = ""
        for f in t["inputFields"]:
            if rest and f["name"] == rest[0]:
                value[f["name"]], inner = _filled(world, schema, root, f["name"], f["type"], rest[1:], text)
                path = f".{f['name']}{inner}"
            elif f["type"]["kind"] == "NON_NULL" and f["defaultValue"] is None:
                value[f["name"]] = _filled(world, schema, root, f["name"], f["type"], (), None)[0]
            elif f["name"] == "cpf":  # a customer is someone: the text at its limit then reaches the database
                value[f["name"]] = cpf(930_001)
        return value, path
    if t["kind"] == "ENUM":
        return t["enumValues"][0]["name"], ""
    if rest:
        raise AssertionError(f"{t['name']} has no input fields {rest}")
    return (_filler(world, root, name, t["name"]) if text is None else text), ""


def request(world: World, schema: Schema, target: TextInput, length: int, as_variable: bool
            ) -> tuple[dict[str, Any], str]:
    """A document calling the target's root field with a text of `length` characters at the target (every other
    required argument filled in), and the `field` path a refusal must name."""
    passed, declared, variables, path = [], [], {}, ""
    root = target.root.name
    for arg in target.root.args:
        if arg.name == target.argument:
            value, suffix = _filled(world, schema, root, arg.name, arg.type, target.fields, "y" * length)
            path = arg.name + suffix
        elif arg.type["kind"] == "NON_NULL" and not arg.has_default:
            value = _filled(world, schema, root, arg.name, arg.type, (), None)[0]
        else:
            continue
        if as_variable and arg.name == target.argument:
            declared.append(f"$v: {type_sdl(arg.type)}")
            passed.append(f"{arg.name}: $v")
            variables["v"] = value
        else:
            passed.append(f"{arg.name}: {literal(value, arg.type, schema)}")
    result = schema.types[named(target.root.type)["name"]]
    selection = {"UNION": "{ __typename ... on Error { code } ... on InvalidInput { field } }",
                 "OBJECT": "{ __typename }", "INTERFACE": "{ __typename }"}.get(result["kind"], "")
    head = target.root.operation + (f"({', '.join(declared)})" if declared else "")
    query = f"{head} {{ {root}({', '.join(passed)}) {selection} }}"
    return {"query": query, "variables": variables}, path


def typed(schema: Schema, root: RootField) -> bool:
    result = schema.types[named(root.type)["name"]]
    return result["kind"] == "UNION" and any(p["name"] == "InvalidInput" for p in result["possibleTypes"])


def refusal_of(body: dict[str, Any], schema: Schema, root: RootField) -> dict[str, Any]:
    """(code, field) of the refusal as the client sees it: the typed result, or the first top-level error."""
    if typed(schema, root) and not body.get("errors"):
        value = body["data"][root.name]
        return {"code": value.get("code"), "field": value.get("field"), "typed": value["__typename"]}
    errors = body.get("errors") or [{}]
    return {**{k: errors[0].get("extensions", {}).get(k) for k in ("code", "field")}, "typed": None}


def test_the_schema_has_text_inputs_of_every_kind(fuzzer: Fuzzer) -> None:
    inputs = {str(t) for t in text_inputs(fuzzer.schema)}
    assert len(inputs) > 150, inputs  # read from the schema, not listed by hand
    for expected in ("hold.input.customer.name", "hold.idempotencyKey", "cancel.reason", "registerWebhook.url",
                     "createSeatMap.input.sections.rows.seats", "sandboxMessages.to", "slotChanged.unitId"):
        assert expected in inputs


@pytest.mark.parametrize("as_variable", [False, True], ids=["literal", "variable"])
async def test_every_text_input_one_over_its_limit_is_too_long_and_writes_nothing(fuzzer: Fuzzer,
                                                                                    as_variable: bool) -> None:
    system = fuzzer.world.headers("system")
    wrong = []
    for target in text_inputs(fuzzer.schema):
        if target.root.operation == "subscription":
            continue  # over the websocket, below
        limit = limit_for(target.name, target.scalar)
        body, path = request(fuzzer.world, fuzzer.schema, target, limit + 1, as_variable)
        before = await fuzzer.footprint()
        r = await fuzzer.client.post("/graphql", content=json.dumps(body), headers={**HEADERS, **system})
        got = refusal_of(r.json(), fuzzer.schema, target.root)
        want = {"code": "too_long", "field": path,
                "typed": "InvalidInput" if typed(fuzzer.schema, target.root) else None}
        if got != want:
            wrong.append((str(target), want, got, r.text[:300]))
        assert await fuzzer.footprint() == before, (str(target), "a refusal wrote")
    assert not wrong, "\n".join(map(str, wrong))


async def test_every_text_input_at_its_limit_is_not_too_long_nor_an_internal_error(fuzzer: Fuzzer) -> None:
    system = fuzzer.world.headers("system")
    wrong = []
    for target in text_inputs(fuzzer.schema):
        if target.root.operation == "subscription" or target.root.name == "signOut":
            continue
        body, _ = request(fuzzer.world, fuzzer.schema, target, limit_for(target.name, target.scalar), True)
        r = await fuzzer.client.post("/graphql", content=json.dumps(body), headers={**HEADERS, **system})
        got = refusal_of(r.json(), fuzzer.schema, target.root)
        problems = judge(r.status_code, r.text, ["y" * limit_for(target.name, target.scalar)], target.root.name,
                         fuzzer.error_types).problems
        if os.environ.get("SLOTHOLD_FUZZ_DEBUG"):
            print("DEBUG at the limit", target, got)
        if got["code"] == "too_long" or problems:
            wrong.append((str(target), got, problems, r.text[:300]))
    assert not wrong, "\n".join(map(str, wrong))


async def test_a_customer_name_of_900_000_characters_is_refused_and_not_stored(fuzzer: Fuzzer) -> None:
    unit, field = fuzzer.world.ids["unit"][0], fuzzer.world.ids["resource"][3]
    system = {**HEADERS, **fuzzer.world.headers("system")}
    slot = {"unitId": unit, "resourceIds": [field], "startsAt": "2026-12-14T21:00:00-03:00",
            "endsAt": "2026-12-14T22:00:00-03:00"}
    name = "Ana " + "a" * 899_996
    before = await fuzzer.footprint()
    for operation, kind in (("hold", "HoldInput"), ("counterBooking", "CounterBookingInput")):
        query = (f"mutation($i: {kind}!) {{ {operation}(input: $i) {{ __typename "
                 "... on InvalidInput { code field message } } }")
        variables = {"i": {**slot, "customer": {"cpf": cpf(920_001), "name": name}}}
        r = await fuzzer.client.post("/graphql", content=json.dumps({"query": query, "variables": variables}),
                                     headers=system)
        assert r.status_code == 200, r.text[:500]
        result = r.json()["data"][operation]
        assert {k: result[k] for k in ("__typename", "code", "field")} == {
            "__typename": "InvalidInput", "code": "too_long", "field": "input.customer.name"}, r.text[:500]
        assert "(it has 900000)" in result["message"] and len(r.text) < 1_000  # the name is not echoed back
    assert await fuzzer.footprint() == before
    assert not await fuzzer.pool.fetchval("SELECT count(*) FROM customers WHERE length(name) > 200")
    # at the limit, the name is stored
    query = ("mutation($i: CounterBookingInput!) { counterBooking(input: $i) { __typename "
             "... on BookingPayload { booking { id } } } }")
    variables = {"i": {**slot, "customer": {"cpf": cpf(920_001), "name": "Ana " + "a" * 196}}}
    r = await fuzzer.client.post("/graphql", content=json.dumps({"query": query, "variables": variables}),
                                 headers=system)
    assert r.json()["data"]["counterBooking"]["__typename"] == "BookingPayload", r.text[:500]
    assert await fuzzer.pool.fetchval("SELECT count(*) FROM customers WHERE length(name) = 200") >= 1


async def test_a_text_input_without_a_typed_result_is_a_top_level_too_long(fuzzer: Fuzzer) -> None:
    r = await fuzzer.client.post("/graphql", headers={**HEADERS, **fuzzer.world.headers("system")}, content=json.dumps(
        {"query": "query($t: String!) { sandboxMessages(to: $t) { text } }", "variables": {"t": "5" * 255}}))
    error = r.json()["errors"][0]
    assert error["extensions"] == {"code": "too_long", "field": "to"} and error["path"] == ["sandboxMessages"]
    assert error["message"] == "to is too long: at most 254 characters are allowed (it has 255)"


# --- subscriptions, over the websocket ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
async def live(fuzzer: Fuzzer, database_url: str, redis_url: str) -> AsyncIterator[int]:
    app = create_app(Settings(database_url=database_url, redis_url=redis_url, db_pool_max=5, log_level="WARNING"))
    async with serving(app) as port:
        yield port


async def test_every_subscription_text_input_over_its_limit_is_too_long(fuzzer: Fuzzer, live: int) -> None:
    targets = [t for t in text_inputs(fuzzer.schema) if t.root.operation == "subscription"]
    assert targets
    token = fuzzer.world.tokens["system"]
    for target in targets:
        body, path = request(fuzzer.world, fuzzer.schema, target, limit_for(target.name, target.scalar) + 1, True)
        async with websockets.connect(f"ws://127.0.0.1:{live}/graphql", subprotocols=["graphql-transport-ws"]) as ws:
            await ws.send(json.dumps({"type": "connection_init", "payload": {"authorization": f"Bearer {token}"}}))
            assert json.loads(await asyncio.wait_for(ws.recv(), 5))["type"] == "connection_ack"
            await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": body}))
            message = json.loads(await asyncio.wait_for(ws.recv(), 5))
        errors = message["payload"] if message["type"] == "error" else message["payload"].get("errors")
        assert errors and errors[0]["extensions"] == {"code": "too_long", "field": path}, (str(target), message)
