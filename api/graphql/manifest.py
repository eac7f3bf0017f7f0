"""Persisted query manifests in Apollo's format, which the allow-list mode runs from (api/graphql/persisted.py):

    {"format": "apollo-persisted-query-manifest", "version": 1,
     "operations": [{"id": "<sha256 of body>", "name": "Slots", "type": "query", "body": "query Slots ..."}]}

`build_manifest` writes one from GraphQL documents (each operation with the fragments it uses, printed by
graphql-core: the body a client sends, or names by its id); `load_manifest` reads one, checking that each id is the
sha256 of its body, so a hash-only request runs exactly the document its id names.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final

from graphql import (
    DocumentNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    Node,
    OperationDefinitionNode,
    parse,
    print_ast,
)

from api.graphql.persisted import document_hash

FORMAT: Final = "apollo-persisted-query-manifest"
VERSION: Final = 1
TYPES: Final = ("query", "mutation", "subscription")


class ManifestError(ValueError):
    """A manifest, or a document to write one from, that cannot be used; the message names what and where."""


def load_manifest(path: str | Path) -> dict[str, str]:
    """id → body of the manifest at `path`; ManifestError naming the problem."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ManifestError(f"persisted query manifest {str(path)!r}: {e}") from e
    return parse_manifest(data, str(path))


def parse_manifest(data: Any, where: str = "manifest") -> dict[str, str]:
    """id → body of a decoded manifest."""
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("version") != VERSION:
        raise ManifestError(f"{where}: not an Apollo persisted query manifest "
                            f'({{"format": "{FORMAT}", "version": {VERSION}, "operations": [...]}})')
    operations = data.get("operations")
    if not isinstance(operations, list):
        raise ManifestError(f"{where}: `operations` must be a list")
    out: dict[str, str] = {}
    for i, op in enumerate(operations):
        body, sha = (op.get("body"), op.get("id")) if isinstance(op, dict) else (None, None)
        if not isinstance(body, str) or not isinstance(sha, str):
            raise ManifestError(f"{where}: operations[{i}] needs a string `id` and `body`")
        if op.get("type") not in TYPES:
            raise ManifestError(f"{where}: operations[{i}].type must be one of {', '.join(TYPES)}")
        if document_hash(body) != sha.lower():
            raise ManifestError(f"{where}: operations[{i}] ({op.get('name')!r}): `id` is not the sha256 of `body`")
        out[sha.lower()] = body
    return out


def _spreads(node: Node) -> Iterable[str]:
    """The fragment names spread anywhere under `node`."""
    todo: list[Any] = [node]
    while todo:
        item = todo.pop()
        if isinstance(item, FragmentSpreadNode):
            yield item.name.value
        for key in getattr(item, "keys", ()):
            value = getattr(item, key, None)
            if isinstance(value, Node):
                todo.append(value)
            elif isinstance(value, tuple | list):
                todo.extend(v for v in value if isinstance(v, Node))


def operations_of(text: str, where: str) -> list[dict[str, str]]:
    """The manifest entries of one GraphQL document: each named operation with the fragments it uses."""
    try:
        document = parse(text)
    except GraphQLError as e:
        raise ManifestError(f"{where}: {e.message}") from e
    fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
    entries = []
    for definition in document.definitions:
        if not isinstance(definition, OperationDefinitionNode):
            continue
        if definition.name is None:
            raise ManifestError(f"{where}: every operation needs a name (an anonymous one cannot be listed)")
        used: dict[str, FragmentDefinitionNode] = {}
        todo = list(_spreads(definition))
        while todo:
            name = todo.pop()
            if name in used:
                continue
            if name not in fragments:
                raise ManifestError(f"{where}: operation {definition.name.value} uses unknown fragment {name}")
            used[name] = fragments[name]
            todo.extend(_spreads(fragments[name]))
        body = print_ast(DocumentNode(definitions=(definition, *(used[n] for n in sorted(used)))))
        entries.append({"id": document_hash(body), "name": definition.name.value,
                        "type": definition.operation.value, "body": body})
    return entries


def build_manifest(documents: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """The manifest of (where, text) documents; two operations of one name must be the same document."""
    by_name: dict[str, dict[str, str]] = {}
    for where, text in documents:
        for entry in operations_of(text, where):
            seen = by_name.get(entry["name"])
            if seen is not None and seen["id"] != entry["id"]:
                raise ManifestError(f"{where}: a different operation named {entry['name']} is listed already")
            by_name[entry["name"]] = entry
    return {"format": FORMAT, "version": VERSION, "operations": [by_name[n] for n in sorted(by_name)]}
