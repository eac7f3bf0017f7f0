"""The platform sets up a venue's top levels (issue 18): a tenant, its organizations, and units with their clock,
slot length, currency and first owner token.

Only the platform calls these: a system token through GraphQL (resolvers/setup.py checks it with
`domain.access.authorize_platform`) or the `slothold venue` command, whose session is "cli". A unit's creation is
in its venue log (entity `unit`), and so is its first owner token (entity `staff_token`, never the secret).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Protocol
from uuid import UUID
from zoneinfo import available_timezones

from domain import venue_log
from domain.access import Role
from domain.errors import ErrorCode, InvalidInput, NotFound
from domain.staff_tokens import IssuedToken, TokenKind, checked_name, issue_in
from domain.venue_log import ChangeAction, VenueChange

if TYPE_CHECKING:
    from domain.services.deps import Deps

NAME_MAX = 120
SLOT_MINUTES = (5, 240)
"""A unit's slot length: 5 minutes to 4 hours, and a day holds a whole number of slots."""
CURRENCIES = frozenset("""
AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF CHE
CHF CHW CLF CLP CNY COP COU CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ
GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD
MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG
QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD
TZS UAH UGX USD USN UYI UYU UYW UZS VED VES VND VUV WST XAF XCD XCG XOF XPF YER ZAR ZMW ZWG ZWL
""".split())
"""ISO 4217 codes of currencies (not the metals, funds of the IMF or testing codes)."""


@cache
def _zones() -> frozenset[str]:
    return frozenset(available_timezones())


def checked_timezone(raw: str, field: str = "timezone") -> str:
    """An IANA time zone name (America/Sao_Paulo), or InvalidInput naming the field."""
    name = raw.strip()
    if name not in _zones():
        raise InvalidInput(field, f"{raw[:60]!r} is not an IANA time zone such as America/Sao_Paulo",
                           code=ErrorCode.INVALID_TIMEZONE)
    return name


def checked_slot_minutes(value: int, field: str = "slotMinutes") -> int:
    """A slot length that divides a day into whole slots, within SLOT_MINUTES."""
    low, high = SLOT_MINUTES
    if not low <= value <= high or 1440 % value:
        raise InvalidInput(field, f"{field} must be between {low} and {high} minutes and divide a day (1440 "
                           "minutes) into whole slots, e.g. 15, 30, 60 or 90", code=ErrorCode.INVALID_SLOT_MINUTES)
    return value


def checked_currency(raw: str, field: str = "currency") -> str:
    """An ISO 4217 currency code in upper case (BRL)."""
    code = raw.strip().upper()
    if code not in CURRENCIES:
        raise InvalidInput(field, f"{raw[:20]!r} is not an ISO 4217 currency code such as BRL",
                           code=ErrorCode.INVALID_CURRENCY)
    return code


class VenueSetup(Protocol):
    """Tenants, organizations and units in the unit of work (store/setup.py)."""

    async def add_tenant(self, tenant_id: UUID, name: str) -> None: ...

    async def tenant_exists(self, tenant_id: UUID) -> bool: ...

    async def add_organization(self, organization_id: UUID, tenant_id: UUID, name: str) -> None: ...

    async def organization_tenant(self, organization_id: UUID) -> UUID | None:
        """The organization's tenant; None: no such organization."""
        ...

    async def add_unit(self, unit_id: UUID, organization_id: UUID, name: str, timezone: str, slot_minutes: int,
                       currency: str) -> None:
        """A unit with the platform's default parameters and its first cancellation policy."""
        ...


@dataclass(frozen=True)
class NewTenant:
    name: str


@dataclass(frozen=True)
class NewOrganization:
    tenant_id: UUID
    name: str


@dataclass(frozen=True)
class NewUnit:
    organization_id: UUID
    name: str
    timezone: str = "America/Sao_Paulo"
    slot_minutes: int = 60
    currency: str = "BRL"
    owner_token_name: str | None = None
    """Also issue the unit's first owner token, named so (None: none)."""


@dataclass(frozen=True)
class Created:
    """A tenant or an organization as made."""

    id: UUID
    name: str
    tenant_id: UUID


@dataclass(frozen=True)
class CreatedUnit:
    id: UUID
    organization_id: UUID
    tenant_id: UUID
    owner_token: IssuedToken | None
    """With its secret, shown this once."""


async def create_tenant(deps: Deps, cmd: NewTenant, session: str) -> Created:
    """A new tenant (the venue's owner as a business)."""
    name = checked_name(cmd.name, "name", NAME_MAX)
    tenant_id = deps.new_id()
    async with deps.uow() as uow:
        await uow.setup.add_tenant(tenant_id, name)
        await uow.commit()
    return Created(tenant_id, name, tenant_id)


async def create_organization(deps: Deps, cmd: NewOrganization, session: str) -> Created:
    """A new organization of a tenant (NotFound naming tenantId when there is no such tenant)."""
    name = checked_name(cmd.name, "name", NAME_MAX)
    organization_id = deps.new_id()
    async with deps.uow() as uow:
        if not await uow.setup.tenant_exists(cmd.tenant_id):
            raise NotFound("tenant", cmd.tenant_id, field="tenantId")
        await uow.setup.add_organization(organization_id, cmd.tenant_id, name)
        await uow.commit()
    return Created(organization_id, name, cmd.tenant_id)


async def create_unit(deps: Deps, cmd: NewUnit, session: str) -> CreatedUnit:
    """A new unit of an organization, logged in its venue log with who made it; with `owner_token_name`, its first
    owner token too (in the same transaction: both or neither)."""
    name = checked_name(cmd.name, "name", NAME_MAX)
    timezone = checked_timezone(cmd.timezone, "timezone")
    slot = checked_slot_minutes(cmd.slot_minutes, "slotMinutes")
    currency = checked_currency(cmd.currency, "currency")
    token_name = None if cmd.owner_token_name is None else checked_name(cmd.owner_token_name,
                                                                        "ownerTokenName", 80)
    unit_id, now = deps.new_id(), deps.clock.now()
    async with deps.uow() as uow:
        tenant_id = await uow.setup.organization_tenant(cmd.organization_id)
        if tenant_id is None:
            raise NotFound("organization", cmd.organization_id, field="organizationId")
        await uow.setup.add_unit(unit_id, cmd.organization_id, name, timezone, slot, currency)
        await venue_log.note(uow, unit_id, VenueChange(
            "unit", str(unit_id), ChangeAction.CREATED, session, after={
                "name": name, "timezone": timezone, "slotMinutes": slot, "currency": currency,
                "organizationId": str(cmd.organization_id)}), now)
        issued = None
        if token_name is not None:
            issued = await issue_in(uow, now, session, tenant_id, unit_id, TokenKind.STAFF, Role.OWNER, (),
                                    token_name, None)
        await uow.commit()
    return CreatedUnit(unit_id, cmd.organization_id, tenant_id, issued)
