"""The web origins allowed to call the API from a browser (domain/origins.py; store/allowed_origins.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol
from uuid import UUID

from domain.origins import AllowedOrigin


class AllowedOriginsRepository(Protocol):
    """A unit's registered origins, on the unit of work's connection."""

    async def lock(self, unit_id: UUID) -> list[AllowedOrigin] | None:
        """The unit's origins, alphabetically, its list locked until the transaction ends; None: no such unit."""
        ...

    async def of_unit(self, unit_id: UUID) -> list[AllowedOrigin]:
        """The unit's origins, alphabetically."""
        ...

    async def replace(self, unit_id: UUID, origins: tuple[str, ...], session: str, now: datetime) -> None:
        """Make `origins` (normalised) the unit's list: those kept keep when and by whom they were added. Every
        process forgets its cached union at once when the transaction commits in it (others within seconds)."""
        ...


class OriginList(Protocol):
    """What the API lets in (api/cors.py): the union of every unit's origins and the platform's list."""

    async def allowed(self) -> frozenset[str]:
        """The allowed origins, from a cache of a few seconds (not a query per request)."""
        ...
