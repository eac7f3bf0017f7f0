"""The live schema as introspection gives it (read over HTTP, as a client would): its root fields and their
arguments, type references as SDL, and selection sets for any output type."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

INTROSPECTION = """
query Fuzz {
  __schema {
    queryType { name } mutationType { name } subscriptionType { name }
    types {
      kind name
      fields(includeDeprecated: true) { name args { name defaultValue type { ...T } } type { ...T } }
      inputFields { name defaultValue type { ...T } }
      interfaces { name }
      possibleTypes { name }
      enumValues(includeDeprecated: true) { name }
    }
  }
}
fragment T on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } }
"""


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
