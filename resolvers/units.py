"""Units: one with its parameters, opening hours and resources; owners change its parameters (SPEC §14, §17)."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

import strawberry

from domain import queries, unit_settings
from domain.access import Action
from domain.errors import NotFound
from resolvers.context import Context, Info, parse_id
from resolvers.permissions import authorize_unit
from schema.args import IdArg, UnitIdArg
from schema.ids import Kind
from schema.units import Unit, UnitParametersInput, UnitResult, UnitSettingsResult

ParametersArg = Annotated[UnitParametersInput, strawberry.argument(
    description="The parameters to change (at least one).")]


@strawberry.type
class UnitQuery:
    @strawberry.field(description="A unit with its parameters, opening hours and resources.")
    async def unit(self, info: Info, id: IdArg) -> UnitResult:
        return await read_unit(info.context, parse_id(id, "id", Kind.UNIT))


async def read_unit(context: Context, uid: UUID) -> Unit:
    """A unit as unit(id) shows it (public), for `unit` and `node`."""
    await authorize_unit(context, uid, Action.PUBLIC)
    unit, resources = await queries.unit_with_resources(context.deps, uid)
    return Unit.from_domain(unit, resources)


@strawberry.type
class UnitSettingsMutation:
    @strawberry.mutation(description="Owner: change the unit's parameters (hold TTLs, advance limits, anti-fraud "
                         "numbers...). Other API processes apply them within 5 s.")
    async def update_unit_parameters(self, info: Info, unit_id: UnitIdArg, input: ParametersArg
                                     ) -> UnitSettingsResult:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.CONFIGURE)
        if not await unit_settings.change_parameters(info.context.deps, uid, input.changes(),
                                                     info.context.principal.key):
            raise NotFound("unit", uid, field="unitId")
        unit, resources = await queries.unit_with_resources(info.context.deps, uid)
        return Unit.from_domain(unit, resources)
