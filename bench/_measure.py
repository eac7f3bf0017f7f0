"""Percentiles, CPU accounting over an interval, and the report (printed table + RESULTS.md section)."""

from __future__ import annotations

import platform
import subprocess
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import psutil

from bench._server import ApiServer


def pct(values: list[float], p: float) -> float:
    """Nearest-rank percentile; nan when empty."""
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(p / 100 * len(s) + 0.5) - 1))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def latency(values: list[float]) -> str:
    return f"p50 {ms(pct(values, 50))}, p99 {ms(pct(values, 99))}"


def _busy_idle() -> tuple[float, float]:
    t = psutil.cpu_times()
    idle = t.idle + getattr(t, "iowait", 0.0)
    busy = t.user + t.nice + t.system + getattr(t, "irq", 0.0) + getattr(t, "softirq", 0.0) \
        + getattr(t, "steal", 0.0)
    return busy, idle


def backend_seconds(db: str) -> dict[int, float]:
    """CPU seconds so far of each PostgreSQL backend connected to database `db` (by its process title), so that a
    figure can leave out what other databases on the machine cost."""
    out: dict[int, float] = {}
    for p in psutil.process_iter(["name", "cmdline"]):
        try:
            title = " ".join(p.info["cmdline"] or ())
            if p.info["name"] == "postgres" and f" {db} " in f"{title} ":
                t = p.cpu_times()
                out[p.pid] = t.user + t.system
        except psutil.Error:
            pass
    return out


class CpuMeter:
    """Cores used over an interval by this process (the load generator), the API server, and the machine; with
    `db`, also by the PostgreSQL backends of that database alone (others' work on the machine left out)."""

    def __init__(self, server: ApiServer | None = None, db: str | None = None) -> None:
        self.server = server
        self.db = db
        self.wall = self.client = self.api = self.machine = 0.0
        self.backends: float | None = None

    def _api_seconds(self) -> float:
        return self.server.cpu_seconds() if self.server else 0.0

    def __enter__(self) -> CpuMeter:
        self._pg = backend_seconds(self.db) if self.db else {}
        self._start = (time.perf_counter(), time.process_time(), self._api_seconds(), _busy_idle())
        return self

    def __exit__(self, *exc: object) -> None:
        t0, c0, a0, (b0, i0) = self._start
        b1, i1 = _busy_idle()
        self.wall = time.perf_counter() - t0
        self.client = (time.process_time() - c0) / self.wall
        self.api = (self._api_seconds() - a0) / self.wall
        span = (b1 - b0) + (i1 - i0)
        self.machine = (b1 - b0) / span * psutil.cpu_count() if span else 0.0
        if self.db:
            now = backend_seconds(self.db)
            self.backends = sum(v - self._pg.get(pid, 0.0) for pid, v in now.items()) / self.wall

    @property
    def other(self) -> float:
        """Cores used by everything else: PostgreSQL, essentially."""
        return max(self.machine - self.client - self.api, 0.0)

    def describe(self, rate: float) -> str:
        own = f" (its own backends {self.backends / rate * 1e3:.2f} ms)" if rate and self.backends is not None else ""
        per = (f"; CPU per hold: API {self.api / rate * 1e3:.2f} ms, "
               f"PostgreSQL+rest {self.other / rate * 1e3:.2f} ms{own}") if rate else ""
        pg = f", the database's own backends {self.backends:.2f}" if self.backends is not None else ""
        return (f"cores busy: load generator {self.client:.2f}, API {self.api:.2f}, PostgreSQL+rest "
                f"{self.other:.2f}{pg}, machine {self.machine:.2f} of {psutil.cpu_count()}{per}")


@dataclass
class Throughput:
    """Successful operations over a timed interval, with what went wrong otherwise."""

    name: str
    ok: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    samples: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    cpu: CpuMeter = field(default_factory=CpuMeter)

    @property
    def rate(self) -> float:
        return self.ok / self.cpu.wall if self.cpu.wall else 0.0

    def fail(self, kind: str, detail: str) -> None:
        self.failures[kind] += 1
        if len(self.samples) < 5:
            self.samples.append(f"{kind}: {detail[:300]}")


@dataclass
class Report:
    """Rows of (figure, value, target) and notes; printed as they come, appended to RESULTS.md at the end."""

    title: str
    context: str
    started: datetime
    rows: list[tuple[str, str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, figure: str, value: str, target: str = "") -> None:
        self.rows.append((figure, value, target))
        print(f"  {figure:<46} {value:<50} {target}", flush=True)

    def note(self, text: str) -> None:
        self.notes.append(text)
        print(f"    - {text}", flush=True)

    def markdown(self, repo: Path) -> str:
        def git(*args: str) -> str:
            return subprocess.run(["git", *args], capture_output=True, text=True, cwd=repo).stdout.strip()

        dirty = " + uncommitted changes" if git("status", "--porcelain", "--untracked-files=no") else ""
        head = (f"## {self.started:%Y-%m-%d %H:%M} UTC — {self.title}\n\n"
                f"Commit {git('rev-parse', '--short', 'HEAD')}{dirty}; Python {platform.python_version()}; "
                f"{psutil.cpu_count()} cores, {psutil.virtual_memory().total / 2**30:.0f} GiB. "
                f"{self.context}\n\n")
        table = "| figure | value | target |\n|---|---|---|\n" + "".join(
            f"| {a.strip()} | {b} | {c} |\n" for a, b, c in self.rows)
        notes = "\n" + "".join(f"- {n}\n" for n in self.notes) if self.notes else ""
        return head + table + notes + "\n"
