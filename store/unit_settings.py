"""Writes a unit's parameters (domain/unit_settings.py checked them) and forgets the cached copy."""

from __future__ import annotations

from uuid import UUID

import asyncpg

from domain.unit_settings import PARAMETERS
from store.bookings import ConnGetter
from store.units import invalidate

_COLUMNS = frozenset(b.column for b in PARAMETERS.values()) | {"payment_rule", "owner_alert_whatsapp",
                                                                  "notification_locale",
                                                                  "appointment_reminder_minutes",
                                                                  "manual_payments_enabled", "check_in_required",
                                                                  "notification_matrix",
                                                                  "owner_email"}


async def update_parameters(pool: asyncpg.Pool, unit_id: UUID, changes: dict[str, object]) -> bool:
    """Apply `changes` (column → value); False when the unit does not exist. Other API processes see the new
    values when their unit cache expires (store/units.py, 5 s)."""
    columns = list(changes)
    assert set(columns) <= _COLUMNS, columns  # never a name from the request
    sets = ", ".join(f"{c} = ${i + 2}" for i, c in enumerate(columns))
    status = await pool.execute(f"UPDATE units SET {sets} WHERE id = $1", unit_id, *(changes[c] for c in columns))
    invalidate(unit_id)
    return bool(status.endswith(" 1"))


class PgUnitParameters:
    """Units' parameters on the pool."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def update(self, unit_id: UUID, changes: dict[str, object]) -> bool:
        """As update_parameters: apply `changes` (column → value); False when the unit does not exist."""
        return await update_parameters(self._pool, unit_id, changes)


class PgUnitSettings:
    """A unit's parameters on the unit of work's connection: read the current values, write the changed ones."""

    def __init__(self, conn: ConnGetter) -> None:
        self._conn = conn

    async def read(self, unit_id: UUID, columns: list[str]) -> dict[str, object] | None:
        """The unit's current values of `columns` (locked until the transaction ends); None: no such unit."""
        assert set(columns) <= _COLUMNS, columns
        conn = await self._conn()
        row = await conn.fetchrow(f"SELECT {', '.join(columns)} FROM units WHERE id = $1 FOR UPDATE", unit_id)
        return None if row is None else dict(row)

    async def write(self, unit_id: UUID, changes: dict[str, object]) -> None:
        """Apply `changes` (column → value); other API processes see them when their unit cache expires (5 s)."""
        columns = list(changes)
        assert set(columns) <= _COLUMNS, columns  # never a name from the request
        sets = ", ".join(f"{c} = ${i + 2}" for i, c in enumerate(columns))
        conn = await self._conn()
        await conn.execute(f"UPDATE units SET {sets} WHERE id = $1", unit_id, *(changes[c] for c in columns))
        invalidate(unit_id)
