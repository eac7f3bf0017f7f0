"""Services and their price bands: owners set them up; anyone (customers too) lists them with their prices."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

import strawberry

from domain import service_catalog
from domain.access import Action
from domain.units import Unit
from resolvers.context import Info, parse_id
from resolvers.permissions import authorize_unit, signed_in
from schema.args import ServiceIdArg, UnitIdArg
from schema.ids import Kind
from schema.service_catalog import PriceBandInput, Service, ServiceInput, ServiceResult, ServiceUpdateInput

InactiveArg = Annotated[bool, strawberry.argument(description="Also the services not sold now (default false).")]
ServiceArg = Annotated[ServiceInput, strawberry.argument(description="The new service.")]
ServiceChangesArg = Annotated[ServiceUpdateInput, strawberry.argument(description="What changes.")]
BandsArg = Annotated[list[PriceBandInput], strawberry.argument(
    description="The new price bands (they replace the current ones; [] removes them).")]


def _ids(values: list[strawberry.ID], field: str) -> tuple[UUID, ...]:
    return tuple(parse_id(v, field, Kind.RESOURCE) for v in values)


async def _owned(info: Info, service_id: strawberry.ID) -> tuple[UUID, Unit]:
    """The service's id and unit, once the caller may configure that unit."""
    sid = parse_id(service_id, "serviceId", Kind.SERVICE)
    signed_in(info.context, Action.CONFIGURE)  # an anonymous caller learns nothing of which ids exist
    unit_id = await service_catalog.unit_of(info.context.deps, sid)
    return sid, await authorize_unit(info.context, unit_id, Action.CONFIGURE)


@strawberry.type
class ServiceCatalogQuery:
    @strawberry.field(description="The unit's services with their lengths, resources, current price and price "
                      "bands (public: customers see the prices). includeInactive: also those not sold now.")
    async def services(self, info: Info, unit_id: UnitIdArg, include_inactive: InactiveArg = False) -> list[Service]:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        unit = await authorize_unit(info.context, uid, Action.PUBLIC)
        found = await service_catalog.services(info.context.deps, uid, include_inactive)
        return [Service.from_domain(s, unit.params.slot_minutes) for s in found]


@strawberry.type
class ServiceCatalogMutation:
    @strawberry.mutation(description="Owner: add a service to the unit (its first price version).")
    async def create_service(self, info: Info, unit_id: UnitIdArg, input: ServiceArg) -> ServiceResult:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        unit = await authorize_unit(info.context, uid, Action.CONFIGURE)
        s = await service_catalog.create_service(info.context.deps, uid,
                                                 input.draft(_ids(input.resource_ids, "resourceIds")),
                                                 info.context.principal.key)
        return Service.from_domain(s, unit.params.slot_minutes)

    @strawberry.mutation(description="Owner: rename a service, change its lengths or the resources it runs on.")
    async def update_service(self, info: Info, service_id: ServiceIdArg, input: ServiceChangesArg
                             ) -> ServiceResult:
        sid, unit = await _owned(info, service_id)
        ids = None if input.resource_ids is None else _ids(input.resource_ids, "resourceIds")
        s = await service_catalog.update_service(info.context.deps, sid, input.changes(ids),
                                                 info.context.principal.key)
        return Service.from_domain(s, unit.params.slot_minutes)

    @strawberry.mutation(description="Owner: stop selling a service (new holds for it are refused).")
    async def deactivate_service(self, info: Info, service_id: ServiceIdArg) -> ServiceResult:
        sid, unit = await _owned(info, service_id)
        s = await service_catalog.set_active(info.context.deps, sid, False, info.context.principal.key)
        return Service.from_domain(s, unit.params.slot_minutes)

    @strawberry.mutation(description="Owner: sell a deactivated service again.")
    async def reactivate_service(self, info: Info, service_id: ServiceIdArg) -> ServiceResult:
        sid, unit = await _owned(info, service_id)
        s = await service_catalog.set_active(info.context.deps, sid, True, info.context.principal.key)
        return Service.from_domain(s, unit.params.slot_minutes)

    @strawberry.mutation(description="Owner: publish the service's next price version with these price bands "
                         "(replacing the current ones; [] removes them). Holds made before keep their version.")
    async def set_price_bands(self, info: Info, service_id: ServiceIdArg, bands: BandsArg
                              ) -> ServiceResult:
        sid, unit = await _owned(info, service_id)
        s = await service_catalog.set_price_bands(info.context.deps, sid,
                                                  tuple(b.band(i) for i, b in enumerate(bands)),
                                                  info.context.principal.key)
        return Service.from_domain(s, unit.params.slot_minutes)
