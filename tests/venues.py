"""Venues for tests: each test makes its own, so tests never share rows."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import asyncpg

from domain.customers import CustomerIdentity, complete_cpf
from store.venues import CreatedVenue, ResourceSpec, VenueSpec, create_venue, every_day

SAO_PAULO = ZoneInfo("America/Sao_Paulo")


def cpf(n: int) -> str:
    """A valid CPF derived from a number."""
    return complete_cpf(f"{n:09d}")


def customer(n: int = 1) -> CustomerIdentity:
    """A customer identity with a valid CPF."""
    return CustomerIdentity(cpf=cpf(100_000 + n), phone=f"+55119{n:08d}")


async def arena(pool: asyncpg.Pool, fields: int = 4, pooled: dict[str, int] | None = None,
                **params: Any) -> CreatedVenue:
    """A football arena in São Paulo open 08–23 every day with `fields` exclusive fields."""
    resources = [ResourceSpec(name=f"Campo {i}", group="Campos") for i in range(1, fields + 1)]
    for name, cap in (pooled or {}).items():
        resources.append(ResourceSpec(name=name, kind="pooled", capacity=cap))
    return await create_venue(pool, VenueSpec(
        unit_name=f"Arena {datetime.now(UTC).timestamp()}", hours=every_day(8, 23), resources=resources,
        params=params,
    ))


def at(day: int, hour: int, minute: int = 0) -> datetime:
    """Local São Paulo time (UTC-3) on December `day`, 2026, as an aware UTC datetime."""
    return datetime(2026, 12, day, hour, minute, tzinfo=SAO_PAULO).astimezone(UTC)
