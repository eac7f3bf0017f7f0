"""The states of waitlist entries (SPEC §8), as the database stores them (CHECK constraints of the three tables)."""

from __future__ import annotations

from enum import StrEnum


class SlotEntryStatus(StrEnum):
    """A place in the line of one resource and slot (RN-ATD-08)."""

    WAITING = "waiting"
    OFFERED = "offered"
    FULFILLED = "fulfilled"
    EXPIRED = "expired"
    CANCELLED = "cancelled"
    CLOSED = "closed"


class CapacityEntryStatus(StrEnum):
    """A party in the line for places of a sold-out pooled resource [003]."""

    WAITING = "waiting"
    OFFERED = "offered"
    CLAIMED = "claimed"
    FULFILLED = "fulfilled"
    EXPIRED = "expired"
    CANCELLED = "cancelled"


class WalkInStatus(StrEnum):
    """A walk-in party of the staff's queue [003]."""

    WAITING = "waiting"
    OFFERED = "offered"
    CLAIMED = "claimed"
    SEATED = "seated"
    CANCELLED = "cancelled"
