"""Writes a unit's parameters (domain/unit_settings.py checked them) and forgets the cached copy."""

from __future__ import annotations

from uuid import UUID

import asyncpg

from domain.unit_settings import PARAMETERS
from store.units import invalidate

_COLUMNS = frozenset(b.column for b in PARAMETERS.values()) | {"payment_rule", "owner_alert_whatsapp",
                                                                  "notification_locale",
                                                                  "appointment_reminder_minutes"}


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
