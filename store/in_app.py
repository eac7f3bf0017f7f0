"""In-app notifications as the in-app channel keeps them (domain.ports.InAppNotifications), on the pool."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

import asyncpg

from domain.notifications import Delivery
from store.notifications import add_in_app


class PgInApp:
    """Keeps each delivery's notification once and announces it on the unit's live feed (store/notifications.py)."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def add(self, delivery: Delivery, now: datetime) -> UUID | None:
        return await add_in_app(self._pool, delivery, now)
