"""Grid blocks (domain/layout/blocks.py) in PostgreSQL: a block is a row of `blocks` and an allocation without a
booking, so the exclusion constraint (exclusive resources) and the pooled counters (a pooled block takes every
place of the slots in `pool_slots`) refuse a block and a hold over the same slot."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

import asyncpg
from asyncpg import Range

from domain.layout.ports import AlreadyBlocked, GridBlock
from store.bookings import ConnGetter
from store.units import invalidate

_BLOCK_COLUMNS = "id, unit_id, resource_id, during, reason, created_by, created_at"


def _block(r: Any) -> GridBlock:
    during: Any = r["during"]
    return GridBlock(r["id"], r["unit_id"], r["resource_id"], during.lower, during.upper, r["reason"],
                     r["created_by"], r["created_at"])


class GridBlockRows:
    """The block half of PgLayout (store/layout.py): the connection, and the units whose cache to forget."""

    def __init__(self, conn: ConnGetter) -> None:
        self._conn = conn
        self.touched: set[UUID] = set()

    def _forget(self, unit_id: UUID) -> None:
        self.touched.add(unit_id)
        invalidate(unit_id)

    async def add_block(self, block: GridBlock, pooled: tuple[int, list[datetime]] | None) -> None:
        conn = await self._conn()
        b = block
        during = Range(b.starts_at, b.ends_at)
        try:
            async with conn.transaction():
                await conn.execute(
                    "INSERT INTO blocks (id, unit_id, resource_id, during, reason, created_by, created_at, pool_slots) "
                    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8)", b.id, b.unit_id, b.resource_id, during, b.reason,
                    b.created_by, b.created_at, pooled[1] if pooled else None)
                await conn.execute(
                    "INSERT INTO allocations (unit_id, block_id, resource_id, during, quantity, pooled, occupies) "
                    "VALUES ($1, $2, $3, $4, $5, $6, true)", b.unit_id, b.id, b.resource_id, during,
                    pooled[0] if pooled else 1, pooled is not None)
                if pooled:
                    await conn.execute(
                        "INSERT INTO pool_usage (unit_id, resource_id, slot_start, used, capacity) "
                        "SELECT $1, $2, s, $3, $3 FROM unnest($4::timestamptz[]) AS s "
                        "ON CONFLICT (unit_id, resource_id, slot_start) "
                        "DO UPDATE SET used = pool_usage.used + EXCLUDED.used, capacity = EXCLUDED.capacity",
                        b.unit_id, b.resource_id, pooled[0], pooled[1])
        except asyncpg.ExclusionViolationError:
            raise AlreadyBlocked() from None
        except asyncpg.CheckViolationError as e:
            if e.constraint_name != "pool_usage_within_capacity":
                raise
            raise AlreadyBlocked() from None
        self._forget(b.unit_id)

    async def pooled_blocks(self, unit_id: UUID, resource_ids: list[UUID], after: datetime
                            ) -> list[tuple[GridBlock, list[datetime]]]:
        conn = await self._conn()
        rows = await conn.fetch(f"SELECT {_BLOCK_COLUMNS}, pool_slots FROM blocks WHERE unit_id = $1 "
                                "AND resource_id = ANY($2::uuid[]) AND seat_event_id IS NULL "
                                "AND pool_slots IS NOT NULL AND upper(during) > $3 FOR UPDATE",
                                unit_id, resource_ids, after)
        return [(_block(r), list(r["pool_slots"])) for r in rows]

    async def retake(self, block: GridBlock, capacity: int, slots: list[datetime]) -> None:
        conn = await self._conn()
        await conn.execute("UPDATE pool_usage p SET used = p.used - $4 FROM blocks b WHERE b.id = $1 "
                           "AND p.unit_id = $2 AND p.resource_id = $3 AND p.slot_start = ANY(b.pool_slots)",
                           block.id, block.unit_id, block.resource_id, capacity)
        await conn.execute("INSERT INTO pool_usage (unit_id, resource_id, slot_start, used, capacity) "
                           "SELECT $1, $2, s, $3, $3 FROM unnest($4::timestamptz[]) AS s "
                           "ON CONFLICT (unit_id, resource_id, slot_start) "
                           "DO UPDATE SET used = pool_usage.used + EXCLUDED.used, capacity = EXCLUDED.capacity",
                           block.unit_id, block.resource_id, capacity, slots)
        await conn.execute("UPDATE blocks SET pool_slots = $2 WHERE id = $1", block.id, slots)
        self._forget(block.unit_id)

    async def block(self, block_id: UUID) -> GridBlock | None:
        conn = await self._conn()
        r = await conn.fetchrow(f"SELECT {_BLOCK_COLUMNS} FROM blocks WHERE id = $1 AND seat_event_id IS NULL "
                                "FOR UPDATE", block_id)
        return _block(r) if r else None

    async def remove_block(self, block: GridBlock) -> None:
        conn = await self._conn()
        taken = await conn.fetchrow("DELETE FROM allocations WHERE block_id = $1 AND unit_id = $2 "
                                    "RETURNING quantity, pooled", block.id, block.unit_id)
        if taken is not None and taken["pooled"]:
            await conn.execute("UPDATE pool_usage p SET used = p.used - $3 FROM blocks b WHERE b.id = $1 "
                               "AND p.unit_id = $2 AND p.resource_id = b.resource_id "
                               "AND p.slot_start = ANY(b.pool_slots)",
                               block.id, block.unit_id, taken["quantity"])
        await conn.execute("DELETE FROM blocks WHERE id = $1 AND unit_id = $2", block.id, block.unit_id)
        self._forget(block.unit_id)

    async def blocks(self, unit_id: UUID, start: datetime, end: datetime) -> list[GridBlock]:
        conn = await self._conn()
        rows = await conn.fetch(f"SELECT {_BLOCK_COLUMNS} FROM blocks WHERE unit_id = $1 AND seat_event_id IS NULL "
                                "AND during && tstzrange($2::timestamptz, $3::timestamptz) "
                                "ORDER BY lower(during), resource_id LIMIT 1000", unit_id, start, end)
        return [_block(r) for r in rows]
