"""The worker process: arq jobs (deadlines, sweeps, pruning) and the outbox relay, side by side.

Any number of workers may run: deadline jobs have fixed ids (enqueued once), sweeps lock rows with
SKIP LOCKED, and one relay leads at a time. When Redis goes away the arq loop is restarted once it
is back; the relay keeps numbering events in the database meanwhile.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from collections.abc import Mapping
from functools import partial
from typing import Any

import asyncpg
from arq import create_pool as create_arq_pool
from arq import cron
from arq.connections import ArqRedis
from arq.worker import Worker
from redis.exceptions import RedisError

from domain.ports import Clock
from jobs import attendance, notify, series_pay, tasks
from jobs.relay import Relay, _sleep_unless
from providers.channels import make_channels
from providers.clock import SystemClock
from providers.webhooks import HttpWebhookSender
from providers.whatsapp import tasks as whatsapp
from slothold.redis_conn import arq_settings, broadcast
from slothold.settings import Settings
from slothold.wiring import build_deps
from store.attendance import PgAttendance
from store.db import create_config_pool, create_pool
from store.in_app import PgInApp
from store.notifications import PgDeliveries
from store.outbox import PgRetention
from store.relay import PgOutboxSource
from store.webhooks_out import PgWebhooks
from store.whatsapp import PgConversations
from telemetry.logs import configure
from telemetry.metrics import serve_worker_metrics, timed_job

log = logging.getLogger("slothold.worker")

FUNCTIONS = [tasks.expire_hold, tasks.remind_hold, tasks.cancel_charge, tasks.deliver_webhook,
             notify.deliver_notification, tasks.refund_payment]


def cron_jobs(settings: Settings) -> list[Any]:
    """The periodic jobs; the sweep runs every `sweep_seconds` (a divisor of 60; 0 turns it off)."""
    jobs = [
        cron(tasks.complete_past_bookings, second={15}, unique=True, timeout=120),
        cron(attendance.suggest_no_shows, second={40}, unique=True, timeout=120),
        cron(attendance.remind_appointments, second={10}, unique=True, timeout=120),
        cron(tasks.prune_retained, minute={7}, second={45}, unique=True, timeout=600),
        cron(tasks.poll_verifying_charges, second=_every(settings.poll_seconds, offset=5), unique=True, timeout=60),
        cron(notify.sweep_notifications, second={20, 50}, unique=True, timeout=120),
        cron(notify.prune_notification_deliveries, minute={47}, second={5}, unique=True, timeout=600),
        cron(tasks.sweep_webhooks, second={25, 55}, unique=True, timeout=60),
        cron(tasks.prune_webhook_deliveries, minute={37}, second={35}, unique=True, timeout=600),
        cron(tasks.sweep_refunds, second={30}, unique=True, timeout=60),
        cron(whatsapp.prune_whatsapp, minute={17}, second={25}, unique=True, timeout=600),
        cron(series_pay.charge_series_periods, second={12}, unique=True, timeout=120),
        cron(series_pay.remind_series_periods, second={22}, unique=True, timeout=120),
        cron(series_pay.release_series_periods, second={32}, unique=True, timeout=120),
    ]
    if settings.sweep_seconds > 0:
        jobs.append(cron(tasks.sweep_expired_holds, second=_every(settings.sweep_seconds), run_at_startup=True,
                         unique=True, timeout=120))
        jobs.append(cron(tasks.sweep_waitlists, second=_every(settings.sweep_seconds, offset=15), unique=True,
                         timeout=120))
        jobs.append(cron(whatsapp.announce_whatsapp_offers, second=_every(settings.sweep_seconds, offset=20),
                         unique=True, timeout=120))
    return jobs


def _timed(crons: list[Any]) -> list[Any]:
    """The cron jobs, each run counted and timed (slothold_jobs_total, slothold_job_duration_seconds)."""
    for c in crons:
        c.coroutine = timed_job(c.coroutine)
    return crons


def _every(seconds: int, offset: int = 0) -> set[int]:
    """The seconds of each minute for a job every `seconds` (a divisor of 60, else 30)."""
    step = seconds if seconds > 0 and 60 % seconds == 0 else 30
    return {(s + offset) % 60 for s in range(0, 60, step)}


async def _arq_pool(settings: Settings, stop: asyncio.Event) -> ArqRedis | None:
    assert settings.redis_url
    while not stop.is_set():
        try:
            return await create_arq_pool(arq_settings(settings))
        except (OSError, RedisError) as e:
            log.warning("Redis unreachable (%s); retrying", type(e).__name__)
            await _sleep_unless(stop, 1.0)
    return None


# --- assembly: what the worker's jobs and relay are built from (the composition root's part) -----------------------

def assemble(settings: Settings, pool: asyncpg.Pool, clock: Clock, env: Mapping[str, str],
             config_pool: asyncpg.Pool | None = None) -> tuple[dict[str, Any], Relay]:
    """The jobs' arq context — the use cases' Deps and the ports of the jobs' own stores, by name — and the relay.
    The cached configuration loads from `config_pool` (store/uow.py)."""
    assert settings.database_url and settings.redis_url
    deps = build_deps(pool, clock, env, public_base_url=settings.base_url(), config_pool=config_pool)
    ctx: dict[str, Any] = {
        "deps": deps,
        "channels": make_channels(env, PgInApp(pool)),
        "deliveries": PgDeliveries(pool),
        "webhooks": PgWebhooks(pool),
        "webhook_sender": HttpWebhookSender(),
        "conversations": PgConversations(pool),
        "attendance": PgAttendance(pool),
        "retention": PgRetention(pool),
        "outbox_retention_hours": settings.outbox_retention_hours,
    }
    # The relay's lead (a session advisory lock) and LISTEN need a session: PostgreSQL itself, never the pooler.
    outbox = PgOutboxSource(settings.session_database_url or settings.database_url)
    return ctx, Relay(outbox, settings.redis_url, clock, broadcast=partial(broadcast, settings),
                      arq_settings=arq_settings(settings))


# --- the process ---------------------------------------------------------------------------------------------------

async def serve(settings: Settings, stop: asyncio.Event, clock: Clock | None = None) -> None:
    """Run jobs and the relay until `stop` is set."""
    assert settings.database_url and settings.redis_url
    clock = clock or SystemClock()
    pool = await create_pool(settings.database_url, 1, 10, behind_pooler=settings.database_pooled)
    config_pool = await create_config_pool(settings.session_database_url or settings.database_url)
    ctx, relay = assemble(settings, pool, clock, os.environ, config_pool)
    relay_task: asyncio.Task[None] | None = None
    try:
        while not stop.is_set():
            arq = await _arq_pool(settings, stop)
            if arq is None:
                break
            if relay_task is None:
                relay_task = asyncio.create_task(relay.run(stop))
            worker = Worker(functions=[timed_job(f) for f in FUNCTIONS], cron_jobs=_timed(cron_jobs(settings)),
                            redis_pool=arq,
                            handle_signals=False, ctx=dict(ctx), max_jobs=20, poll_delay=0.25,
                            keep_result=3600, max_tries=3)
            run = asyncio.create_task(worker.async_run())
            stopper = asyncio.create_task(stop.wait())
            await asyncio.wait({run, stopper}, return_when=asyncio.FIRST_COMPLETED)
            stopper.cancel()
            if not run.done():
                run.cancel()
            try:
                await run
            except asyncio.CancelledError:
                pass
            except (OSError, RedisError) as e:
                log.warning("job loop lost Redis (%s); restarting", type(e).__name__)
                await _sleep_unless(stop, 1.0)
            try:
                await worker.close()
            except (OSError, RedisError):
                pass
    finally:
        if relay_task is not None:
            stop.set()
            await relay_task
        await pool.close()
        await config_pool.close()


def run_worker(settings: Settings) -> None:
    """Run the worker in this process until SIGINT or SIGTERM."""
    if not settings.database_url or not settings.redis_url:
        raise SystemExit("DATABASE_URL and REDIS_URL must be set")
    configure(settings.log_level)

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        if settings.worker_metrics_port:
            server = serve_worker_metrics(settings.worker_metrics_host, settings.worker_metrics_port,
                                          settings.metrics_token)
            log.info("metrics on http://%s:%d/metrics", settings.worker_metrics_host, server.server_port)
        log.info("worker started")
        await serve(settings, stop)
        log.info("worker stopped")

    asyncio.run(main())
