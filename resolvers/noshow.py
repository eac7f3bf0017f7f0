"""Staff mark a no-show (SPEC §11): the system only suggests it (a staff-queue item after start + grace)."""

from __future__ import annotations

import strawberry

from domain import attendance
from domain.access import Action
from resolvers.context import Info, parse_id
from resolvers.mutations import ChangeResult
from resolvers.permissions import authorize_booking
from schema.types import Booking, BookingPayload


@strawberry.type
class NoShowMutation:
    @strawberry.mutation(description="Staff: the customer of a confirmed booking did not come (after its start). The "
                         "booking becomes NO_SHOW, its resources are freed and its \"Possível falta\" queue item is "
                         "resolved.")
    async def mark_no_show(self, info: Info, booking_id: strawberry.ID) -> ChangeResult:
        bid = parse_id(booking_id, "bookingId")
        await authorize_booking(info.context, bid, Action.COUNTER)
        result = await attendance.mark_no_show(info.context.deps, bid, "staff")
        return BookingPayload(booking=Booking.from_domain(result.booking), replayed=False)
