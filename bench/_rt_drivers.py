"""What causes the realtime bench's slot_changed events: `hold` mutations over HTTP, or bare outbox inserts in SQL;
fired at a fixed rate or flat out."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from uuid import uuid4

import asyncpg

from bench import _data
from bench._holds_requests import hold_body, post_hold
from bench._http import Connection
from bench._rt_config import CUSTOMER_BASE, INSERT_EVENT
from domain.bookings import Allocation, Booking, BookingStatus
from domain.holds import hold_deadline, reminder_at
from domain.units import UnitParameters
from store.bookings import _event_rows


@dataclass
class Sent:
    """One event the bench caused: when its commit was sent and when the commit was known on the client."""

    booking_id: str
    t_send: float
    t_commit: float


class Driver:
    """Causes slot_changed events on the unit: `fire(k)` → Sent (or a failure kind and detail)."""

    name: str

    async def fire(self, k: int) -> Sent | tuple[str, str]:
        raise NotImplementedError

    async def close(self) -> None:
        pass


class MutationDriver(Driver):
    """`hold` mutations over keep-alive HTTP connections; commit time = the response's arrival."""

    name = "hold mutations"

    def __init__(self, port: int, plan: _data.SlotPlan, keys: itertools.count[int], connections: int) -> None:
        self.plan, self.keys = plan, keys
        self.conns: asyncio.Queue[Connection] = asyncio.Queue()
        for _ in range(connections):
            self.conns.put_nowait(Connection("127.0.0.1", port))
        self.request_times: list[float] = []

    async def fire(self, k: int) -> Sent | tuple[str, str]:
        n = next(self.keys)
        rid, s, e = self.plan.pair(n)
        body = hold_body(self.plan, rid, s, e, CUSTOMER_BASE + n)
        conn = await self.conns.get()
        try:
            t0 = time.monotonic()
            kind, detail = await post_hold(conn, body)
            t1 = time.monotonic()
        finally:
            self.conns.put_nowait(conn)
        if kind != "BookingPayload":
            return kind, detail
        self.request_times.append(t1 - t0)
        return Sent(json.loads(detail)["booking"]["id"], t0, t1)

    async def close(self) -> None:
        """Close the connections (they reopen on the next request: uvicorn drops idle ones after 5 s)."""
        conns = [self.conns.get_nowait() for _ in range(self.conns.qsize())]
        for c in conns:
            await c.close()
            self.conns.put_nowait(c)


def event_payload(plan: _data.SlotPlan, params: UnitParameters, k: int, now: datetime) -> dict[str, Any]:
    """The outbox payload a hold writes (store/bookings.py `_event_rows`), for a made-up held booking."""
    rid, s, e = plan.pair(k % plan.capacity)
    deadline = hold_deadline(params, now, s, payment_due=False)
    b = Booking(id=uuid4(), unit_id=plan.unit_id, status=BookingStatus.HELD, allocations=[Allocation(rid, s, e, 1)],
                created_at=now, customer_id=uuid4(), hold_type="CART", channel="api", hold_expires_at=deadline,
                remind_at=reminder_at(params, now, deadline))
    b.record_creation(now, "customer")
    _, outbox = _event_rows(b, b.pull_events())
    return outbox[0]  # type: ignore[no-any-return]


class SqlDriver(Driver):
    """One committed INSERT of an outbox row per event (what a hold's transaction adds, without the hold);
    commit time = when the statement (an implicit transaction) returned."""

    name = "SQL outbox inserts"

    def __init__(self, pool: asyncpg.Pool, plan: _data.SlotPlan, params: UnitParameters) -> None:
        self.pool, self.plan, self.params = pool, plan, params
        self.keys = itertools.count()
        self._ready: list[tuple[str, dict[str, Any]]] = []

    def prepare(self, n: int) -> None:
        """Build payloads ahead, so that the phase spends no client CPU on them."""
        now = datetime.now(UTC)
        for _ in range(n):
            p = event_payload(self.plan, self.params, next(self.keys), now)
            self._ready.append((p["booking_id"], p))  # the pool's jsonb codec encodes it

    async def fire(self, k: int) -> Sent | tuple[str, str]:
        if not self._ready:
            self.prepare(1)
        booking, payload = self._ready.pop()
        async with self.pool.acquire() as conn:
            t0 = time.monotonic()
            try:
                await conn.execute(INSERT_EVENT, self.plan.unit_id, payload)
            except asyncpg.PostgresError as e:
                return type(e).__name__, str(e)
            t1 = time.monotonic()
        return Sent(booking, t0, t1)


async def at_rate(n: int, rate: float, fire: Callable[[int], Coroutine[Any, Any, Any]]) -> list[Any]:
    """Open loop: event i is fired at start + i/rate whether or not earlier ones have finished."""
    t0 = time.monotonic()
    tasks: list[asyncio.Task[Any]] = []
    for i in range(n):
        delay = t0 + i / rate - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(fire(i)))
    return list(await asyncio.gather(*tasks))


async def flat_out(n: int, concurrency: int, fire: Callable[[int], Awaitable[Any]]) -> list[Any]:
    """`concurrency` loops firing events back to back until n have been fired."""
    counter = itertools.count()
    out: list[Any] = []

    async def loop() -> None:
        while (i := next(counter)) < n:
            out.append(await fire(i))

    await asyncio.gather(*(loop() for _ in range(concurrency)))
    return out
