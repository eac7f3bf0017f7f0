"""Use cases: one async function each; only these open a unit of work and commit.

| module | what it holds |
| --- | --- |
| `deps` | `Deps` (unit of work factory, clock, ids, payment provider) and `released` |
| `checks` | input checks every use case shares (aware datetimes, ranges, idempotency keys) |
| `idempotency` | the fingerprint of a request, and the replay / remember steps inside a transaction |
| `placing` | `place`: lock → expire lapsed → add, the one path of every new booking |
| `holds` | the commands that make a booking: hold, counter booking, seat hold, box-office sale |
| `alternatives` | the nearest free options of a refused booking (RN-ATD-07) |
| `changes` | state changes of one booking: cancel, drop, check-in, completion |
| `deadlines` | what runs by the clock: expiry, reminders, completion of the past |
| `history` | a booking's audit trail |

Swaps (domain/checkout.py), reschedules (domain/lifecycle.py) and waitlist offers (domain/waitlist.py) are use
cases of their own that place their booking through `placing.place` too.
"""

from domain.services.alternatives import alternatives, window_free
from domain.services.changes import RELEASES, ChangeCommand, cancel, check_in, check_release, complete, drop
from domain.services.checks import MAX_BOOKING_LENGTH, check_key, require_aware, utc_range
from domain.services.deadlines import HOLD_REMINDER_TEXT, complete_past, expire_hold, expire_lapsed, remind_hold
from domain.services.deps import Deps, UowFactory, released
from domain.services.history import HISTORY_MAX, booking_history
from domain.services.holds import (
    BeforeInsert,
    BestSeats,
    BookingRequest,
    BookingResult,
    CounterCommand,
    HoldCommand,
    SaleCommand,
    SeatHoldCommand,
    check_quantity,
    counter_booking,
    hold,
    hold_deadline_for,
    hold_seats,
    hold_type_for,
    replayed,
    sell,
)
from domain.services.idempotency import IDEMPOTENCY_RETENTION, canonical, claim, fingerprint, remember, replay
from domain.services.placing import expire_booking, place

__all__ = [
    "HISTORY_MAX",
    "HOLD_REMINDER_TEXT",
    "IDEMPOTENCY_RETENTION",
    "MAX_BOOKING_LENGTH",
    "RELEASES",
    "BeforeInsert",
    "BestSeats",
    "BookingRequest",
    "BookingResult",
    "ChangeCommand",
    "CounterCommand",
    "Deps",
    "HoldCommand",
    "SaleCommand",
    "SeatHoldCommand",
    "UowFactory",
    "alternatives",
    "booking_history",
    "cancel",
    "canonical",
    "check_in",
    "check_key",
    "check_quantity",
    "check_release",
    "claim",
    "complete",
    "complete_past",
    "counter_booking",
    "drop",
    "expire_booking",
    "expire_hold",
    "expire_lapsed",
    "fingerprint",
    "hold",
    "hold_deadline_for",
    "hold_seats",
    "hold_type_for",
    "place",
    "released",
    "remember",
    "remind_hold",
    "replay",
    "replayed",
    "require_aware",
    "sell",
    "utc_range",
    "window_free",
]
