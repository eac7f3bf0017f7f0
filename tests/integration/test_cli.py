"""The `slothold` command: help, environment checks, one-line errors and the `dev` supervisor."""

from __future__ import annotations

import importlib.util
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from slothold.cli.embedded import free_port

SUBCOMMANDS = ["migrate", "seed-demo", "serve", "worker", "dev", "venue"]


def _env(**extra: str) -> dict[str, str]:
    """The current environment without the service URLs, plus extra."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(extra)
    return env


def _cli(
    *args: str, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "slothold.cli", *args],
        capture_output=True,
        text=True,
        env=env if env is not None else _env(),
        timeout=timeout,
    )


def test_help() -> None:
    result = _cli("--help")
    assert result.returncode == 0, result.stderr
    for name in SUBCOMMANDS:
        assert name in result.stdout


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_subcommand_help(command: str) -> None:
    result = _cli(command, "--help")
    assert result.returncode == 0, result.stderr
    assert f"usage: slothold {command}" in result.stdout


def test_console_script_is_installed() -> None:
    script = Path(sys.executable).with_name("slothold")
    if not script.exists():
        pytest.skip("the slothold console script is not installed next to this interpreter")
    result = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "usage: slothold" in result.stdout


def test_no_command_is_a_usage_error() -> None:
    assert _cli().returncode == 2


@pytest.mark.parametrize("command", ["serve", "worker"])
def test_serve_and_worker_need_the_service_urls(command: str) -> None:
    result = _cli(command)
    assert result.returncode == 2
    assert "DATABASE_URL and REDIS_URL" in result.stderr
    assert "slothold dev" in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1

    only_db = _cli(command, env=_env(DATABASE_URL="postgresql://postgres@127.0.0.1:1/x"))
    assert only_db.returncode == 2
    assert "REDIS_URL" in only_db.stderr and "DATABASE_URL and" not in only_db.stderr


@pytest.mark.parametrize("command", ["migrate", "seed-demo"])
def test_unreachable_database_is_one_clear_line(command: str) -> None:
    if command == "seed-demo" and importlib.util.find_spec("slothold.cli.demo") is None:
        pytest.skip("slothold.cli.demo does not exist yet")
    url = f"postgresql://postgres:secret@127.0.0.1:{free_port()}/slothold"
    result = _cli(command, env=_env(DATABASE_URL=url))
    assert result.returncode == 1, result.stderr
    assert "cannot reach the database at postgresql://postgres:***@127.0.0.1:" in result.stderr
    assert "secret" not in result.stderr
    assert "Traceback" not in result.stderr


def test_migrate_without_database_url() -> None:
    result = _cli("migrate")
    assert result.returncode == 2
    assert "DATABASE_URL" in result.stderr and "Traceback" not in result.stderr


def test_dev_refuses_a_busy_port(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = _cli("dev", "--port", str(port), env=_env(SLOTHOLD_DATA_DIR=str(tmp_path)))
    assert result.returncode == 1
    assert f"port {port}" in result.stderr and "--port" in result.stderr
    assert not (tmp_path / "pg").exists()  # nothing was started


# --------------------------------------------------------------------------- dev, with stand-in parts

# `dev` is tested on its own: migrations, demo data, the app and the worker are replaced by stand-ins
# injected through sitecustomize (in every process, since the children inherit PYTHONPATH).
STUBS = """
import os, signal, sys, time, types

def _module(name, **attrs):
    mod = types.ModuleType(name)
    mod.__dict__.update(attrs)
    sys.modules[name] = mod

def upgrade(database_url):
    import asyncio, asyncpg
    async def run():
        conn = await asyncpg.connect(database_url)
        await conn.execute("CREATE TABLE IF NOT EXISTS stub_demo (id int PRIMARY KEY)")
        await conn.close()
    asyncio.run(run())

async def seed_demo(database_url):
    import asyncpg
    conn = await asyncpg.connect(database_url)
    status = await conn.execute("INSERT INTO stub_demo VALUES (1) ON CONFLICT DO NOTHING")
    await conn.close()
    return "stub demo: " + ("loaded" if status.endswith(" 1") else "already there")

async def demo_owner_token(database_url, saved):
    return saved or "slh_s_stub" + os.urandom(4).hex()

def create_app():
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route
    return Starlette(routes=[Route("/healthz", lambda request: PlainTextResponse("ok"))])

def run_worker(settings):
    stop = []
    signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
    crash_at = float(os.environ.get("STUB_WORKER_CRASH_AT", "inf"))
    print("stub worker up", settings.redis_url, flush=True)
    while not stop:
        time.sleep(0.05)
        if time.time() > crash_at:
            sys.exit(3)
    print("stub worker stopped", flush=True)

_module("slothold.cli.migrate", upgrade=upgrade)
_module("slothold.cli.demo", seed_demo=seed_demo, demo_owner_token=demo_owner_token)
_module("slothold.app", create_app=create_app)
_module("slothold.worker", run_worker=run_worker)
"""


class DevProcess:
    """A running `slothold dev` whose output is collected line by line."""

    def __init__(self, env: dict[str, str], port: int) -> None:
        self.port = port
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "slothold.cli", "dev", "--port", str(port)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.output: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def wait_for(self, text: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                if self.proc.poll() is not None and self.lines.empty():
                    break
                continue
            self.output.append(line)
            if text in line:
                return
        raise AssertionError(f"{text!r} not seen; output so far:\n{''.join(self.output)}")

    def finish(self, timeout: float = 60) -> tuple[int, str]:
        code = self.proc.wait(timeout)
        time.sleep(0.2)
        while not self.lines.empty():
            self.output.append(self.lines.get())
        return code, "".join(self.output)


@pytest.fixture
def dev_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    (stubs / "sitecustomize.py").write_text(STUBS)
    pythonpath = os.pathsep.join(p for p in (str(stubs), os.environ.get("PYTHONPATH", "")) if p)
    yield _env(PYTHONPATH=pythonpath, SLOTHOLD_DATA_DIR=str(tmp_path / "data"))


def _listening(port: int, within: float = 5.0) -> bool:
    """Whether something still listens on `port` after `within` seconds (a stopped server's port closes as its last
    child exits, which on a loaded machine takes a moment after dev's own exit)."""
    deadline = time.monotonic() + within
    while True:
        with socket.socket() as sock:
            sock.settimeout(1)
            if sock.connect_ex(("127.0.0.1", port)) != 0:
                return False
        if time.monotonic() > deadline:
            return True
        time.sleep(0.2)


def test_dev_runs_everything_and_stops_cleanly(dev_env: dict[str, str]) -> None:
    port = free_port()
    dev = DevProcess(dev_env, port)
    try:
        dev.wait_for("Press Ctrl-C to stop.")
        if "stub worker up" not in "".join(dev.output):  # the API listens first; on a loaded machine the worker
            dev.wait_for("stub worker up")  # may still be starting, and a SIGTERM then ends it before its handler
    finally:
        if dev.proc.poll() is None:
            dev.proc.send_signal(signal.SIGINT)
    text = "".join(dev.output)
    assert "stub demo: loaded" in text
    assert f"http://127.0.0.1:{port}/graphql" in text
    assert f"http://127.0.0.1:{port}/healthz" in text
    token = text.split("owner token   ")[1].split()[0]
    assert token.startswith("slh_s_stub")
    db_port = int(text.split("postgresql://postgres@127.0.0.1:")[1].split("/")[0])
    code, text = dev.finish()
    assert code == 0, text
    assert "stub worker stopped" in text and "Stopped." in text
    assert not _listening(port) and not _listening(db_port)

    # Again on the same data: the demo data is still there; SIGTERM also stops it cleanly.
    dev = DevProcess(dev_env, port)
    try:
        dev.wait_for("Press Ctrl-C to stop.")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as response:
            assert response.read() == b"ok"
    finally:
        if dev.proc.poll() is None:
            dev.proc.send_signal(signal.SIGTERM)
    code, text = dev.finish()
    assert code == 0, text
    assert "stub demo: already there" in text
    assert f"owner token   {token}" in text  # kept in the data folder and reused while it is live
    assert not _listening(port) and not _listening(db_port)


def test_dev_stops_everything_when_a_child_dies(dev_env: dict[str, str]) -> None:
    port = free_port()
    dev_env["STUB_WORKER_CRASH_AT"] = str(time.time() + 3)
    dev = DevProcess(dev_env, port)
    try:
        dev.wait_for("exited unexpectedly", timeout=90)
    finally:
        if dev.proc.poll() is None and "exited unexpectedly" not in "".join(dev.output):
            dev.proc.kill()
    code, text = dev.finish()
    assert code == 1, text
    assert "the worker exited unexpectedly (exit code 3)" in text
    assert not _listening(port)
