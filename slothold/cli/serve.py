"""`slothold serve` and `slothold worker`: the API under uvicorn and the background job worker, in the foreground."""

from __future__ import annotations

import argparse
from typing import Any

from slothold.cli.common import _require_env
from slothold.settings import Settings


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    """`slothold serve`: the API (and web demo) under uvicorn."""
    _require_env("serve", settings)
    import uvicorn

    uvicorn.run(
        "slothold.app:create_app",
        factory=True,
        host=args.host or settings.host,
        port=args.port if args.port is not None else settings.port,
        workers=args.workers,
        log_level=settings.log_level.lower(),
        timeout_graceful_shutdown=5,
        ws_max_size=settings.max_body_bytes,  # websocket messages obey the same limit as request bodies
    )
    return 0


def cmd_worker(args: argparse.Namespace, settings: Settings) -> int:
    """`slothold worker`: the background job worker."""
    _require_env("worker", settings)
    from slothold.worker import run_worker

    run_worker(settings)
    return 0


def add_server_commands(sub: Any) -> None:
    """Add `serve` and `worker` to the `slothold` parser's subcommands."""
    p = sub.add_parser(
        "serve",
        help="run the API server (needs DATABASE_URL and REDIS_URL)",
        description="Run the GraphQL API and web demo under uvicorn. Needs DATABASE_URL and REDIS_URL.",
    )
    p.add_argument("--host", help="interface to listen on (default: $SLOTHOLD_HOST or 127.0.0.1)")
    p.add_argument("--port", type=int, help="port to listen on (default: $SLOTHOLD_PORT or 8000)")
    p.add_argument("--workers", type=int, default=1, help="number of worker processes (default: 1)")
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser(
        "worker",
        help="run the background job worker (needs DATABASE_URL and REDIS_URL)",
        description="Run the background job worker (hold expiry and other jobs). "
        "Needs DATABASE_URL and REDIS_URL.",
    )
    p.set_defaults(func=cmd_worker)
