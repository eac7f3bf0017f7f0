"""The `slothold` command: migrate, seed-demo, serve, worker and dev."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn
from urllib.parse import urlsplit, urlunsplit

from slothold.settings import Settings

PROG = "slothold"
STOP_GRACE_SECONDS = 10.0


class CliError(Exception):
    """An expected failure: printed as one line, then the process exits with `code`."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


# ------------------------------------------------------------------------------------------- helpers


def redact(url: str) -> str:
    """The URL with any password replaced by ***."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)
    userinfo = netloc[0].split(":", 1)[0]
    return urlunsplit(parts._replace(netloc=f"{userinfo}:***@{netloc[1]}"))


def _require_env(command: str, settings: Settings, *, database: bool = True, redis: bool = True) -> None:
    """Exit 2 with a clear message if DATABASE_URL / REDIS_URL needed by `command` are not set."""
    missing = []
    if database and not settings.database_url:
        missing.append("DATABASE_URL")
    if redis and not settings.redis_url:
        missing.append("REDIS_URL")
    if missing:
        names = " and ".join(missing)
        raise CliError(
            f"`{PROG} {command}` needs {names} in the environment "
            f"(e.g. DATABASE_URL=postgresql://user@host:5432/slothold REDIS_URL=redis://host:6379/0); "
            f"set {'them' if len(missing) > 1 else 'it'}, or run `{PROG} dev` (./dev) to start embedded "
            "PostgreSQL and Redis for you",
            code=2,
        )


def _unreachable_reason(exc: BaseException) -> str | None:
    """A short reason if exc (or its cause chain) means the database cannot be reached, else None."""
    seen: set[int] = set()
    current: BaseException | None = exc
    connect_errors: tuple[type[BaseException], ...] = ()
    with contextlib.suppress(ImportError):
        import asyncpg

        connect_errors = (
            asyncpg.CannotConnectNowError,
            asyncpg.InvalidCatalogNameError,
            asyncpg.InvalidAuthorizationSpecificationError,
            asyncpg.InvalidPasswordError,
            asyncpg.TooManyConnectionsError,
            asyncpg.ConnectionDoesNotExistError,
        )
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, (ConnectionError, socket.gaierror, TimeoutError, *connect_errors)):
            return str(current) or type(current).__name__
        if type(current) is OSError:  # e.g. asyncpg's "Multiple exceptions: [Errno 111] Connect call failed"
            return str(current) or "connection failed"
        current = current.__cause__ or current.__context__
    return None


def _database_error_line(exc: BaseException) -> str | None:
    """First line of a database-side error (a failing statement), or None if exc is not one."""
    kinds: list[type[BaseException]] = []
    with contextlib.suppress(ImportError):
        import asyncpg

        kinds.append(asyncpg.PostgresError)
        kinds.append(asyncpg.InterfaceError)
    with contextlib.suppress(ImportError):
        import sqlalchemy.exc

        kinds.append(sqlalchemy.exc.SQLAlchemyError)
    if isinstance(exc, tuple(kinds)):
        text = str(exc).strip().splitlines()
        return f"{type(exc).__name__}: {text[0] if text else ''}"
    return None


def _db_step(what: str, database_url: str, step: Callable[[], Any]) -> Any:
    """Run a database step, turning expected failures into one-line CliErrors."""
    try:
        return step()
    except (KeyboardInterrupt, CliError, SystemExit):
        raise
    except Exception as exc:
        reason = _unreachable_reason(exc)
        if reason is not None:
            raise CliError(f"cannot reach the database at {redact(database_url)}: {reason}") from exc
        line = _database_error_line(exc)
        if line is not None:
            raise CliError(f"{what} failed on {redact(database_url)}: {line}") from exc
        if isinstance(exc, ValueError):  # e.g. a malformed DATABASE_URL
            raise CliError(f"{what} failed: {exc}") from exc
        raise


def _setup_logging(settings: Settings) -> None:
    """Plain logging to stderr at SLOTHOLD_LOG_LEVEL."""
    logging.basicConfig(
        level=getattr(logging, settings.log_level.upper(), logging.INFO),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)


def _say(message: str) -> None:
    """Print a line for the person at the terminal."""
    print(message, flush=True)


def _display_host(host: str) -> str:
    """Host to put in a URL shown to the user (a wildcard bind is reachable on localhost)."""
    if host in ("0.0.0.0", "", "::"):
        return "127.0.0.1"
    return f"[{host}]" if ":" in host else host


# ------------------------------------------------------------------------------------------ commands


def run_migrate(database_url: str) -> None:
    """Apply all migrations to the database."""
    from slothold.cli.migrate import upgrade

    _db_step("migrate", database_url, lambda: upgrade(database_url))


def run_seed_demo(database_url: str) -> str:
    """Load the demo venue (idempotent) and return its summary."""
    from slothold.cli.demo import seed_demo

    result = _db_step("seed-demo", database_url, lambda: asyncio.run(seed_demo(database_url)))
    return str(result) if result is not None else "demo data in place"


def cmd_migrate(args: argparse.Namespace, settings: Settings) -> int:
    """`slothold migrate`."""
    database_url = args.database_url or settings.database_url
    if not database_url:
        _require_env("migrate", settings, redis=False)
    assert database_url
    _setup_logging(settings)
    run_migrate(database_url)
    _say(f"database {redact(database_url)} is up to date")
    return 0


def cmd_seed_demo(args: argparse.Namespace, settings: Settings) -> int:
    """`slothold seed-demo`."""
    database_url = args.database_url or settings.database_url
    if not database_url:
        _require_env("seed-demo", settings, redis=False)
    assert database_url
    _setup_logging(settings)
    _say(run_seed_demo(database_url))
    return 0


def cmd_sandbox_pay(args: argparse.Namespace, settings: Settings) -> int:
    """`slothold sandbox-pay TXID`: pay a sandbox charge as the customer would (demo, tests)."""
    database_url = args.database_url or settings.database_url
    if not database_url:
        _require_env("sandbox-pay", settings, redis=False)
    assert database_url
    _setup_logging(settings)

    async def pay() -> list[str]:
        from api.webhooks.pix import sandbox_pay
        from providers.clock import SystemClock
        from providers.factory import make_provider
        from providers.sandbox import SandboxProvider
        from slothold.wiring import build_deps
        from store.db import create_pool

        pool = await create_pool(database_url, 1, 2)
        try:
            provider = make_provider(os.environ, pool)
            if not isinstance(provider, SandboxProvider):
                raise SystemExit("sandbox-pay works only with SLOTHOLD_PAYMENT_PROVIDER=sandbox (the default)")
            deps = build_deps(pool, SystemClock(), provider=provider, waitlists=False)
            return await sandbox_pay(deps, provider, args.txid)
        finally:
            await pool.close()

    from domain.errors import DomainError

    try:
        outcomes = _db_step("sandbox-pay", database_url, lambda: asyncio.run(pay()))
    except DomainError as e:
        _say(f"not paid: {e.message}")
        return 1
    _say(f"paid {args.txid}: {', '.join(outcomes or ['nothing applied'])}")
    return 0


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


# ----------------------------------------------------------------------------------------------- dev


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


# ---------------------------------------------------------------------------------------------- main


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for all subcommands."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Slothold booking engine. Configuration comes from the DATABASE_URL, REDIS_URL and "
        "SLOTHOLD_* environment variables.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def db_option(p: argparse.ArgumentParser) -> None:
        p.add_argument("--database-url", help="PostgreSQL URL (default: $DATABASE_URL)")

    p = sub.add_parser("sandbox-pay", help="pay a sandbox Pix charge by its txid",
                       description="Pay a charge of the sandbox provider as its customer would; the sandbox bank's "
                       "webhook is applied like any other.")
    p.add_argument("txid", help="the charge's txid (shown with the charge)")
    db_option(p)
    p.set_defaults(func=cmd_sandbox_pay)

    p = sub.add_parser("migrate", help="apply database migrations", description="Apply database migrations.")
    db_option(p)
    p.set_defaults(func=cmd_migrate)

    p = sub.add_parser(
        "seed-demo",
        help="load the demo venue (idempotent)",
        description="Load the demo venue into the database; does nothing if it is already there.",
    )
    db_option(p)
    p.set_defaults(func=cmd_seed_demo)

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

    from slothold.cli.tokens import add_token_commands

    add_token_commands(sub)
    from slothold.cli.audit import add_audit_commands

    add_audit_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `slothold` command; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        settings = Settings.from_env()
    except ValueError as exc:
        print(f"{PROG}: error: bad SLOTHOLD_* setting: {exc}", file=sys.stderr)
        return 2
    func: Callable[[argparse.Namespace, Settings], int] = args.func
    try:
        return func(args, settings)
    except CliError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr, flush=True)
        return exc.code
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except _StopRequested:  # a second signal in the instant between handling the first and cleaning up
        return 0

