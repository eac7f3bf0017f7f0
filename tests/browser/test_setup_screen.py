"""The owner's set-up screen (#/setup) in a real browser, against a real API and worker: a field added, weekly hours
with a holiday, a maintenance block and two price bands, each shown on the screen and then on the grid (BLOCKED,
CLOSED); a refusal read as a sentence; a manager told set-up is for owners. Screenshots at 1280 and 375 px wide."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import asyncpg
import httpx

from schema.ids import global_id
from store.access import PgAccess
from tests.browser.a11y import assert_accessible
from tests.browser.conftest import SAO_PAULO, Venue, cell_selector, shot, tomorrow_local
from tests.browser.test_web_demo import in_english


async def api(venue: Venue, query: str, variables: dict[str, Any], token: str | None = None) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=venue.base, timeout=10,
                                 headers={"authorization": f"Bearer {token or venue.owner_token}"}) as client:
        r = await client.post("/graphql", json={"query": query, "variables": variables})
    body = r.json()
    assert not body.get("errors"), body
    data: dict[str, Any] = body["data"]
    return data


def text(s: str) -> str:
    return s.replace("\xa0", " ")


async def said(page: Any, testid: str) -> str:
    """The sentence a form's status line ends on (after "Saving…")."""
    line = page.get_by_test_id(testid)
    await page.wait_for_function(f"""() => {{ const m = document.querySelector('[data-testid="{testid}"]');
        return m && !m.hidden && m.textContent !== 'Saving…'; }}""")
    return text(await line.inner_text())


async def no_overflow(page: Any) -> None:
    width = await page.evaluate("document.documentElement.scrollWidth")
    viewport = await page.evaluate("window.innerWidth")
    assert width <= viewport, f"the page is {width} px wide in a {viewport} px window"


async def test_an_owner_sets_up_fields_hours_a_holiday_a_block_and_price_bands(
        venue: Venue, new_page: Any, pool: asyncpg.Pool) -> None:
    page = await new_page()
    await page.set_viewport_size({"width": 1280, "height": 900})
    await in_english(page)  # the set-up screen speaks English; the console's shell follows the language chosen
    await page.goto(venue.url("setup"))
    await page.get_by_label("Staff token").fill(venue.owner_token)
    await page.get_by_role("button", name="Sign in", exact=True).click()
    await page.get_by_test_id("setup-fields").wait_for()
    await page.locator('[data-testid="resource-list"] li[data-name="Campo 4"]').wait_for()

    # A field.
    create = page.get_by_test_id("create-field")
    await create.locator("input[name=name]").fill("Campo 5")
    await create.get_by_role("button", name="Add field").click()
    assert await said(page, "create-field-message") == "Campo 5 created."
    await page.locator('[data-testid="resource-list"] li[data-name="Campo 5"]').wait_for()
    # Renamed, then named back.
    item = page.locator('[data-testid="resource-list"] li[data-name="Campo 5"]')
    await item.get_by_role("button", name="Edit").click()
    edit = page.get_by_test_id("edit-field")
    await edit.locator("input[name=name]").fill("Campo 5 (society)")
    await edit.get_by_role("button", name="Save").click()
    assert await said(page, "fields-message") == "Campo 5 renamed to Campo 5 (society)."
    await page.locator('li[data-name="Campo 5 (society)"]').wait_for()

    # Weekly hours: Sundays close at 20:00.
    await page.get_by_label("Sunday closes").fill("20:00")
    await page.get_by_role("button", name="Save opening hours").click()
    assert await said(page, "hours-message") == "Opening hours saved: open 7 days a week."
    hours = await api(venue, "query($u: ID!) { unit(id: $u) { ... on Unit { openingHours { weekday closesMinute } } } "
                      "}", {"u": str(venue.unit_id)})
    assert {w["closesMinute"] for w in hours["unit"]["openingHours"] if w["weekday"] == "SUNDAY"} == {20 * 60}
    assert await page.get_by_label("Sunday closes").input_value() == "20:00"

    # A holiday, the day after tomorrow.
    holiday = (tomorrow_local(12).astimezone(SAO_PAULO) + timedelta(days=1)).date()
    form = page.get_by_test_id("exception-form")
    await form.locator("input[name=date]").fill(holiday.isoformat())
    await form.locator("input[name=reason]").fill("Feriado municipal")
    await form.get_by_role("button", name="Add date").click()
    assert (await said(page, "exceptions-message")).endswith("is closed (Feriado municipal).")
    listed = page.locator(f'[data-testid="exception-list"] li[data-date="{holiday.isoformat()}"]')
    assert "Closed all day" in await listed.inner_text()

    # Special hours three days ahead, then removed: the date follows its weekly hours again.
    special = (tomorrow_local(12).astimezone(SAO_PAULO) + timedelta(days=2)).date().isoformat()
    await form.locator("input[name=date]").fill(special)
    await form.locator("select[name=kind]").select_option("special")
    await form.locator("input[name=opens]").fill("10:00")
    await form.locator("input[name=closes]").fill("14:00")
    await form.locator("input[name=reason]").fill("Torneio")
    await form.get_by_role("button", name="Add date").click()
    assert (await said(page, "exceptions-message")).endswith("opens only 10:00–14:00 (Torneio).")
    special_item = page.locator(f'[data-testid="exception-list"] li[data-date="{special}"]')
    assert "Open 10:00–14:00" in await special_item.inner_text()
    await special_item.get_by_role("button", name="Remove").click()
    assert (await said(page, "exceptions-message")).endswith("follows its weekly hours again.")
    await special_item.wait_for(state="detached")

    # A maintenance block tomorrow, 08:00–12:00 on Campo 2.
    tomorrow = tomorrow_local(12).astimezone(SAO_PAULO).date().isoformat()
    block = page.get_by_test_id("block-form")
    await block.locator("select[name=resource]").select_option(label="Campo 2")
    await block.locator("input[name=fromDate]").fill(tomorrow)
    await block.locator("input[name=toDate]").fill(tomorrow)
    await block.locator("input[name=reason]").fill("Manutenção do gramado")
    await block.get_by_role("button", name="Block").click()
    assert (await said(page, "blocks-message")).startswith("Campo 2 is blocked ")
    campo2 = global_id("Resource", venue.fields["Campo 2"])  # the page shows ids as the API answers them
    row = page.locator(f'[data-testid="block-list"] li[data-resource-id="{campo2}"]')
    assert "08:00–12:00" in await row.inner_text() and "Manutenção do gramado" in await row.inner_text()
    # The same range again: refused, as a sentence.
    await block.get_by_role("button", name="Block").click()
    refused = await said(page, "blocks-message")
    assert refused.startswith("Blocking Campo 2 was refused:") and "{" not in refused

    # Another block, on Campo 4, put back on sale.
    await block.locator("select[name=resource]").select_option(label="Campo 4")
    await block.get_by_role("button", name="Block").click()
    assert (await said(page, "blocks-message")).startswith("Campo 4 is blocked ")
    campo4_id = global_id("Resource", venue.fields["Campo 4"])
    campo4 = page.locator(f'[data-testid="block-list"] li[data-resource-id="{campo4_id}"]')
    await campo4.get_by_role("button", name="Unblock").click()
    assert (await said(page, "blocks-message")).startswith("Campo 4 is back on sale ")
    await campo4.wait_for(state="detached")

    # Two price bands: weeknights 18:00–23:00 R$ 250,00 with a 50% deposit, weekends R$ 220,00 in full.
    service = page.locator(f'li[data-service-id="{global_id("Service", venue.service_id)}"]')
    await service.get_by_role("button", name="Edit price bands").click()
    editor = page.get_by_test_id("band-editor")
    await editor.get_by_role("button", name="+ Add a band").click()
    await editor.get_by_label("Band 1: price").fill("250,00")
    await editor.get_by_label("Band 1: payment").select_option("DEPOSIT_PERCENT")
    await editor.get_by_label("Band 1: Deposit (%)").fill("50")
    await editor.get_by_role("button", name="+ Add a band").click()
    for weekday in ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday"):
        await editor.get_by_label(f"Band 2: {weekday}").uncheck()
    for weekday in ("Saturday", "Sunday"):
        await editor.get_by_label(f"Band 2: {weekday}").check()
    await editor.get_by_label("Band 2: from").fill("08:00")
    await editor.get_by_label("Band 2: price").fill("220")
    assert await editor.get_by_label("Band 1: price").input_value() == "250,00"  # kept through the redraw
    await page.screenshot(path=shot("setup-bands-editor"), full_page=True)
    await editor.get_by_role("button", name="Save price bands").click()
    assert (await said(page, "prices-message")).startswith("Price bands of Locação de campo (1 h) saved: 2 bands")
    bands = text(await service.get_by_test_id("bands").inner_text())
    assert "Mon–Fri · 18:00–23:00" in bands and "R$250.00" in bands and "deposit 50%" in bands  # money in English
    assert "Sat, Sun · 08:00–23:00" in bands and "R$220.00" in bands
    # A third band over the first: refused, naming the bands as the editor numbers them.
    await service.get_by_role("button", name="Edit price bands").click()
    await editor.get_by_role("button", name="+ Add a band").click()
    await editor.get_by_role("button", name="Save price bands").click()
    overlap = await said(page, "prices-message")
    assert "was refused: band 3 overlaps band 1 on the same weekday." in overlap, overlap
    await editor.get_by_role("button", name="Cancel").click()
    served = await api(venue, "query($u: ID!) { services(unitId: $u) { id bands { weekdays from to priceCents "
                       "paymentRule depositPercent } } }", {"u": str(venue.unit_id)})
    priced = next(s for s in served["services"] if s["id"] == global_id("Service", venue.service_id))["bands"]
    assert [(b["weekdays"], b["priceCents"], b["paymentRule"]) for b in priced] == [
        (["MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY"], 25000, "DEPOSIT_PERCENT"),
        (["SATURDAY", "SUNDAY"], 22000, "FULL")]

    # A refusal a receptionist understands: Campo 3 has a booking tomorrow at 19:00.
    booked = await api(venue, """mutation($i: CounterBookingInput!) { counterBooking(input: $i) {
        __typename ... on BookingPayload { booking { id } } ... on Error { message } } }""", {"i": {
        "unitId": str(venue.unit_id), "resourceIds": [str(venue.fields["Campo 3"])],
        "startsAt": tomorrow_local(19).isoformat(), "endsAt": tomorrow_local(20).isoformat(),
        "customer": {"name": "Balcão Bia", "phone": "+5511987650001"}}})
    assert booked["counterBooking"]["__typename"] == "BookingPayload", booked
    campo3 = page.locator('[data-testid="resource-list"] li[data-name="Campo 3"]')
    await campo3.get_by_role("button", name="Deactivate").click()
    refused = await said(page, "fields-message")
    assert refused.startswith("Deactivating Campo 3 is not possible: 1 booking stands in the way"), refused
    assert "19:00–20:00 (confirmed" in refused and "{" not in refused

    # A change made elsewhere (here: the API) shows without a reload, from venueChanged.
    made = await api(venue, """mutation($u: ID!, $i: CreateResourceInput!) { createResource(unitId: $u, input: $i) {
        __typename } }""", {"u": str(venue.unit_id), "i": {"name": "Aula de beach", "kind": "POOLED", "capacity": 8}})
    assert made["createResource"]["__typename"] == "VenueResource", made
    pooled = page.locator('[data-testid="resource-list"] li[data-name="Aula de beach"]')
    await pooled.wait_for(timeout=5000)
    assert "Pooled · 8 places" in await pooled.inner_text()

    await no_overflow(page)
    await page.screenshot(path=shot("setup-desktop"), full_page=True)
    await assert_accessible(page, "set-up at 1280 px")
    await page.set_viewport_size({"width": 375, "height": 812})
    await page.wait_for_timeout(200)
    await no_overflow(page)
    await page.screenshot(path=shot("setup-phone"))  # what a phone shows first
    await page.screenshot(path=shot("setup-phone-full"), full_page=True)
    await assert_accessible(page, "set-up at 375 px")
    for part in ("fields", "hours", "exceptions", "blocks"):  # one column: each card alone, to read them
        await page.get_by_test_id(f"setup-{part}").screenshot(path=shot(f"setup-phone-{part}"))
    await service.get_by_role("button", name="Edit price bands").click()
    await no_overflow(page)
    await page.get_by_test_id("setup-prices").screenshot(path=shot("setup-phone-bands"))

    # The grid: the block is BLOCKED, the holiday CLOSED (the API), and the agenda page paints the block.
    grid_query = """query($u: ID!, $f: DateTime!, $t: DateTime!) { availabilityGrid(unitId: $u, from: $f, to: $t) {
        ... on Grid { rows { resource { id } segments { startsAt state } } } } }"""
    day = tomorrow_local(0)
    grid = (await api(venue, grid_query, {"u": str(venue.unit_id), "f": day.isoformat(),
                                          "t": (day + timedelta(days=2)).isoformat()}))["availabilityGrid"]
    states = {(r["resource"]["id"], s["startsAt"]): s["state"] for r in grid["rows"] for s in r["segments"]}
    assert states[(global_id("Resource", venue.fields["Campo 2"]), tomorrow_local(8).isoformat())] == "BLOCKED"
    on_holiday = {state for (rid, at), state in states.items() if at >= (day + timedelta(days=1)).isoformat()}
    assert on_holiday == {"CLOSED"}, on_holiday
    await page.set_viewport_size({"width": 1280, "height": 900})
    await page.goto(venue.url("agenda"))
    await page.locator("td.cell").first.wait_for()
    await page.get_by_label("Day").fill(tomorrow)
    await page.wait_for_selector(cell_selector(venue.fields["Campo 2"], tomorrow_local(9)) + '[data-state="BLOCKED"]')

    # A manager is told set-up is for owners.
    _, manager = await PgAccess(pool).issue_token(*(await _tenant_unit(pool, venue)), "staff", "manager", [],
                                                  "browser test manager")
    other = await new_page()
    await in_english(other)
    await other.goto(venue.url("setup"))
    await other.get_by_label("Staff token").fill(manager)
    await other.get_by_role("button", name="Sign in", exact=True).click()
    assert "Set-up is for the venue's owners" in await other.get_by_test_id("setup-owners-only").inner_text()


async def _tenant_unit(pool: asyncpg.Pool, venue: Venue) -> tuple[Any, Any]:
    row = await pool.fetchrow("SELECT o.tenant_id, u.id FROM units u JOIN organizations o ON o.id = u.organization_id "
                              "WHERE u.id = $1", venue.unit_id)
    return row["tenant_id"], row["id"]
