"""Subscriptions: live slot, booking and staff-queue changes over graphql-transport-ws (waitlists and
notifications have theirs in their own modules)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import AsyncGenerator
from datetime import UTC, datetime
from uuid import UUID

import strawberry

from domain import queries
from domain.access import Action
from domain.errors import ErrorCode, InvalidInput
from domain.events import BookingChanged, QueueItemChanged, SeatsBlockChanged
from domain.services import Deps, require_aware
from resolvers.context import Info, parse_id
from resolvers.feed import unit_events
from resolvers.permissions import authorize_booking, authorize_unit
from schema.args import BookingIdArg, RangeFromArg, RangeToArg, SinceArg, UnitIdArg
from schema.events import QueueChange, SlotChange
from schema.ids import Kind

SLOT_TOPICS = frozenset({BookingChanged.TOPIC, SeatsBlockChanged.TOPIC})
"""Bookings' changes, and seat and grid blocks (domain/seatmaps.py, domain/layout/blocks.py), shown on the grid."""
_CHANGES: OrderedDict[tuple[UUID, int], SlotChange] = OrderedDict()


async def _slot_change(deps: Deps, unit_id: UUID, seq: int, event: BookingChanged | SeatsBlockChanged) -> SlotChange:
    """The event as a SlotChange — one object per event, so that its execution is shared by subscribers. Hold
    types show with the unit's own names and colours (its organization's catalog, cached for seconds)."""
    key = (unit_id, seq)
    change = _CHANGES.get(key)
    if change is None:
        catalog = (await queries.unit(deps, unit_id)).hold_types
        change = _CHANGES.setdefault(key, SlotChange.from_event(seq, event, catalog))
        if len(_CHANGES) > 1024:
            _CHANGES.popitem(last=False)
    return change


def _overlaps(event: BookingChanged | SeatsBlockChanged, start: datetime, end: datetime) -> bool:
    return any(a.starts_at < end and a.ends_at > start for a in event.allocations)


@strawberry.type
class Subscription:
    @strawberry.subscription(description="Every change of state of a slot of the unit in [from, to). "
                             "Pass since: <last seq you saw> to receive what you missed first.")
    async def slot_changed(
        self, info: Info, unit_id: UnitIdArg, from_: RangeFromArg,
        to: RangeToArg, since: SinceArg = None,
    ) -> AsyncGenerator[SlotChange, None]:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        require_aware(from_, "from")
        require_aware(to, "to")
        if to <= from_:
            raise InvalidInput("to", "`to` must be after `from`", code=ErrorCode.INVALID_RANGE)
        await authorize_unit(info.context, uid, Action.READ)
        start, end = from_.astimezone(UTC), to.astimezone(UTC)
        async for event in unit_events(info.context.deps, info.context.hub, uid, since):
            if event.topic in SLOT_TOPICS and isinstance(fact := event.fact, BookingChanged | SeatsBlockChanged) \
                    and _overlaps(fact, start, end):
                yield await _slot_change(info.context.deps, uid, event.seq, fact)

    @strawberry.subscription(description="Every change of one booking.")
    async def booking_changed(
        self, info: Info, booking_id: BookingIdArg, since: SinceArg = None
    ) -> AsyncGenerator[SlotChange, None]:
        booking = await authorize_booking(info.context, parse_id(booking_id, "bookingId", Kind.BOOKING), Action.READ)
        async for event in unit_events(info.context.deps, info.context.hub, booking.unit_id, since):
            if event.topic == BookingChanged.TOPIC and isinstance(fact := event.fact, BookingChanged) \
                    and fact.booking_id == booking.id:
                yield await _slot_change(info.context.deps, booking.unit_id, event.seq, fact)

    @strawberry.subscription(description="The unit's staff queue, live (items arrive with payments).")
    async def queue_changed(
        self, info: Info, unit_id: UnitIdArg, since: SinceArg = None
    ) -> AsyncGenerator[QueueChange, None]:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.READ)
        async for event in unit_events(info.context.deps, info.context.hub, uid, since):
            if event.topic == QueueItemChanged.TOPIC and isinstance(fact := event.fact, QueueItemChanged):
                yield QueueChange.from_event(event.seq, uid, fact)
