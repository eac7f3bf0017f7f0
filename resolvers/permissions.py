"""Authorization hooks. The role model arrives with the access issue; today every caller may read."""

from __future__ import annotations

from uuid import UUID

from domain import queries
from resolvers.context import Context


async def authorize_unit(context: Context, unit_id: UUID, action: str) -> None:
    """Refuse (raise a DomainError) unless the caller may `action` the unit; the unit must exist."""
    await queries.unit_with_resources(context.deps, unit_id)
