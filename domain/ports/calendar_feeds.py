"""Calendar feeds on the unit of work's connection (domain/calendar_feeds.py; store/calendar_feeds.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol
from uuid import UUID

from domain.calendar_feeds import CalendarFeed, FeedEvent, FeedScope, IssuedFeed
from domain.pages import Page, PageRequest


class CalendarFeedRepository(Protocol):
    """calendar_feeds (migration 0024f): a feed's secret is made here and stored as its digest only."""

    async def create(self, unit_id: UUID, scope: FeedScope, name: str, created_by: str, now: datetime, *,
                     customer_id: UUID | None = None, resource_id: UUID | None = None, token_id: UUID | None = None
                     ) -> IssuedFeed: ...

    async def lock_and_count(self, unit_id: UUID, customer_id: UUID | None, now: datetime) -> int:
        """Lock the unit's feeds until the transaction ends (one creation at a time per unit) and count the working
        ones of the customer (`customer_id`), else the unit's working staff feeds."""
        ...

    async def get(self, feed_id: UUID, now: datetime, lock: bool) -> CalendarFeed | None:
        """A feed by id (revoked or not; `active` as of `now`), locked until the transaction ends when `lock`."""
        ...

    async def by_secret(self, secret: str, now: datetime) -> CalendarFeed | None:
        """The feed whose URL carries this secret (revoked or not; `active` as of `now`), or None."""
        ...

    async def revoke(self, feed_id: UUID, by: str, at: datetime) -> CalendarFeed: ...

    async def page(self, unit_id: UUID, customer_id: UUID | None, include_revoked: bool, now: datetime,
                   page: PageRequest) -> Page[CalendarFeed]:
        """A page of the unit's feeds, newest first: the customer's own when `customer_id`, else the staff ones;
        those that no longer work (revoked, or their token's revoked or expired) only with `include_revoked`."""
        ...

    async def resource_name(self, unit_id: UUID, resource_id: UUID) -> str | None:
        """The name of one of the unit's resources (None: not the unit's)."""
        ...

    async def events(self, feed: CalendarFeed, start: datetime, end: datetime, now: datetime, limit: int
                     ) -> list[FeedEvent]:
        """The bookings the feed shows that overlap [start, end), earliest first, at most `limit`: a customer
        feed's are those of the records its customer's proved contacts reach (as `bookings` decides for their
        session); lapsed holds are left out."""
        ...
