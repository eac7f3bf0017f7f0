"""A receptionist's day on the live agenda (issue 20), at 1360 px: a customer's hold (made through the API) appears
live; its panel shows the customer's name and phone and the amounts; the payment is confirmed; a counter booking is
checked in inside the check-in window; a booking that began is marked a no-show; a hold is dropped with a reason;
a booking is rescheduled by picking a new slot. No console error; at 390 px no horizontal scroll."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import httpx

from store.access import PgAccess
from store.venues import ResourceSpec, VenueSpec, create_venue, every_day
from tests.browser.conftest import SAO_PAULO, Venue, cell_selector, shot
from tests.browser.test_console_bugs import no_horizontal_scroll
from tests.browser.test_web_demo import in_english, phone
from tests.integration.cluster import Cluster
from tests.venues import cpf


async def api(venue: Venue, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=venue.base, timeout=10,
                                 headers={"authorization": f"Bearer {venue.owner_token}"}) as client:
        r = await client.post("/graphql", json={"query": query, "variables": variables})
    body = r.json()
    assert not body.get("errors"), body
    return body["data"]  # type: ignore[no-any-return]


async def booking(venue: Venue, mutation: str, field: str, start: datetime, customer: dict[str, str],
                  service: bool = False) -> str:
    result = (await api(venue, f"""mutation($i: {'CounterBookingInput' if mutation == 'counterBooking' else
        'HoldInput'}!) {{ {mutation}(input: $i) {{ __typename ... on BookingPayload {{ booking {{ id }} }}
        ... on Error {{ code message }} }} }}""", {"i": {
        "unitId": str(venue.unit_id), "resourceIds": [str(venue.fields[field])], "startsAt": start.isoformat(),
        "endsAt": (start + timedelta(hours=1)).isoformat(), "customer": customer,
        **({"serviceId": str(venue.service_id)} if service else {})}}))[mutation]
    assert result["__typename"] == "BookingPayload", result
    return str(result["booking"]["id"])


async def day_venue(demo_server: Cluster, pool: asyncpg.Pool) -> Venue:
    """A venue open around the clock (so that the day's checks need no particular hour to run)."""
    created = await create_venue(pool, VenueSpec(
        unit_name="Arena Beira-Mar", hours=every_day(0, 24),
        resources=[ResourceSpec(name=f"Quadra {i}", group="Quadras") for i in range(1, 4)],
        services=[{"name": "Locação de quadra (1 h)", "duration_minutes": 60, "price_cents": 18000}]))
    _, token = await PgAccess(pool).issue_token(created.tenant_id, created.unit_id, "staff", "owner", [], "recepção")
    return Venue(created.unit_id, created.resource_ids, next(iter(created.service_ids.values())), token,
                 f"http://127.0.0.1:{demo_server.apis[0][1]}")


async def show_day(page: Any, when: datetime) -> None:
    day = when.astimezone(SAO_PAULO).strftime("%Y-%m-%d")
    if await page.get_by_label("Day").input_value() != day:
        await page.get_by_label("Day").fill(day)
    await page.locator(f'section.agenda-day[data-day="{day}"] td.cell').first.wait_for()


async def open_cell(page: Any, venue: Venue, field: str, start: datetime) -> str:
    await show_day(page, start)
    cell = cell_selector(venue.fields[field], start)
    await page.locator(cell).click()
    return cell


async def test_a_receptionists_day(demo_server: Cluster, pool: asyncpg.Pool, new_page: Any) -> None:
    venue = await day_venue(demo_server, pool)
    await api(venue, "mutation($u: ID!) { updateUnitParameters(unitId: $u, input: {noShowGraceMinutes: 0}) "
                     "{ __typename } }", {"u": str(venue.unit_id)})
    now = datetime.now(UTC)
    hour = now.replace(minute=0, second=0, microsecond=0)
    staff = await new_page()
    console: list[str] = []
    staff.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
    await in_english(staff)
    await staff.goto(venue.url("agenda"))
    await staff.get_by_label("Staff token").fill(venue.owner_token)
    await staff.get_by_role("button", name="Sign in", exact=True).click()
    await staff.locator("td.cell").first.wait_for()

    # A customer's hold, made through the API, appears live; its panel says who and how much.
    later = hour + timedelta(hours=3)
    await show_day(staff, later)
    who = phone()
    held = await booking(venue, "hold", "Quadra 1", later, {"phone": who, "cpf": cpf(321_654), "name": "Marina Lopes"},
                         service=True)
    cell = cell_selector(venue.fields["Quadra 1"], later)
    await staff.wait_for_selector(cell + '[data-state="HELD"]', timeout=3000)
    await staff.locator(cell).click()
    await staff.get_by_test_id("booking-details").get_by_text("Marina Lopes").wait_for()
    assert await staff.get_by_test_id("customer-phone").inner_text() == who
    assert "R$" in await staff.get_by_test_id("amount-paid").inner_text()
    assert held not in await staff.get_by_test_id("cell-panel").inner_text()

    # The customer accepts (a Pix charge is issued) and pays at the desk: staff confirm the payment.
    accepted = await api(venue, 'mutation($b: ID!) { confirm(bookingId: $b, channel: WEB) { __typename '
                         '... on Error { code message } } }', {"b": held})
    assert accepted["confirm"]["__typename"] == "BookingPayload", accepted
    await staff.get_by_test_id("booking-status").get_by_text("pending payment").wait_for()
    assert "R$180.00" in (await staff.get_by_test_id("amount-total").inner_text()).replace("\xa0", " ")
    assert await staff.get_by_role("button", name="Confirm payment").is_visible()  # for a Pix the bank has
    # Paid in cash at the desk: recorded by hand, and the booking is confirmed.
    message = staff.get_by_test_id("panel-message")
    await staff.get_by_text("Record a payment by hand").first.click()
    form = staff.get_by_test_id("manual-payment")
    await form.get_by_label("Amount (R$)").fill("180")
    await form.get_by_label("Method").select_option("CASH")
    await form.get_by_role("button", name="Record payment").click()
    await staff.wait_for_function("() => { const m = document.querySelector('[data-testid=panel-message]');"
                                  " return m && !m.hidden && m.textContent; }")
    assert await message.inner_text() == "Payment recorded."
    await staff.wait_for_selector(cell + '[data-state="BOOKED"]', timeout=3000)
    await staff.get_by_test_id("booking-status").get_by_text("confirmed").wait_for()
    assert "R$180.00" in await staff.get_by_test_id("amount-paid").inner_text()
    await staff.screenshot(path=shot("console-day-panel"), full_page=True)

    # Reschedule it by picking a new slot: two hours later on Quadra 2.
    await staff.get_by_test_id("reschedule").click()
    moved_to = later + timedelta(hours=2)
    target = await open_cell(staff, venue, "Quadra 2", moved_to)
    await staff.get_by_test_id("move-here").click()
    await staff.wait_for_selector(target + '[data-state="BOOKED"]', timeout=3000)
    await show_day(staff, later)  # after 22:00 the new slot is on the next day: the old one is on the day before
    await staff.wait_for_selector(cell + '[data-state="FREE"]', timeout=3000)
    # Five hours ahead, check-in is not open yet: the refusal names the window in words.
    await show_day(staff, moved_to)
    await staff.locator(target).click()
    await staff.get_by_role("button", name="Check in").click()
    await staff.wait_for_function("() => { const m = document.querySelector('[data-testid=panel-message]');"
                                  " return m && m.className.includes('error'); }")
    refusal = await staff.get_by_test_id("panel-message").inner_text()
    assert refusal[0].isupper() and refusal.endswith("."), refusal
    assert "T0" not in refusal and "+00:00" not in refusal, refusal  # in the unit's time, not ISO/UTC
    assert (moved_to - timedelta(hours=2)).astimezone(SAO_PAULO).strftime("%H:%M") in refusal, refusal

    # A counter booking starting within the hour: checked in inside the window; the history shows it.
    soon = hour + timedelta(hours=1)
    await booking(venue, "counterBooking", "Quadra 3", soon, {"phone": phone(), "name": "Rafael Dias"})
    counter = await open_cell(staff, venue, "Quadra 3", soon)
    await staff.get_by_role("button", name="Check in").click()
    await message.get_by_text("Checked in.").wait_for()
    await staff.get_by_test_id("booking-history").get_by_text("checked in").wait_for()
    assert await staff.locator(counter).get_attribute("data-state") == "BOOKED"

    # A booking that began with nobody there: a no-show.
    await booking(venue, "counterBooking", "Quadra 2", hour, {"phone": phone(), "name": "Sem Aparecer"})
    await open_cell(staff, venue, "Quadra 2", hour)
    await staff.get_by_role("button", name="No-show").click()
    await message.get_by_text("Marked as a no-show.").wait_for()

    # A hold dropped with a reason: the slot is free at once.
    dropped = later + timedelta(hours=1)
    await booking(venue, "hold", "Quadra 3", dropped, {"phone": phone()})
    drop_cell = cell_selector(venue.fields["Quadra 3"], dropped)
    await show_day(staff, dropped)
    await staff.wait_for_selector(drop_cell + '[data-state="HELD"]', timeout=3000)
    await staff.locator(drop_cell).click()
    await staff.get_by_test_id("drop-form").get_by_label("Reason").fill("Cliente desistiu por telefone")
    await staff.get_by_role("button", name="Drop this hold").click()
    await staff.wait_for_selector(drop_cell + '[data-state="FREE"]', timeout=3000)
    reason = await pool.fetchval("SELECT reason FROM booking_events WHERE new_status = 'cancelled' AND reason LIKE "
                                 "'%desistiu%' ORDER BY at DESC LIMIT 1")
    assert reason and "desistiu" in reason

    # At 390 px the same screen has no horizontal scroll.
    await staff.set_viewport_size({"width": 390, "height": 844})
    await no_horizontal_scroll(staff)
    await staff.screenshot(path=shot("console-day-phone"), full_page=True)
    assert not console, console


async def test_a_hold_made_while_the_agendas_subscription_is_slow_to_start_still_shows(
    demo_server: Cluster, pool: asyncpg.Pool, new_page: Any
) -> None:
    """The agenda reads its grid, then follows it from the event the grid reflects (`Grid.seq`). Here the page's
    slotChanged subscribe message is held back until a hold made after the grid painted is numbered by the relay:
    it still shows, replayed. (Subscribing first without `since` lost it: the subscription started from whatever was
    numbered when the server got to it — a CI run under load met exactly this.)"""
    venue = await day_venue(demo_server, pool)
    staff = await new_page()
    held_back: list[tuple[Any, str | bytes]] = []  # (the socket's server side, a subscribe message it waits for)
    released = False

    def route(ws: Any) -> None:
        server = ws.connect_to_server()

        def from_page(message: str | bytes) -> None:
            text = message if isinstance(message, str) else message.decode()
            if not released and '"subscribe"' in text and "slotChanged" in text:
                held_back.append((server, message))
            else:
                server.send(message)

        ws.on_message(from_page)

    await staff.route_web_socket("**/graphql", route)
    await in_english(staff)
    await staff.goto(venue.url("agenda"))
    await staff.get_by_label("Staff token").fill(venue.owner_token)
    await staff.get_by_role("button", name="Sign in", exact=True).click()
    await staff.locator("td.cell").first.wait_for()
    later = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) + timedelta(hours=3)
    await show_day(staff, later)
    await booking(venue, "hold", "Quadra 2", later, {"phone": phone(), "cpf": cpf(321_777)})
    for _ in range(100):  # numbered by the relay: a subscription without since would now start after it
        if await pool.fetchval("SELECT count(*) FROM outbox WHERE unit_id = $1 AND topic = 'slot_changed' "
                               "AND seq IS NOT NULL", venue.unit_id):
            break
        await asyncio.sleep(0.1)
    else:
        raise AssertionError("the relay did not number the hold's event")
    assert held_back, "the agenda sent no slotChanged subscription"
    cell = cell_selector(venue.fields["Quadra 2"], later)
    assert await staff.locator(cell).get_attribute("data-state") == "FREE"  # the grid was read before the hold
    released = True
    for server, message in held_back:
        server.send(message)
    await staff.wait_for_selector(cell + '[data-state="HELD"]', timeout=10_000)
