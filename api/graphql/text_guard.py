"""Refuse text that PostgreSQL cannot store before anything runs: the NUL character and unpaired surrogates.

JSON can carry both (``"\\u0000"``, ``"\\ud800"``) and so can a GraphQL string literal; PostgreSQL's text types
cannot hold NUL, and neither can be encoded as UTF-8, so the driver would fail deep inside a use case (an internal
error). No legitimate name, reason, phone or id contains them: the whole request is refused with code
``invalid_text`` (a request error, like a variable of the wrong type), naming where the text was.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from graphql import GraphQLError, StringValueNode, Visitor, visit
from strawberry.extensions import SchemaExtension

from domain.errors import ErrorCode


def storable(text: str) -> bool:
    """True when PostgreSQL can store `text` (no NUL, valid UTF-8)."""
    if "\x00" in text:
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _unstorable_in(value: Any, where: str) -> str | None:
    """The path of the first string in a JSON value that cannot be stored, or None."""
    if isinstance(value, str):
        return None if storable(value) else where
    if isinstance(value, dict):
        for key, item in value.items():
            found = _unstorable_in(key, where) or _unstorable_in(item, f"{where}.{key}")
            if found:
                return found
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found = _unstorable_in(item, f"{where}[{i}]")
            if found:
                return found
    return None


class _Literals(Visitor):
    def __init__(self) -> None:
        super().__init__()
        self.found: StringValueNode | None = None

    def enter_string_value(self, node: StringValueNode, *_: Any) -> Any:
        if self.found is None and not storable(node.value):
            self.found = node
        return None


class UnstorableTextGuard(SchemaExtension):
    """Refuses a request whose variables or string literals hold text PostgreSQL cannot store (`invalid_text`)."""

    def on_execute(self) -> Iterator[None]:
        context = self.execution_context
        where = _unstorable_in(context.variables or {}, "variables")
        node = None
        query = context.query or ""
        if where is None and context.graphql_document is not None and ("\\u" in query or not storable(query)):
            literals = _Literals()
            visit(context.graphql_document, literals)
            node = literals.found
            where = "a string literal" if node is not None else None
        if where is not None:
            raise GraphQLError(f"Text may not contain the NUL character or unpaired surrogates ({where}).",
                               nodes=node, extensions={"code": ErrorCode.INVALID_TEXT})
        yield
