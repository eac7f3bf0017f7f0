"""One loader per Node type for node(id) and nodes(ids) (resolvers/nodes.py): each checks access exactly as the
type's typed query does — with that query's own function where it has one, else through its owner's (its booking or
its unit) — and raises the same refusals (NotFound, Forbidden, Unauthenticated), which `node` turns into null."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar
from uuid import UUID

from domain import calendar_feeds, lookups, service_catalog, staff_tokens
from domain.access import Action, Forbidden, authorize
from domain.errors import NotFound
from resolvers.calendar_feeds import authorize_feed
from resolvers.context import Context
from resolvers.permissions import authorize_booking, authorize_row, authorize_series, authorize_unit, signed_in
from resolvers.units import read_unit
from resolvers.waitlists import read_capacity_entry, read_slot_entry
from resolvers.webhooks import _authorize_row as authorize_webhook_row
from schema.bookings import Booking
from schema.calendar_feeds import CalendarFeed
from schema.customers import Customer
from schema.ids import Kind, ref
from schema.layout import GridBlock, HoursException, ResourceGroup
from schema.nodes import Node
from schema.notifications import Notification
from schema.payments import Charge, OrphanPayment, Refund
from schema.queue import QueueItem
from schema.seatmaps import SeatEvent, SeatMap
from schema.series import Series
from schema.service_catalog import Service
from schema.setup import Organization, StaffToken, Tenant
from schema.units import Resource
from schema.venue_flows import ManualPayment
from schema.waitlists import WalkIn
from schema.webhooks import WebhookDelivery, WebhookEndpoint

Loader = Callable[[Context, UUID], Awaitable[Node | None]]


T = TypeVar("T")


def _found(value: T | None, what: str, row_id: UUID) -> T:
    if value is None:
        raise NotFound(what, row_id, field="id")
    return value


async def _booking(ctx: Context, bid: UUID) -> Node:
    """booking(id)."""
    return Booking.from_domain(await authorize_booking(ctx, bid, Action.READ))


async def _series(ctx: Context, sid: UUID) -> Node:
    """series(id)."""
    found, bookings = await authorize_series(ctx, sid, Action.READ, hide=True)
    return Series.from_domain(found, bookings, ctx.deps.clock.now())


async def _resource(ctx: Context, rid: UUID) -> Node | None:
    """Through its unit, as unit(id) (public) shows its resources and seatMap its seats: active ones."""
    unit_id = _found(await ctx.stores.nodes.resource_unit(rid), "resource", rid)
    await authorize_unit(ctx, unit_id, Action.PUBLIC)
    found = await lookups.resource(ctx.deps, unit_id, rid)
    return Resource.from_domain(found) if found is not None else None


async def _resource_group(ctx: Context, gid: UUID) -> Node:
    """Through its unit, as venueResources (READ) shows groups."""
    group = _found(await lookups.resource_group(ctx.deps, gid), "group", gid)
    await authorize_unit(ctx, group.unit_id, Action.READ)
    return ResourceGroup.from_domain(group)


async def _customer(ctx: Context, cid: UUID) -> Node | None:
    """The signed-in customer's own record; staff and integrators who may manage the tenant's customers
    (setCustomerBlacklisted on their unit: MANAGE)."""
    signed_in(ctx, Action.MANAGE)
    row = _found(await ctx.stores.nodes.customer(cid), "customer", cid)
    p = ctx.principal
    if p.is_customer:
        mine = p.tenant_id == row["tenant_id"] and await ctx.access.is_same_person(p, cid)
        return Customer.from_row(row) if mine else None
    # A tenant-wide token covers every unit of its tenant: the unit named does not matter then.
    authorize(p, Action.MANAGE, row["tenant_id"], p.unit_id or UUID(int=0))
    return Customer.from_row(row)


async def _charge(ctx: Context, cid: UUID) -> Node:
    """Through its booking, as charges(bookingId) (READ)."""
    charge = _found(await lookups.charge(ctx.deps, cid), "charge", cid)
    await authorize_booking(ctx, charge.booking_id, Action.READ)
    return Charge.from_domain(charge, ctx.qr)


async def _refund(ctx: Context, rid: UUID) -> Node:
    """Through its booking, as Booking.refunds (booking(id), READ)."""
    refund = _found(await lookups.refund(ctx.deps, rid), "refund", rid)
    await authorize_booking(ctx, refund.booking_id, Action.READ)
    return Refund.from_domain(refund)


async def _orphan_payment(ctx: Context, pid: UUID) -> Node:
    """orphanPayments(unitId) (COUNTER); none once it is applied to a booking."""
    payment = _found(await ctx.stores.nodes.orphan_payment(pid), "payment", pid)
    await authorize_unit(ctx, payment.unit_id, Action.COUNTER)
    return OrphanPayment.from_domain(payment)


async def _manual_payment(ctx: Context, pid: UUID) -> Node:
    """Through its booking's unit, for its staff, as paymentsSummary (READ): not for customers."""
    payment = _found(await ctx.stores.nodes.manual_payment(pid), "payment", pid)
    await authorize_unit(ctx, payment.unit_id, Action.READ)
    return ManualPayment.from_domain(payment)


async def _queue_item(ctx: Context, iid: UUID) -> Node:
    """queue(unitId) (READ: staff of its unit)."""
    await authorize_row(ctx, "queue_item", iid, Action.READ, "id")
    return QueueItem.from_domain(_found(await lookups.queue_item(ctx.deps, iid), "queue item", iid))


async def _walk_in(ctx: Context, eid: UUID) -> Node:
    """waitlists(unitId).walkIns (READ: staff of its unit)."""
    await authorize_row(ctx, "walk_in", eid, Action.READ, "id")
    return WalkIn.from_row(_found(await lookups.walk_in(ctx.deps, eid), "walk-in", eid))


async def _notification(ctx: Context, nid: UUID) -> Node | None:
    """notifications: a customer's own, or (unitId, READ) the unit's staff ones."""
    signed_in(ctx, Action.READ)
    row = _found(await ctx.stores.nodes.notification(nid), "notification", nid)
    p = ctx.principal
    if p.is_customer:
        return Notification.from_row(row) if p.customer_id is not None and row["customer_id"] == p.customer_id \
            else None
    if row["audience"] != "staff":
        return None
    await authorize_unit(ctx, row["unit_id"], Action.READ)
    return Notification.from_row(row)


async def _webhook_endpoint(ctx: Context, eid: UUID) -> Node:
    """webhooks(unitId) (WEBHOOKS)."""
    await authorize_webhook_row(ctx, "webhook", eid, "id")
    return WebhookEndpoint.from_row(_found(await ctx.stores.nodes.webhook_endpoint(eid), "webhook", eid))


async def _webhook_delivery(ctx: Context, did: UUID) -> Node:
    """webhookDeliveries(endpointId) (WEBHOOKS)."""
    await authorize_webhook_row(ctx, "delivery", did, "id")
    return WebhookDelivery.from_row(_found(await ctx.stores.webhooks.delivery(did), "delivery", did))


async def _staff_token(ctx: Context, tid: UUID) -> Node | None:
    """staffTokens(unitId) (owners, CONFIGURE) of its unit — a tenant-wide token: of the caller's unit, or of the
    tenant's first unit for a tenant-wide caller — with that query's own list."""
    signed_in(ctx, Action.CONFIGURE)
    token = _found(await lookups.staff_token(ctx.deps, tid), "token", tid)
    unit_id = token.unit_id or ctx.principal.unit_id or await lookups.tenant_unit(ctx.deps, token.tenant_id)
    unit = await authorize_unit(ctx, _found(unit_id, "token", tid), Action.CONFIGURE)
    listed = await staff_tokens.tokens_of(ctx.deps, ctx.principal, unit.tenant_id, unit.id, include_revoked=True)
    return next((StaffToken.from_domain(t) for t in listed if t.id == tid), None)


async def _service(ctx: Context, sid: UUID) -> Node | None:
    """services(unitId, includeInactive: true) (public)."""
    unit = await authorize_unit(ctx, await service_catalog.unit_of(ctx.deps, sid), Action.PUBLIC)
    found = await service_catalog.services(ctx.deps, unit.id, include_inactive=True)
    return next((Service.from_domain(s, unit.params.slot_minutes) for s in found if s.id == sid), None)


async def _seat_map(ctx: Context, mid: UUID) -> Node:
    """seatMap(eventId).seatMap (public)."""
    seat_map = _found(await lookups.seat_map(ctx.deps, mid), "seat map", mid)
    await authorize_unit(ctx, seat_map.unit_id, Action.PUBLIC)
    return SeatMap.from_domain(seat_map)


async def _seat_event(ctx: Context, eid: UUID) -> Node:
    """seatEvents(unitId) and seatMap(eventId) (public)."""
    event = _found(await lookups.seat_event(ctx.deps, eid), "event", eid)
    await authorize_unit(ctx, event.unit_id, Action.PUBLIC)
    return SeatEvent.from_domain(event)


async def _hours_exception(ctx: Context, eid: UUID) -> Node:
    """hoursExceptions(unitId) (READ)."""
    unit_id, exception = _found(await lookups.hours_exception(ctx.deps, eid), "hours exception", eid)
    await authorize_unit(ctx, unit_id, Action.READ)
    return HoursException.from_domain(exception)


async def _grid_block(ctx: Context, bid: UUID) -> Node:
    """gridBlocks(unitId) (READ)."""
    block = _found(await lookups.grid_block(ctx.deps, bid), "block", bid)
    await authorize_unit(ctx, block.unit_id, Action.READ)
    return GridBlock.from_domain(block)


async def _calendar_feed(ctx: Context, fid: UUID) -> Node:
    """calendarFeeds(unitId, includeRevoked: true): a customer's own; the unit's staff feeds for manage."""
    feed = await calendar_feeds.feed(ctx.deps, fid)
    await authorize_feed(ctx, feed)
    return CalendarFeed.from_domain(feed)


def _of_tenant(ctx: Context, tenant_id: UUID) -> None:
    """Tenants and organizations have no query: the platform, and whoever signed in to one of the tenant's units
    (Me.tenantId names it), see them."""
    signed_in(ctx, Action.READ)
    p = ctx.principal
    if p.kind != "system" and p.tenant_id != tenant_id:
        raise Forbidden("this token has no access to that tenant")


async def _tenant(ctx: Context, tid: UUID) -> Node:
    row = _found(await ctx.stores.nodes.tenant(tid), "tenant", tid)
    _of_tenant(ctx, tid)
    return Tenant(id=ref(Kind.TENANT, row["id"]), name=row["name"])


async def _organization(ctx: Context, oid: UUID) -> Node:
    row = _found(await ctx.stores.nodes.organization(oid), "organization", oid)
    _of_tenant(ctx, row["tenant_id"])
    return Organization(id=ref(Kind.ORGANIZATION, row["id"]), tenant_id=ref(Kind.TENANT, row["tenant_id"]),
                        name=row["name"])


LOADERS: dict[Kind, Loader] = {
    Kind.BOOKING: _booking, Kind.UNIT: read_unit, Kind.RESOURCE: _resource, Kind.RESOURCE_GROUP: _resource_group,
    Kind.CUSTOMER: _customer, Kind.CHARGE: _charge, Kind.REFUND: _refund, Kind.ORPHAN_PAYMENT: _orphan_payment,
    Kind.MANUAL_PAYMENT: _manual_payment, Kind.QUEUE_ITEM: _queue_item, Kind.SLOT_WAITLIST_ENTRY: read_slot_entry,
    Kind.CAPACITY_WAITLIST_ENTRY: read_capacity_entry, Kind.WALK_IN: _walk_in, Kind.NOTIFICATION: _notification,
    Kind.WEBHOOK_ENDPOINT: _webhook_endpoint, Kind.WEBHOOK_DELIVERY: _webhook_delivery,
    Kind.STAFF_TOKEN: _staff_token, Kind.SERVICE: _service, Kind.SEAT_MAP: _seat_map, Kind.SEAT_EVENT: _seat_event,
    Kind.HOURS_EXCEPTION: _hours_exception, Kind.GRID_BLOCK: _grid_block, Kind.TENANT: _tenant,
    Kind.ORGANIZATION: _organization, Kind.CALENDAR_FEED: _calendar_feed, Kind.SERIES: _series,
}
"""Every Node type's loader (tests/api/test_nodes.py checks each Node type of the schema has one)."""
