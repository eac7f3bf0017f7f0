"""The storm's GraphQL and webhook client: a random API process per request, a dropped connection or a 5xx
retried on another with the same request, as an integrator would."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import httpx

from bench._storm_config import Stats


class Client:
    """GraphQL over HTTP to a random API process; a dropped connection or a 5xx is retried on another one with the
    same request (and idempotency key), as an integrator would."""

    def __init__(self, ports: list[int], token: str, stats: Stats, rng: random.Random) -> None:
        self.ports, self.stats, self.rng = ports, stats, rng
        self.http = {p: httpx.AsyncClient(base_url=f"http://127.0.0.1:{p}", timeout=15,
                                          headers={"authorization": f"Bearer {token}"},
                                          limits=httpx.Limits(max_connections=64)) for p in ports}

    async def close(self) -> None:
        for c in self.http.values():
            await c.aclose()

    async def gql(self, op: str, query: str, variables: dict[str, Any], tries: int = 4) -> dict[str, Any] | None:
        for attempt in range(tries):
            port = self.rng.choice(self.ports)
            t0 = time.perf_counter()
            try:
                r = await self.http[port].post("/graphql", json={"query": query, "variables": variables})
            except httpx.HTTPError as e:
                self.stats.errors[(op, type(e).__name__)] += 1
                await asyncio.sleep(0.2 * (attempt + 1))
                continue
            self.stats.latency[op].append(time.perf_counter() - t0)
            if r.status_code >= 500:
                self.stats.errors[(op, f"http_{r.status_code}")] += 1
                await asyncio.sleep(0.2 * (attempt + 1))
                continue
            body = r.json()
            if body.get("errors"):
                code = (body["errors"][0].get("extensions") or {}).get("code", "error")
                self.stats.errors[(op, str(code))] += 1
                return None
            data: dict[str, Any] = body["data"]
            result = next(iter(data.values()))
            outcome = result.get("__typename", "?") if isinstance(result, dict) else "ok"
            if isinstance(result, dict) and result.get("code"):
                outcome = f"{outcome}:{result['code']}"
            self.stats.outcomes[(op, outcome)] += 1
            return result if isinstance(result, dict) else data
        self.stats.outcomes[(op, "gave_up")] += 1
        return None

    async def webhook(self, headers: dict[str, str], body: bytes) -> None:
        """Deliver a bank's webhook as a PSP does: retried until the API takes it (12 tries over ~25 s here; a real
        PSP keeps trying for hours) — six tries over ~6 s ran out during the storm's faults on a loaded machine."""
        for attempt in range(12):
            port = self.rng.choice(self.ports)
            t0 = time.perf_counter()
            try:
                r = await self.http[port].post("/webhooks/sandbox", content=body, headers=headers)
            except httpx.HTTPError as e:
                self.stats.errors[("webhook", type(e).__name__)] += 1
                await asyncio.sleep(min(0.3 * (attempt + 1), 3.0))
                continue
            self.stats.latency["webhook"].append(time.perf_counter() - t0)
            if r.status_code == 200:
                self.stats.outcomes[("webhook", "accepted")] += 1
                return
            self.stats.errors[("webhook", f"http_{r.status_code}")] += 1
            await asyncio.sleep(min(0.3 * (attempt + 1), 3.0))
        self.stats.outcomes[("webhook", "gave_up")] += 1
