"""Start, watch and stop the API as a real uvicorn server process (with its workers)."""

from __future__ import annotations

import atexit
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import httpx
import psutil

from slothold.settings import PROJECT_ROOT

_running: list[ApiServer] = []


def error_lines(log_path: Path) -> list[str]:
    """Lines of a process's output that report an error or a traceback."""
    if not log_path.exists():
        return []
    lines = log_path.read_text(errors="replace").splitlines()
    return [ln for ln in lines if '"level": "error"' in ln or "Traceback" in ln or "ERROR" in ln]


def stop_group(proc: subprocess.Popen[bytes] | None) -> None:
    """Stop a child's process group: SIGTERM, then SIGKILL if it lingers."""
    if proc is None or proc.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, 15.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(wait)
            return
        except subprocess.TimeoutExpired:
            continue


def issue_bench_token(database_url: str) -> str:
    """A system token in the bench database (the API refuses anonymous callers), used by the bench clients."""
    from bench import _http, _rt_ws
    from store.access import issue_system_token_blocking

    token = issue_system_token_blocking(database_url, "bench")
    _http.TOKEN = _rt_ws.TOKEN = token
    return token


@dataclass
class ApiServer:
    """`python -m uvicorn slothold.app:create_app --factory` with `workers` workers, in its own session."""

    port: int
    workers: int
    database_url: str
    redis_url: str
    log_path: Path
    proc: subprocess.Popen[bytes] | None = None
    env: dict[str, str] = field(default_factory=dict)
    _log: IO[bytes] | None = field(default=None, repr=False)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> None:
        issue_bench_token(self.database_url)
        env = {**os.environ, "DATABASE_URL": self.database_url, "REDIS_URL": self.redis_url,
               "SLOTHOLD_LOG_LEVEL": "WARNING", **self.env}
        cmd = [sys.executable, "-m", "uvicorn", "slothold.app:create_app", "--factory",
               "--host", "127.0.0.1", "--port", str(self.port), "--workers", str(self.workers),
               "--no-access-log", "--log-level", "warning"]
        self._log = self.log_path.open("wb")
        # A session of its own: stop() signals exactly this process group (the server and its workers).
        self.proc = subprocess.Popen(cmd, cwd=PROJECT_ROOT, env=env, stdout=self._log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        _running.append(self)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}; see {self.log_path}")
            if self._healthy() and len(self.worker_pids()) >= self.workers:
                return
            time.sleep(0.2)
        raise TimeoutError(f"server on port {self.port} not ready after {timeout:.0f}s; see {self.log_path}")

    def _healthy(self) -> bool:
        try:
            return httpx.get(self.base_url + "/readyz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def processes(self) -> list[psutil.Process]:
        """The server process and all its descendants."""
        if self.proc is None or self.proc.poll() is not None:
            return []
        try:
            root = psutil.Process(self.proc.pid)
            return [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            return []

    def worker_pids(self) -> list[int]:
        """Processes that serve requests: the root with one worker, else its children running uvicorn."""
        procs = self.processes()
        if self.workers == 1:
            return [p.pid for p in procs[:1]]
        # uvicorn's supervisor spawns the workers via multiprocessing (there may also be a resource tracker).
        out = []
        for p in procs[1:]:
            try:
                if "resource_tracker" not in " ".join(p.cmdline()):
                    out.append(p.pid)
            except psutil.Error:
                pass
        return out

    def cpu_seconds(self) -> float:
        """User + system CPU time of the server and its workers so far."""
        total = 0.0
        for p in self.processes():
            try:
                t = p.cpu_times()
                total += t.user + t.system
            except psutil.Error:
                pass
        return total

    def rss_mib(self) -> list[tuple[str, float]]:
        """Resident memory (MiB) of each process, with its role: worker, supervisor or helper."""
        workers = set(self.worker_pids())
        out: list[tuple[str, float]] = []
        for i, p in enumerate(self.processes()):
            role = "worker" if p.pid in workers else "supervisor" if i == 0 else "helper"
            try:
                out.append((role, p.memory_info().rss / 2**20))
            except psutil.Error:
                pass
        return out

    def log_errors(self) -> list[str]:
        """Lines of the server's output that report an error or a traceback."""
        return error_lines(self.log_path)

    def stop(self) -> None:
        stop_group(self.proc)
        if self._log is not None:
            self._log.close()
            self._log = None
        if self in _running:
            _running.remove(self)


def stop_all() -> None:
    """Stop every server this process started (atexit, Ctrl-C, errors)."""
    for s in list(_running):
        s.stop()


atexit.register(stop_all)
