"""How long a hold lasts and when it may be made at all (SPEC §6, RN-HLD-02)."""

from __future__ import annotations

from datetime import datetime, timedelta

from domain.errors import ErrorCode, InvalidInput
from domain.units import UnitParameters


def check_booking_window(params: UnitParameters, now: datetime, starts_at: datetime) -> None:
    """Self-service holds start at least min_advance and at most max_advance from now (RN-ATD-06)."""
    if starts_at < now + params.min_advance:
        minutes = int(params.min_advance.total_seconds() // 60)
        raise InvalidInput(
            "startsAt", f"bookings must start at least {minutes} minutes from now", code=ErrorCode.TOO_SOON
        )
    if starts_at > now + params.max_advance:
        raise InvalidInput(
            "startsAt",
            f"bookings can be made at most {params.max_advance.days} days ahead",
            code=ErrorCode.TOO_FAR,
        )


def hold_deadline(
    params: UnitParameters, now: datetime, starts_at: datetime, payment_due: bool,
    ttl: timedelta | None = None,
) -> datetime:
    """The hold's deadline: its TTL, shortened to start − min_advance; refused under hold_min."""
    if ttl is None:
        ttl = params.hold_ttl_with_payment if payment_due else params.hold_ttl
    deadline = min(now + ttl, starts_at - params.min_advance)
    if deadline - now < params.hold_min:
        minutes = int(params.hold_min.total_seconds() // 60)
        raise InvalidInput(
            "startsAt",
            f"too close to the start: a hold would last less than the minimum of {minutes} minutes",
            code=ErrorCode.HOLD_TOO_SHORT,
        )
    return deadline


def reminder_at(params: UnitParameters, born: datetime, deadline: datetime) -> datetime | None:
    """When to remind the customer: hold_reminder before the deadline; never for a hold born shorter."""
    if params.hold_reminder <= timedelta(0) or deadline - born < params.hold_reminder:
        return None
    return deadline - params.hold_reminder
