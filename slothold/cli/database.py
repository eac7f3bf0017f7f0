"""`slothold migrate`, `seed-demo` and `sandbox-pay`: the commands that work on the database alone (no Redis)."""

from __future__ import annotations

import argparse
import asyncio
import os
from typing import Any

from slothold.cli.common import _db_step, _require_env, _say, _setup_logging, redact
from slothold.settings import Settings


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
    database_url = args.database_url or settings.session_database_url
    if not database_url:
        _require_env("migrate", settings, redis=False)
    assert database_url
    _setup_logging(settings)
    run_migrate(database_url)
    _say(f"database {redact(database_url)} is up to date")
    return 0


def cmd_seed_demo(args: argparse.Namespace, settings: Settings) -> int:
    """`slothold seed-demo`."""
    database_url = args.database_url or settings.session_database_url
    if not database_url:
        _require_env("seed-demo", settings, redis=False)
    assert database_url
    _setup_logging(settings)
    _say(run_seed_demo(database_url))
    return 0


def cmd_sandbox_pay(args: argparse.Namespace, settings: Settings) -> int:
    """`slothold sandbox-pay TXID`: pay a sandbox charge as the customer would (demo, tests)."""
    database_url = args.database_url or settings.session_database_url
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


def add_database_commands(sub: Any) -> None:
    """Add `sandbox-pay`, `migrate` and `seed-demo` to the `slothold` parser's subcommands."""

    def db_option(p: argparse.ArgumentParser) -> None:
        p.add_argument("--database-url", help="PostgreSQL URL (default: $DATABASE_DIRECT_URL, else $DATABASE_URL)")

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
