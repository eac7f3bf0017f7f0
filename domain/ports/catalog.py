"""The repository of services, their resources and their price versions with bands (store/catalog.py)."""

from __future__ import annotations

from typing import Protocol
from uuid import UUID

from domain.payments import Price
from domain.pricing import PriceBand, PriceTable, Service


class CatalogRepository(Protocol):
    """Services as owners set them up (issue 18), on the unit of work's connection."""

    async def services(self, unit_id: UUID, include_inactive: bool) -> list[Service]:
        """The unit's services by name, each with its current price version and bands."""
        ...

    async def service(self, service_id: UUID) -> Service | None:
        """A service of any unit (its `unit_id` says which), or None."""
        ...

    async def offered(self, service_id: UUID) -> Service | None:
        """`service` as a new booking names it: from a per-process cache of a few seconds (changes made in this
        process are seen at once). Never to read a service in order to change it."""
        ...

    async def name_taken(self, unit_id: UUID, name: str, other_than: UUID | None) -> bool:
        """Whether another service of the unit has this name (case-insensitive)."""
        ...

    async def create(self, service: Service, duration_minutes: int) -> None:
        """Add the service with its resources and its first price version (its table's base)."""
        ...

    async def update(self, service: Service, duration_minutes: int) -> None:
        """Write the service's name, durations, resources and whether it is sold (not its prices)."""
        ...

    async def publish_bands(self, unit_id: UUID, service_id: UUID, bands: tuple[PriceBand, ...]) -> Price:
        """The service's next price version: the current base price and rule with these bands; made current.
        Returns its base (with the new version)."""
        ...

    async def table(self, unit_id: UUID, service_id: UUID, version: int | None = None) -> PriceTable:
        """One price version of the unit's service with its bands (None: the current one); NotFound naming
        serviceId."""
        ...

    async def pin(self, unit_id: UUID, booking_id: UUID, service_id: UUID, version: int | None = None) -> None:
        """Keep the price version a hold was made at (None: the service's current one, read as it is written)."""
        ...

    async def pinned(self, unit_id: UUID, booking_id: UUID) -> int | None:
        """The price version a booking's hold was made at (None: made before issue 18, or without a service)."""
        ...
