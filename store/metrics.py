"""Read-only figures for the metrics endpoint: outbox backlog, open and lapsed holds, expirations so far.

Every query here is read once per scrape interval at most (slothold/metrics.py caches them) and each rests on an
index, so a scrape stays cheap however large the tables grow:

* the outbox backlog and relay lag read the partial index `outbox_unpublished` (rows with no `published_at`);
* open and lapsed holds read the partial index `bookings_locked_deadline` (live holds only);
* expirations are counted incrementally (`ExpirationCount`): `booking_events` is append-only, so only rows above
  a watermark are ever read again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import asyncpg

from domain.bookings import LOCKED, BookingStatus

_OUTBOX = """
SELECT (SELECT count(*) FROM outbox WHERE published_at IS NULL) AS backlog,
       coalesce(extract(epoch FROM now() - (
           SELECT created_at FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 1)), 0)::float8 AS lag
"""

_HOLDS = """
SELECT status, count(*) AS n,
       count(*) FILTER (WHERE hold_expires_at <= $1::timestamptz) AS lapsed,
       min(hold_expires_at) FILTER (WHERE hold_expires_at <= $1::timestamptz) AS oldest_lapsed
FROM bookings WHERE status IN ('held', 'pending_payment', 'verifying')
GROUP BY status
"""

_EXPIRED_ABOVE = """
SELECT count(*) FILTER (WHERE new_status = 'expired') AS expired,
       max(id) FILTER (WHERE recorded_at < now() - make_interval(secs => $2::float8)) AS settled
FROM booking_events WHERE id > $1::bigint
"""

_EXPIRED_BETWEEN = """
SELECT count(*) FROM booking_events
WHERE id > $1::bigint AND id <= $2::bigint AND new_status = 'expired'
"""

LOCKED_STATUSES = tuple(s.value for s in BookingStatus if s in LOCKED)  # held, pending_payment, verifying


@dataclass(frozen=True)
class OutboxFigures:
    """Rows not yet relayed (no `published_at`) and the age in seconds of the oldest of them (0: none)."""

    backlog: int
    lag_seconds: float


@dataclass(frozen=True)
class HoldFigures:
    """Live holds by status; those past their deadline and not yet expired, and how far past the oldest is."""

    open_by_status: dict[str, int]
    lapsed: int
    oldest_lapsed_seconds: float


async def outbox_figures(conn: asyncpg.Connection) -> OutboxFigures:
    """The relay's backlog and lag (cluster-wide)."""
    row = await conn.fetchrow(_OUTBOX)
    assert row is not None
    return OutboxFigures(int(row["backlog"]), max(0.0, float(row["lag"])))


async def hold_figures(conn: asyncpg.Connection, now: datetime) -> HoldFigures:
    """Open holds (held, pending_payment, verifying) and those past their deadline at `now` (the sweep's rule)."""
    rows = await conn.fetch(_HOLDS, now)
    by_status = dict.fromkeys(LOCKED_STATUSES, 0)
    lapsed, oldest = 0, None
    for r in rows:
        by_status[r["status"]] = int(r["n"])
        lapsed += int(r["lapsed"])
        if r["oldest_lapsed"] is not None and (oldest is None or r["oldest_lapsed"] < oldest):
            oldest = r["oldest_lapsed"]
    return HoldFigures(by_status, lapsed, (now - oldest).total_seconds() if oldest is not None else 0.0)


class ExpirationCount:
    """How many `booking_events` say `expired`, kept up to date by reading only rows added since the last read.

    The table is append-only (a trigger refuses UPDATE and DELETE), so rows at or below a watermark never change.
    The watermark only passes rows recorded more than `settle_seconds` ago: a transaction still open could yet
    commit a row with a lower id than rows already visible, and our transactions are far shorter than that
    (statement_timeout 30 s). The first read of a process scans the table once.
    """

    def __init__(self, settle_seconds: float = 60.0) -> None:
        self.settle_seconds = settle_seconds
        self.watermark = 0
        self.below = 0  # expired rows with id <= watermark

    async def read(self, conn: asyncpg.Connection) -> int:
        """The current count (cluster-wide)."""
        row = await conn.fetchrow(_EXPIRED_ABOVE, self.watermark, self.settle_seconds)
        assert row is not None
        total = self.below + int(row["expired"])
        settled = row["settled"]
        if settled is not None and settled > self.watermark:
            self.below += int(await conn.fetchval(_EXPIRED_BETWEEN, self.watermark, settled))
            self.watermark = int(settled)
        return total
