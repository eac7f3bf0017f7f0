"""The `slothold` command: migrate, seed-demo, sandbox-pay, serve, worker, dev, token, audit, venue and manifest.

Here: the parser assembled from each group's module, and the dispatch with its exit codes. The commands are in
`database` (migrate, seed-demo, sandbox-pay), `serve` (serve, worker), `dev` (with `supervise`, its child
processes), `tokens`, `audit` and `venue`; what they share in `common`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from slothold.cli.common import PROG, CliError, redact
from slothold.cli.database import (
    add_database_commands,
    cmd_migrate,
    cmd_sandbox_pay,
    cmd_seed_demo,
    run_migrate,
    run_seed_demo,
)
from slothold.cli.dev import _StopRequested, add_dev_command, cmd_dev
from slothold.cli.serve import add_server_commands, cmd_serve, cmd_worker
from slothold.cli.supervise import STOP_GRACE_SECONDS, _die_with_parent_hook
from slothold.settings import Settings

__all__ = [
    "PROG",
    "STOP_GRACE_SECONDS",
    "CliError",
    "_die_with_parent_hook",
    "build_parser",
    "cmd_dev",
    "cmd_migrate",
    "cmd_sandbox_pay",
    "cmd_seed_demo",
    "cmd_serve",
    "cmd_worker",
    "main",
    "redact",
    "run_migrate",
    "run_seed_demo",
]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for all subcommands."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Slothold booking engine. Configuration comes from the DATABASE_URL, REDIS_URL and "
        "SLOTHOLD_* environment variables.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    add_database_commands(sub)
    add_server_commands(sub)
    add_dev_command(sub)
    from slothold.cli.tokens import add_token_commands

    add_token_commands(sub)
    from slothold.cli.audit import add_audit_commands

    add_audit_commands(sub)
    from slothold.cli.venue import add_venue_commands

    add_venue_commands(sub)
    from slothold.cli.manifest import add_manifest_command

    add_manifest_command(sub)
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
