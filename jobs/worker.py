"""The arq worker: WorkerSettings, its lifecycle, and `run_worker` for the CLI."""

from __future__ import annotations

import logging
from typing import Any

from arq import cron
from arq.connections import RedisSettings
from arq.worker import run_worker as arq_run_worker

from domain.services import Deps, expire_lapsed
from slothold.clock import SystemClock
from slothold.logs import configure
from slothold.settings import Settings
from store.db import create_pool
from store.uow import PgUnitOfWork

log = logging.getLogger("slothold.jobs")


async def sweep_expired_holds(ctx: dict[str, Any]) -> int:
    """Expire every hold past its deadline (every 30 s; safe to run twice or on two workers)."""
    total = 0
    while (n := await expire_lapsed(ctx["deps"])) > 0:
        total += n
    if total:
        log.info("expired %d lapsed holds", total)
    return total


async def startup(ctx: dict[str, Any]) -> None:
    settings: Settings = ctx.get("settings") or Settings.from_env()
    assert settings.database_url, "DATABASE_URL must be set"
    pool = await create_pool(settings.database_url, 1, 10)
    ctx["pool"] = pool
    ctx["deps"] = Deps(uow=lambda: PgUnitOfWork(pool), clock=SystemClock())


async def shutdown(ctx: dict[str, Any]) -> None:
    pool = ctx.get("pool")
    if pool is not None:
        await pool.close()


class WorkerSettings:
    """arq configuration: the jobs Slothold runs in the background."""

    functions: list[Any] = []
    cron_jobs = [cron(sweep_expired_holds, second={0, 30}, run_at_startup=True, unique=True, timeout=60)]
    on_startup = startup
    on_shutdown = shutdown
    redis_settings = RedisSettings()
    handle_signals = True


def run_worker(settings: Settings) -> None:
    """Run the worker in this process until SIGINT/SIGTERM."""
    assert settings.redis_url, "REDIS_URL must be set"
    configure(settings.log_level)
    arq_run_worker(WorkerSettings, redis_settings=RedisSettings.from_dsn(settings.redis_url),  # type: ignore[arg-type]
                   ctx={"settings": settings})
