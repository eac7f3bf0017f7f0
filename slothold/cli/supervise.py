"""The child processes of `slothold dev`: started in groups of their own that die with this process, watched, and
stopped (SIGTERM, then SIGKILL after a grace period); and the port checks around them."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable

from slothold.cli.common import PROG, CliError

STOP_GRACE_SECONDS = 10.0


def _die_with_parent_hook() -> Callable[[], None] | None:
    """A preexec_fn making a child get SIGTERM if this process dies (Linux), else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()
    pr_set_pdeathsig = 1

    def hook() -> None:
        prctl(pr_set_pdeathsig, int(signal.SIGTERM), 0, 0, 0)
        if os.getppid() != parent:  # the parent died before prctl took effect
            os.kill(os.getpid(), signal.SIGTERM)

    return hook


def _spawn(name: str, args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    """Start `python -m slothold.cli <args>` in its own process group (signals come from us only)."""
    return subprocess.Popen(
        [sys.executable, "-m", "slothold.cli", *args],
        env=env,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
        preexec_fn=_die_with_parent_hook(),
    )


def _stop_children(children: dict[str, subprocess.Popen[bytes]]) -> None:
    """SIGTERM every running child, wait up to STOP_GRACE_SECONDS, then SIGKILL their process groups."""
    for proc in children.values():
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE_SECONDS
    for name, proc in children.items():
        try:
            proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            print(
                f"{PROG}: {name} did not stop within {STOP_GRACE_SECONDS:.0f} s; killing it", file=sys.stderr
            )
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        # Leftovers in its group (e.g. uvicorn worker processes) go too.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)


def _port_in_use(host: str, port: int) -> bool:
    """Whether host:port cannot be bound right now."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return True
    return False


def _wait_listening(
    host: str, port: int, children: dict[str, subprocess.Popen[bytes]], timeout: float
) -> bool:
    """Wait until host:port accepts TCP connections; False on timeout; CliError if a child dies."""
    target = "127.0.0.1" if host in ("0.0.0.0", "") else ("::1" if host == "::" else host)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _check_children(children)
        with contextlib.suppress(OSError), socket.create_connection((target, port), timeout=0.5):
            return True
        time.sleep(0.2)
    return False


def _check_children(children: dict[str, subprocess.Popen[bytes]]) -> None:
    """CliError if any child has exited."""
    for name, proc in children.items():
        code = proc.poll()
        if code is not None:
            how = f"signal {signal.Signals(-code).name}" if code < 0 else f"exit code {code}"
            raise CliError(f"the {name} exited unexpectedly ({how}); stopping everything")
