"""The demo venue loaded by `slothold dev` / `slothold seed-demo`: Arena Vila Madalena, described by
docs/demo-venue.toml, with a week of bookings (once: it is idempotent)."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID
from zoneinfo import ZoneInfo

from slothold.cli.venue_file import VenueFile, read_venue_file
from store.db import create_pool
from store.units import invalidate
from store.venues import VenueSpec, create_venue

DEMO_UNIT_ID = UUID("5107d0de-0000-4000-8000-000000000001")
DEMO_FILE = Path(__file__).resolve().parents[2] / "docs" / "demo-venue.toml"
"""The demo venue as a venue file (`slothold venue apply` reads the same format)."""
OLD_NAMES = ("Slothold demo", "Arenas Demo Ltda", "Arena Slothold (demo)")
"""The demo's names before issue 20: a development database made then is renamed to the file's."""


async def seed_venue(pool: Any, unit_id: UUID, venue: VenueFile | None = None) -> tuple[VenueFile, int]:
    """Make `unit_id` the venue of `venue` (default: the demo file) and, the first time, add its week of bookings
    (slothold/cli/demo_bookings.py). Idempotent: the file is applied as `venue apply` would (nothing changes the
    second time) and the week only goes into a unit without bookings. Returns the venue and the bookings made."""
    from providers.clock import SystemClock
    from slothold.cli.demo_bookings import seed_week
    from slothold.cli.venue_apply import apply_venue
    from slothold.wiring import build_deps

    venue = venue or read_venue_file(DEMO_FILE)
    names = (venue.tenant, venue.organization, venue.unit)
    if not await pool.fetchval("SELECT 1 FROM units WHERE id = $1", unit_id):
        await create_venue(pool, VenueSpec(unit_id=unit_id, unit_name=venue.unit, tenant_name=venue.tenant,
                                           organization_name=venue.organization, timezone=venue.timezone))
    else:
        await _rename(pool, unit_id, names)
    await apply_venue(build_deps(pool, SystemClock(), waitlists=False), pool, venue)
    return venue, await seed_week(pool, unit_id)


async def _rename(pool: Any, unit_id: UUID, names: tuple[str, str, str]) -> None:
    """A demo unit still under its old names takes the file's (venue apply finds things by name)."""
    async with pool.acquire() as conn, conn.transaction():
        row = await conn.fetchrow(
            "SELECT t.id AS tenant, t.name AS t_name, o.id AS org, o.name AS o_name, u.name AS u_name FROM units u "
            "JOIN organizations o ON o.id = u.organization_id JOIN tenants t ON t.id = o.tenant_id WHERE u.id = $1",
            unit_id)
        if (row["t_name"], row["o_name"], row["u_name"]) != OLD_NAMES:
            return
        await conn.execute("UPDATE tenants SET name = $2 WHERE id = $1", row["tenant"], names[0])
        await conn.execute("UPDATE organizations SET name = $2 WHERE id = $1", row["org"], names[1])
        await conn.execute("UPDATE units SET name = $2 WHERE id = $1", unit_id, names[2])
    invalidate(unit_id)


SEAT_MAP = "Arquibancada"
BOX_OFFICE = {"validStates": ["SOLD"], "skipLockedState": True, "paymentRequired": False, "releaseApi": ["ADMIN"],
              "displayName": "Bilheteria", "displayColor": "#10B981"}


async def seed_demo(database_url: str) -> str:
    """Load the demo venue (docs/demo-venue.toml and a week of bookings) unless it is there, and keep a coming
    seat-map event on it; return a one-line summary with its unit id."""
    pool = await create_pool(database_url, 1, 4)
    try:
        exists = await pool.fetchval("SELECT 1 FROM units WHERE id = $1", DEMO_UNIT_ID)
        venue, made = await seed_venue(pool, DEMO_UNIT_ID)
        event = await _seat_map_event(pool, venue.timezone)
        if exists and not made:
            return f"demo venue already loaded: {venue.unit}, unit {DEMO_UNIT_ID} (seat-map event {event})"
        return (f"demo venue loaded: {venue.unit}, unit {DEMO_UNIT_ID} (4 fields, a futevôlei class of 12, "
                f"{made} bookings around today, a stand of 60 seats with event {event})")
    finally:
        await pool.close()


async def _seat_map_event(pool: Any, timezone: str) -> UUID:
    """The demo's stand (3 rows of 20 seats), a BOX_OFFICE hold type for its tenant, and an event of the stand
    tomorrow at 20:00 in the venue's time — unless one is still to come."""
    from domain import hold_types, seatmaps
    from domain.hold_types import Level
    from providers.clock import SystemClock
    from slothold.wiring import build_deps
    from store.hold_types import change_layer

    deps = build_deps(pool, SystemClock(), waitlists=False)
    seat_map = await pool.fetchval("SELECT id FROM seat_maps WHERE unit_id = $1 AND name = $2", DEMO_UNIT_ID,
                                   SEAT_MAP)
    if seat_map is None:
        rows = tuple(seatmaps.RowSpec(r, tuple(str(i) for i in range(1, 21))) for r in "ABC")
        seat_map = (await seatmaps.create_seat_map(deps, DEMO_UNIT_ID, SEAT_MAP,
                                                   [seatmaps.SectionSpec("Norte", rows)])).id
        await change_layer(pool, DEMO_UNIT_ID, Level.TENANT, "BOX_OFFICE",
                           hold_types.definition_edit("BOX_OFFICE", BOX_OFFICE), hold_types.layers_check("BOX_OFFICE"))
    coming = await seatmaps.events_of(deps, DEMO_UNIT_ID)
    if coming:
        return coming[0].id
    local = datetime.now(ZoneInfo(timezone)).date() + timedelta(days=1)
    start = datetime.combine(local, time(20), ZoneInfo(timezone))
    event = await seatmaps.create_event(deps, seat_map, "Final do campeonato", start, start + timedelta(hours=2))
    return event.id


async def demo_owner_token(database_url: str, saved: str | None) -> str:
    """The demo venue's owner token for local development: `saved` (kept by `slothold dev` in its data folder)
    while it is live in the database, else a new one."""
    from store.access import PgAccess, digest

    pool = await create_pool(database_url, 1, 2)
    try:
        if saved and await pool.fetchval(
                "SELECT 1 FROM access_tokens WHERE secret_hash = $1 AND revoked_at IS NULL AND unit_id = $2",
                digest(saved), DEMO_UNIT_ID):
            return saved
        tenant = await pool.fetchval(
            "SELECT o.tenant_id FROM units u JOIN organizations o ON o.id = u.organization_id WHERE u.id = $1",
            DEMO_UNIT_ID)
        _, token = await PgAccess(pool).issue_token(tenant, DEMO_UNIT_ID, "staff", "owner", [], "demo owner (dev)")
        return token
    finally:
        await pool.close()
