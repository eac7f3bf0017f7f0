"""Types of the venue's set-up by the platform (tenants, organizations, units) and of the owners' staff and
integrator tokens (issue 18)."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Annotated

import strawberry

from domain import setup as ds
from domain import staff_tokens as dt
from domain.access import Role
from schema.errors import InvalidInput, NotFound
from schema.ids import Kind, opt_ref, ref
from schema.nodes import Node
from schema.units import Unit


@strawberry.type(description="A tenant: the business that owns venues.")
class Tenant(Node):
    id: strawberry.ID
    name: str


@strawberry.type(description="An organization of a tenant (its units share hold types).")
class Organization(Node):
    id: strawberry.ID
    tenant_id: strawberry.ID
    name: str

    @classmethod
    def from_domain(cls, o: ds.Created) -> Organization:
        return cls(id=ref(Kind.ORGANIZATION, o.id), tenant_id=ref(Kind.TENANT, o.tenant_id), name=o.name)


@strawberry.enum(description="A staff member's token (a role) or an integrator's (scopes).")
class StaffTokenKind(Enum):
    STAFF = "staff"
    INTEGRATOR = "client"


StaffRole = Role  # the domain's enum, registered by strawberry.enum (which returns it unchanged)
strawberry.enum(StaffRole, name="StaffRole", description="operator < manager < owner.")


@strawberry.type(description="A staff or integrator token as listed: never its secret.")
class StaffToken(Node):
    id: strawberry.ID
    name: str
    kind: StaffTokenKind
    role: StaffRole | None = strawberry.field(description="Staff tokens.")
    scopes: list[str] = strawberry.field(description="Integrator tokens: the actions they may perform.")
    unit_id: strawberry.ID | None = strawberry.field(description="The one unit it acts on (null: tenant-wide).")
    tenant_wide: bool = strawberry.field(description="It reaches every unit of the tenant.")
    created_at: datetime
    last_used_at: datetime | None = strawberry.field(description="When the API last authenticated a request with "
                                                     "it (to the minute; null: never, or not since this was kept).")
    expires_at: datetime | None
    revoked_at: datetime | None

    @classmethod
    def from_domain(cls, t: dt.StaffToken) -> StaffToken:
        return cls(id=ref(Kind.STAFF_TOKEN, t.id), name=t.name, kind=StaffTokenKind(t.kind.value), role=t.role,
                   scopes=list(t.scopes), unit_id=opt_ref(Kind.UNIT, t.unit_id),
                   tenant_wide=t.unit_id is None, created_at=t.created_at, last_used_at=t.last_used_at,
                   expires_at=t.expires_at, revoked_at=t.revoked_at)


@strawberry.type(description="A token just issued: `secret` is the bearer token, shown only this once.")
class IssuedStaffToken:
    token: StaffToken
    secret: str

    @classmethod
    def from_domain(cls, i: dt.IssuedToken) -> IssuedStaffToken:
        return cls(token=StaffToken.from_domain(i.token), secret=i.secret)


@strawberry.type(description="A revoked token: it stops working at once, open websockets included.")
class StaffTokenRevoked:
    token: StaffToken
    revoked_own_token: bool = strawberry.field(description="The caller revoked the token it called with: its next "
                                               "request is refused.")


@strawberry.type(description="A unit just created, with its first owner token when one was asked for.")
class CreatedUnit:
    unit: Unit
    tenant_id: strawberry.ID
    owner_token: IssuedStaffToken | None


@strawberry.input(description="A new unit of an organization.")
class CreateUnitInput:
    organization_id: strawberry.ID
    name: str
    timezone: str = strawberry.field(default="America/Sao_Paulo", description="An IANA time zone.")
    slot_minutes: int = strawberry.field(default=60, description="The grid's slot: 5 to 240 minutes, dividing a day.")
    currency: str = strawberry.field(default="BRL", description="ISO 4217 code of the unit's prices.")
    owner_token_name: str | None = strawberry.field(default=None, description="Also issue the unit's first owner "
                                                    "token, named so; its secret is in the answer, this once.")


@strawberry.input(description="A staff token (kind STAFF, with a role) or an integrator token (INTEGRATOR, with "
                  "scopes) for the unit, or for every unit of its tenant (tenantWide).")
class IssueStaffTokenInput:
    unit_id: strawberry.ID
    kind: StaffTokenKind
    name: str = strawberry.field(description="Who or what holds it (shown in lists and logs).")
    role: StaffRole | None = None
    scopes: list[str] | None = strawberry.field(default=None, description="Integrators: read, book, counter, "
                                                "drop, manage, configure, webhooks.")
    tenant_wide: bool = strawberry.field(default=False, description="Reach every unit of the unit's tenant (only "
                                         "tenant-wide owners and the platform may).")
    expires_at: datetime | None = strawberry.field(default=None, description="When it stops working (null: never).")


TenantResult = Annotated[Tenant | InvalidInput, strawberry.union("TenantResult")]
OrganizationResult = Annotated[Organization | InvalidInput | NotFound, strawberry.union("OrganizationResult")]
CreateUnitResult = Annotated[CreatedUnit | InvalidInput | NotFound, strawberry.union("CreateUnitResult")]
IssueStaffTokenResult = Annotated[IssuedStaffToken | InvalidInput | NotFound, strawberry.union("IssueStaffTokenResult")]
RevokeStaffTokenResult = Annotated[StaffTokenRevoked | NotFound | InvalidInput,
                                   strawberry.union("RevokeStaffTokenResult")]
