"""The demo venue of `./dev` in the staff agenda: its week of bookings around today, in their states' colours, at
desktop and phone widths (the README's first screenshots), under the guard and axe like every screen."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from tests.browser.conftest import SAO_PAULO, Venue, snap


async def test_the_demo_venues_week_shows_on_the_agenda_in_every_state(demo_venue: Venue, new_page: Any) -> None:
    staff = await new_page()
    await staff.goto(demo_venue.url("agenda"))  # in the console's default language, pt-BR
    await staff.get_by_label("Token da equipe").fill(demo_venue.owner_token)
    await staff.get_by_role("button", name="Entrar", exact=True).click()
    await staff.locator("td.cell").first.wait_for()
    assert "Arena Vila Madalena" in await staff.locator("header").first.inner_text()
    today = datetime.now(SAO_PAULO).strftime("%Y-%m-%d")
    await staff.get_by_label("Dia", exact=True).fill((datetime.now(SAO_PAULO) - timedelta(days=3)).strftime("%Y-%m-%d"))
    first = (datetime.now(SAO_PAULO) - timedelta(days=3)).strftime("%Y-%m-%d")
    await staff.locator(f'section.agenda-day[data-day="{first}"] td.cell').first.wait_for()
    # Then the week.
    await staff.get_by_label("Visão").select_option("week")
    await staff.locator(f'section.agenda-day[data-day="{today}"] td.cell[data-state="BOOKED"]').first.wait_for()
    await staff.locator('td.cell[data-state="VERIFYING"]').first.wait_for()  # tomorrow's "paguei"
    states = set(await staff.locator("td.cell").evaluate_all("cells => cells.map(c => c.dataset.state)"))
    assert {"FREE", "HELD", "VERIFYING", "BOOKED"} <= states, states
    await staff.locator('li.item[data-type="CUSTOMER_SAYS_PAID"]').first.wait_for()  # the demo's "paguei"
    await snap(staff, "demo-week")
