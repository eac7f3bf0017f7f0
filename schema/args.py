"""Arguments that many root fields take, each with its one description (issue 19: a described schema).

A resolver annotates an argument with one of these (`unit_id: UnitIdArg`) instead of a bare type, so every
`unitId`, `bookingId`, `idempotencyKey`, `since`... of the SDL says the same thing in the same words.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

_ID = ", by its id as the API gave it."

UnitIdArg = Annotated[strawberry.ID, strawberry.argument(description="The unit (venue)" + _ID)]
BookingIdArg = Annotated[strawberry.ID, strawberry.argument(description="The booking" + _ID)]
ResourceIdArg = Annotated[strawberry.ID, strawberry.argument(description="The resource" + _ID)]
ServiceIdArg = Annotated[strawberry.ID, strawberry.argument(description="The service" + _ID)]
EventIdArg = Annotated[strawberry.ID, strawberry.argument(description="The seat event (performance)" + _ID)]
SeatIdsArg = Annotated[list[strawberry.ID], strawberry.argument(
    description="The seats (ids of Seat, as seatMap gave them); all or nothing.")]
EndpointIdArg = Annotated[strawberry.ID, strawberry.argument(description="The webhook endpoint" + _ID)]
EntryIdArg = Annotated[strawberry.ID, strawberry.argument(description="The walk-in party" + _ID)]
ItemIdArg = Annotated[strawberry.ID, strawberry.argument(description="The queue item" + _ID)]
IdArg = Annotated[strawberry.ID, strawberry.argument(description="Its id, as the API gave it (or its raw UUID).")]

IdempotencyKeyArg = Annotated[str | None, strawberry.argument(
    description="A key of your own (1 to 255 characters) that makes a retry safe: the same key with the same request "
    "replays the first answer, with another request it is refused (idempotency_key_reused); kept at least 24 h. "
    "The Idempotency-Key header does the same (both given: they must match).")]
SinceArg = Annotated[int | None, strawberry.argument(
    description="The last event sequence number (seq) you saw: the events after it are sent first, then the live "
    "ones. Omitted: live events only.")]
OptionalReasonArg = Annotated[str | None, strawberry.argument(
    description="Why, in words for people; kept in the audit trail. Optional.")]
ReasonArg = Annotated[str, strawberry.argument(description="Why, in words for people; kept in the audit trail.")]
UserArg = Annotated[str | None, strawberry.argument(
    description="Staff and integrators acting for a customer: the user who joined (any stable id of yours). "
    "Customers: omit it (their session is the user).")]
ClaimTokenArg = Annotated[str, strawberry.argument(
    description="The offer's token (64 hexadecimal characters), from the link its message carries.")]

RangeFromArg = Annotated[datetime, strawberry.argument(
    name="from", description="Start of the range (inclusive), with a UTC offset.")]
RangeToArg = Annotated[datetime, strawberry.argument(
    description="End of the range (exclusive): [from, to) is half-open.")]
StartsAtArg = Annotated[datetime, strawberry.argument(
    description="Start of the slot (inclusive), with a UTC offset; on the unit's grid.")]
EndsAtArg = Annotated[datetime, strawberry.argument(
    description="End of the slot (exclusive): [startsAt, endsAt) is half-open; on the unit's grid.")]
