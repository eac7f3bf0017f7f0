"""The web origins a unit lets call the API from a browser (CORS for booking widgets, issue 19)."""

from __future__ import annotations

from typing import Annotated

import strawberry

from domain import origins as allowed
from domain.access import Action
from domain.errors import NotFound
from resolvers.context import Info, parse_id
from resolvers.permissions import authorize_unit
from schema.ids import Kind
from schema.origins import AllowedOrigin, AllowedOrigins, SetAllowedOriginsResult

UnitId = Annotated[strawberry.ID, strawberry.argument(description="The unit, as the API gave its id.")]


@strawberry.type
class OriginQuery:
    @strawberry.field(description="Managers and owners: the web origins (sites) allowed to call the API from a "
                      "browser for this unit (setAllowedOrigins), alphabetically.")
    async def allowed_origins(self, info: Info, unit_id: UnitId) -> list[AllowedOrigin]:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.MANAGE)
        return [AllowedOrigin.from_domain(o) for o in await allowed.allowed_origins(info.context.deps, uid)]


@strawberry.type
class OriginMutation:
    @strawberry.mutation(description="Owners: the complete list of web origins (sites with the unit's booking "
                         "widget) allowed to call the API from a browser: each scheme://host[:port], https (http "
                         f"only for localhost), no path, no wildcard, at most {allowed.MAX_ORIGINS}; [] allows "
                         "none. Browsers of every allowed origin may then call /graphql and /v1 and subscribe; the "
                         "token sent still decides what they may do, and cookies are never used. The API's other "
                         "processes see a change within seconds. Logged in venueChanges (entity allowed_origins).")
    async def set_allowed_origins(self, info: Info, unit_id: UnitId,
                                  origins: Annotated[list[str], strawberry.argument(
                                      description="Every origin to allow, e.g. [\"https://www.example.com\"]; "
                                      "those left out are no longer allowed.")]) -> SetAllowedOriginsResult:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.CONFIGURE)
        found = await allowed.set_allowed_origins(info.context.deps, uid, origins, info.context.principal.key)
        if found is None:
            raise NotFound("unit", uid, field="unitId")
        return AllowedOrigins(origins=[AllowedOrigin.from_domain(o) for o in found])
