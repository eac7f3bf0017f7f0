"""The refusal of a layout change that would orphan what is already sold or held."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

from domain.errors import DomainError, ErrorCode

MAX_LISTED = 50
"""At most this many bookings are listed in one refusal (`count` says how many there are)."""


class BookingsInTheWay(DomainError):
    """A change that live bookings (held, pending payment, verifying, confirmed, checked in) stand in the way of:
    deactivating a resource, closing hours or a day, blocking a range, lowering a pooled capacity. `field` names
    the argument refused, `booking_ids` the bookings (at most MAX_LISTED), `at` the busiest instant when a
    capacity was refused."""

    code = ErrorCode.BOOKINGS_IN_THE_WAY

    def __init__(self, field: str, message: str, booking_ids: list[UUID], at: datetime | None = None) -> None:
        unique = list(dict.fromkeys(booking_ids))
        super().__init__(f"{message}: {len(unique)} live booking(s) in the way "
                         f"({', '.join(str(b) for b in unique[:5])}{', ...' if len(unique) > 5 else ''})")
        self.field = field
        self.count = len(unique)
        self.booking_ids = unique[:MAX_LISTED]
        self.at = at
