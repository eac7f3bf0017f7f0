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
from uuid import UUID

from hypothesis import strategies as st

from tests.fuzz.world import World

INTROSPECTION = """
query Fuzz {
  __schema {
    queryType { name } mutationType { name } subscriptionType { name }
    types {
      kind name
      fields { name args { name defaultValue type { ...T } } type { ...T } }
      inputFields { name defaultValue type { ...T } }
      interfaces { name }
      possibleTypes { name }
      enumValues { name }
    }
  }
}
fragment T on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } }
"""

# --- the schema as introspection gives it ----------------------------------------------------------------------


@dataclass(frozen=True)
class Arg:
    name: str
    type: dict[str, Any]
    has_default: bool


@dataclass(frozen=True)
class RootField:
    """A query, mutation or subscription and what it takes and returns."""

    operation: str  # "query" | "mutation" | "subscription"
    name: str
    args: tuple[Arg, ...]
    type: dict[str, Any]


class Schema:
    """Types by name from an introspection result."""

    def __init__(self, introspection: dict[str, Any]) -> None:
        s = introspection["__schema"]
        self.types: dict[str, dict[str, Any]] = {t["name"]: t for t in s["types"]}
        self.roots = {op: (s[f"{op}Type"] or {}).get("name") for op in ("query", "mutation", "subscription")}

    def root_fields(self, operation: str) -> list[RootField]:
        name = self.roots[operation]
        if not name:
            return []
        return [RootField(operation, f["name"], tuple(Arg(a["name"], a["type"], a["defaultValue"] is not None)
                                                      for a in f["args"]), f["type"])
                for f in self.types[name]["fields"]]

    def error_types(self) -> set[str]:
        """Object types that implement the Error interface: a result of one of them is a refusal."""
        return {t["name"] for t in self.types.values() if t["kind"] == "OBJECT"
                and any(i["name"] == "Error" for i in t.get("interfaces") or ())}


def named(type_ref: dict[str, Any]) -> dict[str, Any]:
    while type_ref.get("ofType"):
        type_ref = type_ref["ofType"]
    return type_ref


def type_sdl(type_ref: dict[str, Any]) -> str:
    if type_ref["kind"] == "NON_NULL":
        return type_sdl(type_ref["ofType"]) + "!"
    if type_ref["kind"] == "LIST":
        return "[" + type_sdl(type_ref["ofType"]) + "]"
    return str(type_ref["name"])


# --- selection sets --------------------------------------------------------------------------------------------


def selection(schema: Schema, type_ref: dict[str, Any], depth: int = 2) -> str:
    """A selection for a type: __typename, its scalar fields and, while depth lasts, those of its objects;
    for unions and interfaces, the same on each possible type."""
    t = schema.types[named(type_ref)["name"]]
    if t["kind"] in ("SCALAR", "ENUM"):
        return ""
    if t["kind"] in ("UNION", "INTERFACE"):
        seen: dict[str, str] = {}  # a response key → the type it has (two members' fields of one name may differ)
        parts = ["__typename"] + [f"... on {p['name']} {{ {_fields(schema, p['name'], depth, seen)} }}"
                                  for p in t["possibleTypes"] or ()]
        return "{ " + " ".join(parts) + " }"
    return "{ " + _fields(schema, t["name"], depth, {}) + " }"


def _fields(schema: Schema, type_name: str, depth: int, seen: dict[str, str]) -> str:
    out = ["__typename"]
    for f in schema.types[type_name]["fields"] or ():
        if any(a["type"]["kind"] == "NON_NULL" and a["defaultValue"] is None for a in f["args"]):
            continue  # a field that needs arguments of its own
        inner = schema.types[named(f["type"])["name"]]
        if inner["kind"] not in ("SCALAR", "ENUM") and depth <= 1:
            continue
        sub = "" if inner["kind"] in ("SCALAR", "ENUM") else " " + selection(schema, f["type"], depth - 1)
        shape = type_sdl(f["type"]) + sub
        key = f["name"]
        if seen.setdefault(key, shape) != shape:
            key = f"{type_name}_{f['name']}: {f['name']}"  # an alias keeps the two apart
        out.append(key + sub)
    return " ".join(out)


# --- values ----------------------------------------------------------------------------------------------------

ODD_STRINGS = ["", " ", "\x00", "a\x00b", "null", "undefined", "NaN", "-1", "0", "true", "{}", "[]", "'", '"',
               "\\", "' OR 1=1 --", "'; DROP TABLE bookings; --", "%s%n%x", "${jndi:ldap://x}", "<script>x</script>",
               "\u202e\u200b\ufeff", "ção 😀 漢字", "\ud7ff\ue000", "\n\r\t", "../../etc/passwd", "%00", "\U0010ffff",
               "\ud800", "a\udfffb"]
"""Strings that have broken parsers, drivers and encoders before."""


def weighted(*choices: tuple[int, st.SearchStrategy[Any]]) -> st.SearchStrategy[Any]:
    """One of the strategies, each as often as its weight (st.one_of draws its distinct branches evenly: repeating
    a branch there does not make it likelier)."""
    picks = [i for i, (weight, _) in enumerate(choices) for _ in range(weight)]
    return st.sampled_from(picks).flatmap(lambda i: choices[i][1])


def huge(n: int) -> st.SearchStrategy[str]:
    return st.sampled_from(["x" * n, "ç" * (n // 2), "😀" * (n // 4), "9" * n])


def text() -> st.SearchStrategy[str]:
    return st.one_of(st.text(max_size=40), st.sampled_from(ODD_STRINGS), huge(20_000))


def uuids() -> st.SearchStrategy[str]:
    return st.one_of(st.uuids().map(str), st.sampled_from([str(UUID(int=0)), str(UUID(int=2**128 - 1))]))


def garbage_ids() -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(["", "1", "-1", "not-a-uuid", "00000000-0000-0000-0000-00000000000",
                                      "00000000-0000-0000-0000-0000000000000", "{00000000-0000-0000-0000-000000000000}",
                                      "urn:uuid:00000000-0000-0000-0000-000000000000", "ZZZZZZZZ-0000-0000-0000-"
                                      "000000000000", "0" * 32, "0" * 1000]),
                     st.uuids().map(lambda u: u.hex), st.uuids().map(lambda u: str(u).upper()),
                     st.uuids().map(lambda u: f" {u} "), text())


ID_KINDS: dict[str, str] = {
    "unitid": "unit", "bookingid": "booking", "resourceid": "resource", "resourceids": "resource",
    "eventid": "seat_event", "seatids": "seat", "seatmapid": "seat_map", "entryid": "walk_in", "itemid": "queue_item",
    "endpointid": "webhook", "deliveryid": "delivery", "serviceid": "service", "ids": "notification",
}
ID_OF_FIELD = {"unit": "unit", "booking": "booking", "slotWaitlistEntry": "slot_entry",
               "capacityWaitlistEntry": "capacity_entry"}


def ids(world: World, kind: str | None) -> st.SearchStrategy[str]:
    """Mostly real ids of the right kind; also real ids of another kind or venue, random UUIDs and garbage."""
    every = sorted({i for values in world.ids.values() for i in values})
    right = world.ids.get(kind or "", []) or every
    return weighted((8, st.sampled_from(right)), (1, st.sampled_from(every)), (1, uuids()), (1, garbage_ids()))


def datetimes(strict: bool) -> st.SearchStrategy[str]:
    """ISO 8601 around the test's week, with and without offsets, and beyond what a datetime can hold (strict:
    what a datetime parser takes, naive ones and odd offsets included)."""
    aware = st.builds(lambda day, hour, minute, offset: f"2026-12-{day:02d}T{hour:02d}:{minute:02d}:00{offset}",
                      st.integers(6, 14), st.integers(0, 23), st.sampled_from([0, 0, 30, 15, 59]),
                      st.sampled_from(["-03:00", "-03:00", "Z", "+00:00", "+14:00", "-12:00", "+05:45"]))
    odd = st.sampled_from([
        "2026-12-08T10:00:00", "2026-12-08", "10:00", "2026-12-08T10:00:00.123456789-03:00", "2026-02-30T10:00:00Z",
        "2026-12-08T24:00:00Z", "0001-01-01T00:00:00+14:00", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59-12:00",
        "9999-12-31T23:59:59Z", "10000-01-01T00:00:00Z", "-0001-01-01T00:00:00Z", "1970-01-01T00:00:00Z",
        "2026-12-08T10:00:00+25:00", "2026-12-08T10:00:00+23:59", "2026-12-08T10:00:00-03", "2026-W50-1T10:00Z",
        "2026-12-08 10:00:00-03:00", "20261208T100000Z", "2026-12-08T10:00:00-03:00[America/Sao_Paulo]",
        "2026-10-18T00:30:00-03:00", "2027-02-21T23:30:00-03:00", "now", "", "  2026-12-08T10:00:00Z  "])
    parseable = st.one_of(st.datetimes().map(lambda d: d.isoformat()),
                          st.datetimes(timezones=st.timezones()).map(lambda d: d.isoformat()),
                          st.sampled_from(["2026-12-08T10:00:00", "0001-01-01T00:00:00+14:00", "0001-01-01T00:00:00Z",
                                           "9999-12-31T23:59:59-12:00", "9999-12-31T23:59:59Z", "1970-01-01T00:00:00Z",
                                           "2026-12-08T10:00:00+23:59", "2026-10-18T00:30:00-03:00",
                                           "2027-02-21T23:30:00-03:00", "2026-12-08T10:00:00.999999-03:00"]))
    if strict:
        return weighted((3, aware), (1, parseable))
    return weighted((2, aware), (1, odd), (1, parseable))


INT_HINTS: dict[str, list[int]] = {
    "first": [1, 10, 500, 501, 0, -1], "limit": [1, 10, 100, 1000, 0, -1], "since": [0, 1, 10, -1, 10**9],
    "slots": [1, 2, 3, 0, -1, 1000], "quantity": [1, 2, 12, 13, 0, -1], "partysize": [1, 2, 12, 13, 0, -1],
    "pricecents": [1000, 0, -1, 10**9], "depositpercent": [50, 0, 100, 101, -1], "depositcents": [500, 0, -1],
    "percent": [0, 50, 100, 101, -1], "ttlseconds": [0, 59, 60, 3600, 2_592_000, 2_592_001, -1],
}


def integers(name: str) -> st.SearchStrategy[int]:
    hints = INT_HINTS.get(name.lower(), [0, 1, -1, 5, 30, 60, 100])
    return st.one_of(st.sampled_from(hints), st.sampled_from([2**31 - 1, -(2**31)]), st.integers(-(2**31), 2**31 - 1))


STRING_HINTS: dict[str, list[str]] = {
    "phone": ["+5511912345678", "+55 11 91234-5678", "11912345678", "+1", "+999999999999999999", "+5511"],
    "email": ["ana@example.com", "ANA@EXAMPLE.COM", "a@b", "@", "a" * 300 + "@example.com"],
    "token": ["a" * 64, "0" * 64, "t", "x" * 65],
    "holdtype": ["CART", "RESERVED", "WAITLIST_OFFER", "cart", "FUZZ_TYPE", "PARTNER_HOLD", "A" * 200],
    "name": ["CART", "RESERVED", "FUZZ_TYPE", "Palco", "Ana", "lower_case", "WAITLIST_OFFER"],
    "url": ["https://hooks.example.com/b", "http://localhost:1/x", "http://127.0.0.1/x", "http://10.0.0.1/x",
            "https://[::1]/x", "ftp://example.com", "javascript:alert(1)", "https://", "https://x.com:99999/",
            "https://user:pass@example.com/", "file:///etc/passwd"],
    "eventtypes": ["booking.held", "payment.paid", "waitlist.offered", "booking.nope", "*"],
    "paymentrule": ["full", "deposit_percent", "deposit_cents", "FULL", "free"],
    "channel": ["api", "whatsapp", "web", "counter", "bot", "sms"],
    "displaycolor": ["#112233", "#FFF", "red", "#GGGGGG", "#1122334"],
    "code": ["000000", "123456", "1", "abcdef", "0" * 7],
    "statuses": ["open", "acknowledged", "resolved", "closed"],
    "status": ["failed", "delivered", "pending", "cancelled", "bogus"],
    "contact": ["+5511912345678", "ana@example.com"],
    "to": ["+5511900000001", "ana@example.com"],
    "user": ["u1", "u9", ""],
}


def strings(world: World, name: str) -> st.SearchStrategy[str]:
    key = name.lower()
    hinted = list(STRING_HINTS.get(key, []))
    if key == "cpf":
        hinted += [*world.strings.get("cpf", []), "529.982.247-25", "52998224725", "52998224724", "000.000.000-00",
                   "111.111.111-11", "1234"]
    if key in ("phone", "contact", "to"):
        hinted += world.strings.get("phone", [])
    if key == "txid":
        hinted += [*world.strings.get("txid", []), "nope"]
    if hinted:
        return weighted((2, st.sampled_from(hinted)), (1, text()))
    return text()


def wrong_values() -> st.SearchStrategy[Any]:
    """Values of some other JSON type than the one expected."""
    return st.one_of(st.sampled_from([True, False, 0, -1, 2**31, -(2**31) - 1, 2**53 + 1, 10**30, 1.5, -0.0, 1e308,
                                      math.inf, -math.inf, math.nan, "", "1", [], {}, [None], {"a": 1}]),
                     st.text(max_size=10), st.floats(allow_nan=True))


@dataclass
class Drawn:
    """One argument's value: in variables (`variable`) or written inline (`literal`); `omit` leaves it out."""

    value: Any
    literal: bool = False
    omit: bool = False


class Values:
    """Strategies for the values of a schema's arguments."""

    def __init__(self, schema: Schema, world: World, strict: bool) -> None:
        """`strict`: only values GraphQL's input coercion accepts (they reach the resolvers); else anything."""
        self.schema, self.world, self.strict = schema, world, strict

    def for_type(self, type_ref: dict[str, Any], name: str, depth: int = 0) -> st.SearchStrategy[Any]:
        """A value for a position of this type; mostly of the right type, sometimes null or of another type."""
        if type_ref["kind"] == "NON_NULL":
            inner = self._right(type_ref["ofType"], name, depth)
            return inner if self.strict else weighted((12, inner), (1, wrong_values()), (1, st.none()))
        right = self._right(type_ref, name, depth)
        if self.strict:
            return weighted((8, right), (1, st.none()))
        return weighted((8, right), (1, st.none()), (1, wrong_values()))

    def _right(self, type_ref: dict[str, Any], name: str, depth: int) -> st.SearchStrategy[Any]:
        kind = type_ref["kind"]
        if kind == "LIST":
            item = self.for_type(type_ref["ofType"], name, depth + 1)
            lists = st.lists(item, max_size=4)
            if depth == 0:  # a single value stands for a list of one (GraphQL input coercion); and a long list
                lists = weighted((6, lists), (1, item), (1, st.lists(item, min_size=200, max_size=300)))
            return lists
        t = self.schema.types[type_ref["name"]]
        if t["kind"] == "ENUM":
            values = [v["name"] for v in t["enumValues"]]
            if self.strict:
                return st.sampled_from(values)
            return weighted((2, st.sampled_from(values)),
                            (1, st.sampled_from([v.lower() for v in values] + ["NOPE", "", "__typename"])))
        if t["kind"] == "INPUT_OBJECT":
            return self._input_object(t, depth)
        return self._scalar(t["name"], name)

    def _scalar(self, scalar: str, name: str) -> st.SearchStrategy[Any]:
        key = name.lower()
        if scalar == "ID":
            return ids(self.world, ID_KINDS.get(key))
        if scalar == "Int":
            return integers(name)
        if scalar == "Float":
            return st.one_of(st.sampled_from([0, 6, 24, 0.5, -1, 1e9, 1e308, 2**31]), st.floats(allow_nan=False,
                                                                                                 allow_infinity=False))
        if scalar == "Boolean":
            return st.booleans()
        if scalar == "DateTime":
            return datetimes(self.strict)
        if scalar == "Date":
            if self.strict:
                return st.dates().map(str)
            return st.one_of(st.dates().map(str), st.sampled_from(["2026-12-08", "2026-02-30", "0000-01-01", ""]))
        if scalar == "JSON":
            return st.one_of(st.none(), st.integers(), st.text(max_size=10), st.dictionaries(st.text(max_size=5),
                                                                                             st.integers(), max_size=3))
        return strings(self.world, name)

    def _input_object(self, t: dict[str, Any], depth: int) -> st.SearchStrategy[dict[str, Any]]:
        parts: dict[str, st.SearchStrategy[Any]] = {}
        optional: dict[str, st.SearchStrategy[Any]] = {}
        for f in t["inputFields"]:
            strategy = self.for_type(f["type"], f["name"], depth + 1)
            if f["type"]["kind"] == "NON_NULL" and f["defaultValue"] is None:
                parts[f["name"]] = strategy
            else:
                optional[f["name"]] = strategy
        base = st.fixed_dictionaries(parts, optional=optional)
        if self.strict:
            return base
        unknown = st.fixed_dictionaries({**parts, "bogusField": st.integers()})
        missing = st.fixed_dictionaries({k: v for i, (k, v) in enumerate(parts.items()) if i}, optional=optional)
        return weighted((10, base), (1, unknown), (1, missing))

    def for_argument(self, field: RootField, arg: Arg) -> st.SearchStrategy[Drawn]:
        """How one argument is sent: a value as a variable or inline, or left out when it may be."""
        name = arg.name
        if name == "id":
            value = ids(self.world, ID_OF_FIELD.get(field.name))
            if not self.strict:
                value = weighted((12, value), (1, wrong_values()), (1, st.none()))
        else:
            value = self.for_type(arg.type, name)
        sent = st.builds(Drawn, value, st.sampled_from([False, False, False, True]))
        may_omit = arg.has_default or arg.type["kind"] != "NON_NULL"
        if may_omit:
            return weighted((2, sent), (1, st.just(Drawn(None, omit=True))))
        return sent if self.strict else weighted((20, sent), (1, st.just(Drawn(None, omit=True))))


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
