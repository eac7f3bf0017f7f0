"""The fuzzer's app, venue, callers and request runner; hypothesis settings profiles.

`SLOTHOLD_FUZZ_EXAMPLES` sets how many examples each fuzz test draws (default 8: the fuzz suite stays well under
a minute, derandomized so CI is reproducible). Any other value selects the long profile with that many examples and
a random seed, e.g. `SLOTHOLD_FUZZ_EXAMPLES=5000 ./test tests/fuzz` (a failure prints the blob that replays it).
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import httpx
import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.configuration import set_hypothesis_home_dir

from slothold.app import create_app
from slothold.settings import Settings
from tests.conftest import T0, MutableClock
from tests.fuzz.checks import LogCapture, Outcome, footprint_query, judge, tables, unit_tables
from tests.fuzz.generator import INTROSPECTION, Modes, Request, Schema, Values
from tests.fuzz.world import World, build_world

# No example database (database=None below), and hypothesis' own caches (constants, unicode tables) in the temporary
# directory rather than a .hypothesis/ folder in the checkout.
set_hypothesis_home_dir(os.path.join(tempfile.gettempdir(), "slothold-hypothesis"))

DEFAULT_EXAMPLES = 8
EXAMPLES = int(os.environ.get("SLOTHOLD_FUZZ_EXAMPLES", str(DEFAULT_EXAMPLES)))
LONG = EXAMPLES != DEFAULT_EXAMPLES

_common: dict[str, Any] = {"database": None, "deadline": None, "print_blob": True,
                           "suppress_health_check": list(HealthCheck)}
settings.register_profile("fuzz-ci", max_examples=DEFAULT_EXAMPLES, derandomize=True,
                          phases=[Phase.explicit, Phase.generate], **_common)
settings.register_profile("fuzz-long", max_examples=EXAMPLES, derandomize=False,
                          phases=[Phase.explicit, Phase.generate, Phase.shrink], **_common)
PROFILE = settings.get_profile("fuzz-long" if LONG else "fuzz-ci")
"""The settings the fuzz tests use (applied per test, so other suites' hypothesis defaults stay untouched)."""


@dataclass
class Fuzzer:
    """Sends fuzzed requests and checks every response; counts what it sent and saw."""

    client: httpx.AsyncClient
    pool: Any
    world: World
    schema: Schema
    values: Modes
    logs: LogCapture
    footprint_sql: str
    error_types: set[str]
    sent: int = 0
    _last_mode: bool = True
    statuses: dict[str, int] = field(default_factory=dict)
    outcomes: dict[str, int] = field(default_factory=dict)
    """How often each outcome came back: a typename of the result, or the code of the first top-level error."""

    async def footprint(self) -> dict[str, Any]:
        return dict(await self.pool.fetchrow(self.footprint_sql, UUID(self.world.ids["unit"][0])))

    async def check(self, request: Request, allowed_writes: frozenset[str] = frozenset()) -> Outcome:
        """Send one request and assert the properties (checks.py); returns the judged outcome."""
        before = await self.footprint()
        self._listen()
        content = json.dumps(request.body)  # NaN and Infinity included: Python's json reads them back
        r = await self.client.post("/graphql", content=content, headers={
            "content-type": "application/json", "accept": "application/graphql-response+json", **request.headers})
        self._last_mode = request.well_typed
        outcome = judge(r.status_code, r.text, request.sent_strings(), request.field.name, self.error_types)
        self._count(outcome)
        if outcome.refused:
            after = await self.footprint()
            changed = {t: (before[t], after[t]) for t in before if before[t] != after[t] and t not in allowed_writes}
            if changed and not self._writes_allowed(outcome, changed):
                outcome.problems.append(f"refused but wrote: {changed}")
        if outcome.problems:
            raise AssertionError(self.report(request, outcome))
        return outcome

    async def check_raw(self, method: str, content: bytes | str | None, headers: dict[str, str],
                        sent: list[str] | None = None, path: str = "/graphql") -> Outcome:
        """Send a malformed request as is and assert the properties; a refusal writes nothing."""
        before = await self.footprint()
        self._listen()
        r = await self.client.request(method, path, content=content, headers=headers)
        outcome = judge(r.status_code, r.text, sent or [], None, self.error_types)
        self._count(outcome)
        after = await self.footprint()
        if before != after:
            outcome.problems.append(f"a raw request wrote: {[t for t in before if before[t] != after[t]]}")
        if outcome.problems:
            raise AssertionError(f"{method} {str(content)[:300]!r} {headers}: {outcome.problems}\n"
                                 f"body: {r.text[:1000]}\nlogs:\n" + "\n".join(self.logs.exceptions()))
        return outcome

    def _listen(self) -> None:
        root = logging.getLogger()  # another app made in this process (create_app) replaces the root's handlers
        if self.logs not in root.handlers:
            root.addHandler(self.logs)
        self.logs.records.clear()

    def _count(self, outcome: Outcome) -> None:
        self.sent += 1
        key = str(outcome.status)
        self.statuses[key] = self.statuses.get(key, 0) + 1
        body = outcome.body if isinstance(outcome.body, dict) else {}
        errors, data = body.get("errors") or [], body.get("data") or {}
        if errors:
            kind = "error:" + str((errors[0].get("extensions") or {}).get("code"))
            if os.environ.get("SLOTHOLD_FUZZ_DEBUG"):
                print("DEBUG", kind, self._last_mode, str(errors[0].get("message"))[:300].replace("\n", " "))
        else:
            value = next(iter(data.values()), None) if isinstance(data, dict) else None
            kind = str(value.get("code") or value.get("__typename")) if isinstance(value, dict) else "data"
        self.outcomes[kind] = self.outcomes.get(kind, 0) + 1

    @staticmethod
    def _writes_allowed(outcome: Outcome, changed: dict[str, tuple[Any, Any]]) -> bool:
        """Refusals that write on purpose: the hold ceiling's alert (one per unit and day, SPEC §9) and a wrong
        sign-in code, which counts against the code's tries (five close it)."""
        body = outcome.body if isinstance(outcome.body, dict) else {}
        codes = {v.get("code") for v in (body.get("data") or {}).values() if isinstance(v, dict)}
        tables = {t.removesuffix(" rows") for t in changed}
        if "hold_ceiling" in codes:
            return tables <= {"queue_items", "outbox"}
        if codes & {"wrong_code", "too_many_attempts"}:
            return tables <= {"customer_login_codes"}
        return False

    def report(self, request: Request, outcome: Outcome) -> str:
        return (f"{request.field.name} as {request.caller}: {outcome.problems}\n"
                f"request: {json.dumps(request.body)[:3000]}\nheaders: {request.headers}\n"
                f"status {outcome.status}, body: {outcome.text[:2000]}\nlogs:\n" + "\n".join(self.logs.exceptions()))


@pytest.fixture(scope="module")
async def fuzzer(database_url: str, redis_url: str, pool: Any) -> AsyncIterator[Fuzzer]:
    """An app on the test database at the tests' fixed clock, with the fuzz venue, callers and live schema."""
    clock = MutableClock(T0)
    app = create_app(Settings(database_url=database_url, redis_url=redis_url, db_pool_max=10), clock=clock)
    capture = LogCapture()
    root = logging.getLogger()  # after create_app, which sets the root logger's handlers
    root.addHandler(capture)
    try:
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://slothold.test", timeout=60) as client:
                world = await build_world(client, pool, app.state.slothold["access"], clock)
                r = await client.post("/graphql", json={"query": INTROSPECTION}, headers=world.headers("system"))
                schema = Schema(r.json()["data"])
                names = await tables(pool)
                footprint = footprint_query(names, await unit_tables(pool, names))
                modes = Modes(Values(schema, world, strict=True), Values(schema, world, strict=False))
                f = Fuzzer(client, pool, world, schema, modes, capture, footprint, schema.error_types())
                yield f
                top = sorted(f.outcomes.items(), key=lambda kv: -kv[1])
                print(f"\nfuzz: {f.sent} requests, statuses {f.statuses}\noutcomes: {top}")
    finally:
        root.removeHandler(capture)
