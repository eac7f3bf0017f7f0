"""Browser tests of the web demo: headless Debian Chromium driven by Playwright, against a real API and worker.

Chromium comes from Debian's `chromium` package (`./test` installs it when it can); Playwright never downloads a
browser here. Without /usr/bin/chromium (or SLOTHOLD_CHROMIUM) or the playwright package, these tests skip and say
why.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID
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
    with cluster(database_url, redis_url, tmp_path_factory.mktemp("browser-logs"), apis=1, workers=1,
                 SLOTHOLD_WEB_DEMO_DEV="1", SLOTHOLD_LOG_LEVEL="WARNING") as c:
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


@pytest.fixture
async def venue(demo_server: Cluster, pool: asyncpg.Pool) -> Venue:
    created = await create_venue(pool, VenueSpec(
        unit_name=f"Arena do navegador {datetime.now(UTC).timestamp()}", hours=every_day(8, 23),
        resources=[ResourceSpec(name=f"Campo {i}", group="Campos") for i in range(1, 5)],
        services=[{"name": "Locação de campo (1 h)", "duration_minutes": 60, "price_cents": 20000}]))
    _, token = await PgAccess(pool).issue_token(created.tenant_id, created.unit_id, "staff", "owner", [],
                                                "browser test owner")
    port = demo_server.apis[0][1]
    return Venue(created.unit_id, created.resource_ids, next(iter(created.service_ids.values())), token,
                 f"http://127.0.0.1:{port}")


@pytest.fixture(scope="session")
async def browser(chromium: str) -> AsyncIterator[Any]:
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        b = await p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        yield b
        await b.close()


@pytest.fixture
async def new_page(browser: Any) -> AsyncIterator[Any]:
    """Pages in their own contexts (separate storage: a staff member and a customer are two people)."""
    contexts: list[Any] = []
    errors: list[str] = []

    async def make() -> Any:
        context = await browser.new_context(viewport={"width": 1360, "height": 900}, locale="en-GB")
        contexts.append(context)
        page = await context.new_page()
        page.set_default_timeout(10_000)
        page.on("pageerror", lambda e: errors.append(str(e)))
        return page

    yield make
    for c in contexts:
        await c.close()
    assert not errors, f"uncaught errors in the page: {errors}"


def tomorrow_local(hour: int) -> datetime:
    """Tomorrow at `hour`:00 in São Paulo (always far enough ahead for min_advance), as UTC."""
    day = (datetime.now(SAO_PAULO) + timedelta(days=1)).date()
    return datetime(day.year, day.month, day.day, hour, tzinfo=SAO_PAULO).astimezone(UTC)


def cell_selector(resource: UUID, start: datetime) -> str:
    stamp = start.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    return f'td.cell[data-resource="{global_id("Resource", resource)}"][data-start="{stamp}"]'


def shot(name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS / f"{name}.png"


def monotonic_ms() -> float:
    return time.monotonic() * 1000
