"""The storm's settings, the parameters of its units, the GraphQL documents its actors send, and what it counts
while it runs."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

TZ = ZoneInfo("America/Sao_Paulo")
SECRET = "storm-sandbox-secret"
HARNESS = "slothold-storm-harness"
UNIT_PARAMS = {"min_advance_minutes": 0, "hold_min_seconds": 5, "hold_ttl_seconds": 20,
               "hold_ttl_payment_seconds": 45, "charge_margin_seconds": 5, "verification_wait_seconds": 20,
               "hold_ceiling_percent": 100, "cooldown_expirations": 50, "hold_reminder_seconds": 0,
               "sweep_interval_seconds": 5, "waitlist_hold_seconds": 30}

HOLD = """mutation($i: HoldInput!, $k: String) { hold(input: $i, idempotencyKey: $k) { __typename
  ... on BookingPayload { booking { id status holdExpiresAt } } ... on Error { code } } }"""
CONFIRM = """mutation($b: ID!, $k: String) { confirm(bookingId: $b, idempotencyKey: $k) { __typename
  ... on BookingPayload { booking { id status } charge { txid } } ... on Error { code } } }"""
CANCEL = """mutation($b: ID!) { cancel(bookingId: $b) { __typename ... on Error { code } } }"""
DROP = """mutation($b: ID!) { drop(bookingId: $b, reason: "storm") { __typename ... on Error { code } } }"""
SWAP = """mutation($b: ID!, $i: SwapInput!) { swapHold(bookingId: $b, input: $i) { __typename
  ... on BookingPayload { booking { id } } ... on Error { code } } }"""
RESCHEDULE = """mutation($b: ID!, $i: RescheduleInput!) { reschedule(bookingId: $b, input: $i) { __typename
  ... on BookingPayload { booking { id } } ... on Error { code } } }"""
COUNTER = """mutation($i: CounterBookingInput!) { counterBooking(input: $i) { __typename ... on Error { code } } }"""
WAITLIST = """mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!, $c: String!) { joinSlotWaitlist(unitId: $u,
  resourceId: $r, startsAt: $s, endsAt: $e, customer: {cpf: $c}) { __typename ... on Error { code } } }"""
CAPACITY = """mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!, $user: String!) { joinCapacityWaitlist(
  unitId: $u, resourceId: $r, startsAt: $s, endsAt: $e, partySize: 2, user: $user) { __typename
  ... on CapacityWaitlistEntry { id } ... on Error { code } } }"""
ENTRY = """query($i: ID!) { capacityWaitlistEntry(id: $i) { __typename
  ... on CapacityWaitlistEntry { status offerToken } ... on Error { code } } }"""
CLAIM = """mutation($u: ID!, $t: String!, $user: String!) { claimWaitlistOffer(unitId: $u, token: $t, user: $user) {
  __typename ... on Booking { id } ... on Error { code } } }"""
SLOTS = """subscription($u: ID!, $from: DateTime!, $to: DateTime!, $since: Int) {
  slotChanged(unitId: $u, from: $from, to: $to, since: $since) { seq } }"""


@dataclass
class Config:
    seconds: float = 90.0
    customers: int = 3000
    concurrency: int = 48
    apis: int = 3
    workers: int = 2
    units: int = 3
    fields: int = 8
    subscribers: int = 4
    """Websocket subscribers per unit."""
    faults: bool = True
    server_url: str = "postgresql://postgres@127.0.0.1:5432"
    database: str = "slothold_storm"
    seed: int = 7
    settle_seconds: float = 12.0
    late_after: float = 50.0
    """A late payment arrives this long after the charge (the hold's payment TTL is 45 s)."""
    late_share: float = 0.1
    duplicate_share: float = 0.2
    pgbouncer: int = 0
    """Through PgBouncer in transaction mode with at most this many server connections (0: straight to PostgreSQL);
    the relays' sessions stay direct (DATABASE_DIRECT_URL)."""


@dataclass
class Stats:
    latency: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    outcomes: Counter[tuple[str, str]] = field(default_factory=Counter)
    errors: Counter[tuple[str, str]] = field(default_factory=Counter)
    keys: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    """Idempotency key → every booking id an answer to it named."""
    faults: list[tuple[float, str]] = field(default_factory=list)
    rss: dict[str, float] = field(default_factory=dict)
    """Peak resident memory (MiB) per process name."""
    peaks: dict[str, float] = field(default_factory=dict)
    """The highest value of each watched /metrics figure seen while the storm ran."""
    scrapes: int = 0
    scrape_failures: int = 0
    backends: int = 0
    """The most PostgreSQL backends the system's processes held at once (the harness's own aside)."""
