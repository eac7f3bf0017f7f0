"""The flash sale's buyers: each a keep-alive connection (bench/_http.py) that buys 1–4 seats — picked on the map
or the best available — and pays (checkout's confirm), then buys again as a new customer, until the map is sold out.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import time
from collections.abc import Iterator
from typing import Any

from bench._flash_config import BEST, CONFIRM, CPF_BASE, LOCK, SEAT_MAP, Config, Stats
from bench._http import Connection, HttpError
from tests.venues import cpf

SEATS_WANTED = (1, 2, 3, 4)
SEATS_WEIGHTS = (2, 4, 2, 2)
"""How many seats a purchase asks for: mostly pairs (2.4 on average)."""


class MapView:
    """What the buyers see of the map: read once with `seatMap`, then kept current from every answer (a lock's
    seats, a refusal's seats in the way), as a page following `slotChanged` would be."""

    def __init__(self, answer: dict[str, Any]) -> None:
        self.rows: list[list[str]] = []
        self.free: set[str] = set()
        for section in answer["sections"]:
            for row in section["rows"]:
                self.rows.append([s["id"] for s in row["seats"]])
                self.free.update(s["id"] for s in row["seats"] if s["state"] == "ACTIVE")
        self.counts: dict[str, int] = answer["counts"]

    def take(self, seats: list[str]) -> None:
        self.free.difference_update(seats)

    def pick(self, rng: random.Random, k: int, tries: int = 6) -> list[str] | None:
        """k free seats side by side in a random row (a buyer clicking seats), or None if none was found."""
        for _ in range(tries):
            row = rng.choice(self.rows)
            runs = [row[i:i + k] for i in range(len(row) - k + 1) if all(s in self.free for s in row[i:i + k])]
            if runs:
                return rng.choice(runs)
        return None


async def send(conn: Connection, stats: Stats, op: str, query: str, variables: dict[str, Any]
               ) -> tuple[str, dict[str, Any]]:
    """(the answer's __typename or the kind of failure, the answer) of one request, timed and counted."""
    t = time.perf_counter()
    try:
        status, data = await conn.post_json("/graphql", {"query": query, "variables": variables})
    except HttpError as e:
        stats.latency[op].append(time.perf_counter() - t)
        stats.fail(op, "connection_error", str(e))
        return "connection_error", {}
    stats.latency[op].append(time.perf_counter() - t)
    if status != 200:
        stats.fail(op, f"http_{status}", data.decode(errors="replace"))
        return f"http_{status}", {}
    doc = json.loads(data)
    if doc.get("errors"):
        stats.fail(op, "graphql_errors", json.dumps(doc["errors"]))
        return "graphql_errors", {}
    answer = (doc.get("data") or {}).get("r") or {}
    kind = answer.get("__typename", "no_data")
    if kind in ("BookingPayload", "SeatsUnavailable", "SeatMapView"):
        stats.outcomes[(op, kind)] += 1
    else:
        stats.fail(op, f"{kind}:{answer.get('code')}", json.dumps(answer))
    return kind, answer


async def load_map(conn: Connection, stats: Stats, event: str) -> MapView:
    kind, answer = await send(conn, stats, "seatMap", SEAT_MAP, {"e": event})
    if kind != "SeatMapView":
        raise RuntimeError(f"seatMap answered {kind}: {stats.samples[-1:]}")
    return MapView(answer)


class Sale:
    """One flash sale: the buyers' shared view, counters and clock."""

    def __init__(self, cfg: Config, event: str, sections: list[str], view: MapView, stats: Stats,
                 customers: Iterator[int] | None = None) -> None:
        self.cfg, self.event, self.sections, self.view, self.stats = cfg, event, sections, view, stats
        self.customers = customers or itertools.count()
        self.t0 = time.perf_counter()
        self.deadline = self.t0 + cfg.time_limit

    async def _best(self, conn: Connection, rng: random.Random, k: int, customer: dict[str, Any]
                    ) -> dict[str, Any] | None:
        """The best available, widening the ask when refused: the section, then anywhere, then not side by side,
        then a single seat (what is left). A single seat anywhere refused: the map is sold out."""
        section = rng.choice(self.sections) if rng.random() < self.cfg.section_share else None
        asks = list(dict.fromkeys([(k, section, True), (k, None, True), (k, None, False), (1, None, False)]))
        for count, sec, together in asks:
            if together and count == 1 and (count, sec, False) in asks:
                continue  # one seat is always "together"
            ask: dict[str, Any] = {"eventId": self.event, "count": count, "together": together,
                                   "customer": customer}
            if sec is not None:
                ask["section"] = sec
            kind, answer = await send(conn, self.stats, "lockBestSeats", BEST, {"i": ask})
            if kind == "BookingPayload":
                return answer
            if kind != "SeatsUnavailable":
                return None
            if (count, sec, together) == (1, None, False) and self.stats.sold_out_at is None:
                self.stats.sold_out_at = time.perf_counter() - self.t0
        return None

    async def _chosen(self, conn: Connection, rng: random.Random, k: int, customer: dict[str, Any]
                      ) -> dict[str, Any] | None:
        for _ in range(3):
            seats = self.view.pick(rng, k)
            if seats is None:
                return None
            kind, answer = await send(conn, self.stats, "lockSeats", LOCK,
                                      {"i": {"eventId": self.event, "seatIds": seats, "customer": customer}})
            if kind == "BookingPayload":
                return answer
            if kind != "SeatsUnavailable":
                return None
            self.view.take([s["seatId"] for s in answer.get("seats") or []] or seats)
        return None

    async def buyer(self, conn: Connection, rng: random.Random) -> None:
        stats = self.stats
        while stats.sold_out_at is None and time.perf_counter() < self.deadline:
            n = next(self.customers)
            k = rng.choices(SEATS_WANTED, SEATS_WEIGHTS)[0]
            customer = {"cpf": cpf(CPF_BASE + n)}
            answer = None
            if rng.random() < self.cfg.chosen_share:
                answer = await self._chosen(conn, rng, k, customer)
            if answer is None:
                answer = await self._best(conn, rng, k, customer)
            if answer is None:
                stats.gave_up += 1
                continue
            booking = answer["booking"]
            seats = [a["resourceId"] for a in booking["allocations"]]
            self.view.take(seats)
            stats.locked[booking["id"]] = seats
            kind, paid = await send(conn, stats, "confirm", CONFIRM, {"b": booking["id"]})
            if kind == "BookingPayload" and paid["booking"]["status"] == "CONFIRMED":
                stats.sold[booking["id"]] = seats
                stats.sold_at.append((time.perf_counter() - self.t0, len(seats)))
                stats.purchases += 1
            elif kind == "BookingPayload":
                stats.fail("confirm", f"status_{paid['booking']['status']}", json.dumps(paid))

    async def run(self, conns: list[Connection]) -> float:
        """Every buyer at once until the map is sold out (or the time limit); the seconds it took."""
        self.t0 = time.perf_counter()
        self.deadline = self.t0 + self.cfg.time_limit
        await asyncio.gather(*(self.buyer(c, random.Random(self.cfg.seed * 1000 + i)) for i, c in enumerate(conns)))
        return time.perf_counter() - self.t0
