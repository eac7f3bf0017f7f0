"""Input checks every use case shares: aware datetimes, ranges, idempotency keys."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from domain.errors import ErrorCode, InvalidInput

MAX_BOOKING_LENGTH = timedelta(days=366)
"""The longest range one booking may cover (a season at the counter); beyond it the grid arithmetic overflows."""


def check_key(key: str | None) -> None:
    """Refuse an idempotency key that is empty or longer than 255 characters."""
    if key is not None and not (1 <= len(key) <= 255):
        raise InvalidInput("idempotencyKey", "idempotency key must be 1 to 255 characters",
                           code=ErrorCode.TOO_LONG if len(key) > 255 else ErrorCode.INVALID_IDEMPOTENCY_KEY)


def require_aware(value: datetime, field_name: str) -> None:
    """Refuse a naive datetime, naming the field."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise InvalidInput(field_name, f"{field_name} must carry a UTC offset (ISO 8601, e.g. "
                           "2026-12-01T19:00:00-03:00)", code=ErrorCode.NAIVE_DATETIME)
    try:
        value.astimezone(UTC)
    except OverflowError:  # e.g. 0001-01-01T00:00:00+14:00: before year 1 in UTC
        raise InvalidInput(field_name, f"{field_name} is out of range", code=ErrorCode.DATETIME_OUT_OF_RANGE) from None


def utc_range(starts_at: datetime, ends_at: datetime) -> tuple[datetime, datetime]:
    """[starts_at, ends_at) checked (aware, ordered, at most MAX_BOOKING_LENGTH) and in UTC (comparisons across
    zones misbehave in repeated hours)."""
    require_aware(starts_at, "startsAt")
    require_aware(ends_at, "endsAt")
    starts_at, ends_at = starts_at.astimezone(UTC), ends_at.astimezone(UTC)
    if ends_at <= starts_at:
        raise InvalidInput("endsAt", "endsAt must be after startsAt", code=ErrorCode.INVALID_RANGE)
    if ends_at - starts_at > MAX_BOOKING_LENGTH:  # longer ranges overflowed the slot arithmetic
        raise InvalidInput("endsAt", f"a booking may last at most {MAX_BOOKING_LENGTH.days} days",
                           code=ErrorCode.RANGE_TOO_LONG)
    return starts_at, ends_at
