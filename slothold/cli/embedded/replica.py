"""A PostgreSQL primary and a streaming replica on this machine (the system's PostgreSQL binaries: `initdb`,
`pg_basebackup -R`, real streaming replication), for tests and benchmarks of reads served by a replica."""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from slothold.cli.embedded.process import EmbeddedServerError, _tail, free_port

RUN_AS = "postgres"
"""The system user that runs the servers when we are root (Debian's postgresql package makes it)."""


def pg_bin_dir() -> Path | None:
    """The newest system PostgreSQL's bin directory with initdb and pg_basebackup, or None."""
    dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda d: int(Path(d).parent.name)
                  if Path(d).parent.name.isdigit() else 0)
    for d in reversed(dirs):
        if Path(d, "initdb").exists() and Path(d, "pg_basebackup").exists():
            return Path(d)
    found = shutil.which("pg_basebackup")
    return Path(found).parent if found and shutil.which("initdb") else None


@dataclass
class _Server:
    name: str
    directory: Path
    port: int
    popen: subprocess.Popen[bytes] | None = None

    @property
    def log(self) -> Path:
        return self.directory.parent / f"{self.name}.log"

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"


@dataclass
class PrimaryWithReplica:
    """`start()` makes a primary (trust auth on 127.0.0.1, its own port) and one streaming replica of it."""

    base: Path
    servers: list[_Server] = field(default_factory=list)
    work: Path | None = None
    """Where the servers' directories are when they run as another user (removed at stop)."""

    @property
    def primary(self) -> _Server:
        return self.servers[0]

    @property
    def replica(self) -> _Server:
        return self.servers[1]

    def _run(self, args: list[str], timeout: float = 120) -> None:
        user = pwd.getpwnam(RUN_AS) if os.geteuid() == 0 else None
        done = subprocess.run(args, capture_output=True, text=True, timeout=timeout, check=False,
                              user=user.pw_uid if user else None, group=user.pw_gid if user else None,
                              env={k: v for k, v in os.environ.items() if not k.startswith("PG")})
        if done.returncode != 0:
            raise EmbeddedServerError(f"{Path(args[0]).name} failed: {done.stdout[-2000:]}{done.stderr[-2000:]}")

    def start(self) -> PrimaryWithReplica:
        bin_dir = pg_bin_dir()
        if bin_dir is None:
            raise EmbeddedServerError("no system PostgreSQL with initdb and pg_basebackup (apt-get install postgresql)")
        self.base.mkdir(parents=True, exist_ok=True)
        work = self.base
        if os.geteuid() == 0:
            # The servers run as RUN_AS, in a directory of their own under /tmp: not under `base`, which may sit in a
            # tree another pytest session makes private (0700) at any moment. Their logs are copied to `base` at stop.
            work = self.work = Path(tempfile.mkdtemp(prefix="slothold-pg-"))
            user = pwd.getpwnam(RUN_AS)
            os.chown(work, user.pw_uid, user.pw_gid)
        primary = _Server("primary", work / "primary", free_port())
        replica = _Server("replica", work / "replica", free_port())
        self.servers = [primary, replica]
        self._run([str(bin_dir / "initdb"), "-D", str(primary.directory), "-U", "postgres", "--auth=trust",
                   "-E", "UTF8", "--no-sync"])
        self._serve(bin_dir, primary)
        self._run([str(bin_dir / "pg_basebackup"), "-h", "127.0.0.1", "-p", str(primary.port), "-U", "postgres",
                   "-D", str(replica.directory), "-R", "-X", "stream", "--no-sync"])
        self._serve(bin_dir, replica)
        return self

    def _serve(self, bin_dir: Path, server: _Server) -> None:
        user = pwd.getpwnam(RUN_AS) if os.geteuid() == 0 else None
        log = server.log  # beside the data directory: pg_basebackup would copy one inside it
        server.popen = subprocess.Popen(
            [str(bin_dir / "postgres"), "-D", str(server.directory), "-p", str(server.port),
             "-c", "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={server.directory}",
             "-c", "fsync=off", "-c", "full_page_writes=off",
             "-c", "max_connections=60", "-c", "hot_standby_feedback=on", "-c", "wal_receiver_status_interval=1"],
            stdin=subprocess.DEVNULL, stdout=log.open("ab"), stderr=subprocess.STDOUT, start_new_session=True,
            user=user.pw_uid if user else None, group=user.pw_gid if user else None)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if server.popen.poll() is not None:
                raise EmbeddedServerError(f"{server.name} exited; its log:\n{_tail(log)}")
            ready = subprocess.run([str(bin_dir / "pg_isready"), "-h", "127.0.0.1", "-p", str(server.port),
                                    "-U", "postgres", "-d", "postgres"],
                                   capture_output=True, check=False)
            if ready.returncode == 0:
                return
            time.sleep(0.2)
        raise EmbeddedServerError(f"{server.name} did not accept connections; its log:\n{_tail(log)}")

    def restart_replica(self) -> None:
        """Start the stopped replica again: it resumes streaming from where it stopped."""
        bin_dir = pg_bin_dir()
        assert bin_dir is not None
        self._serve(bin_dir, self.replica)

    def stop_replica(self) -> None:
        """Stop the replica (fast shutdown), leaving the primary."""
        self._stop(self.replica)

    def stop(self) -> None:
        for s in reversed(self.servers):
            self._stop(s)
        if self.work is not None:
            for s in self.servers:
                with contextlib.suppress(OSError):
                    shutil.copyfile(s.log, self.base / f"{s.name}.log")
            shutil.rmtree(self.work, ignore_errors=True)
            self.work = None

    @staticmethod
    def _stop(s: _Server) -> None:
        if s.popen is not None and s.popen.poll() is None:
            s.popen.send_signal(2)  # SIGINT: fast shutdown (clients are disconnected)
            try:
                s.popen.wait(20)
            except subprocess.TimeoutExpired:
                s.popen.kill()
                s.popen.wait(5)

    def logs(self) -> str:
        return "\n".join(f"--- {s.name}\n{_tail(s.log, 15)}" for s in self.servers)
