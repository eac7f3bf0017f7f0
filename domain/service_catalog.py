"""Owners set up what their unit sells (issue 18): services — name, allowed lengths in slots, the resources they
run on, a price and payment rule — and their price bands, each change logged in the venue log in its own
transaction. Prices and bands are versioned: a hold keeps the version it was made at (domain/pricing.py)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING
from uuid import UUID

from domain import venue_log
from domain.errors import ErrorCode, InvalidInput, NotFound
from domain.payments import PaymentRule, Price
from domain.pricing import PriceBand, PriceTable, Service, check_bands, check_terms, clock_text
from domain.venue_log import ChangeAction, JsonValue, VenueChange, changed_fields

if TYPE_CHECKING:
    from domain.ports import UnitOfWork
    from domain.services.deps import Deps
    from domain.units import Unit

NAME_MAX = 200
"""As the API's limit for names (api/graphql/text_limits.py)."""


@dataclass(frozen=True)
class ServiceDraft:
    """A new service as an owner describes it."""

    name: str
    durations: tuple[int, ...]
    resource_ids: tuple[UUID, ...]
    price_cents: int
    rule: PaymentRule
    deposit_percent: int | None = None
    deposit_cents: int | None = None


@dataclass(frozen=True)
class ServiceChanges:
    """What an owner changes of a service (None: unchanged). Prices change by a new version, not here."""

    name: str | None = None
    durations: tuple[int, ...] | None = None
    resource_ids: tuple[UUID, ...] | None = None


def _name(name: str) -> str:
    text = name.strip()
    if not text:
        raise InvalidInput("name", "a service needs a name", code=ErrorCode.REQUIRED)
    if len(text) > NAME_MAX:
        raise InvalidInput("name", f"a service's name has at most {NAME_MAX} characters", code=ErrorCode.TOO_LONG)
    return text


def _durations(durations: tuple[int, ...], slot_minutes: int) -> tuple[int, ...]:
    most = 24 * 60 // slot_minutes
    if not durations:
        raise InvalidInput("durations", "give at least one length, in slots", code=ErrorCode.INVALID_DURATION)
    if any(d < 1 or d > most for d in durations):
        raise InvalidInput("durations", f"each length is 1 to {most} slots of {slot_minutes} minutes",
                           code=ErrorCode.INVALID_DURATION)
    if len(set(durations)) != len(durations):
        raise InvalidInput("durations", "a length is listed twice", code=ErrorCode.INVALID_DURATION)
    return tuple(sorted(durations))


async def _resources(uow: UnitOfWork, unit_id: UUID, ids: tuple[UUID, ...]) -> tuple[UUID, ...]:
    if not ids:
        raise InvalidInput("resourceIds", "a service runs on at least one resource", code=ErrorCode.NO_RESOURCE)
    if len(set(ids)) != len(ids):
        raise InvalidInput("resourceIds", "a resource is listed twice", code=ErrorCode.DUPLICATE_RESOURCE)
    found = await uow.units.resources_by_id(unit_id, list(ids))
    missing = [r for r in ids if r not in found]
    if missing:
        raise NotFound("resource", missing[0], field="resourceIds")
    return tuple(sorted(ids, key=str))


async def _free_name(uow: UnitOfWork, unit_id: UUID, name: str, other_than: UUID | None) -> None:
    if await uow.catalog.name_taken(unit_id, name, other_than):
        raise InvalidInput("name", f"the unit already sells a service named {name!r}", code=ErrorCode.NAME_TAKEN)


def band_json(band: PriceBand) -> dict[str, JsonValue]:
    """A band by its GraphQL field names, as the venue log keeps it."""
    return {"weekdays": list(band.weekdays), "from": clock_text(band.from_minute), "to": clock_text(band.to_minute),
            "priceCents": band.price_cents, "paymentRule": band.rule.name, "depositPercent": band.deposit_percent,
            "depositCents": band.deposit_cents}


def service_json(s: Service) -> dict[str, JsonValue]:
    """A service by its GraphQL field names, as the venue log keeps it."""
    p = s.table.base
    return {"name": s.name, "durations": list(s.durations) if s.durations is not None else None,
            "resourceIds": [str(r) for r in s.resource_ids], "active": s.active, "priceVersion": p.version,
            "priceCents": p.price_cents, "paymentRule": p.rule.name, "depositPercent": p.deposit_percent,
            "depositCents": p.deposit_cents}


def _minutes(durations: tuple[int, ...] | None, unit: Unit) -> int:
    """The legacy `duration_minutes` column: the shortest allowed length."""
    return min(durations or (1,)) * unit.params.slot_minutes


async def create_service(deps: Deps, unit_id: UUID, draft: ServiceDraft, session: str) -> Service:
    """Add a service to the unit with its first price version."""
    check_terms(draft.price_cents, draft.rule, draft.deposit_percent, draft.deposit_cents)
    name = _name(draft.name)
    async with deps.uow() as uow:
        unit = await uow.units.get(unit_id)
        durations = _durations(draft.durations, unit.params.slot_minutes)
        resources = await _resources(uow, unit_id, draft.resource_ids)
        await _free_name(uow, unit_id, name, None)
        sid = deps.new_id()
        base = Price(sid, 1, draft.price_cents, draft.rule, draft.deposit_percent, draft.deposit_cents)
        service = Service(sid, unit_id, name, PriceTable(base), durations, resources)
        await uow.catalog.create(service, _minutes(durations, unit))
        await venue_log.note(uow, unit_id, VenueChange("service", str(sid), ChangeAction.CREATED, session,
                                                       after=service_json(service)), deps.clock.now())
        await uow.commit()
    return service


async def _found(uow: UnitOfWork, service_id: UUID) -> Service:
    service = await uow.catalog.service(service_id)
    if service is None:
        raise NotFound("service", service_id, field="serviceId")
    return service


async def _save(deps: Deps, uow: UnitOfWork, old: Service, new: Service, session: str) -> Service:
    """Write the service and log what changed (nothing when nothing did)."""
    before, after = changed_fields(service_json(old), service_json(new))
    if after:
        unit = await uow.units.get(new.unit_id)
        await uow.catalog.update(new, _minutes(new.durations, unit))
        await venue_log.note(uow, new.unit_id, VenueChange("service", str(new.id), ChangeAction.UPDATED, session,
                                                           before, after), deps.clock.now())
        await uow.commit()
    return new


async def update_service(deps: Deps, service_id: UUID, changes: ServiceChanges, session: str) -> Service:
    """Rename a service, change its lengths or its resources (bookings already made keep theirs)."""
    if changes.name is None and changes.durations is None and changes.resource_ids is None:
        raise InvalidInput("input", "give a name, durations or resourceIds to change",
                           code=ErrorCode.NOTHING_TO_CHANGE)
    async with deps.uow() as uow:
        old = await _found(uow, service_id)
        new = old
        if changes.name is not None:
            name = _name(changes.name)
            await _free_name(uow, old.unit_id, name, old.id)
            new = replace(new, name=name)
        if changes.durations is not None:
            unit = await uow.units.get(old.unit_id)
            new = replace(new, durations=_durations(changes.durations, unit.params.slot_minutes))
        if changes.resource_ids is not None:
            new = replace(new, resource_ids=await _resources(uow, old.unit_id, changes.resource_ids))
        return await _save(deps, uow, old, new, session)


async def set_active(deps: Deps, service_id: UUID, active: bool, session: str) -> Service:
    """Stop selling a service (new holds are refused; bookings made stay as they are), or sell it again."""
    async with deps.uow() as uow:
        old = await _found(uow, service_id)
        return await _save(deps, uow, old, replace(old, active=active), session)


async def set_price_bands(deps: Deps, service_id: UUID, bands: tuple[PriceBand, ...], session: str) -> Service:
    """Publish the service's next price version with these bands (its base price and rule unchanged); holds and
    bookings made before keep the version they were made at."""
    async with deps.uow() as uow:
        old = await _found(uow, service_id)
        unit = await uow.units.get(old.unit_id)
        check_bands(bands, unit.params.slot_minutes)
        base = await uow.catalog.publish_bands(old.unit_id, old.id, bands)
        new = replace(old, table=PriceTable(base, bands))
        old_bands: list[JsonValue] = [band_json(b) for b in old.table.bands]
        new_bands: list[JsonValue] = [band_json(b) for b in bands]
        before: dict[str, JsonValue] = {"priceVersion": old.table.base.version, "bands": old_bands}
        after: dict[str, JsonValue] = {"priceVersion": base.version, "bands": new_bands}
        await venue_log.note(uow, old.unit_id, VenueChange("price_band", str(old.id), ChangeAction.UPDATED, session,
                                                           before, after), deps.clock.now())
        await uow.commit()
    return new


async def unit_of(deps: Deps, service_id: UUID) -> UUID:
    """The unit a service belongs to (what authorization checks); NotFound naming serviceId."""
    async with deps.uow() as uow:
        return (await _found(uow, service_id)).unit_id


async def services(deps: Deps, unit_id: UUID, include_inactive: bool = False) -> list[Service]:
    """The unit's services with their current prices and bands."""
    async with deps.uow() as uow:
        return await uow.catalog.services(unit_id, include_inactive)
