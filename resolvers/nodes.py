"""Global object identification (issue 19): node(id) and nodes(ids) answer any object by its global id, with the
access checks of its typed query (resolvers/node_loaders.py). A missing object and one the caller may not see are
the same answer, null — across tenants, customer against customer, anonymous against staff-only; a malformed id,
or a raw UUID (which names no type), is an invalid_id error."""

from __future__ import annotations

from typing import Annotated

import strawberry

from domain.access import Forbidden, Unauthenticated
from domain.errors import ErrorCode, InvalidInput, NotFound
from resolvers.context import Context, Info, parse_id
from resolvers.node_loaders import LOADERS
from schema.ids import Kind, decode_id
from schema.nodes import NODES_MAX, Node


def _checked(value: strawberry.ID, field: str) -> tuple[Kind, strawberry.ID]:
    """The id's type, or invalid_id: malformed, a raw UUID, or a type that is no Node."""
    parse_id(value, field)  # malformed: the same error as every ID argument
    type_name, _ = decode_id(str(value))
    if type_name is None:
        raise InvalidInput(field, f"{field} takes a global id (an object's `id`), not a raw UUID",
                           code=ErrorCode.INVALID_ID)
    try:
        return Kind(type_name), value
    except ValueError:
        raise InvalidInput(field, f"{field} is the id of a {type_name}, which node does not know",
                           code=ErrorCode.INVALID_ID) from None


async def _load(context: Context, kind: Kind, value: strawberry.ID) -> Node | None:
    try:
        return await LOADERS[kind](context, parse_id(value, "id", kind))
    except (NotFound, Forbidden, Unauthenticated):
        return None  # a forbidden object answers exactly like a missing one


def _usable(context: Context) -> None:
    """A token that is not valid is refused for every operation, this one too (not turned into null)."""
    if context.auth_failure is not None:
        raise context.auth_failure


@strawberry.type
class NodeQuery:
    @strawberry.field(description="Any object by its global id (the `id` of every Node type, and every ID field "
                      "that links to one), with the access checks of its own query: null when it does not exist "
                      "or you may not see it — the same answer either way.")
    async def node(self, info: Info, id: Annotated[strawberry.ID, strawberry.argument(
            description="A global id, as the API answered it.")]) -> Node | None:
        _usable(info.context)
        kind, value = _checked(id, "id")
        return await _load(info.context, kind, value)

    @strawberry.field(description=f"Several objects by their global ids (at most {NODES_MAX}), in the order given; "
                      "null for each one that does not exist or you may not see.")
    async def nodes(self, info: Info, ids: Annotated[list[strawberry.ID], strawberry.argument(
            description=f"Global ids, as the API answered them (at most {NODES_MAX}; repeats allowed).")]
            ) -> list[Node | None]:
        _usable(info.context)
        if len(ids) > NODES_MAX:
            raise InvalidInput("ids", f"at most {NODES_MAX} ids at a time", code=ErrorCode.TOO_MANY_IDS)
        checked = [_checked(i, "ids") for i in ids]
        return [await _load(info.context, kind, value) for kind, value in checked]
