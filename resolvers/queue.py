"""The staff queue (Tratativas): the unit's open items, most urgent first; staff acknowledge and resolve them."""

from __future__ import annotations

from typing import Annotated

import strawberry

from domain import listings, queries
from domain.access import Action
from resolvers.context import Info, parse_id
from resolvers.permissions import authorize_row, authorize_unit
from schema.args import ItemIdArg, UnitIdArg
from schema.connections import After, Before, Connection, First, Last, connection, page_request
from schema.ids import Kind
from schema.pages import page_description, page_size
from schema.queue import QueueItem, QueueItemResult, QueueStatus

StatusesArg = Annotated[list[QueueStatus] | None, strawberry.argument(
    description="Only items in these statuses; omitted: OPEN and ACKNOWLEDGED.")]
ResolveNoteArg = Annotated[str | None, strawberry.argument(description="A note for the record (optional).")]


@strawberry.type
class QueueQuery:
    @strawberry.field(description="The unit's staff queue, most urgent first (default: open and acknowledged).",
                      deprecation_reason="Use queueConnection: it pages on with cursors.")
    async def queue(self, info: Info, unit_id: UnitIdArg, statuses: StatusesArg = None,
                    first: Annotated[int, strawberry.argument(description=page_description(200))] = 200
                    ) -> list[QueueItem]:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.READ)
        wanted = [str(s) for s in statuses or (QueueStatus.OPEN, QueueStatus.ACKNOWLEDGED)]
        items = await queries.queue_items(info.context.deps, uid, wanted, page_size(first))
        return [QueueItem.from_domain(i) for i in items]

    @strawberry.field(description="The unit's staff queue a page at a time: most urgent first (critical, high, then "
                      "the rest), then oldest, then by id.")
    async def queue_connection(
        self, info: Info, unit_id: Annotated[strawberry.ID, strawberry.argument(description="The unit whose queue.")],
        statuses: Annotated[list[QueueStatus] | None, strawberry.argument(
            description="Only items in these statuses (null or empty: OPEN and ACKNOWLEDGED).")] = None,
        first: First = None, after: After = None, last: Last = None, before: Before = None,
    ) -> Connection[QueueItem]:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.READ, hide=True)
        request = page_request(listings.QUEUE, first, after, last, before)
        wanted = [s.name.lower() for s in statuses] if statuses else ["open", "acknowledged"]
        page = await listings.read(info.context.deps, lambda rows: rows.queue(uid, wanted, request))
        return connection(page.map(QueueItem.from_domain), listings.QUEUE)


@strawberry.type
class QueueMutation:
    @strawberry.mutation(description="Staff: \"Registrar ciência\" on a queue item (alerts).")
    async def acknowledge_queue_item(self, info: Info, item_id: ItemIdArg) -> QueueItemResult:
        iid = parse_id(item_id, "itemId", Kind.QUEUE_ITEM)
        await authorize_row(info.context, "queue_item", iid, Action.COUNTER, "itemId")
        item = await queries.acknowledge_queue_item(info.context.deps, iid, "staff")
        return QueueItem.from_domain(item)

    @strawberry.mutation(description="Staff: close a queue item with an optional note.")
    async def resolve_queue_item(self, info: Info, item_id: ItemIdArg, note: ResolveNoteArg = None
                                 ) -> QueueItemResult:
        iid = parse_id(item_id, "itemId", Kind.QUEUE_ITEM)
        await authorize_row(info.context, "queue_item", iid, Action.COUNTER, "itemId")
        item = await queries.resolve_queue_item(info.context.deps, iid, "staff", note)
        return QueueItem.from_domain(item)
