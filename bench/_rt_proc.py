"""The worker process (`python -m slothold.cli worker`) and py-spy profiles, for bench/realtime.py.

The API is bench/_server.py's ApiServer; the worker is started the same way (own session, output to
bench/.logs/) and stopped at exit, on errors, on Ctrl-C and on SIGTERM.
"""

from __future__ import annotations

import atexit
import os
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import psutil

from bench._server import error_lines, stop_group
from slothold.cli import _die_with_parent_hook
from slothold.settings import PROJECT_ROOT

_running: list[WorkerProcess] = []


@dataclass
class WorkerProcess:
    database_url: str
    redis_url: str
    log_path: Path
    proc: subprocess.Popen[bytes] | None = None
    _log: IO[bytes] | None = field(default=None, repr=False)

    def start(self) -> None:
        env = {**os.environ, "DATABASE_URL": self.database_url, "REDIS_URL": self.redis_url,
               "SLOTHOLD_LOG_LEVEL": "WARNING"}
        self._log = self.log_path.open("wb")
        # Its own session (stop() signals its group); and SIGTERM from the kernel if the bench dies unannounced.
        self.proc = subprocess.Popen([sys.executable, "-m", "slothold.cli", "worker"], cwd=PROJECT_ROOT, env=env,
                                     stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True,
                                     preexec_fn=_die_with_parent_hook())
        _running.append(self)

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def cpu_seconds(self) -> float:
        try:
            t = psutil.Process(self.pid).cpu_times()
            return float(t.user + t.system)
        except psutil.Error:
            return 0.0

    def rss_mib(self) -> float:
        try:
            return float(psutil.Process(self.pid).memory_info().rss) / 2**20
        except psutil.Error:
            return float("nan")

    def log_errors(self) -> list[str]:
        return error_lines(self.log_path)

    def stop(self) -> None:
        stop_group(self.proc)
        if self._log is not None:
            self._log.close()
            self._log = None
        if self in _running:
            _running.remove(self)


def stop_workers() -> None:
    for w in list(_running):
        w.stop()


atexit.register(stop_workers)


# ------------------------------------------------------------------------------------------------ py-spy

PY_SPY = Path(sys.executable).with_name("py-spy")
_profilers: list[subprocess.Popen[bytes]] = []


def start_profile(pid: int, seconds: float, out: Path, rate: int = 100) -> subprocess.Popen[bytes] | None:
    """`py-spy record --format raw` of `pid` for `seconds` (None when py-spy is missing).

    Not --nonblocking: reading a running 3.11 interpreter gave stale frames (a third of the samples
    on one line of graphql-core while the process was idle)."""
    if not PY_SPY.exists():
        return None
    p = subprocess.Popen([str(PY_SPY), "record", "--pid", str(pid), "--duration", str(max(1, round(seconds))),
                          "--rate", str(rate), "--format", "raw", "--native", "-o", str(out)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _profilers.append(p)
    return p


def wait_profile(p: subprocess.Popen[bytes] | None, timeout: float = 30) -> str:
    if p is None:
        return "py-spy not installed"
    try:
        _, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
    finally:
        if p in _profilers:
            _profilers.remove(p)
    return "" if p.returncode == 0 else err.decode(errors="replace")[-300:]


def stop_profilers() -> None:
    for p in list(_profilers):
        if p.poll() is None:
            p.kill()
            p.wait(5)
        _profilers.remove(p)


atexit.register(stop_profilers)

_FRAME = re.compile(r"^(?P<func>.*?) \((?P<file>[^():]*)(?::\d+)?\)$")

# Inclusive shares of these frames (function name, file fragment; "" = any) are what the report shows.
MARKERS: list[tuple[str, str, str]] = [
    ("hub: Redis message → subscriber queues", "_dispatch", "slothold/hub.py"),
    ("feed: unit_events", "unit_events", "resolvers/feed.py"),
    ("resolver: slot_changed (filter + SlotChange)", "slot_changed", "resolvers/subscriptions.py"),
    ("graphql-core: execute the selection per event", "execute_subscription_event", "graphql/execution"),
    ("  of which actually executed (SharedEventExecutor miss)", "execute_operation", "graphql/execution"),
    ("strawberry: schema extensions per result (MaskErrors…)", "", "strawberry/extensions/"),
    ("strawberry: send_next (message, JSON, websocket)", "send_next", "strawberry/"),
    ("JSON encoding", "dumps", "json/"),
    ("uvicorn websocket send", "send", "uvicorn/protocols/websockets"),
    ("socket writes", "write", "libc"),
    ("garbage collection", "gc_collect_main", ""),
    ("hold mutations (HTTP requests)", "run_asgi", "uvicorn/protocols/http"),
    ("asyncpg", "", "asyncpg/"),
    ("redis-py", "", "redis/"),
    ("relay: pass_once", "pass_once", "jobs/relay.py"),
    ("relay: publish", "publish", "broadcaster/"),
    ("arq enqueue_job", "enqueue_job", "arq/"),
]
IDLE_LEAVES = ("epoll_wait", "epoll_pwait", "EpollSelector.select")


def summarize(raw: Path, seconds: float, rate: int = 100, top: int = 12,
              markers: list[tuple[str, str, str]] | None = None) -> list[str]:
    """Lines: busy share, inclusive shares of `markers` (default MARKERS), and the top self-time functions."""
    if not raw.exists():
        return [f"no profile at {raw}"]
    stacks: list[tuple[list[tuple[str, str]], int]] = []
    total = 0
    for line in raw.read_text(errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        frames = []
        for f in stack.split(";"):
            m = _FRAME.match(f)
            frames.append((m["func"], m["file"]) if m else (f, ""))
        stacks.append((frames, int(count)))
        total += int(count)
    # With --native, samples waiting in epoll are not always dropped as idle: count them apart.
    idle = sum(c for frames, c in stacks if frames[-1][0] in IDLE_LEAVES)
    stacks = [(frames, c) for frames, c in stacks if frames[-1][0] not in IDLE_LEAVES]
    total -= idle
    if not total:
        return ["profile: no busy samples"]
    out = [f"{total:,} busy samples = {total / (rate * seconds):.0%} of one core over {seconds:.0f} s "
           f"(+{idle} in epoll)"]
    inclusive = []
    for label, func, file in markers or MARKERS:
        n = sum(c for frames, c in stacks
                if any((not func or fn == func or fn.endswith("." + func)) and file in fl for fn, fl in frames))
        if n:
            inclusive.append(f"{label} {n / total:.0%}")
    out.append("inclusive: " + "; ".join(inclusive))
    self_time: Counter[str] = Counter()
    for frames, c in stacks:
        fn, fl = frames[-1]
        short = "/".join(Path(fl).parts[-2:]) if fl else "?"
        self_time[f"{fn} ({short})"] += c
    out.append("self: " + "; ".join(f"{k} {v / total:.1%}" for k, v in self_time.most_common(top)))
    return out
