"""One computation for many askers: the asks of one key in a process that arrive while it runs wait for it and
share its result instead of each making their own (a hot slot's losers refused together, a flash sale's choices
reading the event together)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class SingleFlight(Generic[V]):
    """The computations running now, by key."""

    def __init__(self) -> None:
        self._running: dict[Hashable, tuple[float, asyncio.Future[V]]] = {}

    async def run(self, key: Hashable, make: Callable[[], Awaitable[V]],
                  since: float = float("-inf")) -> tuple[V, float]:
        """(`make()`'s result, when its computation began by time.monotonic): of one running for `key` that began
        at `since` or later, else of this call's. A shared computation that fails fails only its own ask: the
        others compute again."""
        loop = asyncio.get_running_loop()
        running = self._running.get(key)
        if running is not None and running[0] >= since and running[1].get_loop() is loop:
            try:
                return await asyncio.shield(running[1]), running[0]
            except Exception:
                pass
        began, mine = time.monotonic(), loop.create_future()
        self._running[key] = (began, mine)
        try:
            result = await make()
            mine.set_result(result)
            return result, began
        except BaseException as e:
            mine.set_exception(e if isinstance(e, Exception) else RuntimeError("the computation was cancelled"))
            mine.exception()  # retrieved: no "never retrieved" warning when nobody waited
            raise
        finally:
            if (current := self._running.get(key)) is not None and current[1] is mine:
                del self._running[key]
