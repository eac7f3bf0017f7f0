"""Calendar feeds (issue 23): a customer's bookings, or a unit's agenda, as an iCalendar (RFC 5545) subscription.

A feed is a URL, `<public base URL>/calendar/<secret>.ics`, that a calendar app (Google Calendar, Apple Calendar,
Outlook) polls. Its secret is the whole credential — 256 random bits, stored as a digest only, in the answer of
`createCalendarFeed` once — so a feed is handed out like a token and revoked like one:

* a customer (a session proved with a one-time code) makes feeds of their own bookings at a unit — the records
  their session proves, as `bookings` decides — lists and revokes only those;
* staff and integrators who manage the unit (`manage`: managers and owners) make feeds of the unit's agenda or of
  one resource's, with each booking's customer name (staff-level detail a customer's feed never has), list and
  revoke them; each one made or revoked is in the venue log (entity `calendar_feed`). Operators cannot: a feed
  carries customers' names out of the API, for as long as it lives. A staff feed lives no longer than the token
  that made it: once that token is revoked or expires, the feed answers 404 too (as a revoked token's websockets
  end), so a departed employee's feed ends with their token.

What a feed shows: the bookings that take (or took) place — held, pending payment, verifying, confirmed, checked
in, completed — from WINDOW_BACK ago to WINDOW_AHEAD ahead, at most MAX_EVENTS of them, earliest first. Cancelled,
expired and no-show bookings disappear, and so does a hold whose deadline has passed before the sweeper ends it.
A series' occurrences (issue 23's other part) are bookings of their own: one event each.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING
from uuid import UUID

from domain import venue_log
from domain.bookings import BookingStatus
from domain.errors import ErrorCode, InvalidInput, NotFound
from domain.pages import Page, PageRequest
from domain.staff_tokens import checked_name
from domain.venue_log import ChangeAction, JsonValue, VenueChange

if TYPE_CHECKING:
    from domain.services.deps import Deps

PATH = "/calendar/"
"""Where feeds are served, under the public base URL: PATH + secret + SUFFIX."""
SUFFIX = ".ics"
SECRET_PREFIX = "slh_f_"
SECRET = re.compile(r"slh_f_[A-Za-z0-9_-]{43}")
"""The shape of a feed's secret (SECRET_PREFIX + secrets.token_urlsafe(32): 256 bits)."""
NAME_MAX = 80
WINDOW_BACK = timedelta(days=30)
WINDOW_AHEAD = timedelta(days=365)
MAX_CUSTOMER_FEEDS = 10
"""A customer's working feeds per unit at most."""
MAX_STAFF_FEEDS = 50
"""A unit's working staff feeds at most."""
MAX_EVENTS = 5000
"""A feed's events at most (the earliest of its window): calendar apps choke on much larger files."""
ENTITY = venue_log.VenueEntity.CALENDAR_FEED.value

SHOWN = (BookingStatus.HELD, BookingStatus.PENDING_PAYMENT, BookingStatus.VERIFYING, BookingStatus.CONFIRMED,
         BookingStatus.CHECKED_IN, BookingStatus.COMPLETED)
"""The statuses a feed shows; the others (cancelled, expired, no-show) disappear from it."""
TENTATIVE = frozenset({BookingStatus.HELD, BookingStatus.PENDING_PAYMENT, BookingStatus.VERIFYING})
"""Shown as STATUS:TENTATIVE (not yet confirmed); the rest of SHOWN as STATUS:CONFIRMED."""
STATUS_LABELS = {
    BookingStatus.HELD: "Pré-reserva (aguardando confirmação)",
    BookingStatus.PENDING_PAYMENT: "Aguardando pagamento",
    BookingStatus.VERIFYING: "Pagamento em verificação",
    BookingStatus.CONFIRMED: "Confirmada",
    BookingStatus.CHECKED_IN: "Cliente chegou",
    BookingStatus.COMPLETED: "Concluída",
}
"""How an event's description names its booking's status (pt-BR, the product's default language)."""


class FeedScope(StrEnum):
    """Whose bookings a feed shows; the values are the stored scopes."""

    CUSTOMER = "customer"
    UNIT = "unit"
    RESOURCE = "resource"

    @property
    def staff(self) -> bool:
        """A staff feed (the unit's or a resource's agenda, with customers' names)."""
        return self is not FeedScope.CUSTOMER


@dataclass(frozen=True)
class CalendarFeed:
    """A feed as listed: never its secret."""

    id: UUID
    unit_id: UUID
    scope: FeedScope
    name: str
    created_at: datetime
    created_by: str
    """Who made it (Principal.key)."""
    customer_id: UUID | None = None
    resource_id: UUID | None = None
    revoked_at: datetime | None = None
    revoked_by: str | None = None
    active: bool = True
    """Its URL works: not revoked, and the token that made it (staff feeds) is neither revoked nor expired."""

    def described(self) -> dict[str, JsonValue]:
        """What the venue log keeps of a staff feed (GraphQL names; no secret)."""
        return {"name": self.name, "scope": self.scope.value,
                "resourceId": str(self.resource_id) if self.resource_id else None}


@dataclass(frozen=True)
class IssuedFeed:
    feed: CalendarFeed
    secret: str
    """The URL's secret, shown this once."""


@dataclass(frozen=True)
class NewFeed:
    """Make a feed of `scope` on `unit_id` (the caller was authorized on it): `customer_id` for a customer's,
    `resource_id` for one resource's."""

    unit_id: UUID
    scope: FeedScope
    created_by: str
    name: str = ""
    customer_id: UUID | None = None
    resource_id: UUID | None = None
    token_id: UUID | None = None
    """Staff feeds: the staff or integrator token that made it (the feed ends with it); None for customers."""


@dataclass(frozen=True)
class FeedEvent:
    """One booking as a feed shows it."""

    booking_id: UUID
    status: BookingStatus
    starts_at: datetime
    ends_at: datetime
    version: int
    """Grows with every change of the booking (the event's SEQUENCE)."""
    updated_at: datetime
    quantity: int
    service: str | None
    resources: tuple[str, ...]
    """The names of the resources it takes, in the unit's order."""
    customer_name: str | None = None
    """Staff feeds only."""

    @property
    def tentative(self) -> bool:
        return self.status in TENTATIVE


@dataclass(frozen=True)
class FeedCalendar:
    """What a feed's URL answers: the feed, its unit, and its events, earliest first."""

    feed: CalendarFeed
    unit_name: str
    timezone: str
    resource_name: str | None
    events: list[FeedEvent]


def feed_url(deps: Deps, secret: str) -> str:
    """The URL a calendar app subscribes to."""
    return f"{deps.public_base_url}{PATH}{secret}{SUFFIX}"


async def create_feed(deps: Deps, cmd: NewFeed) -> IssuedFeed:
    """Make a feed; its secret is returned once. A resource must be the unit's (else NotFound naming it); a
    customer has at most MAX_CUSTOMER_FEEDS working feeds at the unit, the unit MAX_STAFF_FEEDS staff ones (counted
    with the unit locked, so concurrent requests cannot pass the limit together)."""
    name = checked_name(cmd.name, "name", NAME_MAX) if cmd.name.strip() else ""
    limit = MAX_STAFF_FEEDS if cmd.scope.staff else MAX_CUSTOMER_FEEDS
    now = deps.clock.now()
    async with deps.uow() as uow:
        if await uow.calendar_feeds.lock_and_count(cmd.unit_id, cmd.customer_id, now) >= limit:
            whose = "the unit has" if cmd.scope.staff else "you have"
            raise InvalidInput("unitId", f"{whose} {limit} working calendar feeds at this unit, the most there may be: "
                               "revoke one first", code=ErrorCode.TOO_MANY_CALENDAR_FEEDS)
        if cmd.resource_id is not None and await uow.calendar_feeds.resource_name(cmd.unit_id, cmd.resource_id) \
                is None:
            raise NotFound("resource", cmd.resource_id, field="resourceId")
        issued = await uow.calendar_feeds.create(cmd.unit_id, cmd.scope, name, cmd.created_by, now,
                                                 customer_id=cmd.customer_id, resource_id=cmd.resource_id,
                                                 token_id=cmd.token_id)
        if cmd.scope.staff:
            await venue_log.note(uow, cmd.unit_id, VenueChange(ENTITY, str(issued.feed.id), ChangeAction.CREATED,
                                                               cmd.created_by, None, issued.feed.described()), now)
        await uow.commit()
    return issued


async def feed(deps: Deps, feed_id: UUID) -> CalendarFeed:
    """A feed (revoked or not) by id, for the caller's authorization; NotFound naming `feedId`."""
    async with deps.uow() as uow:
        found = await uow.calendar_feeds.get(feed_id, deps.clock.now(), lock=False)
    if found is None:
        raise NotFound("calendar feed", feed_id, field="feedId")
    return found


async def feeds_page(deps: Deps, unit_id: UUID, customer_id: UUID | None, include_revoked: bool, page: PageRequest
                     ) -> Page[CalendarFeed]:
    """A page of the unit's feeds, newest first: a customer's own (`customer_id`), else the staff feeds."""
    async with deps.uow() as uow:
        return await uow.calendar_feeds.page(unit_id, customer_id, include_revoked, deps.clock.now(), page)


async def revoke_feed(deps: Deps, feed_id: UUID, by: str) -> CalendarFeed:
    """Revoke a feed (the caller was authorized on it): its URL answers 404 from now on. Revoking it again changes
    nothing."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        found = await uow.calendar_feeds.get(feed_id, now, lock=True)
        if found is None:
            raise NotFound("calendar feed", feed_id, field="feedId")
        if found.revoked_at is not None:
            return found
        revoked = await uow.calendar_feeds.revoke(feed_id, by, now)
        if revoked.scope.staff:
            await venue_log.note(uow, revoked.unit_id, VenueChange(ENTITY, str(revoked.id), ChangeAction.REMOVED,
                                                                   by, revoked.described(), None), now)
        await uow.commit()
    return revoked


async def feed_calendar(deps: Deps, secret: str) -> FeedCalendar | None:
    """What a feed's URL shows now; None for a secret that is no live feed's (malformed, unknown or revoked — never
    a hint of which)."""
    if not SECRET.fullmatch(secret):
        return None
    now = deps.clock.now()
    async with deps.uow() as uow:
        found = await uow.calendar_feeds.by_secret(secret, now)
        if found is None or not found.active:
            return None
        unit = await uow.units.get(found.unit_id)
        resource_name = (await uow.calendar_feeds.resource_name(found.unit_id, found.resource_id)
                         if found.resource_id is not None else None)
        events = await uow.calendar_feeds.events(found, now - WINDOW_BACK, now + WINDOW_AHEAD, now, MAX_EVENTS)
    return FeedCalendar(found, unit.name, unit.timezone, resource_name, events)
