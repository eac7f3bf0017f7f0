"""The staff queue (Tratativas): the unit's open items, most urgent first; staff acknowledge and resolve them."""

from __future__ import annotations

from typing import Annotated

import strawberry

from domain import queries
from domain.access import Action
from resolvers.context import Info, parse_id
from resolvers.permissions import authorize_row, authorize_unit
from schema.ids import Kind
from schema.pages import page_description, page_size
from schema.queue import QueueItem, QueueItemResult


@strawberry.type
class QueueQuery:
    @strawberry.field(description="The unit's staff queue, most urgent first (default: open and acknowledged).")
    async def queue(self, info: Info, unit_id: strawberry.ID, statuses: list[str] | None = None,
                    first: Annotated[int, strawberry.argument(description=page_description(200))] = 200
                    ) -> list[QueueItem]:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.READ)
        items = await queries.queue_items(info.context.deps, uid, statuses or ["open", "acknowledged"],
                                          page_size(first))
        return [QueueItem.from_domain(i) for i in items]


@strawberry.type
class QueueMutation:
    @strawberry.mutation(description="Staff: \"Registrar ciência\" on a queue item (alerts).")
    async def acknowledge_queue_item(self, info: Info, item_id: strawberry.ID) -> QueueItemResult:
        iid = parse_id(item_id, "itemId", Kind.QUEUE_ITEM)
        await authorize_row(info.context, "queue_item", iid, Action.COUNTER, "itemId")
        item = await queries.acknowledge_queue_item(info.context.deps, iid, "staff")
        return QueueItem.from_domain(item)

    @strawberry.mutation(description="Staff: close a queue item with an optional note.")
    async def resolve_queue_item(self, info: Info, item_id: strawberry.ID, note: str | None = None
                                 ) -> QueueItemResult:
        iid = parse_id(item_id, "itemId", Kind.QUEUE_ITEM)
        await authorize_row(info.context, "queue_item", iid, Action.COUNTER, "itemId")
        item = await queries.resolve_queue_item(info.context.deps, iid, "staff", note)
        return QueueItem.from_domain(item)
