"""Development-only things stay off the product (issue 20, bug 9): with the server NOT in dev mode (no
SLOTHOLD_WEB_DEMO_DEV, as in production: `/web-demo/dev/config` answers 404), no screen of the demo shows a
development-only element — the sandbox "Pagar" footer, the "Unidade (dev)" tab, GraphiQL, the dev badge, a dev-only
button (`[data-dev-only]`, `.dev`); under `slothold dev` (SLOTHOLD_WEB_DEMO_DEV=1) they are there."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from uuid import uuid4

import asyncpg
import pytest

from store.access import PgAccess
from store.venues import ResourceSpec, VenueSpec, create_venue, every_day
from tests.browser.conftest import VENUE_NAME, Venue
from tests.integration.cluster import Cluster, cluster

SCREENS = ["agenda", "book", "seats", "setup", "queue", "waitlists", "search", "counter", "settings"]
DEV_ONLY = "[data-dev-only], .dev, #dev-badge"
VISIBLE = f"""() => [...document.querySelectorAll({json.dumps(DEV_ONLY)})]
  .filter((e) => e.checkVisibility({{visibilityProperty: true}}))
  .map((e) => e.outerHTML.slice(0, 100))"""


@pytest.fixture(scope="module")
def plain_server(chromium: str, database_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory
                 ) -> Iterator[Cluster]:
    """An API as production runs it: no dev flag (no worker: these pages need no live events)."""
    with cluster(database_url, redis_url, tmp_path_factory.mktemp("plain-logs"), apis=1, workers=0,
                 SLOTHOLD_LOG_LEVEL="WARNING") as c:
        yield c


async def served_venue(server: Cluster, pool: asyncpg.Pool) -> Venue:
    created = await create_venue(pool, VenueSpec(
        unit_name=VENUE_NAME, tenant_name=f"{VENUE_NAME} (teste {uuid4().hex[:8]})", hours=every_day(8, 23),
        resources=[ResourceSpec(name=f"Campo {i}", group="Campos") for i in range(1, 3)],
        services=[{"name": "Locação de campo (1 h)", "duration_minutes": 60, "price_cents": 20000}]))
    _, token = await PgAccess(pool).issue_token(created.tenant_id, created.unit_id, "staff", "owner", [], "owner")
    return Venue(created.unit_id, created.resource_ids, next(iter(created.service_ids.values())), token,
                 f"http://127.0.0.1:{server.apis[0][1]}")


async def visit(page: Any, venue: Venue, screen: str, signed_in: bool = True) -> None:
    await page.goto(venue.url(screen))
    await page.wait_for_function("document.querySelector('#main') && "
                                 "!/^\\s*Loading…\\s*$/.test(document.querySelector('#main').textContent)")
    await page.wait_for_timeout(400)  # the screen's first answers


async def staff_page(new_page: Any, venue: Venue) -> Any:
    page = await new_page()
    stored = json.dumps({"unitId": str(venue.unit_id), "serviceId": None, "staffToken": venue.owner_token})
    await page.add_init_script(f"localStorage.getItem('slothold.demo') || "
                               f"localStorage.setItem('slothold.demo', {json.dumps(stored)});")
    return page


async def test_without_the_dev_flag_no_screen_shows_a_development_only_element(
        plain_server: Cluster, pool: asyncpg.Pool, new_page: Any) -> None:
    venue = await served_venue(plain_server, pool)
    page = await staff_page(new_page, venue)
    for screen in SCREENS:
        await visit(page, venue, screen)
        shown = await page.evaluate(VISIBLE)
        assert not shown, f"#/{screen} shows development-only elements: {shown}"
        assert await page.get_by_role("link", name="GraphiQL").count() == 0 or \
            not await page.get_by_role("link", name="GraphiQL").is_visible(), screen
    # Signed out (the staff sign-in: no "demo owner token" button) and on a phone with the menu open.
    page = await new_page()
    await page.set_viewport_size({"width": 390, "height": 844})
    await page.goto(f"{venue.base}/?unit={venue.unit_id}#/agenda")
    await page.get_by_label("Token da equipe").wait_for()  # pt-BR, the console's default
    await page.get_by_role("button", name="Menu").click()
    shown = await page.evaluate(VISIBLE)
    assert not shown, f"the sign-in screen shows development-only elements: {shown}"
    words = (await page.locator("body").inner_text()).lower()
    assert "dev only" not in words and "só dev" not in words and "(dev)" not in words, words


async def test_with_the_dev_flag_the_development_helpers_are_there(
        demo_server: Cluster, venue: Venue, new_page: Any) -> None:
    page = await staff_page(new_page, venue)
    await visit(page, venue, "agenda")
    shown = " ".join(await page.evaluate(VISIBLE))
    for wanted in ('href="#/settings"', "GraphiQL", "<footer", "dev-badge"):
        assert wanted in shown, (wanted, shown)
    await page.locator("footer summary").click()  # the sandbox's bank: pay a Pix charge by its txid
    await page.locator("footer").get_by_label("txid").wait_for()
    await visit(page, venue, "settings")  # the raw unit form: a developer's tool
    await page.get_by_role("heading", name="Qual unidade?").wait_for()
