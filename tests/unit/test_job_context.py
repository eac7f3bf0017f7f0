"""The jobs take what they need from their arq context, by name; the worker's assembly puts it there. A job that
reads a name the assembly does not provide would fail only when it first runs, so the names are checked here."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from providers.clock import SystemClock
from slothold.settings import Settings
from slothold.worker import assemble

JOBS = Path(__file__).resolve().parents[2] / "jobs"
ARQ = {"redis", "job_try", "job_id", "enqueue_time", "score"}
"""What arq itself puts in every job's context."""


def _names_read(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "ctx"
                and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
            names.add(node.slice.value)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
              and isinstance(node.func.value, ast.Name) and node.func.value.id == "ctx" and node.args
              and isinstance(node.args[0], ast.Constant)):
            names.add(str(node.args[0].value))
    return names


def test_every_name_a_job_reads_from_its_context_is_one_the_worker_provides() -> None:
    pool: Any = object()  # nothing is connected: the assembly only builds objects
    ctx, _ = assemble(Settings(database_url="postgresql://db/x", redis_url="redis://r"), pool, SystemClock(), {})
    read = {name: path.name for path in sorted(JOBS.glob("*.py")) if path.name != "worker.py"
            for name in _names_read(path)}
    assert read, "no job reads its context?"
    assert {n: f for n, f in read.items() if n not in ctx and n not in ARQ} == {}


def test_the_jobs_reach_the_database_only_through_ports() -> None:
    for path in sorted(JOBS.glob("*.py")):
        if path.name != "worker.py":  # the worker's assembly is a composition root
            assert "pool" not in _names_read(path), path.name
