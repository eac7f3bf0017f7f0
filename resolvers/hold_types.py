"""Hold types: read the merged catalog; owners define and remove them (SPEC §10, §14)."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

import strawberry

from domain import hold_types as dh
from domain import queries
from domain.access import Action, Forbidden
from resolvers.context import Context, Info, parse_id
from resolvers.permissions import authorize_unit
from schema.args import UnitIdArg
from schema.hold_types import (
    HoldTypeDefinition,
    HoldTypeFieldsInput,
    HoldTypeList,
    HoldTypeResult,
    HoldTypeScope,
    HoldTypesResult,
)
from schema.ids import Kind, ref

ScopeArg = Annotated[HoldTypeScope, strawberry.argument(
    description="Where the definition is written: the unit's ORGANIZATION or its TENANT.")]
HoldTypeNameArg = Annotated[str, strawberry.argument(
    description="The hold type's name: upper case letters, digits and underscores (e.g. PARTNER_HOLD).")]
FieldsArg = Annotated[HoldTypeFieldsInput, strawberry.argument(
    description="The fields to set at that level (at least one).")]
RemoveScopeArg = Annotated[HoldTypeScope, strawberry.argument(
    description="Where the definition is removed from: the unit's ORGANIZATION or its TENANT.")]


async def _catalog(ctx: Context, unit_id: UUID) -> HoldTypeList:
    unit = await queries.unit(ctx.deps, unit_id)
    return HoldTypeList(unit_id=ref(Kind.UNIT, unit.id),
                        hold_types=[HoldTypeDefinition.from_domain(ht) for ht in unit.hold_types.all()])


async def _configure(ctx: Context, unit_id: strawberry.ID, scope: HoldTypeScope) -> tuple[UUID, dh.Level]:
    uid = parse_id(unit_id, "unitId", Kind.UNIT)
    await authorize_unit(ctx, uid, Action.CONFIGURE)
    level = dh.Level(scope.value)
    if level is dh.Level.TENANT and ctx.principal.kind != "system" and ctx.principal.unit_id is not None:
        raise Forbidden("tenant-wide hold types need a tenant-wide owner token (this one is bound to one unit)")
    return uid, level


@strawberry.type
class HoldTypeQuery:
    @strawberry.field(description="The hold types the unit's organization may use, merged organization → tenant → "
                      "platform: names, rules and display colours (for legends).")
    async def hold_types(self, info: Info, unit_id: UnitIdArg) -> HoldTypesResult:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.PUBLIC)
        return await _catalog(info.context, uid)


@strawberry.type
class HoldTypeMutation:
    @strawberry.mutation(description="Owner: define a hold type, or override some fields of one, for the unit's "
                         "organization or its whole tenant (TENANT needs a tenant-wide token). Fields left out are "
                         "inherited from the layers below; the merged result must be usable. Other API processes "
                         "apply it within 5 s.")
    async def define_hold_type(self, info: Info, unit_id: UnitIdArg, scope: ScopeArg, name: HoldTypeNameArg,
                               fields: FieldsArg) -> HoldTypeResult:
        uid, level = await _configure(info.context, unit_id, scope)
        await info.context.stores.hold_types.change_layer(uid, level, name, dh.definition_edit(name, fields.changes()),
                                                          dh.layers_check(name))
        listed = await _catalog(info.context, uid)
        return next(h for h in listed.hold_types if h.name == name)

    @strawberry.mutation(description="Owner: remove the organization's (or tenant's) definition of a hold type; what "
                         "the layers below define applies again. Refused while live bookings use a type that would "
                         "vanish (hold_type_in_use).")
    async def remove_hold_type(self, info: Info, unit_id: UnitIdArg, scope: RemoveScopeArg, name: HoldTypeNameArg
                               ) -> HoldTypesResult:
        uid, level = await _configure(info.context, unit_id, scope)
        await info.context.stores.hold_types.change_layer(uid, level, name, dh.removal_edit(name, level),
                                                          dh.layers_check(name))
        return await _catalog(info.context, uid)
