"""PgBouncer (Debian's `pgbouncer`, 1.18) in transaction mode in front of one PostgreSQL server, for tests and
benchmarks: the configuration Slothold expects of a pooler (docs/scaling.md), written to a directory of its own.

PgBouncer 1.18 forwards only a few startup parameters (application_name among them) and does not track prepared
statements in transaction mode: Slothold's pools behind it turn asyncpg's statement cache off and send no other
startup parameter (store/db.py), and the session settings they would have sent (jit, lock_timeout,
statement_timeout) are set on each server connection by `connect_query` here — a deployment does the same, or sets
them with ALTER ROLE / ALTER DATABASE.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from slothold.cli.embedded.postgres import _pg_system_user
from slothold.cli.embedded.process import START_TIMEOUT, EmbeddedServer, EmbeddedServerError, _tail, free_port

CONNECT_QUERY = "SET jit = off; SET lock_timeout = 5000; SET statement_timeout = 30000"
"""What store/db.SERVER_SETTINGS would send as startup parameters, run once per server connection instead."""


def pgbouncer_bin() -> str | None:
    """The pgbouncer executable, or None when it is not installed (apt-get install pgbouncer)."""
    return shutil.which("pgbouncer") or (
        "/usr/sbin/pgbouncer" if os.access("/usr/sbin/pgbouncer", os.X_OK) else None)


def _ini(server_url: str, port: int, data_dir: Path, pool_size: int, max_db_connections: int,
         databases: list[str]) -> str:
    parts = urlsplit(server_url)
    host, server_port = parts.hostname or "127.0.0.1", parts.port or 5432
    user = parts.username or "postgres"
    password = f" password={parts.password}" if parts.password else ""
    target = f"host={host} port={server_port} user={user}{password}"
    # 1.18 runs connect_query only for databases it names (not for those the `*` fallback makes up).
    entries = "".join(f"{db} = {target} dbname={db} connect_query='{CONNECT_QUERY}'\n" for db in databases)
    return f"""[databases]
{entries}* = {target}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {port}
unix_socket_dir =
auth_type = trust
auth_file = {data_dir / "users.txt"}
pool_mode = transaction
default_pool_size = {pool_size}
min_pool_size = 0
reserve_pool_size = 0
max_db_connections = {max_db_connections}
max_client_conn = 1000
server_reset_query =
server_check_delay = 5
server_login_retry = 1
query_wait_timeout = 60
admin_users = {user}
stats_users = {user}
logfile = {data_dir / "pgbouncer.log"}
pidfile = {data_dir / "pgbouncer.pid"}
"""


class PgBouncer(EmbeddedServer):
    """A running PgBouncer: `.url_for(database)` is the pooled URL of a database; `.admin_url` its console."""

    user = "postgres"
    popen: subprocess.Popen[bytes] | None = None

    def url_for(self, database_url: str) -> str:
        """The URL of `database_url`'s database through this PgBouncer (same user and database, PgBouncer's port)."""
        parts = urlsplit(database_url)
        auth = parts.username or "postgres"
        if parts.password:
            auth += f":{parts.password}"
        return urlunsplit(parts._replace(netloc=f"{auth}@127.0.0.1:{self.port}"))

    @property
    def admin_url(self) -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/pgbouncer"


def start_pgbouncer(data_dir: Path, server_url: str, pool_size: int = 10, max_db_connections: int = 0,
                    port: int | None = None, databases: list[str] | None = None) -> PgBouncer:
    """Start PgBouncer (transaction mode, `pool_size` server connections per database and user, at most
    `max_db_connections` per database — 0: no cap) in front of the server of `server_url`, for `databases` (default:
    the database of `server_url`) with Slothold's session settings, and any other database without them."""
    exe = pgbouncer_bin()
    if exe is None:
        raise EmbeddedServerError("pgbouncer is not installed (apt-get install pgbouncer)")
    data_dir = Path(data_dir).absolute()
    data_dir.mkdir(parents=True, exist_ok=True)
    port = port or free_port()
    user = urlsplit(server_url).username or "postgres"
    run_as: int | None = None
    system_user = _pg_system_user()
    run_dir = data_dir
    if system_user is not None:
        # PgBouncer refuses to run as root: as PostgreSQL's system user, in a directory of its own under /tmp (not
        # `data_dir`, which may sit in a tree another pytest session makes private at any moment), whose log is
        # copied into `data_dir` when it stops.
        run_as = system_user.uid
        run_dir = Path(tempfile.mkdtemp(prefix="slothold-pgbouncer-"))
        os.chown(run_dir, system_user.uid, system_user.gid)
    (run_dir / "users.txt").write_text(f'"{user}" ""\n')
    ini = run_dir / "pgbouncer.ini"
    names = databases or [urlsplit(server_url).path.lstrip("/") or "postgres"]
    ini.write_text(_ini(server_url, port, run_dir, pool_size, max_db_connections, names))
    log = run_dir / "pgbouncer.log"
    args = [exe, str(ini)]
    if system_user is not None:
        for f in run_dir.iterdir():
            os.chown(f, system_user.uid, system_user.gid)
    child = subprocess.Popen(args, cwd=run_dir, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True, user=run_as)
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if child.poll() is not None:
            raise EmbeddedServerError(f"pgbouncer exited ({child.returncode}); its log:\n{_tail(log)}")
        if _answers(port):
            break
        time.sleep(0.05)
    else:
        child.kill()
        child.wait()
        raise EmbeddedServerError(f"pgbouncer did not listen on {port}; its log:\n{_tail(log)}")

    def stop() -> None:
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)  # 1.18: SIGTERM shuts down at once; SIGINT waits for every transaction
            try:
                child.wait(10)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait(5)
        if run_dir != data_dir:
            with contextlib.suppress(OSError):
                with (data_dir / "pgbouncer.log").open("ab") as out:
                    out.write(log.read_bytes())
            shutil.rmtree(run_dir, ignore_errors=True)

    bouncer = PgBouncer("pgbouncer", f"postgresql://{user}@127.0.0.1:{port}/", port, data_dir, log, stop)
    bouncer.user = user
    bouncer.popen = child
    return bouncer


def _answers(port: int) -> bool:
    import socket

    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0
