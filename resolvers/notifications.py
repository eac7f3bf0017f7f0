"""In-app notifications (SPEC §13, §16): list them, mark them read, follow them live.

Customers see their own (no `unitId`); staff see their unit's (`unitId`, the READ action). Marking as read is
part of reading: it changes nothing but the reader's unread badge.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Annotated
from uuid import UUID

import strawberry

from domain import events, listings
from domain.access import Action
from domain.errors import ErrorCode, InvalidInput
from resolvers.context import Context, Info, parse_id
from resolvers.feed import unit_events
from resolvers.permissions import authorize_unit, signed_in
from schema.args import SinceArg
from schema.connections import After, Before, Connection, First, Last, connection, page_request
from schema.ids import Kind, refs
from schema.notifications import Notification, NotificationAdded
from schema.pages import page_description, page_size

FeedUnitArg = Annotated[strawberry.ID | None, strawberry.argument(
    description="Staff: the unit whose staff feed to read (READ); omitted: the signed-in customer's own feed.")]
UnreadArg = Annotated[bool, strawberry.argument(description="Only those not read yet (default false).")]
NotificationIdsArg = Annotated[list[strawberry.ID], strawberry.argument(
    description="The notifications to mark read (at most 500).")]


async def _whose(context: Context, unit_id: strawberry.ID | None, hide: bool = False
                 ) -> tuple[UUID | None, UUID | None]:
    """(customer id, None) for a customer reading their own; (None, unit id) for staff reading a unit's. `hide`: a
    unit beyond the caller's reach is answered as a missing one."""
    signed_in(context, Action.READ, "notifications are a customer's own, or a unit's for its staff")
    if unit_id is not None:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(context, uid, Action.READ, hide=hide)
        return None, uid
    p = context.principal
    if not p.is_customer or p.customer_id is None:
        raise InvalidInput("unitId", "name the unit whose staff notifications you read", code=ErrorCode.UNIT_REQUIRED)
    return p.customer_id, None


@strawberry.type
class NotificationQuery:
    @strawberry.field(description="In-app notifications, newest first: a signed-in customer's own (no unitId), or "
                      "the unit's staff notifications (unitId; READ).",
                      deprecation_reason="Use notificationsConnection: it pages on with cursors.")
    async def notifications(
        self, info: Info, unit_id: FeedUnitArg = None,
        first: Annotated[int, strawberry.argument(description=page_description(50))] = 50,
        unread_only: UnreadArg = False,
    ) -> list[Notification]:
        limit = page_size(first)
        customer, unit = await _whose(info.context, unit_id)
        if customer is not None:
            rows = await info.context.stores.notifications.for_customer(customer, limit, unread_only)
        else:
            assert unit is not None
            rows = await info.context.stores.notifications.for_staff(unit, limit, unread_only)
        return [Notification.from_row(r) for r in rows]

    @strawberry.field(description="In-app notifications a page at a time, newest first (then by id): a signed-in "
                      "customer's own (no unitId), or the unit's staff notifications (unitId; READ).")
    async def notifications_connection(
        self, info: Info, unit_id: Annotated[strawberry.ID | None, strawberry.argument(description=(
            "Staff: the unit whose staff notifications (READ). Leave it out for a signed-in customer's own."))] = None,
        unread_only: Annotated[bool, strawberry.argument(description="Only those not read yet.")] = False,
        first: First = None, after: After = None, last: Last = None, before: Before = None,
    ) -> Connection[Notification]:
        request = page_request(listings.NOTIFICATIONS, first, after, last, before)
        customer, unit = await _whose(info.context, unit_id, hide=True)
        store = info.context.stores.notifications
        if customer is not None:
            page = await store.customer_page(customer, unread_only, request)
        else:
            assert unit is not None
            page = await store.staff_page(unit, unread_only, request)
        return connection(page.map(Notification.from_row), listings.NOTIFICATIONS)


@strawberry.type
class NotificationMutation:
    @strawberry.mutation(description="Mark notifications as read (a customer's own, or the unit's staff ones with "
                         "unitId); returns the ids that were unread and are now read. Other ids are ignored.")
    async def mark_notifications_read(
        self, info: Info, ids: NotificationIdsArg, unit_id: FeedUnitArg = None,
    ) -> list[strawberry.ID]:
        customer, unit = await _whose(info.context, unit_id)
        if len(ids) > 500:
            raise InvalidInput("ids", "at most 500 ids at a time", code=ErrorCode.TOO_MANY_IDS)
        wanted = [parse_id(i, "ids", Kind.NOTIFICATION) for i in ids]
        done = await info.context.stores.notifications.mark_read(wanted, info.context.deps.clock.now(),
                                                                customer_id=customer, unit_id=unit)
        return refs(Kind.NOTIFICATION, done)


@strawberry.type
class NotificationSubscription:
    @strawberry.subscription(description="In-app notifications as they arrive: a signed-in customer's own (no "
                             "unitId), or the unit's staff ones (unitId; READ). since: the last seq you saw.")
    async def notification_added(
        self, info: Info, unit_id: FeedUnitArg = None, since: SinceArg = None,
    ) -> AsyncGenerator[NotificationAdded, None]:
        customer, unit = await _whose(info.context, unit_id)
        if customer is not None:
            unit = info.context.principal.unit_id
            if unit is None:
                raise InvalidInput("unitId", "this session belongs to no unit", code=ErrorCode.UNIT_REQUIRED)
        assert unit is not None
        async for event in unit_events(info.context.deps, info.context.hub, unit, since):
            n = event.fact if event.topic == events.NotificationAdded.TOPIC else None
            if not isinstance(n, events.NotificationAdded) or (
                    n.customer_id != customer if customer is not None else n.audience != "staff"):
                continue
            yield NotificationAdded(seq=event.seq, notification=Notification.from_event(unit, n))
