"""`slothold dev`: embedded PostgreSQL and Redis (unless configured), migrations, demo data, then the API and the
worker as child processes until a signal stops everything."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn

from slothold.cli.common import PROG, CliError, _db_step, _say, _setup_logging, redact
from slothold.cli.database import run_migrate, run_seed_demo
from slothold.cli.supervise import _check_children, _port_in_use, _spawn, _stop_children, _wait_listening
from slothold.settings import Settings


def _display_host(host: str) -> str:
    """Host to put in a URL shown to the user (a wildcard bind is reachable on localhost)."""
    if host in ("0.0.0.0", "", "::"):
        return "127.0.0.1"
    return f"[{host}]" if ":" in host else host


class _StopRequested(BaseException):
    """SIGINT / SIGTERM / SIGHUP arrived."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _raise_stop(signum: int, frame: FrameType | None) -> NoReturn:
    raise _StopRequested(signum)


def _note_signal_while_stopping(signum: int, frame: FrameType | None) -> None:
    print(f"{PROG}: already stopping, please wait…", file=sys.stderr, flush=True)


def cmd_dev(args: argparse.Namespace, settings: Settings) -> int:
    """`slothold dev`: embedded servers (unless configured), migrations, demo data, API and worker."""
    host = args.host or settings.host
    port = args.port if args.port is not None else settings.port
    if _port_in_use(host, port):
        raise CliError(
            f"port {port} on {host} is already in use (another `{PROG} dev`?); choose one with --port"
        )

    previous = {sig: signal.signal(sig, _raise_stop) for sig in _STOP_SIGNALS}
    children: dict[str, subprocess.Popen[bytes]] = {}
    stack = ExitStack()
    try:
        try:
            _setup_logging(settings)
            database_url, redis_url = _dev_services(settings, stack)
            env = dict(os.environ)
            env.update(
                DATABASE_URL=database_url,
                REDIS_URL=redis_url,
                SLOTHOLD_HOST=host,
                SLOTHOLD_PORT=str(port),
                PYTHONUNBUFFERED="1",
                SLOTHOLD_WEB_DEMO_DEV="1",  # the web demo's dev-only helpers (slothold/web_demo.py)
            )
            os.environ.update(DATABASE_URL=database_url, REDIS_URL=redis_url)

            _say("Applying migrations…")
            run_migrate(database_url)
            _say("Loading demo data…")
            _say(f"  {run_seed_demo(database_url)}")
            from slothold.cli.demo import demo_owner_token

            token_file = settings.data_dir / "demo-owner-token"
            saved = token_file.read_text().strip() if token_file.exists() else None
            token = _db_step("demo token", database_url, lambda: asyncio.run(demo_owner_token(database_url, saved)))
            if token != saved:
                token_file.parent.mkdir(parents=True, exist_ok=True)
                token_file.touch(mode=0o600)
                token_file.write_text(token + "\n")

            children["API server"] = _spawn("api", ["serve", "--host", host, "--port", str(port)], env)
            children["worker"] = _spawn("worker", ["worker"], env)
            ready = _wait_listening(host, port, children, timeout=60)
            base = f"http://{_display_host(host)}:{port}"
            _say("")
            _say(f"Slothold is running{'' if ready else ' (the API is not answering yet)'}:")
            _say(f"  GraphQL API   {base}/graphql   (open it in a browser for GraphiQL)")
            _say(f"  web demo      {base}/")
            _say(f"  health        {base}/healthz")
            _say(f"  owner token   {token}")
            _say("                (demo venue; in GraphiQL: Headers → {\"Authorization\": \"Bearer <token>\"})")
            _say(f"  database      {redact(database_url)}")
            _say(f"  redis         {redact(redis_url)}")
            _say("Press Ctrl-C to stop.")
            _say("")
            while True:
                _check_children(children)
                time.sleep(0.25)
        except _StopRequested as stop:
            _say(f"\nReceived {signal.Signals(stop.signum).name}; stopping…")
            code = 0
        except CliError as exc:
            print(f"{PROG}: error: {exc}", file=sys.stderr, flush=True)
            code = exc.code
        finally:
            for sig in _STOP_SIGNALS:
                signal.signal(sig, _note_signal_while_stopping)
            _stop_children(children)
            try:
                stack.close()
            except Exception as exc:  # a failure to stop should not hide the first error
                print(f"{PROG}: error while stopping the embedded servers: {exc}", file=sys.stderr)
        _say("Stopped.")
        return code
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _dev_services(settings: Settings, stack: ExitStack) -> tuple[str, str]:
    """DATABASE_URL and REDIS_URL, starting embedded servers (stopped by `stack`) for those unset."""
    from slothold.cli.embedded import EmbeddedServerError, start_postgres, start_redis

    database_url, redis_url = settings.database_url, settings.redis_url
    data_dir = Path(settings.data_dir)
    try:
        if not database_url:
            _say(f"Starting embedded PostgreSQL (data in {data_dir / 'pg'})…")
            pg = stack.enter_context(start_postgres(data_dir / "pg"))
            database_url = pg.url
            if pg.reused:
                _say("  (it was already running: reusing it)")
        if not redis_url:
            _say(f"Starting embedded Redis (data in {data_dir / 'redis'})…")
            cache = stack.enter_context(start_redis(data_dir / "redis"))
            redis_url = cache.url
            if cache.reused:
                _say("  (it was already running: reusing it)")
    except (EmbeddedServerError, OSError) as exc:
        raise CliError(f"cannot start the embedded servers: {exc}") from exc
    return database_url, redis_url


def add_dev_command(sub: Any) -> None:
    """Add `dev` to the `slothold` parser's subcommands."""
    p = sub.add_parser(
        "dev",
        help="run everything locally: embedded servers, migrations, demo data, API and worker",
        description="Start embedded PostgreSQL and Redis (unless DATABASE_URL / REDIS_URL are set; data "
        "under .slothold/, kept across restarts), apply migrations, load the demo data, then run the API "
        "and the worker until Ctrl-C.",
    )
    p.add_argument("--host", help="interface for the API (default: $SLOTHOLD_HOST or 127.0.0.1)")
    p.add_argument("--port", type=int, help="port for the API (default: $SLOTHOLD_PORT or 8000)")
    p.set_defaults(func=cmd_dev)
