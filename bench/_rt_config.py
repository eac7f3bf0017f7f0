"""The realtime bench's settings (full run or --quick), where it writes, and the documents and statements it sends."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

BENCH = Path(__file__).resolve().parent
LOGS = BENCH / ".logs"
CUSTOMER_BASE = 40_000_000  # hold n uses customer cpf(CPF_BASE + CUSTOMER_BASE + n): never reused
HOLD_TTL = timedelta(hours=1)  # no hold expires or is reminded during a run: no events but ours
SLOTS = """
subscription($unit: ID!, $from: DateTime!, $to: DateTime!) {
  slotChanged(unitId: $unit, from: $from, to: $to) {
    seq event bookingId status state holdType displayColor slots { resourceId startsAt endsAt }
  }
}
"""
INSERT_EVENT = "INSERT INTO outbox (unit_id, topic, payload) VALUES ($1::uuid, 'slot_changed', $2::jsonb)"


@dataclass(frozen=True)
class Config:
    quick: bool
    counts: tuple[int, ...]  # subscribers per step
    seconds: float  # length of each fixed-rate phase
    rate: float = 20.0  # events/s of the fixed-rate phases
    resources: int = 20
    mutation_connections: int = 8
    sql_connections: int = 4
    connect_batch: int = 50
    isolated: int = 10  # events of the 1/s phase: one fan-out at a time, no backlog
    idle_timeout: float = 20.0  # give up waiting for deliveries after this long without one
    profile: bool = False
    port: int = 8766
    pg: str = "postgresql://postgres@127.0.0.1:5432"
    db: str = "slothold_bench_rt"
    # A database of its own for arq's queue (the worker's deadline jobs); pub/sub channels ignore it.
    redis: str = "redis://127.0.0.1:6379/13"

    @classmethod
    def make(cls, quick: bool, profile: bool | None) -> Config:
        if quick:
            return cls(quick, counts=(1, 50), seconds=2.0, isolated=3, profile=bool(profile))
        return cls(quick, counts=(1, 100, 1000), seconds=10.0, profile=profile if profile is not None else True)

    def burst(self, subscribers: int) -> int:
        """Events of the throughput burst: about 200,000 deliveries, 200-2,000 events."""
        if self.quick:
            return 100
        return max(200, min(2000, 200_000 // subscribers))
