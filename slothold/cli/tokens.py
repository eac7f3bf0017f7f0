"""`slothold token create|list|revoke`: staff, integrator and system tokens (SPEC §14).

A token's plaintext is printed once, when it is created; the database keeps only its SHA-256 digest.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Awaitable, Callable
from typing import Any
from uuid import UUID

from domain.access import SCOPES, Role
from slothold.settings import Settings


class TokenError(Exception):
    """A refusal of the token commands (bad arguments, unknown unit...)."""


async def _with_access(database_url: str, work: Callable[[Any], Awaitable[Any]]) -> Any:
    from store.access import PgAccess
    from store.db import create_pool

    pool = await create_pool(database_url, 1, 2)
    try:
        return await work(PgAccess(pool))
    finally:
        await pool.close()


async def create_token(access: Any, *, unit: UUID | None, tenant: UUID | None, role: str | None,
                       scopes: list[str] | None, system: bool, name: str) -> tuple[UUID, str]:
    """Issue a token after checking its arguments; returns (id, plaintext)."""
    if system:
        if unit or tenant or role or scopes:
            raise TokenError("--system takes no --unit, --tenant, --role or --scopes: it reaches everything")
        return await access.issue_token(None, None, "system", None, [], name)  # type: ignore[no-any-return]
    if (role is None) == (scopes is None):
        raise TokenError("give --role (a staff token) or --scopes (an integrator token), one of them")
    if unit is None and tenant is None:
        raise TokenError("give --unit (the token acts on that unit) or --tenant (every unit of the tenant)")
    if unit is not None:
        found = await access.pool.fetchval(
            "SELECT o.tenant_id FROM units u JOIN organizations o ON o.id = u.organization_id WHERE u.id = $1", unit)
        if found is None:
            raise TokenError(f"no unit {unit}")
        if tenant is not None and tenant != found:
            raise TokenError(f"unit {unit} is not in tenant {tenant}")
        tenant = found
    elif not await access.pool.fetchval("SELECT 1 FROM tenants WHERE id = $1", tenant):
        raise TokenError(f"no tenant {tenant}")
    if role is not None:
        try:
            Role(role)
        except ValueError:
            raise TokenError(f"--role must be one of {', '.join(r.value for r in Role)}") from None
        return await access.issue_token(tenant, unit, "staff", role, [], name)  # type: ignore[no-any-return]
    assert scopes is not None
    unknown = sorted(set(scopes) - SCOPES)
    if unknown or not scopes:
        raise TokenError(f"unknown scope {unknown[0]!r}; scopes are {', '.join(sorted(SCOPES))}" if unknown
                         else "give at least one scope")
    return await access.issue_token(tenant, unit, "client", None, sorted(set(scopes)), name)  # type: ignore[no-any-return]


def _uuid(value: str | None, what: str) -> UUID | None:
    if value is None:
        return None
    try:
        return UUID(value)
    except ValueError:
        raise TokenError(f"{what} {value!r} is not a UUID") from None


def _database_url(args: argparse.Namespace, settings: Settings) -> str:
    url = args.database_url or settings.session_database_url
    if not url:
        raise TokenError("set DATABASE_URL (or pass --database-url)")
    return str(url)


def cmd_token(args: argparse.Namespace, settings: Settings) -> int:
    """`slothold token ...`."""
    try:
        url = _database_url(args, settings)
        if args.token_command == "create":
            scopes = [s.strip() for s in args.scopes.split(",") if s.strip()] if args.scopes is not None else None
            token_id, plain = asyncio.run(_with_access(url, lambda a: create_token(
                a, unit=_uuid(args.unit, "--unit"), tenant=_uuid(args.tenant, "--tenant"), role=args.role,
                scopes=scopes, system=args.system, name=args.name)))
            print(f"token {token_id} created; it is shown only now:\n{plain}")
            return 0
        if args.token_command == "list":
            rows = asyncio.run(_with_access(url, lambda a: a.tokens(_uuid(args.tenant, "--tenant"))))
            for t in rows:
                reach = f"unit {t.unit_id}" if t.unit_id else (f"tenant {t.tenant_id}" if t.tenant_id else "all")
                what = t.role or ",".join(t.scopes) or "system"
                state = f"revoked {t.revoked_at:%Y-%m-%d %H:%M}" if t.revoked_at else "live"
                print(f"{t.id}  {t.kind:<6}  {what:<24}  {reach}  {state}  {t.name}")
            return 0
        token_id = _uuid(args.id, "token id")
        done = asyncio.run(_with_access(url, lambda a: a.revoke_token(token_id)))
        print(f"token {token_id} revoked" if done else f"no live token {token_id}")
        return 0 if done else 1
    except TokenError as e:
        print(f"slothold token: error: {e}")
        return 2


def add_token_commands(sub: Any) -> None:
    """The `token` subcommand and its own subcommands."""
    p = sub.add_parser("token", help="create, list and revoke access tokens",
                       description="Staff tokens (--role operator|manager|owner), integrator tokens (--scopes "
                       f"{','.join(sorted(SCOPES))}) and system tokens (--system), for one unit or a whole tenant.")
    p.add_argument("--database-url", help="PostgreSQL URL (default: $DATABASE_DIRECT_URL, else $DATABASE_URL)")
    tsub = p.add_subparsers(dest="token_command", metavar="ACTION", required=True)
    c = tsub.add_parser("create", help="issue a token (its secret is printed once)")
    c.add_argument("--unit", help="the unit the token acts on")
    c.add_argument("--tenant", help="every unit of this tenant (instead of --unit)")
    c.add_argument("--role", help="staff role: operator, manager or owner")
    c.add_argument("--scopes", help=f"integrator scopes, comma-separated: {','.join(sorted(SCOPES))}")
    c.add_argument("--system", action="store_true", help="a platform token that reaches every tenant")
    c.add_argument("--name", required=True, help="who or what holds it (shown in lists and logs)")
    ls = tsub.add_parser("list", help="list tokens (never their secrets)")
    ls.add_argument("--tenant", help="only this tenant's")
    r = tsub.add_parser("revoke", help="revoke a token (it stops working within seconds)")
    r.add_argument("id", help="the token's id (from create or list)")
    p.set_defaults(func=cmd_token)
