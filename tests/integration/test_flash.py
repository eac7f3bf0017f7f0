"""The flash sale bench's quick mode on a small event (bench/flash.py): buyers on a real API process, chosen seats
and best available at once, every one paid — then its invariants, checked in SQL: no double sale, every seat sold at
most once, and the counts of the database, the buyers' answers and the seat map add up. Its figures are not
asserted here."""

from __future__ import annotations

import socket
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from bench._flash_config import Config
from bench._flash_run import measure


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_a_small_flash_sale_sells_every_seat_once(database_url: str, redis_url: str, tmp_path: Path) -> None:
    parts = urlsplit(database_url)
    server = urlunsplit(parts._replace(path="", query=""))
    # The session's database (migrated already): the sale's venue is one more unit in it.
    cfg = replace(Config.make(quick=True), sections=2, rows=3, per_row=20, buyers=24, workers=1, time_limit=60.0,
                  server_url=server, redis=redis_url, db=parts.path.lstrip("/"), port=_free_port(), fresh=False,
                  warmup=0.0, pool_max=6)
    m = await measure(cfg, tmp_path)
    c, s = m.checks, m.stats
    assert c.ok, c.summary()
    assert c.double_sales == 0 and c.sold_twice == 0
    assert c.seats == 120 and c.sold_sql + c.locked_sql + c.free_sql == 120
    assert s.seats_sold == c.sold_sql == 120, c.summary()  # sold out, every sale as its buyer was told
    assert s.outcomes[("lockBestSeats", "BookingPayload")] > 0 and s.outcomes[("lockSeats", "BookingPayload")] > 0
    assert not m.errors, m.errors[:3]
