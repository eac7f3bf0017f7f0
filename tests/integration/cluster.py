"""Real processes for end-to-end tests: API servers (uvicorn) and workers, plus a websocket client."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import websockets

from slothold.cli.embedded import free_port
from store.access import issue_system_token_blocking

ROOT = Path(__file__).resolve().parents[2]
TOKEN: str | None = None
"""A system token on the test database, issued when a cluster (or an in-process server) starts: what `gql` and
`WsClient` send unless told otherwise."""


def issue_system_token(database_url: str) -> str:
    """A platform token in the database (tests exercise the engine; tests/api/test_access.py the roles)."""
    global TOKEN
    TOKEN = issue_system_token_blocking(database_url, "tests")
    return TOKEN


def _auth(token: str | None) -> dict[str, str]:
    token = token or TOKEN
    return {"authorization": f"Bearer {token}"} if token else {}


class Proc:
    """A child process with its log file."""

    def __init__(self, name: str, args: list[str], env: dict[str, str], log_dir: Path) -> None:
        self.name, self.args, self.env = name, args, env
        self.log = log_dir / f"{name}.log"
        self.popen: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        out = self.log.open("ab")
        self.popen = subprocess.Popen([sys.executable, *self.args], cwd=ROOT, env=self.env, stdout=out,
                                      stderr=subprocess.STDOUT, start_new_session=True)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 10) -> None:
        if self.popen is None or self.popen.poll() is not None:
            return
        os.killpg(self.popen.pid, sig)
        try:
            self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait(5)

    def kill(self) -> None:
        self.stop(signal.SIGKILL)

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-3000:] if self.log.exists() else ""


class Cluster:
    """API processes and workers on one database and Redis."""

    def __init__(self, database_url: str, redis_url: str, log_dir: Path, **env: str) -> None:
        self.env = {**os.environ, "DATABASE_URL": database_url, "REDIS_URL": redis_url,
                    "SLOTHOLD_LOG_LEVEL": "INFO", **env}
        self.log_dir = log_dir
        self.apis: list[tuple[Proc, int]] = []
        self.workers: list[Proc] = []

    def add_api(self) -> int:
        port = free_port()
        p = Proc(f"api{len(self.apis)}", ["-m", "uvicorn", "slothold.app:create_app", "--factory", "--port",
                                           str(port), "--log-level", "warning"], self.env, self.log_dir)
        p.start()
        self.apis.append((p, port))
        _wait_http(f"http://127.0.0.1:{port}/healthz", p)
        return port

    def add_worker(self) -> Proc:
        """A worker, returned once its job loop polls (the relay starts just before it) when it logs at INFO: a test's
        clock starts then. On a loaded machine a worker took over 5 s to start, and tests timed jobs from the spawn."""
        p = Proc(f"worker{len(self.workers)}", ["-m", "slothold.cli", "worker"], self.env, self.log_dir)
        p.start()
        self.workers.append(p)
        if self.env["SLOTHOLD_LOG_LEVEL"] in ("DEBUG", "INFO"):  # arq says so at INFO (the browser suites log less)
            wait_worker_polling(p)
        return p

    def stop(self) -> None:
        for p in self.workers:
            p.stop()
        for p, _ in self.apis:
            p.stop()

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.tail()}" for p in [*self.workers, *(a for a, _ in self.apis)])


def _wait_http(url: str, proc: Proc, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.popen is not None and proc.popen.poll() is not None:
            raise RuntimeError(f"{proc.name} exited:\n{proc.tail()}")
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{proc.name} did not come up:\n{proc.tail()}")


WORKER_POLLING = "Starting worker for"
"""What arq logs as its job loop begins (arq/worker.py `Worker.main`)."""


def wait_worker_polling(proc: Proc, timeout: float = 30) -> None:
    """Wait until the worker of a new Proc (a log of its own) has begun polling for jobs."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.log.exists() and WORKER_POLLING in proc.log.read_text(errors="replace"):
            return
        if proc.popen is not None and proc.popen.poll() is not None:
            raise RuntimeError(f"{proc.name} exited:\n{proc.tail()}")
        time.sleep(0.1)
    raise RuntimeError(f"{proc.name} did not begin polling for jobs in {timeout:.0f} s:\n{proc.tail()}")


@contextmanager
def cluster(database_url: str, redis_url: str, log_dir: Path, apis: int = 1, workers: int = 1,
            **env: str) -> Iterator[Cluster]:
    c = Cluster(database_url, redis_url, log_dir, **env)
    issue_system_token(database_url)
    try:
        for _ in range(apis):
            c.add_api()
        for _ in range(workers):
            c.add_worker()
        yield c
    finally:
        c.stop()


async def gql(port: int, query: str, variables: dict[str, Any] | None = None, token: str | None = None
              ) -> dict[str, Any]:
    """One GraphQL request over HTTP to a real server (as the system token unless `token` is given)."""
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=10, headers=_auth(token)) as c:
        r = await c.post("/graphql", json={"query": query, "variables": variables or {}})
    body: dict[str, Any] = r.json()
    assert "errors" not in body, body
    return body["data"]  # type: ignore[no-any-return]


class WsClient:
    """A graphql-transport-ws client (the protocol, by hand: it is the thing under test)."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws

    @classmethod
    async def connect(cls, port: int, token: str | None = None) -> WsClient:
        ws = await websockets.connect(f"ws://127.0.0.1:{port}/graphql", subprotocols=["graphql-transport-ws"])
        await ws.send(json.dumps({"type": "connection_init", "payload": _auth(token)}))
        ack = json.loads(await asyncio.wait_for(ws.recv(), 5))
        assert ack["type"] == "connection_ack", ack
        return cls(ws)

    async def subscribe(self, query: str, variables: dict[str, Any], sub_id: str = "1") -> None:
        await self.ws.send(json.dumps({"id": sub_id, "type": "subscribe",
                                       "payload": {"query": query, "variables": variables}}))

    async def next(self, timeout: float = 5) -> dict[str, Any]:
        while True:
            msg = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
            if msg["type"] == "ping":
                await self.ws.send(json.dumps({"type": "pong"}))
                continue
            return msg  # type: ignore[no-any-return]

    async def collect(self, n: int, timeout: float = 10) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        deadline = time.monotonic() + timeout
        while len(out) < n:
            msg = await self.next(max(0.01, deadline - time.monotonic()))
            assert msg["type"] == "next", msg
            out.append(msg["payload"]["data"])
        return out

    async def close(self) -> None:
        await self.ws.close()


async def wait_until(condition: Any, timeout: float = 5.0, every: float = 0.1) -> bool:
    """Poll an async condition until it holds or `timeout` passes; return its last value."""
    deadline = time.monotonic() + timeout
    while True:
        if await condition():
            return True
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(every)
