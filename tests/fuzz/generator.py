"""Documents for every root field of the live schema, with hypothesis strategies for their arguments.

The schema is read by introspection (over HTTP, as a client would). For each argument a strategy mixes
valid-looking values (real ids of the test's venue, by what the argument's name says it is), boundary values
(empty, huge and odd strings, extreme integers, naive or out-of-range datetimes, nulls) and values of the
wrong type. Each argument goes in as a variable or as an inline literal; optional ones are sometimes left out.
"""

from __future__ import annotations

import json
import math
import re
import string
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from tests.fuzz.live_schema import INTROSPECTION, RootField, Schema, named, selection, type_sdl
from tests.fuzz.strategies import ID_KINDS, ID_OF_FIELD, ODD_STRINGS, STRING_HINTS, weighted
from tests.fuzz.values import Drawn, Values
from tests.fuzz.world import World

# The pieces: live_schema (what introspection gives, selections), strategies (one value), values (every argument
# of a field); here, documents and requests.
__all__ = ["ID_KINDS", "ID_OF_FIELD", "INTROSPECTION", "ODD_STRINGS", "STRING_HINTS", "Drawn", "Modes", "Request",
           "RootField", "Schema", "Values", "document", "literal", "named", "requests", "type_sdl"]

# --- documents -------------------------------------------------------------------------------------------------

_NAME = re.compile(r"^[_A-Za-z][_0-9A-Za-z]*$")


def literal(value: Any, type_ref: dict[str, Any], schema: Schema) -> str:
    """A GraphQL literal for a Python value (enum names bare where the type is an enum and the value fits)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else '"' + repr(value) + '"'
    base = type_ref["ofType"] if type_ref.get("kind") == "NON_NULL" else type_ref
    if isinstance(value, list):
        item = base["ofType"] if base.get("kind") == "LIST" else base
        return "[" + ", ".join(literal(v, item, schema) for v in value) + "]"
    if isinstance(value, dict):
        t = schema.types.get(named(base)["name"]) or {}
        fields = {f["name"]: f["type"] for f in t.get("inputFields") or ()}
        return "{" + ", ".join(f"{k}: {literal(v, fields.get(k, {'kind': 'SCALAR', 'name': 'String'}), schema)}"
                               for k, v in value.items() if _NAME.match(k)) + "}"
    text_value = str(value)
    if (schema.types.get(named(base).get("name") or "", {}).get("kind") == "ENUM" and _NAME.match(text_value)
            and text_value not in ("true", "false", "null")):
        return text_value
    return json.dumps(text_value)


@dataclass
class Request:
    """A GraphQL request body and what the fuzzer sent in it."""

    body: dict[str, Any]
    caller: str
    field: RootField
    headers: dict[str, str]
    well_typed: bool = True

    def sent_strings(self) -> list[str]:
        """Every string this request carried (to tell an echo of the input from a leak)."""
        out: list[str] = []

        def walk(v: Any) -> None:
            if isinstance(v, str):
                out.append(v)
            elif isinstance(v, list):
                for x in v:
                    walk(x)
            elif isinstance(v, dict):
                for k, x in v.items():
                    out.append(str(k))
                    walk(x)
            elif v is not None:
                out.append(str(v))

        walk(self.body)
        return out


def document(schema: Schema, field: RootField, drawn: dict[str, Drawn], sel: str) -> tuple[str, dict[str, Any]]:
    """The document and variables for one call of `field` with the drawn arguments."""
    declared, passed, variables = [], [], {}
    for arg in field.args:
        d = drawn[arg.name]
        if d.omit:
            continue
        if d.literal:
            passed.append(f"{arg.name}: {literal(d.value, arg.type, schema)}")
        else:
            declared.append(f"${arg.name}: {type_sdl(arg.type)}")
            passed.append(f"{arg.name}: ${arg.name}")
            variables[arg.name] = d.value
    head = field.operation + (" Fuzz(" + ", ".join(declared) + ")" if declared else " Fuzz")
    call = field.name + ("(" + ", ".join(passed) + ")" if passed else "")
    return f"{head} {{ {call} {sel} }}", variables


@dataclass(frozen=True)
class Modes:
    """Well-typed values (seven requests in eight) and anything at all."""

    strict: Values
    loose: Values


def requests(schema: Schema, values: Modes, field: RootField, callers: tuple[str, ...],
             world: World) -> st.SearchStrategy[Request]:
    """Requests calling `field` as one of `callers`, with drawn arguments and sometimes an Idempotency-Key.

    Seven in eight are well typed (they pass GraphQL's coercion and reach the resolvers)."""
    sel = selection(schema, field.type)
    strict = st.fixed_dictionaries({a.name: values.strict.for_argument(field, a) for a in field.args})
    loose = st.fixed_dictionaries({a.name: values.loose.for_argument(field, a) for a in field.args})
    args = st.sampled_from([True] * 7 + [False]).flatmap(
        lambda well_typed: (strict if well_typed else loose).map(lambda drawn: (well_typed, drawn)))
    key = weighted((4, st.none()), (1, st.text(string.ascii_letters, max_size=8)),
                   (1, st.sampled_from(["", "x" * 5000, "ção"])))

    def build(args: tuple[bool, dict[str, Drawn]], caller: str, idempotency: str | None,
              slot: tuple[str, str] | None, own: bool) -> Request:
        well_typed, drawn = args
        if slot is not None:
            drawn = {name: Drawn(coherent(d.value, slot), d.literal, d.omit) for name, d in drawn.items()}
            drawn = coherent_args(drawn, slot)
        if own and caller == "customer":  # a customer books for the phone their session proved
            drawn = {name: Drawn(own_phone(d.value, world.strings["phone"][0]), d.literal, d.omit)
                     for name, d in drawn.items()}
        query, variables = document(schema, field, drawn, sel)
        headers = world.headers(caller)
        if idempotency is not None and idempotency.isascii():
            headers["idempotency-key"] = idempotency
        return Request({"query": query, "variables": variables}, caller, field, headers, well_typed)

    return st.builds(build, args, st.sampled_from(callers), key, st.one_of(st.none(), slots()), st.booleans())


def slots() -> st.SearchStrategy[tuple[str, str]]:
    """A start and end that make sense together: on the grid, in opening hours, within the booking window."""
    return st.builds(lambda day, hour, length: (f"2026-12-{day:02d}T{hour:02d}:00:00-03:00",
                                                f"2026-12-{day:02d}T{hour + length:02d}:00:00-03:00"),
                     st.integers(7, 14), st.integers(8, 20), st.sampled_from([1, 1, 2]))


PAIRS = (("startsAt", "endsAt"), ("from", "to"))


def coherent(value: Any, slot: tuple[str, str]) -> Any:
    """An input object (or list of them) whose start and end are replaced by `slot`."""
    if isinstance(value, list):
        return [coherent(v, slot) for v in value]
    if isinstance(value, dict):
        value = {k: coherent(v, slot) for k, v in value.items()}
        for start, end in PAIRS:
            if start in value and end in value:
                value[start], value[end] = slot
    return value


def coherent_args(drawn: dict[str, Drawn], slot: tuple[str, str]) -> dict[str, Drawn]:
    for start, end in PAIRS:
        if start in drawn and end in drawn:
            drawn = {**drawn, start: Drawn(slot[0], drawn[start].literal), end: Drawn(slot[1], drawn[end].literal)}
    return drawn


def own_phone(value: Any, phone: str) -> Any:
    """A customer input (anywhere in a value) made the signed-in customer's."""
    if isinstance(value, list):
        return [own_phone(v, phone) for v in value]
    if isinstance(value, dict):
        value = {k: own_phone(v, phone) for k, v in value.items()}
        if "cpf" in value or "phone" in value or "email" in value:
            value["phone"] = phone
    return value
