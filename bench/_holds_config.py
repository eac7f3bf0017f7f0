"""The holds bench's settings (full run or --quick) and the GraphQL documents it sends."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
CPF_BASE = 1_000_000  # customer n is cpf(CPF_BASE + n): distinct valid CPFs
HOLD = """
mutation($input: HoldInput!) {
  hold(input: $input) {
    __typename
    ... on BookingPayload { booking { id status holdExpiresAt startsAt endsAt allocations { resourceId } } }
    ... on SlotTaken { alternatives { resourceId startsAt endsAt } }
    ... on Error { code message }
  }
}
"""
GRID = """
query($unit: ID!, $from: DateTime!, $to: DateTime!) {
  availabilityGrid(unitId: $unit, from: $from, to: $to) {
    __typename
    ... on Grid { compact }
    ... on Error { code message }
  }
}
"""

GRID_SEGMENTS = """
query($unit: ID!, $from: DateTime!, $to: DateTime!) {
  availabilityGrid(unitId: $unit, from: $from, to: $to) {
    __typename
    ... on Grid { slotMinutes rows { resource { id name } segments {
                  startsAt endsAt state slots available holdType holdTypeName displayColor bookingId } } }
    ... on Error { code message }
  }
}
"""


@dataclass(frozen=True)
class Config:
    quick: bool
    resources: int  # exclusive resources of the unit the throughput phases hold on
    seconds: float  # measured time of each throughput phase
    warmup: float
    clients: int = 32
    hot_clients: int = 64
    hot_rounds: int = 30
    evening_clients: int = 200
    evening_rounds: int = 6
    history: int = 20_000  # customers with a confirmed booking on the hold unit before the phases (0: none)
    grid_resources: int = 50
    grid_days: int = 30
    grid_runs: int = 20
    port: int = 8765
    pg: str = "postgresql://postgres@127.0.0.1:5432"
    db: str = "slothold_bench"
    redis: str = "redis://127.0.0.1:6379/0"

    @classmethod
    def make(cls, quick: bool) -> Config:
        if quick:
            return cls(quick, resources=1_000, seconds=3, warmup=1, hot_rounds=5, evening_rounds=2, grid_runs=5,
                       history=2_000)
        return cls(quick, resources=10_000, seconds=10, warmup=2)
