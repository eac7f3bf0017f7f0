"""The real clock."""

from __future__ import annotations

from datetime import UTC, datetime


class SystemClock:
    """Clock reading the machine's time, in UTC."""

    def now(self) -> datetime:
        """The current time, aware, in UTC."""
        return datetime.now(UTC)
