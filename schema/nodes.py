"""The Node interface (issue 19, global object identification): every object with an identity of its own carries
a global id (schema/ids.py) that `node(id)` and `nodes(ids)` fetch again, with the access checks of the object's
typed query (resolvers/nodes.py)."""

from __future__ import annotations

import strawberry

NODES_MAX = 100
"""At most this many ids per nodes(ids) call (the query cost counts one item per id, api/graphql/limits.py)."""


@strawberry.interface(description="An object with an identity: its `id` is a global id, opaque and typed, that "
                      "node(id) and nodes(ids) answer again (null when it does not exist or you may not see it).")
class Node:
    id: strawberry.ID = strawberry.field(description="The object's global id: opaque, stable, URL-safe. Pass it "
                                         "to node(id), or to any argument that takes this type's id.")
