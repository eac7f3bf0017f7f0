"""Outgoing webhooks over HTTP (domain.webhooks_out.WebhookSender): one signed POST per attempt, timed."""

from __future__ import annotations

import time
from datetime import datetime
from typing import TYPE_CHECKING

import httpx

from domain.webhooks_out import Attempt, Claimed, WebhookSender, answered, request

TIMEOUT = httpx.Timeout(10.0, connect=5.0)
"""Per attempt (domain.webhooks_out.LEASE, how long an attempt may take before another worker retries it, is far
above it)."""


class HttpWebhookSender:
    """Sends attempts with httpx, never following redirects: through `http` when given (tests), else through a
    client of its own for each attempt."""

    def __init__(self, http: httpx.AsyncClient | None = None) -> None:
        self._http = http

    async def send(self, claimed: Claimed, now: datetime) -> Attempt:
        """POST one attempt; never raises for the receiver's faults."""
        if self._http is not None:
            return await _post(self._http, claimed, now)
        async with httpx.AsyncClient(timeout=TIMEOUT, follow_redirects=False) as http:
            return await _post(http, claimed, now)


async def _post(http: httpx.AsyncClient, claimed: Claimed, now: datetime) -> Attempt:
    raw, headers = request(claimed, now)
    started = time.perf_counter()
    try:
        r = await http.post(claimed.url, content=raw, headers=headers, timeout=TIMEOUT)
    except httpx.HTTPError as e:
        return Attempt(False, None, _ms_since(started), f"{type(e).__name__}: {e}"[:500])
    return answered(r.status_code, r.text, _ms_since(started))


def _ms_since(started: float) -> int:
    return int((time.perf_counter() - started) * 1000)


if TYPE_CHECKING:  # mypy checks that it is the port the domain sends through
    _sender: WebhookSender = HttpWebhookSender()
