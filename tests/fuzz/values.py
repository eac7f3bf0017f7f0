"""Every argument of a root field drawn at once: each value from the strategies for its type and name, passed as a
variable or an inline literal, optional ones sometimes left out."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from tests.fuzz.live_schema import Arg, RootField, Schema
from tests.fuzz.strategies import ID_KINDS, ID_OF_FIELD, datetimes, ids, integers, strings, weighted, wrong_values
from tests.fuzz.world import World


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
