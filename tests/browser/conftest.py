"""Browser tests of the web demo: headless Debian Chromium driven by Playwright, against a real API and worker.

Chromium comes from Debian's `chromium` package (`./test` installs it when it can); Playwright never downloads a
browser here. Without /usr/bin/chromium (or SLOTHOLD_CHROMIUM) or the playwright package, these tests skip and say
why.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from uuid import UUID, uuid4
from zoneinfo import ZoneInfo

import asyncpg
import pytest

from schema.ids import global_id
from store.access import PgAccess
from store.venues import ResourceSpec, VenueSpec, create_venue, every_day
from tests.integration.cluster import Cluster, cluster

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "docs" / "screenshots" if os.environ.get("SLOTHOLD_UPDATE_SCREENSHOTS") else \
    ROOT / ".slothold" / "screenshots"
"""Every run saves the main screens; into docs/screenshots (linked from the README, committed) only when
SLOTHOLD_UPDATE_SCREENSHOTS=1, else into .slothold/screenshots, so that a test run leaves the tree clean."""
SAO_PAULO = ZoneInfo("America/Sao_Paulo")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium_path() -> str | None:
    """Debian's Chromium (or SLOTHOLD_CHROMIUM), never a browser Playwright downloaded."""
    wanted = os.environ.get("SLOTHOLD_CHROMIUM")
    if wanted:
        return wanted if os.access(wanted, os.X_OK) else None
    if os.access("/usr/bin/chromium", os.X_OK):
        return "/usr/bin/chromium"
    return shutil.which("chromium")


@pytest.fixture(scope="session")
def chromium() -> str:
    try:
        import playwright.async_api  # noqa: F401
    except ImportError:
        pytest.skip("browser tests need the playwright package (pip install -e '.[test]')")
    path = chromium_path()
    if path is None:
        pytest.skip("browser tests need Chromium: apt-get install -y chromium (./test does it as root), "
                    "or point SLOTHOLD_CHROMIUM at a Chromium binary")
    return path


@pytest.fixture(scope="module")
def demo_server(chromium: str, database_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory
                ) -> Iterator[Cluster]:
    """One API process and one worker (the relay numbers and publishes live events), with the dev helpers on.

    Per module: the worker must be gone before other suites run on the same database (its relay and sweeps would
    act on their rows)."""
    # The worker asks the bank about "paguei" charges once a minute, not every 20 s: a staff confirmation of a Pix the
    # bank has (test_console_shell) must not race the worker's own (the console's path is what those tests prove).
    with cluster(database_url, redis_url, tmp_path_factory.mktemp("browser-logs"), apis=1, workers=1,
                 SLOTHOLD_WEB_DEMO_DEV="1", SLOTHOLD_LOG_LEVEL="WARNING", SLOTHOLD_POLL_SECONDS="60") as c:
        yield c


@dataclass
class Venue:
    """A venue of this test: its ids, an owner token and the web demo's URL for it."""

    unit_id: UUID
    fields: dict[str, UUID]
    service_id: UUID
    owner_token: str
    base: str

    def url(self, page: str) -> str:
        return f"{self.base}/?unit={self.unit_id}&service={self.service_id}#/{page}"


VENUE_NAME = "Arena Vila Madalena"
"""What the test venues are called (as the demo venue is): the screenshots show a venue's name, not a test's."""


@pytest.fixture
async def venue(demo_server: Cluster, pool: asyncpg.Pool) -> Venue:
    """A plain venue: four fields open 08–23 and one service at R$ 200,00 the hour, nothing booked."""
    created = await create_venue(pool, VenueSpec(
        unit_name=VENUE_NAME, tenant_name=f"{VENUE_NAME} (teste {uuid4().hex[:8]})", hours=every_day(8, 23),
        resources=[ResourceSpec(name=f"Campo {i}", group="Campos") for i in range(1, 5)],
        services=[{"name": "Locação de campo (1 h)", "duration_minutes": 60, "price_cents": 20000}]))
    return await _served(demo_server, pool, created.tenant_id, created.unit_id, created.resource_ids,
                         next(iter(created.service_ids.values())))


@pytest.fixture
async def demo_venue(demo_server: Cluster, pool: asyncpg.Pool) -> Venue:
    """The demo venue of `./dev` (docs/demo-venue.toml and its week of bookings around today, in every state), made
    afresh for this test: what the committed screenshots show. Its week leaves tomorrow's 09–10 and 18–23 free on
    every field but for the class (slothold/cli/demo_bookings.py), so tests may book there."""
    from domain.errors import InvalidTransition
    from slothold.cli.demo import DEMO_FILE, seed_venue
    from slothold.cli.venue_file import read_venue_file

    file = read_venue_file(DEMO_FILE)
    for attempt in range(3):
        unit_id = uuid4()
        try:
            await seed_venue(pool, unit_id, replace(file, tenant=f"{file.tenant} (teste {unit_id.hex[:8]})"))
            break
        except InvalidTransition:
            # The week is written with the clock set back (a hold "two days ago", then its Pix): the running
            # worker may expire such a hold by the real clock between its steps (seen once under load). Another
            # venue, afresh.
            if attempt == 2:
                raise
    tenant = await pool.fetchval("SELECT o.tenant_id FROM units u JOIN organizations o ON o.id = u.organization_id "
                                 "WHERE u.id = $1", unit_id)
    fields = {r["name"]: r["id"] for r in await pool.fetch("SELECT id, name FROM resources WHERE unit_id = $1",
                                                           unit_id)}
    service = await pool.fetchval("SELECT id FROM services WHERE unit_id = $1 AND name = 'Locação de campo'", unit_id)
    for _ in range(300):  # the worker's relay publishes the week's events before a page listens (not after)
        if not await pool.fetchval("SELECT 1 FROM outbox WHERE unit_id = $1 AND published_at IS NULL LIMIT 1",
                                   unit_id):
            break
        await asyncio.sleep(0.1)
    return await _served(demo_server, pool, tenant, unit_id, fields, service)


async def _served(server: Cluster, pool: asyncpg.Pool, tenant: UUID, unit: UUID, fields: dict[str, UUID],
                  service: UUID) -> Venue:
    _, token = await PgAccess(pool).issue_token(tenant, unit, "staff", "owner", [], "browser test owner")
    return Venue(unit, fields, service, token, f"http://127.0.0.1:{server.apis[0][1]}")


@pytest.fixture(scope="session")
async def browser(chromium: str) -> AsyncIterator[Any]:
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        b = await p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        yield b
        await b.close()


LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})
DESKTOP = {"width": 1360, "height": 900}
PHONE = {"width": 390, "height": 844}


class Guard:
    """What a page must not do: send a request off this machine, log a console error, throw an uncaught error.
    `expect` lists substrings of console errors a test provokes on purpose (a server it stops, a site it keeps
    out)."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.expect: list[str] = []

    async def watch(self, context: Any) -> None:
        async def route(r: Any) -> None:
            url = urlsplit(r.request.url)
            if url.scheme in ("data", "blob") or url.hostname in LOCAL_HOSTS:
                await r.continue_()
            else:
                self.problems.append(f"request off the machine: {r.request.url}")
                await r.abort("blockedbyclient")

        await context.route("**/*", route)

    def page(self, page: Any, expect: tuple[str, ...] = ()) -> Any:
        """Watch `page`; `expect`: substrings of console errors this page alone is meant to log."""
        page.on("pageerror", lambda e: self.problems.append(f"uncaught error: {e}"))
        page.on("console", lambda m: self._console(m, expect))
        return page

    def _console(self, message: Any, expect: tuple[str, ...]) -> None:
        if message.type == "error" and not any(e in message.text for e in (*self.expect, *expect)):
            self.problems.append(f"console error: {message.text} ({message.location.get('url', '')})")

    def check(self) -> None:
        assert not self.problems, "the pages did what they must not:\n" + "\n".join(self.problems)


@pytest.fixture
async def guard() -> AsyncIterator[Guard]:
    """Every page of a test is watched (new_page does it; a test's own contexts call guard.watch / guard.page)."""
    g = Guard()
    yield g
    g.check()


@pytest.fixture
async def new_page(browser: Any, guard: Guard) -> AsyncIterator[Any]:
    """Pages in their own contexts (separate storage: a staff member and a customer are two people), at desktop
    width, watched by `guard` (`new_page(expect_console=(...))`: the console errors that page is meant to log)."""
    contexts: list[Any] = []

    async def make(expect_console: tuple[str, ...] = (), **options: Any) -> Any:
        context = await browser.new_context(**{"viewport": DESKTOP, "locale": "en-GB", **options})
        contexts.append(context)
        await guard.watch(context)
        page = guard.page(await context.new_page(), expect_console)
        page.set_default_timeout(10_000)
        return page

    yield make
    for c in contexts:
        try:
            await asyncio.wait_for(c.close(), 30)
        except TimeoutError:  # a CI run once hung here for good: fail this test, not the whole run
            raise AssertionError("closing a browser context took over 30 s") from None


async def snap(page: Any, name: str, full_page: bool = True, accessible: bool = True) -> None:
    """The screen as it is, at desktop width (`name`.png) and on a phone (`name`-phone.png), each checked by axe
    unless `accessible` is False; the page is back at its width after."""
    from tests.browser.a11y import assert_accessible

    before = page.viewport_size or DESKTOP
    for size, suffix in ((DESKTOP, ""), (PHONE, "-phone")):
        await page.set_viewport_size(size)
        await page.wait_for_timeout(150)  # let the layout settle
        await page.screenshot(path=shot(name + suffix), full_page=full_page)
        if accessible:
            await assert_accessible(page, f"{name} at {size['width']} px")
    await page.set_viewport_size(before)


def _days_ahead(days: int, hour: int) -> datetime:
    day = (datetime.now(SAO_PAULO) + timedelta(days=days)).date()
    return datetime(day.year, day.month, day.day, hour, tzinfo=SAO_PAULO).astimezone(UTC)


def tomorrow_local(hour: int) -> datetime:
    """Tomorrow at `hour`:00 in São Paulo (always far enough ahead for min_advance), as UTC."""
    return _days_ahead(1, hour)


def ahead_local(hour: int) -> datetime:
    """The day after tomorrow at `hour`:00 in São Paulo, as UTC: whatever hour the suite runs at, every hour of that
    day is more than 24 h ahead, inside a cancellation policy's full-refund window (tomorrow at 19:00 is not when
    the suite runs after 19:00)."""
    return _days_ahead(2, hour)


def cell_selector(resource: UUID, start: datetime) -> str:
    stamp = start.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    return f'td.cell[data-resource="{global_id("Resource", resource)}"][data-start="{stamp}"]'


def shot(name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS / f"{name}.png"


def monotonic_ms() -> float:
    return time.monotonic() * 1000
