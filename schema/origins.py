"""Types of the web origins a unit lets call the API from a browser (CORS, issue 19)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from domain import origins as do
from schema.errors import InvalidInput, NotFound


@strawberry.type(description="A web origin allowed to call the API from a browser (CORS): a site that embeds the "
                 "unit's booking widget. Any allowed origin may send requests; what they may do is still decided "
                 "by the token they send.")
class AllowedOrigin:
    origin: str = strawberry.field(description="scheme://host[:port], lower-case, as browsers send it in the Origin "
                                   "header, e.g. https://www.example.com.")
    created_at: datetime = strawberry.field(description="When it was registered.")
    created_by: str = strawberry.field(description="Who registered it: staff:<token>, client:<token>, "
                                       "system:<token> or cli.")

    @classmethod
    def from_domain(cls, o: do.AllowedOrigin) -> AllowedOrigin:
        return cls(origin=o.origin, created_at=o.created_at, created_by=o.created_by)


@strawberry.type(description="The unit's allowed origins after a change.")
class AllowedOrigins:
    origins: list[AllowedOrigin] = strawberry.field(description="Every origin the unit now allows, alphabetically.")


SetAllowedOriginsResult = Annotated[AllowedOrigins | InvalidInput | NotFound, strawberry.union(
    "SetAllowedOriginsResult", description="The unit's new list, or why it was refused (invalid_origin, "
    "https_required or too_many_origins, naming the origin; not_found for the unit).")]
