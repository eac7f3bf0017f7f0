"""The demo venue loaded by `slothold dev` / `slothold seed-demo` (once: it is idempotent)."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from typing import Any
from uuid import UUID
from zoneinfo import ZoneInfo

from store.db import create_pool
from store.venues import ResourceSpec, VenueSpec, create_venue, every_day

DEMO_UNIT_ID = UUID("5107d0de-0000-4000-8000-000000000001")

DEMO = VenueSpec(
    unit_id=DEMO_UNIT_ID,
    unit_name="Arena Slothold (demo)",
    tenant_name="Slothold demo",
    organization_name="Arenas Demo Ltda",
    timezone="America/Sao_Paulo",
    hours=every_day(8, 23),
    resources=[
        *(ResourceSpec(name=f"Campo {i}", group="Campos") for i in range(1, 5)),
        ResourceSpec(name="Aula de futevôlei", kind="pooled", capacity=12, group="Aulas"),
    ],
    services=[{"name": "Locação de campo (1 h)", "duration_minutes": 60, "price_cents": 20000}],
)


SEAT_MAP = "Arquibancada"
BOX_OFFICE = {"validStates": ["SOLD"], "skipLockedState": True, "paymentRequired": False, "releaseApi": ["ADMIN"],
              "displayName": "Bilheteria", "displayColor": "#10B981"}


async def seed_demo(database_url: str) -> str:
    """Create the demo venue unless it exists, and keep a coming seat-map event on it; return a one-line summary
    with its unit id."""
    pool = await create_pool(database_url, 1, 4)
    try:
        exists = await pool.fetchval("SELECT 1 FROM units WHERE id = $1", DEMO_UNIT_ID)
        if not exists:
            await create_venue(pool, DEMO)
        event = await _seat_map_event(pool)
        if exists:
            return f"demo venue already loaded: unit {DEMO_UNIT_ID} (seat-map event {event})"
        return (f"demo venue loaded: {DEMO.unit_name}, unit {DEMO_UNIT_ID} (4 fields, 1 class of 12, a stand of 60 "
                f"seats with event {event})")
    finally:
        await pool.close()


async def _seat_map_event(pool: Any) -> UUID:
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
    local = datetime.now(ZoneInfo(DEMO.timezone)).date() + timedelta(days=1)
    start = datetime.combine(local, time(20), ZoneInfo(DEMO.timezone))
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
