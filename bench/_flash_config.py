"""The flash sale bench's settings (full run or --quick), the GraphQL documents its buyers send, and what it counts."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

BENCH = Path(__file__).resolve().parent
CPF_BASE = 3_000_000  # buyer n is cpf(CPF_BASE + n)

_ANSWER = """__typename
    ... on BookingPayload { booking { id status allocations { resourceId } } }
    ... on SeatsUnavailable { code seats { seatId state } }
    ... on Error { code message }"""
LOCK = "mutation($i: LockSeatsInput!) { r: lockSeats(input: $i) { " + _ANSWER + " } }"
BEST = "mutation($i: LockBestSeatsInput!) { r: lockBestSeats(input: $i) { " + _ANSWER + " } }"
CONFIRM = """mutation($b: ID!) { r: confirm(bookingId: $b) { __typename
    ... on BookingPayload { booking { id status } charge { txid } } ... on Error { code message } } }"""
SEAT_MAP = """query($e: ID!) { r: seatMap(eventId: $e) { __typename
    ... on SeatMapView { counts { active locked sold blocked }
                         sections { name rows { label seats { id state } } } }
    ... on Error { code message } } }"""


@dataclass(frozen=True)
class Config:
    quick: bool
    sections: int = 4
    rows: int = 25
    per_row: int = 50
    buyers: int = 500
    """Concurrent buyers: each a keep-alive connection that buys again (a new customer) once it has bought."""
    chosen_share: float = 0.3
    """Of purchases, the share that picks its seats on the map (the rest asks for the best available)."""
    section_share: float = 0.5
    """Of best-available requests, the share that names a section."""
    time_limit: float = 180.0
    workers: int = 2
    pool_max: int = 10
    """Database connections per API worker: the PostgreSQL server is shared (max_connections 100 here), and on 2
    cores more connections only queue inside PostgreSQL."""
    port: int = 8779
    server_url: str = "postgresql://postgres@127.0.0.1:5432"
    db: str = "slothold_flash"
    redis: str = "redis://127.0.0.1:6379/0"
    fresh: bool = True
    """Drop, recreate and migrate the database first (False: use it as it is, migrated: the test suite's)."""
    warmup: float = 2.0
    """Seconds of purchases on the warm-up event before the sale (0: none)."""
    profile: bool = False
    """py-spy on the API workers during the sale. Off for the measured figure: py-spy (blocking, --native, 100 Hz)
    stops each worker for every sample, and the sale then sells 11 % fewer seats a second (bench/RESULTS.md,
    2026-12-03 10:30): profile in a run of its own, next to the measured one."""
    profile_seconds: float = 8.0
    analyze: bool = True
    """ANALYZE after the warm-up, before the sale: a live venue's tables have the statistics autovacuum keeps (this
    machine's PostgreSQL runs with autovacuum off); the sale's own rows are new to them either way. False: the sale
    on tables never analysed, as on a database made a minute before (bench/RESULTS.md, 2026-12-03: the plans of
    the foreign-key checks and the customer lookups then read every booking of the unit, every customer of the
    tenant)."""
    seed: int = 22

    @property
    def seats(self) -> int:
        return self.sections * self.rows * self.per_row

    @property
    def url(self) -> str:
        return f"{self.server_url}/{self.db}"

    @classmethod
    def make(cls, quick: bool) -> Config:
        if quick:  # 600 seats, 60 buyers: a smoke test of every path and check
            return cls(quick, sections=3, rows=4, per_row=50, buyers=60, time_limit=60.0)
        return cls(quick)  # 4 sections × 25 rows × 50 = 5,000 seats, 500 buyers


@dataclass
class Stats:
    latency: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    outcomes: Counter[tuple[str, str]] = field(default_factory=Counter)
    samples: list[str] = field(default_factory=list)
    """A few failures' details."""
    sold: dict[str, list[str]] = field(default_factory=dict)
    """Booking (global id) → its seats, as the confirm that sold it answered."""
    locked: dict[str, list[str]] = field(default_factory=dict)
    """Booking → seats, as the lock answered (sold or not)."""
    sold_at: list[tuple[float, int]] = field(default_factory=list)
    """(seconds since the sale opened, seats) of each sale."""
    purchases: int = 0
    gave_up: int = 0
    """Buyers' purchases that found nothing to lock (the map sold out under them)."""
    sold_out_at: float | None = None
    """When a best-available request for one seat anywhere was refused: nothing left to lock."""

    def fail(self, op: str, kind: str, detail: str) -> None:
        self.outcomes[(op, kind)] += 1
        if len(self.samples) < 8:
            self.samples.append(f"{op} {kind}: {detail[:300]}")

    @property
    def seats_sold(self) -> int:
        return sum(len(s) for s in self.sold.values())
