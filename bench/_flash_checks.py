"""What must hold after a flash sale, checked in SQL against what the buyers were told: no seat sold or held twice,
every seat sold at most once, and the counts add up (the database's, the answers', the seat map's)."""

from __future__ import annotations

from dataclasses import dataclass, field
from uuid import UUID

import asyncpg

from bench._flash_config import Stats
from schema.ids import decode_id

SOLD = ("confirmed", "checked_in", "completed")
LOCKED = ("held", "pending_payment", "verifying")


@dataclass
class Checks:
    double_sales: int = 0
    """Seats two live bookings (sold or locked) occupy at once over the event."""
    sold_twice: int = 0
    """Seats of more than one sold booking."""
    sold_sql: int = 0
    locked_sql: int = 0
    free_sql: int = 0
    seats: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        state = "OK" if self.ok else "FAILED: " + "; ".join(self.problems[:6])
        return (f"{self.double_sales} double sales, {self.sold_twice} seats sold twice; in SQL {self.sold_sql:,} "
                f"sold + {self.locked_sql:,} locked + {self.free_sql:,} free = {self.seats:,} seats — {state}")


def _uuid(global_id: str) -> UUID:
    return decode_id(global_id)[1]


async def check(conn: asyncpg.Connection, unit_id: UUID, seat_map_id: UUID, event_id: UUID, stats: Stats,
                map_counts: dict[str, int] | None = None) -> Checks:
    """The sale's invariants; `map_counts`: the seat map's counts (seatMap) read after the sale."""
    c = Checks()
    during = await conn.fetchval("SELECT during FROM seat_events WHERE id = $1", event_id)
    seats = {r["resource_id"] for r in await conn.fetch(
        "SELECT resource_id FROM seats WHERE unit_id = $1 AND seat_map_id = $2", unit_id, seat_map_id)}
    c.seats = len(seats)
    rows = await conn.fetch(
        "SELECT a.resource_id, a.booking_id, b.status, a.status AS a_status, a.occupies "
        "FROM allocations a JOIN bookings b ON b.id = a.booking_id AND b.unit_id = a.unit_id "
        "WHERE a.unit_id = $1 AND a.during && $2::tstzrange", unit_id, during)
    live: dict[UUID, list[UUID]] = {}
    sold: dict[UUID, list[UUID]] = {}
    booking_seats: dict[UUID, set[UUID]] = {}
    for r in rows:
        booking_seats.setdefault(r["booking_id"], set()).add(r["resource_id"])
        if r["status"] != r["a_status"]:
            c.problems.append(f"allocation of booking {r['booking_id']} says {r['a_status']}, booking {r['status']}")
        if r["status"] in SOLD or r["status"] in LOCKED:
            live.setdefault(r["resource_id"], []).append(r["booking_id"])
        if r["status"] in SOLD:
            sold.setdefault(r["resource_id"], []).append(r["booking_id"])
        if r["resource_id"] not in seats:
            c.problems.append(f"booking {r['booking_id']} holds {r['resource_id']}, not a seat of the map")
    c.double_sales = sum(1 for b in live.values() if len(b) > 1)
    c.sold_twice = sum(1 for b in sold.values() if len(b) > 1)
    c.sold_sql = len(sold)
    c.locked_sql = len(live) - len(sold)
    c.free_sql = c.seats - len(live)
    if c.double_sales:
        c.problems.append(f"{c.double_sales} seats with two live bookings")
    if c.sold_twice:
        c.problems.append(f"{c.sold_twice} seats sold twice")
    if len(booking_seats) and max(len(s) for s in booking_seats.values()) > 4:
        c.problems.append("a booking holds more than 4 seats")
    # What the buyers were told matches what is stored: every sale's seats are its booking's, and sold.
    told = {_uuid(b): {_uuid(s) for s in ss} for b, ss in stats.sold.items()}
    for bid, ss in told.items():
        if booking_seats.get(bid) != ss:
            c.problems.append(f"booking {bid}: answered seats {len(ss)}, stored {len(booking_seats.get(bid, ()))}")
        elif any(bid not in sold.get(s, []) for s in ss):
            c.problems.append(f"booking {bid} was answered sold but is not")
    told_seats = sum(len(s) for s in told.values())
    if told_seats != c.sold_sql:
        c.problems.append(f"buyers were sold {told_seats} seats, SQL says {c.sold_sql}")
    locked = {_uuid(b) for b in stats.locked}
    if stray := {b for bs in live.values() for b in bs} - locked:
        c.problems.append(f"{len(stray)} live bookings no buyer was told of")
    audit = await conn.fetchval(
        "SELECT count(*) FROM booking_events WHERE unit_id = $1 AND booking_id = ANY($2::uuid[]) "
        "AND new_status = 'confirmed'", unit_id, list(told))
    if audit != len(told):
        c.problems.append(f"{len(told)} sales, {audit} audit events of them")
    if map_counts is not None:
        seen = (map_counts["sold"], map_counts["locked"], map_counts["active"])
        if seen != (c.sold_sql, c.locked_sql, c.free_sql):
            c.problems.append(f"seatMap counts sold/locked/active {seen} differ from SQL's")
    return c
