"""Types of the venue's set-up by the platform (tenants, organizations, units) and of the owners' staff and
integrator tokens (issue 18)."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Annotated

import strawberry

from domain import setup as ds
from domain import staff_tokens as dt
from domain.access import Role, Scope
from schema import docs
from schema.enums import described_enum
from schema.errors import InvalidInput, NotFound
from schema.ids import Kind, opt_ref, ref
from schema.nodes import Node
from schema.units import Unit


@strawberry.type(description="A tenant: the business that owns venues.")
class Tenant(Node):
    id: strawberry.ID = strawberry.field(description=docs.ID)
    name: str = strawberry.field(description=docs.NAME)


@strawberry.type(description="An organization of a tenant (its units share hold types).")
class Organization(Node):
    id: strawberry.ID = strawberry.field(description=docs.ID)
    tenant_id: strawberry.ID = strawberry.field(description="The tenant it belongs to.")
    name: str = strawberry.field(description=docs.NAME)

    @classmethod
    def from_domain(cls, o: ds.Created) -> Organization:
        return cls(id=ref(Kind.ORGANIZATION, o.id), tenant_id=ref(Kind.TENANT, o.tenant_id), name=o.name)


class StaffTokenKind(Enum):
    STAFF = "staff"
    INTEGRATOR = "client"


described_enum(StaffTokenKind, description="A staff member's token (a role) or an integrator's (scopes).", values={
    "STAFF": "A staff member's token, with a role.",
    "INTEGRATOR": "An integrator's token (an API client), with scopes.",
})


StaffRole = Role  # the domain's enum, registered by strawberry.enum (which returns it unchanged)
described_enum(StaffRole, name="StaffRole", description="operator < manager < owner.", values={
    "OPERATOR": "The counter: the grid, the queue, counter bookings, check-in, walk-ins.",
    "MANAGER": "An operator who may also drop holds, block resources, manage customers and record payments by hand.",
    "OWNER": "A manager who may also set prices, policies, parameters, hold types, the layout, tokens and webhooks.",
})
described_enum(Scope, name="Scope", description="What an integrator token may do: one scope per kind of action "
               "(SPEC §14).", values={
    "READ": "Read the unit's grid, queue, waitlists, bookings and charges, and their live feeds.",
    "BOOK": "Hold, accept, pay, swap, cancel, join or claim waitlists for customers.",
    "COUNTER": "Counter bookings, check-in, completion, the staff queue, payments confirmed by hand, walk-ins.",
    "DROP": "Drop a customer's hold.",
    "MANAGE": "The unit's customers (blacklist) and grid blocks.",
    "CONFIGURE": "Prices, cancellation policies, parameters, hold types, resources and opening hours.",
    "WEBHOOKS": "Outgoing webhook endpoints: register, list, replay deliveries.",
    "RECORD_PAYMENT": "Record a payment taken outside Pix, which confirms the booking.",
})


@strawberry.type(description="A staff or integrator token as listed: never its secret.")
class StaffToken(Node):
    id: strawberry.ID = strawberry.field(description=docs.ID)
    name: str = strawberry.field(description="Who or what holds it (shown in lists and logs).")
    kind: StaffTokenKind = strawberry.field(description="A staff member's or an integrator's.")
    role: StaffRole | None = strawberry.field(description="Staff tokens.")
    scopes: list[Scope] = strawberry.field(description="Integrator tokens: the actions they may perform.")
    unit_id: strawberry.ID | None = strawberry.field(description="The one unit it acts on (null: tenant-wide).")
    tenant_wide: bool = strawberry.field(description="It reaches every unit of the tenant.")
    created_at: datetime = strawberry.field(description="When it was issued.")
    last_used_at: datetime | None = strawberry.field(description="When the API last authenticated a request with "
                                                     "it (to the minute; null: never, or not since this was kept).")
    expires_at: datetime | None = strawberry.field(description=docs.EXPIRES_AT)
    revoked_at: datetime | None = strawberry.field(description="When it was revoked; null while it works.")

    @classmethod
    def from_domain(cls, t: dt.StaffToken) -> StaffToken:
        return cls(id=ref(Kind.STAFF_TOKEN, t.id), name=t.name, kind=StaffTokenKind(t.kind.value), role=t.role,
                   scopes=[Scope(s) for s in t.scopes], unit_id=opt_ref(Kind.UNIT, t.unit_id),
                   tenant_wide=t.unit_id is None, created_at=t.created_at, last_used_at=t.last_used_at,
                   expires_at=t.expires_at, revoked_at=t.revoked_at)


@strawberry.type(description="A token just issued: `secret` is the bearer token, shown only this once.")
class IssuedStaffToken:
    token: StaffToken = strawberry.field(description="The token as lists show it.")
    secret: str = strawberry.field(description="The bearer token (Authorization: Bearer <secret>), shown only this "
                                   "once: keep it.")

    @classmethod
    def from_domain(cls, i: dt.IssuedToken) -> IssuedStaffToken:
        return cls(token=StaffToken.from_domain(i.token), secret=i.secret)


@strawberry.type(description="A revoked token: it stops working at once, open websockets included.")
class StaffTokenRevoked:
    token: StaffToken = strawberry.field(description="The token, now revoked.")
    revoked_own_token: bool = strawberry.field(description="The caller revoked the token it called with: its next "
                                               "request is refused.")


@strawberry.type(description="A unit just created, with its first owner token when one was asked for.")
class CreatedUnit:
    unit: Unit = strawberry.field(description="The new unit.")
    tenant_id: strawberry.ID = strawberry.field(description="Its tenant.")
    owner_token: IssuedStaffToken | None = strawberry.field(description="Its first owner token, when ownerTokenName "
                                                            "was given; null otherwise.")


@strawberry.input(description="A new unit of an organization.")
class CreateUnitInput:
    organization_id: strawberry.ID = strawberry.field(description="The organization it belongs to.")
    name: str = strawberry.field(description="The unit's name (the venue's).")
    timezone: str = strawberry.field(default="America/Sao_Paulo", description="An IANA time zone.")
    slot_minutes: int = strawberry.field(default=60, description="The grid's slot: 5 to 240 minutes, dividing a day.")
    currency: str = strawberry.field(default="BRL", description="ISO 4217 code of the unit's prices.")
    owner_token_name: str | None = strawberry.field(default=None, description="Also issue the unit's first owner "
                                                    "token, named so; its secret is in the answer, this once.")


@strawberry.input(description="A staff token (kind STAFF, with a role) or an integrator token (INTEGRATOR, with "
                  "scopes) for the unit, or for every unit of its tenant (tenantWide).")
class IssueStaffTokenInput:
    unit_id: strawberry.ID = strawberry.field(description="The unit it is for (with tenantWide: a unit of the tenant).")
    kind: StaffTokenKind = strawberry.field(description="STAFF (with a role) or INTEGRATOR (with scopes).")
    name: str = strawberry.field(description="Who or what holds it (shown in lists and logs).")
    role: StaffRole | None = strawberry.field(default=None, description="Staff tokens: their role, at most the "
                                              "caller's.")
    scopes: list[Scope] | None = strawberry.field(default=None, description="Integrators: the actions it may "
                                                  "perform, each one the caller may perform too.")
    tenant_wide: bool = strawberry.field(default=False, description="Reach every unit of the unit's tenant (only "
                                         "tenant-wide owners and the platform may).")
    expires_at: datetime | None = strawberry.field(default=None, description="When it stops working (null: never).")


TenantResult = Annotated[Tenant | InvalidInput, strawberry.union(
    "TenantResult", description=(
    "What createTenant answers: Tenant, or the refusal (an Error) that stopped it."))]
OrganizationResult = Annotated[Organization | InvalidInput | NotFound, strawberry.union(
    "OrganizationResult", description=(
    "What createOrganization answers: Organization, or the refusal (an Error) that stopped it."))]
CreateUnitResult = Annotated[CreatedUnit | InvalidInput | NotFound, strawberry.union(
    "CreateUnitResult", description=(
    "What createUnit answers: CreatedUnit, or the refusal (an Error) that stopped it."))]
IssueStaffTokenResult = Annotated[IssuedStaffToken | InvalidInput | NotFound, strawberry.union(
    "IssueStaffTokenResult", description=(
    "What issueStaffToken answers: IssuedStaffToken, or the refusal (an Error) that stopped it."))]
RevokeStaffTokenResult = Annotated[StaffTokenRevoked | NotFound | InvalidInput,
                                   strawberry.union(
                                       "RevokeStaffTokenResult", description=(
                                       "What revokeStaffToken answers: StaffTokenRevoked, or the refusal (an Error) "
                                       "that stopped it."))]
