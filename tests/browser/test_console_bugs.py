"""The reception console's bugs of issue 20, one test each, written before the fix (each failed on the old screens):
1 a false offline banner after leaving a live page, 2 the sign-in code field shown before a code was asked for,
4 the header overflowing a 390 px phone, 5 past slots offered as free, 6 every hold labelled "Hold do bot",
7 staff seeing booking UUIDs instead of who and what the booking is."""

from __future__ import annotations

import asyncio
import re
from datetime import timedelta
from typing import Any

import httpx

from tests.browser.conftest import SAO_PAULO, Venue, cell_selector, shot, tomorrow_local
from tests.browser.test_web_demo import phone, staff_agenda
from tests.venues import cpf

UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


async def no_horizontal_scroll(page: Any) -> None:
    width = await page.evaluate("document.documentElement.scrollWidth")
    viewport = await page.evaluate("window.innerWidth")
    assert width <= viewport, f"the page is {width} px wide in a {viewport} px window"


async def api_hold(venue: Venue, field: str, hour: int, customer: dict[str, str]) -> str:
    query = """mutation($i: HoldInput!) { hold(input: $i) { __typename ... on BookingPayload { booking { id } }
      ... on Error { code message } } }"""
    variables = {"i": {"unitId": str(venue.unit_id), "resourceIds": [str(venue.fields[field])],
                       "startsAt": tomorrow_local(hour).isoformat(), "endsAt": tomorrow_local(hour + 1).isoformat(),
                       "customer": customer}}
    async with httpx.AsyncClient(base_url=venue.base, timeout=10,
                                 headers={"authorization": f"Bearer {venue.owner_token}"}) as client:
        r = await client.post("/graphql", json={"query": query, "variables": variables})
    result = r.json()["data"]["hold"]
    assert result["__typename"] == "BookingPayload", result
    return str(result["booking"]["id"])


async def test_bug1_leaving_a_live_page_shows_no_offline_banner(venue: Venue, new_page: Any) -> None:
    staff = await new_page()
    await staff_agenda(staff, venue)
    banner = staff.locator("#offline")
    for target in ("book", "agenda", "seats", "book"):
        await staff.evaluate(f"location.hash = '#/{target}'")
        await asyncio.sleep(0.6)  # the old subscription's socket closes meanwhile
        assert await banner.is_hidden(), f"after moving to #/{target}: {await banner.inner_text()}"


async def test_bug2_the_code_field_shows_only_after_a_code_was_asked_for(venue: Venue, new_page: Any) -> None:
    customer = await new_page()
    await customer.goto(venue.url("book"))  # the booking widget: sign-in comes once a time is picked
    await customer.locator("button.slot").first.click()
    await customer.get_by_label("Número do WhatsApp").wait_for()
    assert await customer.locator("input[name=code]").is_hidden()
    assert await customer.get_by_test_id("verify-code").is_hidden()
    await customer.get_by_label("Número do WhatsApp").fill(phone())
    await customer.get_by_test_id("send-code").click()
    await customer.locator("input[name=code]").wait_for(state="visible")


async def test_bug4_the_header_fits_a_390_px_phone_and_its_menu_opens(venue: Venue, new_page: Any) -> None:
    page = await new_page()
    await page.set_viewport_size({"width": 390, "height": 844})
    await staff_agenda(page, venue)
    await no_horizontal_scroll(page)
    header = await page.locator("header").bounding_box()
    assert header["width"] <= 390, header
    toggle = page.get_by_role("button", name="Menu")
    await toggle.click()
    assert await toggle.get_attribute("aria-expanded") == "true"
    for link in await page.locator("header nav a:visible").all():
        box = await link.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, (await link.inner_text(), box)
        assert box["height"] >= 44, (await link.inner_text(), box)  # a touch target
    await no_horizontal_scroll(page)
    await page.screenshot(path=shot("console-phone-menu"))
    await page.get_by_role("link", name="Book", exact=True).click()
    # the menu closes on the move (hashchange is dispatched after the click returns: a full run read it first)
    await page.wait_for_function(
        "document.querySelector('.menu-toggle').getAttribute('aria-expanded') === 'false'", timeout=3000)


async def test_bug5_past_slots_show_as_past_and_offer_no_booking(venue: Venue, new_page: Any) -> None:
    staff = await new_page()
    await staff_agenda(staff, venue)
    yesterday = (tomorrow_local(12) - timedelta(days=2)).astimezone(SAO_PAULO)
    await staff.get_by_label("Day").fill(yesterday.strftime("%Y-%m-%d"))
    past = staff.locator(cell_selector(venue.fields["Campo 1"], yesterday.replace(hour=10)))
    await past.wait_for()
    assert await past.get_attribute("data-state") == "PAST"
    assert "Past" in await past.inner_text()  # a label, never colour alone
    await past.click()
    await staff.get_by_test_id("past-note").wait_for()
    assert await staff.get_by_test_id("counter-form").count() == 0


async def test_bug6_a_hold_staff_made_is_not_labelled_hold_do_bot(venue: Venue, new_page: Any) -> None:
    """The default hold type's name ("Hold do bot") is the bot's: a hold staff placed for a caller says so."""
    staff = await new_page()
    await staff_agenda(staff, venue)
    await api_hold(venue, "Campo 3", 17, {"phone": phone()})  # staff, through the API, for a caller
    cell = cell_selector(venue.fields["Campo 3"], tomorrow_local(17))
    await staff.wait_for_selector(cell + '[data-state="HELD"]', timeout=3000)
    await staff.wait_for_function(f"document.querySelector('{cell} .label').textContent !== 'Held'", timeout=3000)
    label = await staff.locator(cell + " .label").inner_text()
    assert label == "Staff hold", label
    # A counter booking is booked, never a hold.
    counter = cell_selector(venue.fields["Campo 3"], tomorrow_local(18))
    await staff.locator(counter).click()
    form = staff.get_by_test_id("counter-form")
    await form.get_by_label("Customer name").fill("Balcão Bia")
    await form.get_by_label("Phone").fill(phone())
    await staff.get_by_role("button", name="Book at the counter").click()
    await staff.wait_for_selector(counter + '[data-state="BOOKED"]', timeout=3000)
    await staff.get_by_test_id("booking-details").get_by_text("Balcão Bia").wait_for()
    assert "Hold do bot" not in await staff.get_by_test_id("cell-panel").inner_text()
    assert await staff.locator(counter + " .label").inner_text() == "Booked"


async def test_bug7_staff_see_the_customer_the_slot_and_the_amounts_not_uuids(venue: Venue, new_page: Any) -> None:
    staff = await new_page()
    await staff_agenda(staff, venue)
    who, doc = phone(), cpf(456_789)
    booking = await api_hold(venue, "Campo 4", 15, {"phone": who, "cpf": doc, "name": "Carla Souza"})
    cell = cell_selector(venue.fields["Campo 4"], tomorrow_local(15))
    await staff.wait_for_selector(cell + '[data-state="HELD"]', timeout=3000)
    await staff.locator(cell).click()
    details = staff.get_by_test_id("booking-details")
    await details.get_by_text("Carla Souza").wait_for()
    assert await staff.get_by_test_id("customer-phone").inner_text() == who
    assert await staff.get_by_test_id("customer-cpf").inner_text() == f"***.{doc[3:6]}.{doc[6:9]}-**"
    when = await staff.get_by_test_id("booking-when").inner_text()
    assert "15:00" in when and "16:00" in when, when
    for amount in ("amount-due", "amount-paid", "amount-refunded"):
        assert "R$" in await staff.get_by_test_id(amount).inner_text()
    panel = await staff.get_by_test_id("cell-panel").inner_text()
    assert booking not in panel and not UUID_RE.search(panel), panel
    assert doc not in panel
    await staff.screenshot(path=shot("console-booking-panel"), full_page=True)
