"""The bench database: dropped and recreated, migrated, then filled in bulk with asyncpg."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from uuid import UUID, uuid4

import asyncpg

from domain.availability import slot_ranges
from domain.units import OpeningWindow, Resource, Unit, UnitParameters
from slothold.cli.migrate import upgrade
from store.venues import ResourceSpec, VenueSpec, create_venue, every_day
from tests.venues import cpf

TZ = "America/Sao_Paulo"
OPENS, CLOSES = 8, 23


async def _reset(admin_url: str, name: str) -> None:
    conn = await asyncpg.connect(admin_url)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()


async def reset_database(server_url: str, name: str) -> str:
    """Drop and recreate database `name` on the server; return its URL (not yet migrated)."""
    await _reset(f"{server_url}/postgres", name)
    return f"{server_url}/{name}"


async def fetch(url: str, query: str, *args: object) -> list[asyncpg.Record]:
    """Rows of one query on a connection of its own (the checks after a phase)."""
    conn = await asyncpg.connect(url)
    try:
        rows: list[asyncpg.Record] = await conn.fetch(query, *args)
    finally:
        await conn.close()
    return rows


def migrate(url: str) -> None:
    """Alembic upgrade to head (runs its own event loop: call it outside asyncio)."""
    upgrade(url)


@dataclass(frozen=True)
class SlotPlan:
    """Distinct (resource, slot) pairs spread over every resource and day: pair k never repeats."""

    unit_id: UUID
    tenant_id: UUID
    resource_ids: list[UUID]
    slots: list[tuple[datetime, datetime]]

    @property
    def capacity(self) -> int:
        return len(self.resource_ids) * len(self.slots)

    def pair(self, k: int) -> tuple[UUID, datetime, datetime]:
        """Resource k mod N, and for it a slot index that walks all slots (offset per resource)."""
        j, r = divmod(k, len(self.resource_ids))
        if j >= len(self.slots):
            raise IndexError(f"slot plan exhausted at k={k}")
        s, e = self.slots[(j + r * 37) % len(self.slots)]
        return self.resource_ids[r], s, e


def _unit(slot_minutes: int) -> Unit:
    hours = tuple(OpeningWindow(wd, o, c) for wd, o, c in every_day(OPENS, CLOSES))
    return Unit(id=uuid4(), organization_id=uuid4(), tenant_id=uuid4(), name="x", timezone=TZ,
                params=UnitParameters(slot_minutes=slot_minutes), hours=hours)


def grid_slots(slot_minutes: int, start: datetime, end: datetime) -> list[list[tuple[datetime, datetime]]]:
    """The unit's slots in [start, end), one list per opening window (day), as the domain computes them."""
    unit = _unit(slot_minutes)
    return slot_ranges(unit, Resource(id=uuid4(), unit_id=unit.id, name="r"), start, end)


def holdable_slots(now: datetime, slot_minutes: int = 60,
                   margin: timedelta = timedelta(minutes=20)) -> list[tuple[datetime, datetime]]:
    """Slots a customer may hold for the whole bench run: ≥ min_advance + hold_min (+margin), ≤ 30 days."""
    lo = now + timedelta(minutes=65) + margin
    hi = now + timedelta(days=30)
    days = grid_slots(slot_minutes, lo, hi + timedelta(hours=2))
    return [(s, e) for day in days for s, e in day if s <= hi]


async def _venue(pool: asyncpg.Pool, name: str, resources: int | list[str],
                 slot_minutes: int = 60, **more: object) -> tuple[UUID, UUID, list[UUID]]:
    params = ({"slot_minutes": slot_minutes} if slot_minutes != 60 else {}) | more
    specs = [ResourceSpec(name=n) for n in resources] if isinstance(resources, list) else []
    v = await create_venue(pool, VenueSpec(unit_name=name, tenant_name=f"{name} tenant",
                                           hours=every_day(OPENS, CLOSES), resources=specs, params=params))
    async with pool.acquire() as conn:
        if isinstance(resources, int):
            # Bulk: one statement instead of create_venue's row-by-row inserts.
            await conn.execute(
                "INSERT INTO resources (id, unit_id, name, kind, capacity, sort) "
                "SELECT gen_random_uuid(), $1::uuid, 'Quadra ' || g, 'exclusive', 1, g "
                "FROM generate_series(1, $2::int) AS g", v.unit_id, resources)
        ids = [r["id"] for r in await conn.fetch(
            "SELECT id FROM resources WHERE unit_id = $1::uuid ORDER BY sort, name", v.unit_id)]
    return v.unit_id, v.tenant_id, ids


async def hold_unit(pool: asyncpg.Pool, resources: int, now: datetime) -> SlotPlan:
    """The unit the throughput phases hold on: `resources` exclusive resources, 60-min slots."""
    unit_id, tenant_id, ids = await _venue(pool, "Bench holds", resources)
    return SlotPlan(unit_id, tenant_id, ids, holdable_slots(now))


async def hot_unit(pool: asyncpg.Pool, now: datetime) -> SlotPlan:
    """A realistic small venue (4 fields) for the hot-slot rounds; all rounds hit its first field."""
    unit_id, tenant_id, ids = await _venue(pool, "Bench hot", [f"Campo {i}" for i in range(1, 5)])
    return SlotPlan(unit_id, tenant_id, ids, holdable_slots(now))


async def evening_unit(pool: asyncpg.Pool, now: datetime) -> SlotPlan:
    """Another venue of 4 fields for the evening rounds, whose hold ceiling (RN-HLD-05) lets a whole evening be
    held (the default 30 % of a day's 60 slots would refuse the 19th of its 20 holds: a rule, not a conflict)."""
    unit_id, tenant_id, ids = await _venue(pool, "Bench evening", [f"Campo {i}" for i in range(1, 5)],
                                           hold_ceiling_percent=100)
    return SlotPlan(unit_id, tenant_id, ids, holdable_slots(now))


@dataclass(frozen=True)
class GridUnit:
    unit_id: UUID
    resource_ids: list[UUID]
    start: datetime
    end: datetime
    slots_total: int
    slots_booked: int
    bookings: int
    held: int


async def grid_unit(pool: asyncpg.Pool, resources: int, days: int, now: datetime, booked: float = 0.30,
                    seed: int = 7) -> GridUnit:
    """`resources` × `days` × 30-min slots, about `booked` of the slots taken by confirmed bookings
    (1-2 h each) and a few live holds, written with COPY."""
    unit_id, _, ids = await _venue(pool, "Bench grid", [f"Quadra {i:02d}" for i in range(1, resources + 1)],
                                   slot_minutes=30)
    rnd = random.Random(seed)
    local_midnight = now.astimezone(_unit(30).tz).replace(hour=0, minute=0, second=0, microsecond=0)
    start, end = local_midnight.astimezone(UTC), (local_midnight + timedelta(days=days)).astimezone(UTC)
    days_slots = grid_slots(30, start, end)
    lengths = [2, 2, 2, 3, 4]
    p_start = booked / (sum(lengths) / len(lengths) * (1 - booked) + booked)
    bookings: list[tuple[object, ...]] = []
    allocations: list[tuple[object, ...]] = []
    total = taken = held = 0
    for rid in ids:
        for day in days_slots:
            total += len(day)
            i = 0
            while i < len(day):
                n = rnd.choice(lengths)
                if rnd.random() < p_start and i + n <= len(day):
                    s, e = day[i][0], day[i + n - 1][1]
                    is_held = rnd.random() < 0.02
                    bid = uuid4()
                    deadline = now + timedelta(days=1) if is_held else None
                    during = asyncpg.Range(s, e)
                    bookings.append((bid, unit_id, "held" if is_held else "confirmed",
                                     "CART" if is_held else None, "api", "bench", during, deadline, now, now))
                    allocations.append((unit_id, bid, rid, during, 1, False, True, deadline,
                                        "held" if is_held else "confirmed", "CART" if is_held else None))
                    taken += n
                    held += is_held
                    i += n
                else:
                    i += 1
    async with pool.acquire() as conn, conn.transaction():
        await conn.copy_records_to_table(
            "bookings", records=bookings,
            columns=["id", "unit_id", "status", "hold_type", "channel", "created_by", "during",
                     "hold_expires_at", "created_at", "updated_at"])
        await conn.copy_records_to_table(
            "allocations", records=allocations,
            columns=["unit_id", "booking_id", "resource_id", "during", "quantity", "pooled", "occupies",
                     "hold_expires_at", "status", "hold_type"])
    async with pool.acquire() as conn:
        await conn.execute("ANALYZE")
    return GridUnit(unit_id, ids, start, end, total, taken, len(bookings), held)


async def filler(pool: asyncpg.Pool, plan: SlotPlan, n: int, seed: int = 11) -> None:
    """`n` confirmed one-slot bookings on the plan's unit, written with COPY: other units' rows in
    `allocations`, so that a phase run alone sees a table of the size the full run leaves it."""
    rnd = random.Random(seed)
    now = datetime.now(UTC)
    bookings: list[tuple[object, ...]] = []
    allocations: list[tuple[object, ...]] = []
    for k in rnd.sample(range(plan.capacity), n):
        rid, s, e = plan.pair(k)
        bid, during = uuid4(), asyncpg.Range(s, e)
        bookings.append((bid, plan.unit_id, "confirmed", "api", "bench", during, now, now))
        allocations.append((plan.unit_id, bid, rid, during, 1, False, True, "confirmed"))
    async with pool.acquire() as conn, conn.transaction():
        await conn.copy_records_to_table(
            "bookings", records=bookings,
            columns=["id", "unit_id", "status", "channel", "created_by", "during", "created_at", "updated_at"])
        await conn.copy_records_to_table(
            "allocations", records=allocations,
            columns=["unit_id", "booking_id", "resource_id", "during", "quantity", "pooled", "occupies", "status"])
    async with pool.acquire() as conn:
        await conn.execute("ANALYZE")


HISTORY_CPF_BASE = 50_000_000  # the history's customers: cpf(HISTORY_CPF_BASE + i), never a phase's customer


async def history(pool: asyncpg.Pool, plan: SlotPlan, n: int) -> None:
    """A venue in use before the phases start: `n` customers with one confirmed booking each on the plan's unit
    (on the last `n` pairs of the plan: the phases take pairs from the first), written with COPY, then ANALYZE as
    autovacuum would have done — so that the phases are planned on statistics, as a running system is, and not on
    tables that were empty a second ago (whose guesses made the hold's foreign-key checks scan every booking of
    the unit and its customer lookups every customer of the tenant)."""
    now = datetime.now(UTC)
    customers: list[tuple[object, ...]] = []
    bookings: list[tuple[object, ...]] = []
    allocations: list[tuple[object, ...]] = []
    for i in range(n):
        rid, s, e = plan.pair(plan.capacity - 1 - i)
        cid, bid, during = uuid4(), uuid4(), asyncpg.Range(s, e)
        customers.append((cid, plan.tenant_id, cpf(HISTORY_CPF_BASE + i), f"Cliente {i}", "bench"))
        bookings.append((bid, plan.unit_id, cid, "confirmed", "api", "bench", during, now, now))
        allocations.append((plan.unit_id, bid, rid, during, 1, False, True, "confirmed"))
    async with pool.acquire() as conn, conn.transaction():
        await conn.copy_records_to_table(
            "customers", records=customers, columns=["id", "tenant_id", "cpf", "name", "created_by"])
        await conn.copy_records_to_table(
            "bookings", records=bookings, columns=["id", "unit_id", "customer_id", "status", "channel",
                                                   "created_by", "during", "created_at", "updated_at"])
        await conn.copy_records_to_table(
            "allocations", records=allocations,
            columns=["unit_id", "booking_id", "resource_id", "during", "quantity", "pooled", "occupies", "status"])
    async with pool.acquire() as conn:
        await conn.execute("ANALYZE")
