"""Phase 3 of the holds bench: rounds of simultaneous holds of one new slot, each with exactly one winner."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bench import _data
from bench._holds_config import Config
from bench._holds_requests import hold_body, post_hold
from bench._http import Connection
from bench._measure import CpuMeter
from bench._server import ApiServer


@dataclass
class HotSlot:
    rounds: int = 0
    attempts: int = 0
    clean_rounds: int = 0  # exactly one BookingPayload and the rest SlotTaken
    kinds: Counter[str] = field(default_factory=Counter)
    samples: list[str] = field(default_factory=list)
    round_times: list[float] = field(default_factory=list)
    request_times: list[float] = field(default_factory=list)
    in_database: str = ""
    waits: str = ""
    cpu: CpuMeter = field(default_factory=CpuMeter)

    @property
    def rate(self) -> float:
        return self.attempts / sum(self.round_times) if self.round_times else 0.0


async def hot_slot(cfg: Config, server: ApiServer, plan: _data.SlotPlan, url: str, first: int) -> HotSlot:
    """Rounds of `hot_clients` simultaneous holds of one new slot of the same resource."""
    out = HotSlot()
    rid = plan.resource_ids[0]
    round_slots = plan.slots[20:20 + cfg.hot_rounds]
    conns = [Connection("127.0.0.1", server.port) for _ in range(cfg.hot_clients)]

    async def attempt(conn: Connection, body: dict[str, Any]) -> tuple[str, str]:
        t = time.perf_counter()
        result = await post_hold(conn, body)
        out.request_times.append(time.perf_counter() - t)
        return result

    try:
        s, e = plan.slots[-1]  # warm the connections on a slot outside the rounds
        await asyncio.gather(*(attempt(c, hold_body(plan, rid, s, e, first + j))
                               for j, c in enumerate(conns)))
        out.request_times.clear()
        out.cpu = CpuMeter(server, cfg.db)
        out.cpu.__enter__()
        for r, (s, e) in enumerate(round_slots):
            n0 = first + (r + 1) * cfg.hot_clients
            t = time.perf_counter()
            results = await asyncio.gather(*(attempt(c, hold_body(plan, rid, s, e, n0 + j))
                                             for j, c in enumerate(conns)))
            out.round_times.append(time.perf_counter() - t)
            kinds = Counter(k for k, _ in results)
            out.kinds.update(kinds)
            out.rounds += 1
            out.attempts += len(results)
            out.clean_rounds += kinds == Counter({"BookingPayload": 1, "SlotTaken": cfg.hot_clients - 1})
            out.samples += [f"round {r}: {k}: {d[:300]}" for k, d in results
                            if k not in ("BookingPayload", "SlotTaken")][: 5 - len(out.samples)]
        out.cpu.__exit__()
    finally:
        for c in conns:
            await c.close()
    rows = await _data.fetch(url, "SELECT lower(during) AS s, count(*) AS n FROM allocations "
                             "WHERE resource_id = $1::uuid AND occupies GROUP BY 1", rid)
    held = {r["s"]: r["n"] for r in rows}
    ones = sum(held.get(s) == 1 for s, _ in round_slots)
    out.in_database = (f"{ones}/{len(round_slots)} round slots have exactly one occupying allocation "
                       "in the database")
    return out
