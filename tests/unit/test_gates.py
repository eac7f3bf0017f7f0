"""The gates `./test` keeps: ruff and `mypy --strict` (pyproject.toml's settings) report nothing on the project.

They run as tests so that `./test` — and CI, which calls exactly `./test` — fails the moment either drifts.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TYPED = ["domain", "store", "schema", "resolvers", "jobs", "providers", "api", "telemetry", "slothold"]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_finds_nothing() -> None:
    done = _run("ruff", "check", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict_finds_nothing() -> None:
    packages = [p for p in TYPED if (ROOT / p).is_dir()]
    done = _run("mypy", *packages)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
