"""Owners issue, list and revoke their staff and integrator tokens (issue 18; SPEC §14).

What an owner may hand out is bounded by what they hold:

* reach: a token bound to one unit issues tokens for that unit only; a tenant-wide owner for the tenant or any of
  its units; nobody for another tenant (the platform: anywhere);
* rights: never a role above the issuer's, never an integrator scope the issuer could not use themselves;
* who: owners (and the platform) only: managers, operators, integrators (even with the `configure` scope) and
  customers issue, list and revoke nothing.

A token's secret is returned once, when it is issued; lists never carry it. Each issue and revocation is in the
venue log (entity `staff_token`) of every unit the token reaches, in the same transaction. A revoked token stops
working at once in this process and within seconds everywhere, open websockets included (api/auth.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol
from uuid import UUID

from domain import venue_log
from domain.access import RANK, SCOPES, Action, Forbidden, Principal, Role
from domain.errors import ErrorCode, InvalidInput, NotFound
from domain.venue_log import ChangeAction, JsonValue, VenueChange

if TYPE_CHECKING:
    from domain.services.deps import Deps
    from domain.setup import VenueSetup

TOKEN_NAME_MAX = 80


class TokenKind(StrEnum):
    """A staff member's token (with a role) or an integrator's (with scopes); the values are the stored kinds."""

    STAFF = "staff"
    INTEGRATOR = "client"


@dataclass(frozen=True)
class StaffToken:
    """A staff or integrator token as listed: never its secret."""

    id: UUID
    tenant_id: UUID
    unit_id: UUID | None
    """None: every unit of the tenant."""
    kind: TokenKind
    role: Role | None
    scopes: tuple[str, ...]
    name: str
    created_at: datetime
    expires_at: datetime | None = None
    last_used_at: datetime | None = None
    revoked_at: datetime | None = None

    def described(self) -> dict[str, JsonValue]:
        """What the venue log keeps of it (GraphQL names; no secret)."""
        return {"name": self.name, "kind": "integrator" if self.kind is TokenKind.INTEGRATOR else "staff",
                "role": self.role.value if self.role else None, "scopes": list(self.scopes),
                "unitId": str(self.unit_id) if self.unit_id else None, "tenantWide": self.unit_id is None,
                "expiresAt": self.expires_at.isoformat() if self.expires_at else None}


@dataclass(frozen=True)
class IssuedToken:
    token: StaffToken
    secret: str
    """The bearer token, shown this once."""


@dataclass(frozen=True)
class IssueToken:
    """Issue a token on `unit_id` (the caller was authorized on it), or on its whole tenant when `tenant_wide`."""

    unit_id: UUID
    tenant_id: UUID
    kind: TokenKind
    name: str
    role: str | None = None
    scopes: tuple[str, ...] = ()
    tenant_wide: bool = False
    expires_at: datetime | None = None


@dataclass(frozen=True)
class Revoked:
    token: StaffToken
    own: bool
    """The caller revoked the very token it called with: its next request is refused."""


class StaffTokens(Protocol):
    """Staff and integrator tokens in the unit of work (store/staff_tokens.py)."""

    async def issue(self, tenant_id: UUID, unit_id: UUID | None, kind: TokenKind, role: Role | None,
                    scopes: tuple[str, ...], name: str, expires_at: datetime | None, now: datetime
                    ) -> IssuedToken: ...

    async def get(self, token_id: UUID) -> StaffToken | None:
        """A staff or integrator token, locked until the transaction ends (None: no such token, or a system one)."""
        ...

    async def reaching(self, tenant_id: UUID, unit_id: UUID, include_revoked: bool) -> list[StaffToken]:
        """The tokens that reach the unit (its own and the tenant-wide ones), oldest first."""
        ...

    async def revoke(self, token_id: UUID, at: datetime) -> StaffToken: ...

    async def tenant_units(self, tenant_id: UUID) -> list[UUID]: ...


class _TokenUnitOfWork(Protocol):
    @property
    def staff_tokens(self) -> StaffTokens: ...
    @property
    def setup(self) -> VenueSetup: ...
    @property
    def venue_log(self) -> venue_log.VenueLog: ...


def checked_name(raw: str, field: str, limit: int) -> str:
    """A name trimmed, not empty and at most `limit` characters."""
    name = " ".join(raw.split())
    if not name:
        raise InvalidInput(field, f"{field} must not be empty", code=ErrorCode.REQUIRED)
    if len(name) > limit:
        raise InvalidInput(field, f"{field} has at most {limit} characters", code=ErrorCode.INVALID_NAME)
    return name


def _require_owner(principal: Principal) -> None:
    """Only owners and the platform handle tokens."""
    if principal.kind == "system":
        return
    if principal.kind != "staff" or not principal.allows(Action.CONFIGURE):
        raise Forbidden("only owners issue, list and revoke tokens" + (
            "; integrator tokens never do" if principal.kind == "client" else ""))


def _within_reach(principal: Principal, tenant_id: UUID, unit_id: UUID | None) -> bool:
    """Whether a token of this reach (unit_id None: the tenant) is inside the caller's own."""
    if principal.kind == "system":
        return True
    return principal.tenant_id == tenant_id and (principal.unit_id is None or principal.unit_id == unit_id)


def _checked_rights(principal: Principal, cmd: IssueToken) -> tuple[Role | None, tuple[str, ...]]:
    """The role or scopes of a new token: well-formed, and none above the issuer's."""
    if cmd.kind is TokenKind.STAFF:
        if cmd.scopes:
            raise InvalidInput("scopes", "staff tokens have a role, not scopes", code=ErrorCode.INVALID_SCOPE)
        try:
            role = Role(cmd.role or "")
        except ValueError:
            raise InvalidInput("role", "a staff token needs a role: operator, manager or owner",
                               code=ErrorCode.INVALID_ROLE) from None
        if principal.role is not None and RANK[role] > RANK[principal.role]:
            raise Forbidden(f"the {role.value} role is above this token's ({principal.role.value}): it cannot issue it")
        return role, ()
    if cmd.role:
        raise InvalidInput("role", "integrator tokens have scopes, not a role", code=ErrorCode.INVALID_ROLE)
    scopes = tuple(sorted({s.strip() for s in cmd.scopes}))
    unknown = [s for s in scopes if s not in SCOPES]
    if not scopes or unknown:
        raise InvalidInput("scopes", (f"unknown scope {unknown[0][:40]!r}; " if unknown else "give at least one "
                                      "scope; ") + f"scopes are {', '.join(sorted(SCOPES))}",
                           code=ErrorCode.INVALID_SCOPE)
    beyond = [s for s in scopes if not principal.allows(Action(s))]
    if beyond:
        raise Forbidden(f"this token cannot grant the '{beyond[0]}' scope: it may not do that itself")
    return None, scopes


async def issue_in(uow: _TokenUnitOfWork, now: datetime, session: str, tenant_id: UUID, unit_id: UUID | None,
                   kind: TokenKind, role: Role | None, scopes: tuple[str, ...], name: str,
                   expires_at: datetime | None) -> IssuedToken:
    """Issue a checked token in the unit of work and log it in every unit it reaches."""
    issued = await uow.staff_tokens.issue(tenant_id, unit_id, kind, role, scopes, name, expires_at, now)
    await _log(uow, issued.token, ChangeAction.CREATED, session, now)
    return issued


async def _log(uow: _TokenUnitOfWork, token: StaffToken, action: ChangeAction, session: str, at: datetime) -> None:
    units = [token.unit_id] if token.unit_id else await uow.staff_tokens.tenant_units(token.tenant_id)
    described = token.described()
    for unit in units:
        await venue_log.note(uow, unit, VenueChange(
            "staff_token", str(token.id), action, session, before=described if action is ChangeAction.REMOVED
            else None, after=described if action is ChangeAction.CREATED else None), at)


async def issue_token(deps: Deps, principal: Principal, cmd: IssueToken) -> IssuedToken:
    """Issue a staff or integrator token within the caller's reach and rights; its secret is returned once."""
    _require_owner(principal)
    if cmd.tenant_wide and not (principal.kind == "system" or principal.unit_id is None):
        raise Forbidden("this token is bound to one unit: it issues tokens for that unit only, not tenant-wide ones")
    if not _within_reach(principal, cmd.tenant_id, None if cmd.tenant_wide else cmd.unit_id):
        raise Forbidden("that unit is outside this token's reach")
    role, scopes = _checked_rights(principal, cmd)
    name = checked_name(cmd.name, "name", TOKEN_NAME_MAX)
    now = deps.clock.now()
    if cmd.expires_at is not None and (cmd.expires_at.tzinfo is None or cmd.expires_at <= now):
        raise InvalidInput("expiresAt", "expiresAt must be a time in the future, with its UTC offset",
                           code=ErrorCode.IN_THE_PAST)
    async with deps.uow() as uow:
        issued = await issue_in(uow, now, principal.key, cmd.tenant_id, None if cmd.tenant_wide else cmd.unit_id,
                                cmd.kind, role, scopes, name, cmd.expires_at)
        await uow.commit()
    return issued


async def tokens_of(deps: Deps, principal: Principal, tenant_id: UUID, unit_id: UUID,
                    include_revoked: bool = False) -> list[StaffToken]:
    """The tokens that reach the unit (the caller was authorized on it), never their secrets."""
    _require_owner(principal)
    async with deps.uow() as uow:
        return await uow.staff_tokens.reaching(tenant_id, unit_id, include_revoked)


async def revoke_token(deps: Deps, principal: Principal, token_id: UUID) -> Revoked:
    """Revoke a token within the caller's reach (revoking it again changes nothing)."""
    _require_owner(principal)
    now = deps.clock.now()
    async with deps.uow() as uow:
        token = await uow.staff_tokens.get(token_id)
        if token is None:
            raise NotFound("token", token_id, field="tokenId")
        if not _within_reach(principal, token.tenant_id, token.unit_id):
            raise Forbidden("that token reaches beyond this token's own reach: it cannot revoke it")
        if principal.role is not None and token.role is not None and RANK[token.role] > RANK[principal.role]:
            raise Forbidden(f"that token's role ({token.role.value}) is above this token's ({principal.role.value})")
        if token.revoked_at is None:
            token = await uow.staff_tokens.revoke(token_id, now)
            await _log(uow, token, ChangeAction.REMOVED, principal.key, now)
            await uow.commit()
    return Revoked(token, own=principal.token_id == token_id)
