"""The storm's processes — API processes, workers, and the Redis it owns — each restartable, and the faults injected
into them at fixed points of the storm."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import asyncpg
import httpx
import psutil

from bench._server import error_lines, stop_group
from bench._storm_config import HARNESS, SECRET, Config, Stats
from slothold.cli.embedded import EmbeddedServer, free_port, start_redis
from slothold.cli.embedded.pgbouncer import PgBouncer, start_pgbouncer
from slothold.settings import PROJECT_ROOT


class Proc:
    """A child process in its own session, restartable."""

    def __init__(self, name: str, args: list[str], env: dict[str, str], logs: Path) -> None:
        self.name, self.args, self.env, self.log = name, args, env, logs / f"{name}.log"
        self.popen: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.popen = subprocess.Popen([sys.executable, *self.args], cwd=PROJECT_ROOT, env=self.env, stdout=out,
                                          stderr=subprocess.STDOUT, start_new_session=True)

    def kill(self) -> None:
        if self.popen is not None and self.popen.poll() is None:
            os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait(5)

    def stop(self) -> None:
        stop_group(self.popen)

    def rss_mib(self) -> float:
        if self.popen is None or self.popen.poll() is not None:
            return 0.0
        try:
            root = psutil.Process(self.popen.pid)
            return sum(p.memory_info().rss for p in [root, *root.children(recursive=True)]) / 2**20
        except psutil.Error:
            return 0.0


class System:
    """The processes of the storm: APIs, workers, and the Redis it owns."""

    def __init__(self, cfg: Config, db_url: str, logs: Path) -> None:
        self.cfg, self.db_url, self.logs = cfg, db_url, logs
        self.redis_dir = logs / "redis"
        self.redis: EmbeddedServer = start_redis(self.redis_dir, free_port())
        self.bouncer: PgBouncer | None = None
        pooled = db_url
        if cfg.pgbouncer:
            self.bouncer = start_pgbouncer(logs / "pgbouncer", db_url, pool_size=cfg.pgbouncer,
                                           max_db_connections=cfg.pgbouncer)
            pooled = self.bouncer.url_for(db_url)
        self.env = {**os.environ, "DATABASE_URL": pooled, "DATABASE_DIRECT_URL": db_url, "REDIS_URL": self.redis.url,
                    "SLOTHOLD_LOG_LEVEL": "WARNING", "SLOTHOLD_SWEEP_SECONDS": "5",
                    "SLOTHOLD_PIX_PROVIDER": "sandbox", "SLOTHOLD_SANDBOX_WEBHOOK_SECRET": SECRET}
        self.processes(cfg, logs)

    start_timeout: float = 60
    """How long an API may take to answer after starting."""

    def processes(self, cfg: Config, logs: Path) -> None:
        """The API and worker processes on `self.env` (not started yet)."""
        self.ports = [free_port() for _ in range(cfg.apis)]
        self.apis = [Proc(f"api{i}", ["-m", "uvicorn", "slothold.app:create_app", "--factory", "--port", str(p),
                                      "--no-access-log", "--log-level", "warning"], self.env, logs)
                     for i, p in enumerate(self.ports)]
        self.workers = [Proc(f"worker{i}", ["-m", "slothold.cli", "worker"], self.env, logs)
                        for i in range(cfg.workers)]

    def start(self) -> None:
        for p in [*self.apis, *self.workers]:
            p.start()
        for port, p in zip(self.ports, self.apis, strict=True):
            wait_http(port, p, self.start_timeout)

    def stop(self) -> None:
        for p in [*self.workers, *self.apis]:
            p.stop()
        self.redis.stop()
        if self.bouncer is not None:
            self.bouncer.stop()

    def procs(self) -> list[Proc]:
        return [*self.apis, *self.workers]

    def error_lines(self) -> list[str]:
        return [f"{p.name}: {line}" for p in self.procs() for line in error_lines(p.log)]


def wait_http(port: int, proc: Proc, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.popen is not None and proc.popen.poll() is not None:
            raise RuntimeError(f"{proc.name} exited; see {proc.log}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{proc.name} did not come up; see {proc.log}")


async def faults(cfg: Config, system: System, stop: asyncio.Event, stats: Stats, t0: float) -> None:
    """Inject the faults at fixed points of the storm."""
    plan = [(0.2, "worker0 SIGKILL, restarted 3 s later"), (0.35, "Redis stopped for 5 s"),
            (0.5, "api1 restarted (SIGTERM)"), (0.65, "PostgreSQL connections cut"),
            (0.8, "worker1 SIGKILL, restarted 3 s later")]
    for at, what in plan:
        delay = t0 + at * cfg.seconds - time.monotonic()
        if delay > 0:
            try:
                await asyncio.wait_for(stop.wait(), delay)
                return
            except TimeoutError:
                pass
        stats.faults.append((time.monotonic() - t0, what))
        if what.startswith("worker"):
            w = system.workers[int(what[6]) % len(system.workers)]
            w.kill()
            await asyncio.sleep(3)
            w.start()
        elif what.startswith("Redis"):
            port = system.redis.port
            system.redis.stop()
            await asyncio.sleep(5)
            system.redis = await asyncio.to_thread(start_redis, system.redis_dir, port)
        elif what.startswith("api"):
            i = 1 % len(system.apis)
            system.apis[i].stop()
            system.apis[i].start()
            await asyncio.to_thread(wait_http, system.ports[i], system.apis[i])
        else:
            conn = await asyncpg.connect(system.db_url)
            try:
                cut = await conn.fetchval(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() "
                    "AND pid <> pg_backend_pid() AND application_name <> $1", HARNESS)
            finally:
                await conn.close()
            stats.faults[-1] = (stats.faults[-1][0], f"{what}: {cut} backends terminated")
