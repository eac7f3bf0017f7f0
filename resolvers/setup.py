"""Setting a venue up: the platform creates tenants, organizations and units; owners issue, list and revoke staff
and integrator tokens and set the unit's contacts (issue 18)."""

from __future__ import annotations

from typing import Annotated

import strawberry

from domain import contacts, queries, setup, staff_tokens
from domain.access import Action, authorize_platform
from domain.errors import NotFound
from resolvers.context import Info, parse_id
from resolvers.permissions import authorize_unit, signed_in
from schema.args import UnitIdArg
from schema.ids import Kind, ref
from schema.setup import (
    CreatedUnit,
    CreateUnitInput,
    CreateUnitResult,
    IssuedStaffToken,
    IssueStaffTokenInput,
    IssueStaffTokenResult,
    Organization,
    OrganizationResult,
    RevokeStaffTokenResult,
    StaffToken,
    StaffTokenRevoked,
    Tenant,
    TenantResult,
)
from schema.units import Unit, UnitContactsInput, UnitSettingsResult

TenantNameArg = Annotated[str, strawberry.argument(description="The tenant's name (the business).")]
TenantIdArg = Annotated[strawberry.ID, strawberry.argument(description="The tenant (its id as the API gave it).")]
OrganizationNameArg = Annotated[str, strawberry.argument(description="The organization's name.")]
CreateUnitArg = Annotated[CreateUnitInput, strawberry.argument(description="The new unit.")]
RevokedArg = Annotated[bool, strawberry.argument(description="Also the revoked tokens (default false).")]
IssueArg = Annotated[IssueStaffTokenInput, strawberry.argument(description="The token to issue.")]
TokenIdArg = Annotated[strawberry.ID, strawberry.argument(description="The token (a StaffToken id).")]
ContactsArg = Annotated[UnitContactsInput, strawberry.argument(description="The contacts to change.")]


def _platform(info: Info) -> None:
    signed_in(info.context, Action.PLATFORM)
    authorize_platform(info.context.principal)


@strawberry.type
class SetupMutation:
    @strawberry.mutation(description="Platform (system token): a new tenant, the business that owns venues.")
    async def create_tenant(self, info: Info, name: TenantNameArg) -> TenantResult:
        _platform(info)
        made = await setup.create_tenant(info.context.deps, setup.NewTenant(name), info.context.principal.key)
        return Tenant(id=ref(Kind.TENANT, made.id), name=made.name)

    @strawberry.mutation(description="Platform (system token): a new organization of a tenant.")
    async def create_organization(self, info: Info, tenant_id: TenantIdArg, name: OrganizationNameArg
                                  ) -> OrganizationResult:
        _platform(info)
        cmd = setup.NewOrganization(parse_id(tenant_id, "tenantId", Kind.TENANT), name)
        return Organization.from_domain(await setup.create_organization(info.context.deps, cmd,
                                                                        info.context.principal.key))

    @strawberry.mutation(description="Platform (system token): a new unit (venue) of an organization, with its time "
                         "zone, slot length and currency, and its first owner token when ownerTokenName is given "
                         "(the secret is in the answer, this once). Logged in the unit's venueChanges.")
    async def create_unit(self, info: Info, input: CreateUnitArg) -> CreateUnitResult:
        _platform(info)
        cmd = setup.NewUnit(parse_id(input.organization_id, "organizationId", Kind.ORGANIZATION), input.name,
                            input.timezone, input.slot_minutes, input.currency, input.owner_token_name)
        made = await setup.create_unit(info.context.deps, cmd, info.context.principal.key)
        unit, resources = await queries.unit_with_resources(info.context.deps, made.id)
        return CreatedUnit(unit=Unit.from_domain(unit, resources), tenant_id=ref(Kind.TENANT, made.tenant_id),
                           owner_token=IssuedStaffToken.from_domain(made.owner_token) if made.owner_token else None)


@strawberry.type
class StaffTokenQuery:
    @strawberry.field(description="Owners: the staff and integrator tokens that reach the unit (its own and the "
                      "tenant-wide ones), oldest first, never their secrets. includeRevoked: revoked ones too.")
    async def staff_tokens(self, info: Info, unit_id: UnitIdArg, include_revoked: RevokedArg = False
                           ) -> list[StaffToken]:
        unit = await authorize_unit(info.context, parse_id(unit_id, "unitId", Kind.UNIT), Action.CONFIGURE)
        found = await staff_tokens.tokens_of(info.context.deps, info.context.principal, unit.tenant_id, unit.id,
                                             include_revoked)
        return [StaffToken.from_domain(t) for t in found]


@strawberry.type
class StaffTokenMutation:
    @strawberry.mutation(description="Owners: issue a staff or integrator token for the unit (or, tenantWide, "
                         "every unit of its tenant), never beyond the caller's own reach and role. The secret is in "
                         "the answer, this once. Logged in venueChanges (entity staff_token).")
    async def issue_staff_token(self, info: Info, input: IssueArg) -> IssueStaffTokenResult:
        unit = await authorize_unit(info.context, parse_id(input.unit_id, "unitId", Kind.UNIT), Action.CONFIGURE)
        cmd = staff_tokens.IssueToken(
            unit_id=unit.id, tenant_id=unit.tenant_id, kind=staff_tokens.TokenKind(input.kind.value),
            name=input.name, role=input.role.value if input.role else None, scopes=tuple(input.scopes or ()),
            tenant_wide=input.tenant_wide, expires_at=input.expires_at)
        return IssuedStaffToken.from_domain(await staff_tokens.issue_token(info.context.deps,
                                                                           info.context.principal, cmd))

    @strawberry.mutation(description="Owners: revoke a token within their reach. It stops working at once, open "
                         "websockets included; revoking the token you call with is allowed (revokedOwnToken). "
                         "Logged in venueChanges (entity staff_token).")
    async def revoke_staff_token(self, info: Info, token_id: TokenIdArg) -> RevokeStaffTokenResult:
        signed_in(info.context, Action.CONFIGURE)
        done = await staff_tokens.revoke_token(info.context.deps, info.context.principal,
                                               parse_id(token_id, "tokenId", Kind.STAFF_TOKEN))
        info.context.authenticator.forget()  # this process refuses it now and checks its open websockets at once
        return StaffTokenRevoked(token=StaffToken.from_domain(done.token), revoked_own_token=done.own)

    @strawberry.mutation(description="Owners: where the unit's alerts (WhatsApp) and owner notifications (e-mail) "
                         "go; \"\" clears one. Logged in venueChanges (entity contacts).")
    async def update_unit_contacts(self, info: Info, unit_id: UnitIdArg, input: ContactsArg
                                   ) -> UnitSettingsResult:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.CONFIGURE)
        cmd = contacts.ContactsChange(uid, input.alert_whatsapp, input.owner_email)
        if not await contacts.update_contacts(info.context.deps, cmd, info.context.principal.key):
            raise NotFound("unit", uid, field="unitId")
        unit, resources = await queries.unit_with_resources(info.context.deps, uid)
        return Unit.from_domain(unit, resources)
