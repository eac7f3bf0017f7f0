"""The demo venue loaded by `slothold dev` / `slothold seed-demo` (once: it is idempotent)."""

from __future__ import annotations

from uuid import UUID

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


async def seed_demo(database_url: str) -> str:
    """Create the demo venue unless it exists; return a one-line summary with its unit id."""
    pool = await create_pool(database_url, 1, 2)
    try:
        exists = await pool.fetchval("SELECT 1 FROM units WHERE id = $1", DEMO_UNIT_ID)
        if exists:
            return f"demo venue already loaded: unit {DEMO_UNIT_ID}"
        await create_venue(pool, DEMO)
        return f"demo venue loaded: {DEMO.unit_name}, unit {DEMO_UNIT_ID} (4 fields, 1 class of 12)"
    finally:
        await pool.close()


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
        return token  # type: ignore[no-any-return]
    finally:
        await pool.close()
