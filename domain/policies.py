"""Cancellation policies: versioned refund tiers (SPEC §7, RN-ATD-09)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from domain.errors import ErrorCode, InvalidInput


@dataclass(frozen=True)
class Tier:
    """Cancelling at least `min_hours` before the start refunds `percent` of what was paid."""

    min_hours: float
    percent: int


@dataclass(frozen=True)
class CancellationPolicy:
    """One published version of a unit's policy; bookings keep the version they accepted."""

    version: int
    tiers: tuple[Tier, ...]

    def __post_init__(self) -> None:
        if not self.tiers:
            raise InvalidInput("tiers", "a policy needs at least one tier", code=ErrorCode.INVALID_POLICY)
        for t in self.tiers:
            if not 0 <= t.percent <= 100 or t.min_hours < 0:
                raise InvalidInput("tiers", "tiers need 0–100 % and non-negative hours", code=ErrorCode.INVALID_POLICY)
        if not any(t.min_hours == 0 for t in self.tiers):
            raise InvalidInput("tiers", "one tier must start at 0 hours", code=ErrorCode.INVALID_POLICY)

    def refund_percent(self, starts_at: datetime, cancelled_at: datetime) -> int:
        """The refund percentage for a cancellation at `cancelled_at` of a booking starting at `starts_at`."""
        hours = (starts_at - cancelled_at).total_seconds() / 3600
        eligible = [t for t in self.tiers if hours >= t.min_hours]
        return max(eligible, key=lambda t: t.min_hours).percent if eligible else 0

    def refund_cents(self, paid_cents: int, starts_at: datetime, cancelled_at: datetime) -> int:
        """Money back, rounded down to the cent."""
        return paid_cents * self.refund_percent(starts_at, cancelled_at) // 100

    def summary_pt(self) -> str:
        """The summary shown before acceptance, as RN-ATD-09 words it."""
        ordered = sorted(self.tiers, key=lambda t: -t.min_hours)
        parts = []
        for i, t in enumerate(ordered):
            refund = f"devolução de {t.percent}%" if t.percent else "sem devolução"
            if i == 0:
                parts.append(f"com {_h(t.min_hours)} h ou mais: {refund}")
            elif t.min_hours == 0:
                parts.append(f"com menos de {_h(ordered[i - 1].min_hours)} h: {refund}")
            else:
                parts.append(f"de {_h(t.min_hours)} a {_h(ordered[i - 1].min_hours)} h: {t.percent}%")
        return "Cancelamento " + "; ".join(parts) + "."


def _h(hours: float) -> str:
    return str(int(hours)) if hours == int(hours) else str(hours)


DEFAULT_POLICY = CancellationPolicy(1, (Tier(24, 100), Tier(6, 50), Tier(0, 0)))
