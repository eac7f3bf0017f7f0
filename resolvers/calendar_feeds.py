"""Calendar feeds (issue 23): customers make, list and revoke feeds of their own bookings; managers and owners
(`manage`) those of the unit's agenda or of one resource's (domain/calendar_feeds.py). The feed itself is served at
its URL (api/calendar_feeds.py)."""

from __future__ import annotations

from typing import Annotated

import strawberry

from domain import calendar_feeds as feeds
from domain import listings
from domain.access import Action, CallerKind, Forbidden
from domain.calendar_feeds import CalendarFeed as Feed
from domain.calendar_feeds import FeedScope, NewFeed
from domain.errors import InvalidInput
from resolvers.context import Context, Info, parse_id
from resolvers.permissions import authorize_unit, signed_in
from schema.calendar_feeds import (
    CalendarFeed,
    CalendarFeedRevoked,
    CreateCalendarFeedResult,
    CreatedCalendarFeed,
    RevokeCalendarFeedResult,
)
from schema.connections import After, Before, Connection, First, Last, connection, page_request
from schema.ids import Kind

UnitId = Annotated[strawberry.ID, strawberry.argument(description="The unit whose bookings the feed shows.")]
ResourceId = Annotated[strawberry.ID | None, strawberry.argument(description=(
    "Staff: only this resource's agenda (null: the whole unit's). Not for customers."))]
Name = Annotated[str | None, strawberry.argument(description=(
    f"A label for lists, e.g. \"iPad da recepção\" (at most {feeds.NAME_MAX} characters)."))]
FeedId = Annotated[strawberry.ID, strawberry.argument(description="The feed (a CalendarFeed id).")]
Revoked = Annotated[bool, strawberry.argument(description=(
    "Also the feeds that no longer work: revoked, or made with a token since revoked or expired (default false)."))]
WHY = "calendar feeds are made by a customer for their own bookings, or by the unit's managers"


async def authorize_feed(context: Context, feed: Feed) -> None:
    """Refuse unless the caller may see and revoke the feed: a customer their own; staff and integrators with
    `manage` on its unit the staff feeds (never a customer's); the platform any."""
    signed_in(context, Action.READ, WHY)
    principal = context.principal
    if principal.is_customer:
        await authorize_unit(context, feed.unit_id, Action.READ, own_only=True)
        if feed.customer_id is None or feed.customer_id != principal.customer_id:
            raise Forbidden("customers may only see and revoke their own calendar feeds")
        return
    await authorize_unit(context, feed.unit_id, Action.MANAGE)
    if not feed.scope.staff and principal.kind != CallerKind.SYSTEM:
        raise Forbidden("a customer's calendar feed is theirs to see and revoke")


@strawberry.type
class CalendarFeedQuery:
    @strawberry.field(description=(
        "The unit's calendar feeds, a page at a time, newest first, never their URLs: a signed-in customer's own; "
        "for managers and owners (manage) the staff feeds of the unit's or a resource's agenda. Another tenant's "
        "unit is answered as missing."))
    async def calendar_feeds(self, info: Info, unit_id: UnitId, include_revoked: Revoked = False,
                             first: First = None, after: After = None, last: Last = None, before: Before = None
                             ) -> Connection[CalendarFeed]:
        context, principal = info.context, info.context.principal
        signed_in(context, Action.READ, WHY)
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        customer = principal.customer_id if principal.is_customer else None
        if principal.is_customer:
            await authorize_unit(context, uid, Action.READ, hide=True, own_only=True)
            assert customer is not None
        else:
            await authorize_unit(context, uid, Action.MANAGE, hide=True)
        request = page_request(listings.CALENDAR_FEEDS, first, after, last, before)
        page = await feeds.feeds_page(context.deps, uid, customer, include_revoked, request)
        return connection(page.map(CalendarFeed.from_domain), listings.CALENDAR_FEEDS)


@strawberry.type
class CalendarFeedMutation:
    @strawberry.mutation(description=(
        "Make an iCalendar (RFC 5545) feed: a URL a calendar app subscribes to. A signed-in customer: their own "
        "bookings at the unit. Managers and owners (manage): the unit's agenda, or one resource's (resourceId), "
        "with each booking's customer name. The URL is in the answer, this once; it works until revoked. Staff "
        "feeds are logged in venueChanges (entity calendar_feed)."))
    async def create_calendar_feed(self, info: Info, unit_id: UnitId, resource_id: ResourceId = None,
                                   name: Name = None) -> CreateCalendarFeedResult:
        context, principal = info.context, info.context.principal
        signed_in(context, Action.READ, WHY)
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        if principal.is_customer:
            await authorize_unit(context, uid, Action.READ, own_only=True)
            if resource_id is not None:
                raise InvalidInput("resourceId", "a customer's feed shows all of their own bookings at the unit: "
                                   "leave resourceId out")
            cmd = NewFeed(uid, FeedScope.CUSTOMER, principal.key, name or "", customer_id=principal.customer_id)
        else:
            await authorize_unit(context, uid, Action.MANAGE)
            rid = parse_id(resource_id, "resourceId", Kind.RESOURCE) if resource_id is not None else None
            cmd = NewFeed(uid, FeedScope.RESOURCE if rid else FeedScope.UNIT, principal.key, name or "",
                          resource_id=rid, token_id=principal.token_id)
        issued = await feeds.create_feed(context.deps, cmd)
        return CreatedCalendarFeed.from_domain(issued, feeds.feed_url(context.deps, issued.secret))

    @strawberry.mutation(description=(
        "Revoke a calendar feed: its URL answers 404 from now on (revoking it again changes nothing). Customers "
        "their own; managers and owners (manage) the unit's staff feeds; the platform any."))
    async def revoke_calendar_feed(self, info: Info, feed_id: FeedId) -> RevokeCalendarFeedResult:
        context = info.context
        signed_in(context, Action.READ, WHY)
        fid = parse_id(feed_id, "feedId", Kind.CALENDAR_FEED)
        await authorize_feed(context, await feeds.feed(context.deps, fid))
        return CalendarFeedRevoked(feed=CalendarFeed.from_domain(
            await feeds.revoke_feed(context.deps, fid, context.principal.key)))
