"""The house's import rules (docs/architecture.md), checked on every module of the project: a layer imports only
the layers below it. A new import against them fails here, naming the file and line.

`domain` imports only the standard library and itself; everything else may also use third-party libraries
(asyncpg in `store`, strawberry in `schema`/`resolvers`, httpx in `providers`...). Only the composition roots —
`slothold` (the API and the worker) and `ops` (the command line) — import everything.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OURS = {"domain", "store", "schema", "resolvers", "jobs", "providers", "api", "telemetry", "ops", "slothold"}
ALLOWED: dict[str, set[str]] = {
    "domain": {"domain"},
    "store": {"domain", "store"},
    "schema": {"domain", "schema"},
    "resolvers": {"domain", "schema", "resolvers"},
    "jobs": {"domain", "jobs"},
    "providers": {"domain", "providers"},
    "telemetry": {"domain", "store", "telemetry"},
    "api": {"domain", "store", "schema", "resolvers", "providers", "telemetry", "api"},
    "ops": OURS,
    "slothold": OURS,
}
"""Which of the project's packages each package may import."""


def _imports(path: Path) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def violations() -> list[str]:
    """Every import of the project's packages that breaks ALLOWED."""
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    out = []
    for package in sorted(ALLOWED):
        for path in sorted((ROOT / package).rglob("*.py")):
            for line, module in _imports(path):
                top = module.split(".")[0]
                if package == "domain" and top not in stdlib and top != "domain":
                    out.append(f"{path.relative_to(ROOT)}:{line}: domain imports {module} (standard library only)")
                elif top in OURS and top not in ALLOWED[package]:
                    out.append(f"{path.relative_to(ROOT)}:{line}: {package} imports {module}")
    return out


def test_every_import_follows_the_layers() -> None:
    assert violations() == []


def test_the_rules_cover_every_package_of_the_project() -> None:
    packages = {p.parent.name for p in ROOT.glob("*/__init__.py")} - {"tests", "migrations", "bench"}
    assert packages <= set(ALLOWED), packages - set(ALLOWED)
