"""What every subcommand shares: the error that ends a command with one line, database steps whose expected failures
become such errors, the environment a command needs, logging and what is printed for the person at the terminal."""

from __future__ import annotations

import contextlib
import logging
import socket
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from slothold.settings import Settings

PROG = "slothold"


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
