"""Types of calendar feeds (issue 23): iCalendar subscriptions of a customer's bookings or a unit's agenda."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from domain import calendar_feeds as dc
from schema import docs
from schema.enums import described_enum
from schema.errors import InvalidInput, NotFound
from schema.ids import Kind, opt_ref, ref
from schema.nodes import Node

described_enum(dc.FeedScope, name="CalendarFeedScope", description="Whose bookings a calendar feed shows.", values={
    "CUSTOMER": "A customer's own bookings at the unit (made by the customer, from their session).",
    "UNIT": "The unit's whole agenda, with each booking's customer name (staff).",
    "RESOURCE": "One resource's agenda, with each booking's customer name (staff).",
})


@strawberry.type(description="A calendar feed as listed: never its URL, whose secret is shown only when it is made. "
                 "A calendar app subscribed to the URL sees the bookings that take place — held and pending ones "
                 "as tentative — from 30 days back to a year ahead; cancelled, expired and no-show ones disappear.")
class CalendarFeed(Node):
    id: strawberry.ID = strawberry.field(description=docs.ID)
    unit_id: strawberry.ID = strawberry.field(description="The unit whose bookings it shows.")
    scope: dc.FeedScope = strawberry.field(description="Whose bookings it shows.")
    resource_id: strawberry.ID | None = strawberry.field(description="RESOURCE feeds: the resource.")
    customer_id: strawberry.ID | None = strawberry.field(description="CUSTOMER feeds: the customer.")
    name: str = strawberry.field(description="A label given when it was made (\"\" when none was).")
    created_at: datetime = strawberry.field(description="When it was made.")
    created_by: str = strawberry.field(description="Who made it: customer:<session>, staff:<token>, "
                                       "client:<token> or system:<token> (the token's id, never its secret).")
    revoked_at: datetime | None = strawberry.field(description="When it was revoked (its URL answers 404 since); "
                                                   "null if it was not.")
    active: bool = strawberry.field(description="Its URL works: not revoked and, for a staff feed, the staff or "
                                    "integrator token that made it is neither revoked nor expired (a feed ends "
                                    "with its token).")

    @classmethod
    def from_domain(cls, f: dc.CalendarFeed) -> CalendarFeed:
        return cls(id=ref(Kind.CALENDAR_FEED, f.id), unit_id=ref(Kind.UNIT, f.unit_id), scope=f.scope,
                   resource_id=opt_ref(Kind.RESOURCE, f.resource_id), customer_id=opt_ref(Kind.CUSTOMER, f.customer_id),
                   name=f.name, created_at=f.created_at, created_by=f.created_by, revoked_at=f.revoked_at,
                   active=f.active)


@strawberry.type(description="A calendar feed just made: its URL, shown only this once (it is the feed's only "
                 "credential: whoever has it sees the feed until it is revoked).")
class CreatedCalendarFeed:
    feed: CalendarFeed = strawberry.field(description="The feed as lists show it.")
    url: str = strawberry.field(description="The feed's address (https://…/calendar/<secret>.ics): paste it into a "
                                "calendar app's \"subscribe by URL\" (Google Calendar: Other calendars → From URL).")
    webcal_url: str = strawberry.field(description="The same address as webcal://…, which phones open straight in "
                                       "their calendar app.")

    @classmethod
    def from_domain(cls, issued: dc.IssuedFeed, url: str) -> CreatedCalendarFeed:
        return cls(feed=CalendarFeed.from_domain(issued.feed), url=url,
                   webcal_url="webcal://" + url.split("://", 1)[-1])


@strawberry.type(description="A revoked calendar feed: its URL answers 404 from now on.")
class CalendarFeedRevoked:
    feed: CalendarFeed = strawberry.field(description="The feed, now revoked.")


CreateCalendarFeedResult = Annotated[CreatedCalendarFeed | InvalidInput | NotFound, strawberry.union(
    "CreateCalendarFeedResult", description="The new feed and its URL, or why it was refused (invalid_input for a "
    "customer naming a resource, invalid_name, too_many_calendar_feeds; not_found for the resource).")]
RevokeCalendarFeedResult = Annotated[CalendarFeedRevoked | InvalidInput | NotFound, strawberry.union(
    "RevokeCalendarFeedResult", description="The revoked feed, or why not (not_found: no such feed, or not one the "
    "caller may revoke).")]
