"""The flash sale's database: dropped and recreated, migrated, one venue with a seat map and two events of it (the
sale's and a warm-up's), made through the seat map use cases themselves."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from uuid import UUID

import asyncpg

from bench import _data
from bench._flash_config import Config
from domain import seatmaps
from domain.services import Deps
from providers.clock import SystemClock
from store.db import create_pool
from store.uow import PgUnitOfWork
from store.venues import VenueSpec, create_venue, every_day


@dataclass(frozen=True)
class Sale:
    unit_id: UUID
    seat_map_id: UUID
    event: seatmaps.SeatEvent
    warmup: seatmaps.SeatEvent
    seat_ids: list[UUID]
    sections: list[str]


def layout(cfg: Config) -> list[seatmaps.SectionSpec]:
    """`cfg.sections` sections of `cfg.rows` rows (A, B, …, Z, AA, …) of `cfg.per_row` seats."""
    names = ["Plateia", "Plateia Alta", "Balcão", "Galeria", "Camarote", "Frisa"]

    def row(i: int) -> str:
        return chr(65 + i) if i < 26 else chr(64 + i // 26) + chr(65 + i % 26)

    return [seatmaps.SectionSpec(names[s] if s < len(names) else f"Setor {s + 1}",
                                 tuple(seatmaps.RowSpec(row(r), tuple(str(k) for k in range(1, cfg.per_row + 1)))
                                       for r in range(cfg.rows)))
            for s in range(cfg.sections)]


async def reset(cfg: Config) -> None:
    await _data.reset_database(cfg.server_url, cfg.db)
    await asyncio.to_thread(_data.migrate, cfg.url)


async def drop(cfg: Config) -> None:
    conn = await asyncpg.connect(f"{cfg.server_url}/postgres")
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{cfg.db}" WITH (FORCE)')
    finally:
        await conn.close()


async def setup(cfg: Config) -> Sale:
    """The venue, its seat map and the two events (the sale's in three days; the warm-up's the day after)."""
    pool = await create_pool(cfg.url, 1, 4)
    try:
        v = await create_venue(pool, VenueSpec(unit_name="Teatro Flash", tenant_name="Flash tenant",
                                               hours=every_day(_data.OPENS, _data.CLOSES)))
        deps = Deps(uow=lambda: PgUnitOfWork(pool), clock=SystemClock())
        m = await seatmaps.create_seat_map(deps, v.unit_id, "Sala principal", layout(cfg))
        day = (datetime.now(UTC) + timedelta(days=3)).replace(hour=23, minute=0, second=0, microsecond=0)
        event = await seatmaps.create_event(deps, m.id, "Estreia", day, day + timedelta(hours=3))
        warm = await seatmaps.create_event(deps, m.id, "Ensaio aberto", day + timedelta(days=1),
                                           day + timedelta(days=1, hours=3))
    finally:
        await pool.close()
    return Sale(v.unit_id, m.id, event, warm, [s.id for s in m.seats], list(dict.fromkeys(s.section
                                                                                          for s in m.seats)))
