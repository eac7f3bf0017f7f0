"""Embedded servers: the process helpers both servers use (ports, logs, pid checks, start locks)."""

from __future__ import annotations

import contextlib
import fcntl
import importlib.util
import os
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType

import psutil

PG_SYSTEM_USER = "slothold_pg"
"""System user that runs PostgreSQL when we are root (PostgreSQL refuses to run as root)."""

PG_DATABASE = "slothold"
PG_SUPERUSER = "postgres"
START_TIMEOUT = 60.0
STOP_TIMEOUT = 60.0

_PG_CONF = "slothold.conf"
_PG_LOG = "postgresql.log"
_REDIS_LOG = "redis.log"
_REDIS_PID = "redis.pid"
_REDIS_PORT = "redis.port"
_UNIX_SOCKET_MAX = 100  # sun_path is 108 bytes on Linux, 104 on macOS; keep a margin


class EmbeddedServerError(RuntimeError):


    """An embedded server could not be started or stopped."""


class EmbeddedServer:
    """A locally started server: ``.url`` to connect, ``.stop()`` (or a with-block) to shut it down."""

    def __init__(
        self,
        name: str,
        url: str,
        port: int,
        data_dir: Path,
        log_file: Path,
        stopper: Callable[[], None],
        reused: bool = False,
    ) -> None:
        self.name = name
        self.url = url
        self.port = port
        self.data_dir = data_dir
        self.log_file = log_file
        self.reused = reused
        self._stopper = stopper
        self._stopped = False

    @property
    def stopped(self) -> bool:
        """Whether stop() has been called."""
        return self._stopped

    def stop(self) -> None:
        """Shut the server down cleanly (no data loss); calling it again does nothing."""
        if self._stopped:
            return
        self._stopped = True
        self._stopper()

    def __enter__(self) -> EmbeddedServer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "stopped" if self._stopped else "running"
        return f"<EmbeddedServer {self.name} {self.url} data={self.data_dir} {state}>"


# --------------------------------------------------------------------------------------------- helpers


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _port_is_free(port: int) -> bool:
    """Whether a server could bind 127.0.0.1:port (with SO_REUSEADDR, as servers do)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def _candidate_ports(port: int | None, recorded: int | None) -> list[int]:
    """Ports to try: the requested one only, else the previously used one (if free) and fresh ones."""
    if port is not None:
        return [port]
    ports = [recorded] if recorded is not None and _port_is_free(recorded) else []
    return [*ports, free_port(), free_port(), free_port()]


def _tail(path: Path, lines: int = 25) -> str:
    """Last lines of a log file, or a note that it does not exist."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return f"(no log at {path})"
    return "\n".join(text.splitlines()[-lines:])


def _clean_env() -> dict[str, str]:
    """The environment minus PG* variables, which would redirect the PostgreSQL tools."""
    return {k: v for k, v in os.environ.items() if not k.startswith("PG")}


def _pid_state(pid: int, name: str, workdir: Path) -> str:
    """Classify pid: 'ours' (a live `name` server working in workdir), 'gone' (no such process),
    'dead' (a zombie, or the pid now belongs to another program) or 'unknown' (not allowed to look).
    """
    try:
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            return "dead"
        if Path(proc.exe()).name != name or Path(proc.cwd()) != workdir:
            return "dead"
    except psutil.NoSuchProcess:
        return "gone"
    except psutil.ZombieProcess:
        return "dead"
    except (psutil.AccessDenied, OSError):
        return "unknown"
    return "ours"


def _process_alive(pid: int, name: str, workdir: Path) -> bool:
    """Whether pid is a live (non-zombie) `name` server process working in workdir (not a reused pid)."""
    return _pid_state(pid, name, workdir) == "ours"


def _wait_pid_gone(pid: int, timeout: float) -> bool:
    """Wait until pid has exited (or is a zombie); True if it did within timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.05)
    return False


@contextlib.contextmanager
def _start_lock(data_dir: Path) -> Iterator[None]:
    """Serialise concurrent starts on one data directory (lock file next to it, not inside)."""
    lock_path = data_dir.parent / f".{data_dir.name}.start-lock"
    with open(lock_path, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)

def _package_dir(package: str) -> Path:
    """Directory of an installed package, found without importing it (importing has side effects)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddedServerError(f"the {package!r} package is not installed")
    return Path(next(iter(spec.submodule_search_locations)))

def _read_from(path: Path, offset: int) -> str:
    """Text appended to path after byte offset."""
    try:
        with path.open("rb") as handle:
            handle.seek(offset)
            return handle.read().decode(errors="replace")
    except OSError:
        return ""
