"""`slothold venue create`: the platform creates a venue's top levels from the shell — tenant → organization →
unit, and the unit's first owner token — with the same use cases as GraphQL's createTenant, createOrganization
and createUnit (domain/setup.py), logged with the session "cli".

    slothold venue create --tenant "Arena Sul Ltda" --unit "Arena Sul" --timezone America/Sao_Paulo \\
        --slot-minutes 60 --currency BRL --owner-token-name "Dona Ana"

`--tenant-id` or `--organization-id` adds the unit to what exists. Every value is checked before anything is
created, so a refusal leaves nothing half made.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any
from uuid import UUID

from domain import setup
from domain.errors import DomainError, InvalidInput, NotFound
from domain.staff_tokens import checked_name
from slothold.settings import Settings

SESSION = "cli"


class VenueError(Exception):
    """A refusal of the venue commands (bad arguments, unknown tenant...)."""


def _uuid(value: str | None, what: str) -> UUID | None:
    if value is None:
        return None
    try:
        return UUID(value)
    except ValueError:
        raise VenueError(f"{what} {value!r} is not a UUID") from None


def _checked(args: argparse.Namespace) -> None:
    """Refuse a bad value before anything is created."""
    checked_name(args.unit, "--unit", setup.NAME_MAX)
    for value, flag in ((args.tenant, "--tenant"), (args.organization, "--organization")):
        if value is not None:
            checked_name(value, flag, setup.NAME_MAX)
    setup.checked_timezone(args.timezone, "--timezone")
    setup.checked_slot_minutes(args.slot_minutes, "--slot-minutes")
    setup.checked_currency(args.currency, "--currency")
    if args.owner_token_name is not None:
        checked_name(args.owner_token_name, "--owner-token-name", 80)
    given = [f for f, v in (("--tenant", args.tenant), ("--tenant-id", args.tenant_id),
                            ("--organization-id", args.organization_id)) if v is not None]
    if len(given) != 1:
        raise VenueError("give one of --tenant (a new tenant), --tenant-id (an existing one) or --organization-id "
                         "(an existing organization)")
    if args.organization is not None and args.organization_id is not None:
        raise VenueError("--organization names a new organization; --organization-id is an existing one: one of them")


async def create(database_url: str, args: argparse.Namespace) -> list[str]:
    """Create what the arguments ask for; the lines to print."""
    from providers.clock import SystemClock
    from slothold.wiring import build_deps
    from store.db import create_pool

    _checked(args)
    pool = await create_pool(database_url, 1, 2, application_name="slothold-venue")
    try:
        deps = build_deps(pool, SystemClock(), waitlists=False)
        lines = []
        org_id = _uuid(args.organization_id, "--organization-id")
        if org_id is None:
            tenant_id = _uuid(args.tenant_id, "--tenant-id")
            if tenant_id is None:
                tenant = await setup.create_tenant(deps, setup.NewTenant(args.tenant), SESSION)
                tenant_id = tenant.id
                lines.append(f"tenant        {tenant.id}  {tenant.name}")
            org = await setup.create_organization(deps, setup.NewOrganization(
                tenant_id, args.organization or args.tenant or args.unit), SESSION)
            org_id = org.id
            lines.append(f"organization  {org.id}  {org.name}")
        unit = await setup.create_unit(deps, setup.NewUnit(
            org_id, args.unit, args.timezone, args.slot_minutes, args.currency, args.owner_token_name), SESSION)
        lines.append(f"unit          {unit.id}  {' '.join(args.unit.split())} ({args.timezone.strip()}, "
                     f"{args.slot_minutes}-minute slots, {args.currency.strip().upper()})")
        if unit.owner_token is not None:
            lines.append(f"owner token   {unit.owner_token.token.id}  {unit.owner_token.token.name} (shown only now):")
            lines.append(unit.owner_token.secret)
        return lines
    finally:
        await pool.close()


def cmd_venue(args: argparse.Namespace, settings: Settings) -> int:
    """`slothold venue ...`."""
    url = args.database_url or settings.session_database_url
    try:
        if not url:
            raise VenueError("set DATABASE_URL (or pass --database-url)")
        if args.venue_command == "apply":
            return _apply(str(url), args)
        for line in asyncio.run(create(str(url), args)):
            print(line)
        return 0
    except VenueError as e:
        print(f"slothold venue: error: {e}")
        return 2
    except (InvalidInput, NotFound) as e:
        print(f"slothold venue: error: {e.field}: {e.message}")
        return 2
    except DomainError as e:
        print(f"slothold venue: error: {e.message}")
        return 2


def add_venue_commands(sub: Any) -> None:
    """The `venue` subcommand and its own subcommands."""
    p = sub.add_parser("venue", help="set up venues: create a unit, or apply a venue file",
                       description="The platform's set-up of venues (the same checks as GraphQL's createUnit).")
    p.add_argument("--database-url", help="PostgreSQL URL (default: $DATABASE_DIRECT_URL, else $DATABASE_URL)")
    vsub = p.add_subparsers(dest="venue_command", metavar="ACTION", required=True)
    c = vsub.add_parser("create", help="create a unit (and its tenant and organization) and its first owner token",
                        description="Creates tenant → organization → unit and prints their ids and the owner "
                        "token's secret (once).")
    c.add_argument("--unit", required=True, help="the unit's name (the venue people book)")
    c.add_argument("--tenant", help="a new tenant of this name")
    c.add_argument("--tenant-id", help="an existing tenant (instead of --tenant)")
    c.add_argument("--organization", help="the new organization's name (default: the tenant's name)")
    c.add_argument("--organization-id", help="an existing organization (instead of --tenant/--tenant-id)")
    c.add_argument("--timezone", default="America/Sao_Paulo", help="IANA time zone (default America/Sao_Paulo)")
    c.add_argument("--slot-minutes", type=int, default=60, help="the grid's slot: 5-240 minutes dividing a day "
                   "(default 60)")
    c.add_argument("--currency", default="BRL", help="ISO 4217 code (default BRL)")
    c.add_argument("--owner-token-name", default="owner", help="the name of the unit's first owner token (default "
                   "owner; its secret is printed once)")
    c.add_argument("--no-owner-token", dest="owner_token_name", action="store_const", const=None,
                   help="issue no owner token")
    a = vsub.add_parser("apply", help="make a venue what a TOML file describes (docs/venue.sample.toml)",
                        description="Creates what is missing and updates what differs, in one transaction; prints "
                        "what it changed. A change that would leave live bookings without their slot is refused, "
                        "naming them, and nothing is applied.")
    a.add_argument("file", help="the venue file (TOML)")
    a.add_argument("--dry-run", action="store_true", help="show what would change and change nothing")
    p.set_defaults(func=cmd_venue)


def _apply(database_url: str, args: argparse.Namespace) -> int:
    """`slothold venue apply FILE [--dry-run]`: 0 applied (or nothing to change), 2 refused."""
    from slothold.cli.venue_apply import ApplyRefused, apply

    async def run() -> list[str]:
        from providers.clock import SystemClock
        from slothold.wiring import build_deps
        from store.db import create_pool

        pool = await create_pool(database_url, 1, 2, application_name="slothold-venue-apply")
        try:
            return await apply(build_deps(pool, SystemClock(), waitlists=False), pool, Path(args.file),
                               args.dry_run)
        finally:
            await pool.close()

    try:
        lines = asyncio.run(run())
    except ApplyRefused as e:
        print(f"slothold venue apply: {e}")
        return 2
    for line in lines:
        print(line)
    return 0
