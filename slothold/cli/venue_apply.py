"""`slothold venue apply venue.toml [--dry-run]`: make a venue what its file describes.

The whole apply is ONE transaction: every use case it calls (the same ones GraphQL's mutations call, with their
checks, logged in the venue log with the session "cli") runs in it. So a refusal anywhere — a bad value, a change
that would leave live bookings without their slot, naming them — leaves nothing applied, and `--dry-run` is the
same run rolled back: it shows exactly what applying would change, refusals included. What changed is printed
from the venue log the run wrote (one line a change); applying the same file again prints "nothing to change".

Matched by name: the tenant, its organization, the unit, resources, services, staff tokens. Resources and services
missing from the file are deactivated; closed days, special hours, blocks and tokens missing from it are left as
they are (staff may add those day to day).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any, cast
from uuid import UUID
from zoneinfo import ZoneInfo

import asyncpg

from domain import contacts, setup, unit_settings
from domain.access import SCOPES, Role
from domain.errors import DomainError
from domain.services import Deps
from domain.staff_tokens import TokenKind, issue_in
from slothold.cli.venue_file import VenueFile, VenueFileError, read_venue_file
from store import venue_state
from store.units import invalidate
from store.uow import PgUnitOfWork

SESSION = "cli"


class ApplyRefused(Exception):
    """The file cannot be applied as it is; nothing was changed."""


class OneTransaction(PgUnitOfWork):
    """Every unit of work of an apply is this one transaction on one connection: a use case's `commit` keeps its
    work for the apply's own commit at the end, and leaving its `async with` releases nothing."""

    def __init__(self, conn: asyncpg.Connection) -> None:
        super().__init__(cast(asyncpg.Pool, conn))  # the unit cache reads through the transaction too
        self._conn = conn

    async def _connection(self) -> asyncpg.Connection:
        assert self._conn is not None
        return self._conn

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def commit(self) -> None:
        return None


@dataclass
class Applying:
    """One apply under way: the file, the transaction, the ids found or made, and what to print."""

    deps: Deps
    conn: asyncpg.Connection
    venue: VenueFile
    dry_run: bool
    tenant_id: UUID = field(default=UUID(int=0))
    organization_id: UUID = field(default=UUID(int=0))
    unit_id: UUID = field(default=UUID(int=0))
    lines: list[str] = field(default_factory=list)
    mark: int = 0
    made_unit: bool = False

    async def logged(self) -> None:
        """Print the venue log's rows written since the last call."""
        rows = await self.conn.fetch("SELECT entity, entity_id, action, before, after FROM venue_changes "
                                     "WHERE id > $1 ORDER BY id", self.mark)
        self.mark = await venue_state.last_change(self.conn)
        names = await venue_state.resource_names(self.conn, self.unit_id) if rows else {}
        self.lines.extend(describe(r["entity"], r["entity_id"], r["action"], r["before"], r["after"], names,
                                   self.venue.timezone) for r in rows)


Section = Callable[[Applying], Awaitable[None]]


# --- the sections, in the order they apply ----------------------------------------------------------------------

async def top(a: Applying) -> None:
    """Find the tenant, organization and unit by name, or make them."""
    v = a.venue
    tenants = await venue_state.tenants_named(a.conn, v.tenant)
    if len(tenants) > 1:
        raise ApplyRefused(f"tenant.name: {len(tenants)} tenants are named {v.tenant!r}; rename one first")
    if tenants:
        a.tenant_id = tenants[0]
    else:
        a.tenant_id = (await setup.create_tenant(a.deps, setup.NewTenant(v.tenant), SESSION)).id
        a.lines.append(f"+ tenant {v.tenant}")
    orgs = await venue_state.organizations_named(a.conn, a.tenant_id, v.organization)
    if len(orgs) > 1:
        raise ApplyRefused(f"organization.name: {len(orgs)} organizations of the tenant are named "
                           f"{v.organization!r}")
    if orgs:
        a.organization_id = orgs[0]
    else:
        made = await setup.create_organization(a.deps, setup.NewOrganization(a.tenant_id, v.organization), SESSION)
        a.organization_id = made.id
        a.lines.append(f"+ organization {v.organization}")
    units = await venue_state.units_named(a.conn, a.organization_id, v.unit)
    if len(units) > 1:
        raise ApplyRefused(f"unit.name: {len(units)} units of the organization are named {v.unit!r}")
    if not units:
        created = await setup.create_unit(a.deps, setup.NewUnit(a.organization_id, v.unit, v.timezone,
                                                                v.slot_minutes, v.currency), SESSION)
        a.unit_id, a.made_unit = created.id, True
        await a.logged()
        return
    unit = units[0]
    a.unit_id = unit.id
    for key, now, wanted in (("timezone", unit.timezone, v.timezone), ("slot_minutes", unit.slot_minutes,
                                                                        v.slot_minutes),
                             ("currency", unit.currency, v.currency)):
        if now != wanted:
            raise ApplyRefused(f"unit.{key}: the unit exists with {now!r}; venue apply does not change a unit's "
                               f"{key} (its bookings, prices and grid were made in it) — make a new unit instead")


async def parameters(a: Applying) -> None:
    if a.venue.parameters:
        await unit_settings.change_parameters(a.deps, a.unit_id, dict(a.venue.parameters), SESSION)


async def unit_contacts(a: Applying) -> None:
    v = a.venue
    if v.alert_whatsapp is not None or v.owner_email is not None:
        await contacts.update_contacts(a.deps, contacts.ContactsChange(a.unit_id, v.alert_whatsapp, v.owner_email),
                                       SESSION)


async def staff(a: Applying) -> None:
    """Tokens named in the file that the unit has no live token of that name for."""
    if not a.venue.staff:
        return
    async with a.deps.uow() as uow:
        have = {t.name for t in await uow.staff_tokens.reaching(a.tenant_id, a.unit_id, False)}
        for i, entry in enumerate(a.venue.staff):
            if entry.name in have:
                continue
            kind = TokenKind.STAFF if entry.kind == "staff" else TokenKind.INTEGRATOR
            role = _role(entry.role, f"staff[{i}].role") if kind is TokenKind.STAFF else None
            bad = [s for s in entry.scopes if s not in SCOPES]
            if bad or (kind is TokenKind.INTEGRATOR and not entry.scopes):
                raise ApplyRefused(f"staff[{i}].scopes: an integrator's scopes are some of "
                                   f"{', '.join(sorted(SCOPES))}")
            issued = await issue_in(uow, a.deps.clock.now(), SESSION, a.tenant_id, a.unit_id, kind, role,
                                    entry.scopes, entry.name, None)
            await a.logged()
            a.lines.append(f"    secret of {entry.name!r} (shown only now): {issued.secret}" if not a.dry_run
                           else "    (its secret is printed when the file is applied without --dry-run)")


def _role(value: str | None, where: str) -> Role:
    try:
        return Role(value or "")
    except ValueError:
        raise ApplyRefused(f"{where}: a staff role is one of {', '.join(r.value for r in Role)}") from None


def all_sections() -> list[Section]:
    """Every section, in the order they apply: what a later one names (a resource of a service) exists by then."""
    from slothold.cli import venue_sections as layout

    return [top, parameters, unit_contacts, layout.unit_hours, layout.resources, layout.day_exceptions,
            layout.grid_blocks, layout.services, staff]


# --- running it -------------------------------------------------------------------------------------------------

_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def describe(entity: str, entity_id: str, action: str, before: Any, after: Any,
             names: dict[str, str] | None = None, tz: str = "UTC") -> str:
    """One line of the venue log as `venue apply` prints it (`names`: resource and service id → name; times in
    the unit's zone `tz`)."""
    names = names or {}
    values = after or before or {}
    label = entity.replace("_", " ")
    if isinstance(values, dict):
        subject = values.get("name") or values.get("date") or names.get(entity_id)
        if entity == "block":
            subject = f"{names.get(str(values.get('resourceId')), '')} {_local(values.get('from'), tz)} → " \
                      f"{_local(values.get('to'), tz)}".strip()
        if entity == "hours":
            subject = f"of {names[entity_id]}" if entity_id in names else "of the unit"
        if subject:
            label = f"{label} {subject}"
        if values.get("reason"):
            label += f" ({values['reason']})"
    if action == "created":
        return f"+ {label}"
    if action == "removed":
        return f"- {label}"
    before, after = before or {}, after or {}
    changes = "; ".join(f"{k}: {_shown(before.get(k))} → {_shown(after.get(k))}" for k in after)
    return f"~ {label}: {changes}"


def _local(value: object, tz: str) -> str:
    try:
        return datetime.fromisoformat(str(value)).astimezone(ZoneInfo(tz)).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return _shown(value)


def _shown(value: object) -> str:
    """A logged value, short: windows as "Mon 08:00-23:00", bands as "Mon-Fri 18:00-23:00 25000"."""
    if value is None:
        return "(none)"
    if isinstance(value, list):
        return "[" + ", ".join(_shown(v) for v in value) + "]" if value else "(none)"
    if isinstance(value, dict) and "opens" in value:
        day = str(value.get("weekday") or "")[:3].title()
        return f"{day} {value['opens']}-{value['closes']}".strip()
    if isinstance(value, dict) and "priceCents" in value and "from" in value:
        days = "".join(_DAYS[d][0] for d in value.get("weekdays", []) if isinstance(d, int) and 0 <= d < 7)
        rule = str(value.get("paymentRule", "")).lower()
        deposit = value.get("depositPercent") or value.get("depositCents")
        return f"{days} {value['from']}-{value['to']} {value['priceCents']} {rule}{f' {deposit}' if deposit else ''}"
    return str(value)


async def apply(deps: Deps, pool: asyncpg.Pool, path: Path, dry_run: bool,
                sections: list[Section] | None = None) -> list[str]:
    """Apply the file at `path` in one transaction (rolled back for a dry run); the lines to print. Raises
    ApplyRefused (nothing changed) for a problem in the file or a refusal of a change."""
    try:
        venue = read_venue_file(path)
    except VenueFileError as e:
        raise ApplyRefused(str(e)) from None
    except OSError as e:
        raise ApplyRefused(f"{path}: {e.strerror or e}") from None
    return await apply_venue(deps, pool, venue, dry_run, sections)


async def apply_venue(deps: Deps, pool: asyncpg.Pool, venue: VenueFile, dry_run: bool = False,
                      sections: list[Section] | None = None) -> list[str]:
    """Apply a venue already read (`apply` without the file; the demo venue uses it); the lines to print."""
    async with pool.acquire() as conn:
        tx = conn.transaction()
        await tx.start()
        shared = OneTransaction(conn)
        a = Applying(replace(deps, uow=lambda: shared), conn, venue, dry_run)
        a.mark = await venue_state.last_change(conn)
        try:
            for section in sections or all_sections():
                await section(a)
                await a.logged()
        except DomainError as e:
            await tx.rollback()
            raise ApplyRefused(refusal(e)) from None
        except ApplyRefused as e:
            await tx.rollback()
            raise ApplyRefused(f"refused, nothing applied: {e}") from None
        except BaseException:
            await tx.rollback()
            raise
        finally:
            invalidate(a.unit_id)  # what the unit cache read inside the transaction may be rolled back
        if dry_run or not a.lines:
            await tx.rollback()
        else:
            await tx.commit()
    if not a.lines:
        return [f"{venue.unit} (unit {a.unit_id}): nothing to change"]
    count = sum(1 for line in a.lines if line[:1] in "+~-")
    unit = f"{venue.unit} (unit {'to be made' if a.made_unit and dry_run else a.unit_id})"
    head = f"{unit}: {count} change{'s' if count != 1 else ''}{' (dry run)' if dry_run else ''}"
    return [head, *a.lines, *(["dry run: nothing was changed"] if dry_run else [])]


def refusal(e: DomainError) -> str:
    """A use case's refusal as `venue apply` says it: the field (when it has one), the reason, and the bookings it
    names (when a change would orphan them)."""
    where = getattr(e, "field", None)
    text = f"{where}: {e.message}" if where else e.message
    ids = getattr(e, "booking_ids", None)
    if ids:
        text += " — bookings: " + ", ".join(str(i) for i in ids)
    return f"refused, nothing applied: {text}"
