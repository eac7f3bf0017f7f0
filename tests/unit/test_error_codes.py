"""Error codes are one closed vocabulary: domain.errors.ErrorCode. Every code the source writes is one of its
values, and every refusal class carries one."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from collections.abc import Iterator
from pathlib import Path

import domain
from domain.errors import DomainError, ErrorCode

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("domain", "store", "resolvers", "schema", "slothold", "jobs", "providers")
CODE_ARGUMENT = {"InvalidInput": 2, "DomainInvalidInput": 2, "_bad": 2, "_refusal": 1}
"""Calls that take a code positionally, and at which position (domain/hold_types.py, slothold/limits.py)."""


def _sources() -> Iterator[tuple[Path, ast.AST]]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            yield path, ast.parse(path.read_text(), str(path))


def _text(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _texts(node: ast.AST | None) -> list[str]:
    """The strings an expression written as a code can be: a literal, either branch of `a if c else b`, `a or b`."""
    if (text := _text(node)) is not None:
        return [text]
    if isinstance(node, ast.IfExp):
        return _texts(node.body) + _texts(node.orelse)
    if isinstance(node, ast.BoolOp):
        return [t for value in node.values for t in _texts(value)]
    return []


def _name(node: ast.AST) -> str | None:
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None


def code_literals(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, code) of every string the module writes as a code: `code="..."` in a call, `code = "..."` (a refusal
    class's code), `{"code": "..."}` (a top-level error's extensions), and the codes of CODE_ARGUMENT's calls."""
    for node in ast.walk(tree):
        written: list[ast.AST | None] = []
        if isinstance(node, ast.Call):
            written += [keyword.value for keyword in node.keywords if keyword.arg == "code"]
            position = CODE_ARGUMENT.get(_name(node.func) or "")
            if position is not None and len(node.args) > position:
                written.append(node.args[position])
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(_name(t) in ("code", "CODE") for t in targets):
                written.append(node.value)
        elif isinstance(node, ast.Dict):
            written += [value for key, value in zip(node.keys, node.values, strict=True) if _text(key) == "code"]
        for expression in written:
            for text in _texts(expression):
                yield node.lineno, text


def test_every_code_the_source_writes_as_a_string_is_an_error_code() -> None:
    # The modules still being restructured (domain/services/, checkout, lifecycle, waitlist, seatmaps) write their
    # codes as strings for now: each must be a value of the enum, or the GraphQL enum could not carry it.
    known = {c.value for c in ErrorCode}
    unknown = [f"{path.relative_to(ROOT)}:{line}: {code!r}" for path, tree in _sources()
               for line, code in code_literals(tree) if code not in known]
    assert not unknown, "codes missing from domain/error_codes.py ErrorCode:\n" + "\n".join(unknown)


def test_the_scan_finds_codes_in_every_form_they_are_written() -> None:
    tree = ast.parse('raise InvalidInput("f", "m", code="a")\nclass E:\n    code = "b"\n'
                     'x = {"code": "c"}\n_bad("f", "m", "d")\n_refusal("m", "e", node)\n'
                     'InvalidInput("f", "m", code="f" if long else "g")\n')
    assert sorted(code for _, code in code_literals(tree)) == ["a", "b", "c", "d", "e", "f", "g"]


def _refusal_classes() -> set[type[DomainError]]:
    for module in pkgutil.walk_packages(domain.__path__, "domain."):
        importlib.import_module(module.name)
    found: set[type[DomainError]] = set()
    todo = [DomainError]
    while todo:
        cls = todo.pop()
        found.add(cls)
        todo.extend(cls.__subclasses__())
    return found


def test_every_refusal_class_carries_an_error_code() -> None:
    wrong = {cls.__qualname__: cls.code for cls in _refusal_classes() if not isinstance(cls.code, ErrorCode)}
    assert not wrong


def test_an_input_refusal_takes_its_code_as_a_member_or_its_value() -> None:
    from domain.errors import InvalidInput

    assert InvalidInput("f", "m", code="too_long").code is ErrorCode.TOO_LONG
    assert InvalidInput("f", "m", code=ErrorCode.OFF_GRID).code is ErrorCode.OFF_GRID
    assert InvalidInput("f", "m").code is ErrorCode.INVALID_INPUT


def test_the_api_codes_are_error_codes() -> None:
    from api.graphql.limits import CODES
    from api.graphql.view import HTTP_ERROR_CODES

    assert set(HTTP_ERROR_CODES.values()) | CODES <= {c.value for c in ErrorCode}
