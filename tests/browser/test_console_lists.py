"""The reception console's lists in a real browser (headless Debian Chromium + Playwright), against a real API and
worker, at desktop (1360 px) and phone (390 px) widths: the staff queue (#/queue) shows a "paguei" live and resolves
it with a note; the walk-in queue (#/waitlists) added to, offered and seated, live in a second page; the bookings
search (#/search) by name, phone and CPF, paging on; a counter booking (#/counter) for a found customer and a new
one, found at once. No console error, no horizontal scroll at 390 px; screenshots of each screen at both widths."""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from typing import Any

import asyncpg
import httpx
import pytest

from store.access import PgAccess
from tests.browser.a11y import assert_accessible
from tests.browser.conftest import SAO_PAULO, Venue, shot, tomorrow_local
from tests.venues import cpf

WIDTHS = [1360, 390]


async def api(venue: Venue, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=venue.base, timeout=10,
                                 headers={"authorization": f"Bearer {venue.owner_token}"}) as client:
        r = await client.post("/graphql", json={"query": query, "variables": variables})
    body = r.json()
    assert not body.get("errors"), body
    data: dict[str, Any] = body["data"]
    return data


COUNTER = """mutation($i: CounterBookingInput!) { counterBooking(input: $i) { __typename
  ... on BookingPayload { booking { id } } ... on Error { code message } } }"""


async def counter_booking(venue: Venue, field: str, hour: int, customer: dict[str, str], days: int = 0) -> str:
    from datetime import timedelta
    start = tomorrow_local(hour) + timedelta(days=days)
    r = (await api(venue, COUNTER, {"i": {
        "unitId": str(venue.unit_id), "resourceIds": [str(venue.fields[field])], "startsAt": start.isoformat(),
        "endsAt": (start + timedelta(hours=1)).isoformat(), "customer": customer}}))["counterBooking"]
    assert r["__typename"] == "BookingPayload", r
    booking_id: str = r["booking"]["id"]
    return booking_id


async def join_slot_waitlist(venue: Venue, field: str, hour: int, who: dict[str, str]) -> None:
    joined = await api(venue, """mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!, $c: CustomerInput!) {
        joinSlotWaitlist(unitId: $u, resourceId: $r, startsAt: $s, endsAt: $e, customer: $c) { __typename
        ... on Error { message } } }""", {"u": str(venue.unit_id), "r": str(venue.fields[field]),
                                          "s": tomorrow_local(hour).isoformat(),
                                          "e": tomorrow_local(hour + 1).isoformat(), "c": who})
    assert joined["joinSlotWaitlist"]["__typename"] == "SlotWaitlistEntry", joined


def phone() -> str:
    return f"+55119{secrets.randbelow(10**8):08d}"


async def console_page(new_page: Any, venue: Venue, screen: str, width: int, token: str | None = None,
                       before: Callable[[Any], None] | None = None) -> tuple[Any, list[str]]:
    """A staff page on one of the lists, signed in with the owner's token (or `token`), kept as the shell keeps it;
    `before(page)` runs before the page loads (to listen to its websocket)."""
    page = await new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    if before is not None:
        before(page)
    await page.set_viewport_size({"width": width, "height": 900})
    stored = json.dumps({"unitId": str(venue.unit_id), "serviceId": None,
                         "staffToken": token or venue.owner_token})
    await page.add_init_script(f"localStorage.setItem('slothold.demo', {json.dumps(stored)});")
    await page.goto(f"{venue.base}/?unit={venue.unit_id}#/{screen}")
    return page, errors


async def check_page(page: Any, errors: list[str], width: int) -> None:
    """No console error, no sideways scroll, 44 px targets on a phone, and axe finds nothing serious on the screen."""
    assert not errors, errors
    await assert_accessible(page, f"{page.url} at {width} px")
    scroll = await page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= width, f"the page is {scroll} px wide in a {width} px window"
    if width < 600:  # every button and field of the lists is a 44 px target on a phone
        small = await page.evaluate("""() => [...document.querySelectorAll(
            '.lists-screen button:not([hidden]), .lists-screen input, .lists-screen select')]
          .filter((e) => e.offsetParent !== null && e.getBoundingClientRect().height < 44)
          .map((e) => e.outerHTML.slice(0, 80))""")
        assert not small, small


def text(s: str) -> str:
    return s.replace("\xa0", " ")


@pytest.mark.parametrize("width", WIDTHS)
async def test_the_queue_shows_a_paguei_live_and_resolves_it_with_a_note(
        venue: Venue, new_page: Any, width: int) -> None:
    page, errors = await console_page(new_page, venue, "queue", width)
    await page.get_by_text("Nada para tratar").wait_for()
    await page.screenshot(path=shot(f"console-queue-empty-{width}"), full_page=True)

    who = {"name": "Paula Paguei", "phone": phone(), "cpf": cpf(810_000 + secrets.randbelow(10**5))}
    hold = await api(venue, """mutation($i: HoldInput!) { hold(input: $i) { __typename
        ... on BookingPayload { booking { id } } ... on Error { code message } } }""", {"i": {
        "unitId": str(venue.unit_id), "resourceIds": [str(venue.fields["Campo 2"])],
        "startsAt": tomorrow_local(20).isoformat(), "endsAt": tomorrow_local(21).isoformat(), "customer": who,
        "serviceId": str(venue.service_id)}})
    bid = hold["hold"]["booking"]["id"]
    confirmed = await api(venue, 'mutation($b: ID!) { confirm(bookingId: $b, channel: WHATSAPP, '
                          'contact: "+5511999990001") { __typename ... on Error { message } } }', {"b": bid})
    assert confirmed["confirm"]["__typename"] == "BookingPayload", confirmed
    claimed = await api(venue, "mutation($b: ID!) { claimPaid(bookingId: $b) { __typename } }", {"b": bid})
    assert claimed["claimPaid"]["__typename"] == "BookingPayload", claimed

    item = page.locator('li.lists-item[data-type="CUSTOMER_SAYS_PAID"]')
    await item.wait_for(timeout=3000)  # live: no reload
    assert "Cliente diz que pagou" in await item.inner_text()
    booking = item.get_by_test_id("queue-booking")
    await booking.get_by_text("Paula Paguei").wait_for()
    words = text(await booking.inner_text())
    assert "Conferindo Pix" in words and "Campo 2" in words and "R$" in words, words
    assert who["cpf"] not in words and f"***.{who['cpf'][3:6]}.{who['cpf'][6:9]}-**" in words, words
    await page.screenshot(path=shot(f"console-queue-{width}"), full_page=True)
    await assert_accessible(page, f"console-queue at {width} px")

    await item.get_by_role("button", name="Resolver", exact=True).click()
    note = item.get_by_label("Nota (opcional)")
    await note.fill("Pix conferido no extrato")
    await note.press("Enter")
    await item.wait_for(state="detached", timeout=5000)
    await page.get_by_text("Nada para tratar").wait_for()
    await check_page(page, errors, width)


@pytest.mark.parametrize("width", WIDTHS)
async def test_a_walk_in_added_offered_and_seated_shows_live_in_a_second_page(
        venue: Venue, new_page: Any, width: int) -> None:
    desk, errors = await console_page(new_page, venue, "waitlists", width)
    other, other_errors = await console_page(new_page, venue, "waitlists", 1360)
    for p in (desk, other):
        await p.get_by_text("Ninguém na fila de chegada.").wait_for()
    await desk.screenshot(path=shot(f"console-waitlists-empty-{width}"), full_page=True)
    # Someone waits for a taken slot (the screenshot shows who, as the desk sees them).
    await counter_booking(venue, "Campo 1", 18, {"name": "Tânia Tomada", "phone": phone()})
    await join_slot_waitlist(venue, "Campo 1", 18, {"name": "Wagner Espera",
                                                    "cpf": cpf(920_000 + secrets.randbelow(10**5))})
    await desk.get_by_test_id("slot-waitlists").get_by_text("Wagner Espera").wait_for(timeout=5000)

    form = desk.get_by_test_id("walk-in-form")
    await form.get_by_label("Nome").fill("Rafael Walk-in")
    await form.get_by_label("Telefone (WhatsApp)").fill("(11) 98888-7777")
    await form.get_by_label("Pessoas").fill("3")
    await form.get_by_role("button", name="Adicionar à fila").click()
    await desk.get_by_text("Rafael Walk-in entrou na fila.").wait_for()
    seen = other.locator('li[data-name="Rafael Walk-in"]')
    await other.locator('li[data-name="Rafael Walk-in"][data-status="WAITING"]').wait_for(timeout=3000)
    assert "3 pessoa(s)" in await seen.inner_text() and "(11) 98888-7777" in await seen.inner_text()

    row = desk.locator('li[data-name="Rafael Walk-in"]')
    await row.get_by_role("button", name="Avisar que há lugar").click()
    await other.locator('li[data-name="Rafael Walk-in"][data-status="OFFERED"]').wait_for(timeout=3000)
    await desk.locator('li[data-name="Rafael Walk-in"][data-status="OFFERED"]').wait_for()
    await desk.screenshot(path=shot(f"console-waitlists-{width}"), full_page=True)
    await assert_accessible(desk, f"console-waitlists at {width} px")

    await desk.locator('li[data-name="Rafael Walk-in"]').get_by_role("button", name="Acomodar").click()
    await other.locator('li[data-name="Rafael Walk-in"]').wait_for(state="detached", timeout=3000)
    await other.get_by_text("Ninguém na fila de chegada.").wait_for()
    await check_page(desk, errors, width)
    assert not other_errors, other_errors


@pytest.mark.parametrize("width", WIDTHS)
async def test_the_search_finds_a_booking_by_name_phone_and_cpf_and_pages_on(
        venue: Venue, new_page: Any, width: int) -> None:
    regular = {"name": "Marina Buscada", "phone": phone(), "cpf": cpf(820_000 + secrets.randbelow(10**5))}
    for n in range(22):  # more than a page (20)
        await counter_booking(venue, f"Campo {1 + n % 4}", 8 + n // 4, regular)
    other = {"name": "Otávio Único", "phone": phone(), "cpf": cpf(830_000 + secrets.randbelow(10**5))}
    await counter_booking(venue, "Campo 1", 21, other, days=1)

    page, errors = await console_page(new_page, venue, "search", width)
    results = page.get_by_test_id("search-results")
    await results.locator("li.lists-item").first.wait_for(timeout=20_000)  # this machine is shared: give it time
    form = page.get_by_test_id("search-form")

    await form.get_by_label("Nome").fill("marina")
    await form.get_by_role("button", name="Buscar").click()
    await page.get_by_test_id("search-count").get_by_text("20 reserva(s)").wait_for()
    await results.get_by_text("Marina Buscada").first.wait_for()
    await page.screenshot(path=shot(f"console-search-{width}"), full_page=True)
    await assert_accessible(page, f"console-search at {width} px")
    await page.get_by_role("button", name="Mais").click()
    await page.get_by_test_id("search-count").get_by_text("22 reserva(s)").wait_for()
    assert await page.get_by_role("button", name="Mais").is_hidden()

    await form.get_by_role("button", name="Limpar").click()
    local = other["phone"][3:]
    await form.get_by_label("Telefone").fill(f"({local[:2]}) {local[2:7]}-{local[7:]}")
    await form.get_by_role("button", name="Buscar").click()
    await page.get_by_test_id("search-count").get_by_text("1 reserva(s)").wait_for()
    await results.get_by_text("Otávio Único").wait_for()

    await form.get_by_label("Telefone").fill("")
    c = regular["cpf"]
    await form.get_by_label("CPF").fill(f"{c[:3]}.{c[3:6]}.{c[6:9]}-{c[9:]}")
    day = (tomorrow_local(12).astimezone(SAO_PAULO)).strftime("%Y-%m-%d")
    await form.get_by_label("Dia").fill(day)
    await form.get_by_label("Situação").select_option("CONFIRMED")
    await form.get_by_role("button", name="Buscar").click()
    await page.get_by_test_id("search-count").get_by_text("20 reserva(s)").wait_for()
    assert await results.get_by_text("Otávio Único").count() == 0

    await form.get_by_label("Nome").fill("ninguém com este nome")
    await form.get_by_role("button", name="Buscar").click()
    await results.get_by_text("Nenhuma reserva encontrada").wait_for()
    await check_page(page, errors, width)


async def book_at_the_counter(page: Any, field: str, start: str) -> Any:
    """Pick the field and start in the counter's slot form and book: the confirmation message, once shown."""
    slot = page.get_by_test_id("counter-slot")
    await slot.get_by_label("Campo").select_option(label=field)
    await slot.get_by_label("Início").select_option(start)
    await slot.get_by_role("button", name="Reservar").click()
    message = page.get_by_test_id("counter-message")
    await message.get_by_text("Reserva confirmada").wait_for()
    return message


@pytest.mark.parametrize("width", WIDTHS)
async def test_a_counter_booking_for_a_found_customer_and_for_a_new_one_is_found_at_once(
        venue: Venue, new_page: Any, width: int) -> None:
    known = {"name": "Carla Cliente", "phone": phone(), "cpf": cpf(840_000 + secrets.randbelow(10**5))}
    await counter_booking(venue, "Campo 1", 9, known)
    page, errors = await console_page(new_page, venue, "counter", width)
    await page.get_by_label("Cliente: nome, telefone ou CPF").fill("carla")
    found = page.get_by_test_id("customer-results")
    await found.get_by_text("Carla Cliente").wait_for()
    assert known["cpf"] not in await found.inner_text()
    await page.screenshot(path=shot(f"console-counter-{width}"), full_page=True)
    await assert_accessible(page, f"console-counter at {width} px")
    await found.get_by_role("button", name="Escolher Carla Cliente").click()
    await page.get_by_test_id("customer-chosen").get_by_text("Carla Cliente").wait_for()

    slot = page.get_by_test_id("counter-slot")
    message = await book_at_the_counter(page, "Campo 3", "19:00")
    assert "Campo 3" in await message.inner_text() and "19:00" in await message.inner_text()

    # A new customer, by hand.
    await page.get_by_label("Nome", exact=True).fill("Nilo Novo")
    await page.get_by_label("Telefone (WhatsApp)").fill("(11) 97777-1234")
    new_cpf = cpf(850_000 + secrets.randbelow(10**5))
    await page.get_by_label("CPF (opcional)").fill(new_cpf)
    await slot.get_by_label("Campo").select_option(label="Campo 4")
    await slot.get_by_label("Início").select_option("20:00")
    await slot.get_by_role("button", name="Reservar").click()
    await message.get_by_text("Campo 4").wait_for()

    # At once: both are found by the search.
    await page.goto(f"{venue.base}/?unit={venue.unit_id}#/search")
    form = page.get_by_test_id("search-form")
    await form.get_by_label("CPF").fill(new_cpf)
    await form.get_by_role("button", name="Buscar").click()
    await page.get_by_test_id("search-results").get_by_text("Nilo Novo").wait_for()
    assert "Confirmada" in await page.get_by_test_id("search-results").inner_text()
    await form.get_by_label("CPF").fill(known["cpf"])
    await form.get_by_role("button", name="Buscar").click()
    await page.get_by_test_id("search-count").get_by_text("2 reserva(s)").wait_for()
    await check_page(page, errors, width)


async def test_in_english_the_search_speaks_english_only_and_works_from_the_keyboard(
        venue: Venue, new_page: Any) -> None:
    await counter_booking(venue, "Campo 2", 15, {"name": "Kim Keyboard", "phone": phone()})
    page, errors = await console_page(new_page, venue, "search", 1360)
    await page.evaluate("localStorage.setItem('slothold.locale', 'en')")
    await page.reload()
    await page.get_by_role("heading", name="Find bookings").wait_for()
    await page.get_by_test_id("search-results").locator("li.lists-item").first.wait_for()
    words = await page.locator(".lists-screen").inner_text()
    for pt in ("Buscar", "Situação", "Confirmada", "reserva(s)", "Limpar"):
        assert pt not in words, pt
    await page.get_by_label("Name").focus()
    await page.keyboard.type("kim")
    for _ in range(12):  # phone, CPF, status, the day's parts, then the Search button
        await page.keyboard.press("Tab")
        if await page.evaluate("document.activeElement.textContent") == "Search":
            break
    assert await page.evaluate("document.activeElement.textContent") == "Search"
    await page.keyboard.press("Enter")
    await page.get_by_test_id("search-count").get_by_text("1 booking(s) shown").wait_for()
    await page.get_by_test_id("search-results").get_by_text("Kim Keyboard").wait_for()  # each row names its customer
    assert not errors, errors


async def test_a_list_that_cannot_load_says_so_and_offers_to_try_again(venue: Venue, new_page: Any) -> None:
    page = await new_page(expect_console=("CloseEvent", "401", "unauthenticated"))  # a token that is not valid
    stored = json.dumps({"unitId": str(venue.unit_id), "serviceId": None, "staffToken": "slh_not_a_token"})
    await page.add_init_script(f"localStorage.setItem('slothold.demo', {json.dumps(stored)});")
    for screen, wanted in (("queue", 1), ("waitlists", 2), ("search", 1), ("counter", 1)):  # every list
        # A new document each time (another query string; a move of the hash alone would keep the last alert a while).
        await page.goto(f"{venue.base}/?unit={venue.unit_id}&on={screen}#/{screen}")
        if screen == "counter":
            await page.get_by_label("Cliente: nome, telefone ou CPF").fill("carla")
        alert = page.locator(".lists-error[role=alert]")
        await alert.nth(wanted - 1).wait_for()
        assert await alert.count() == wanted, screen
        for n in range(wanted):
            assert (await alert.nth(n).inner_text()).strip(), screen
            await alert.nth(n).get_by_role("button", name="Tentar de novo").wait_for()
        await alert.first.get_by_role("button", name="Tentar de novo").click()  # tries again: still refused, said
        await alert.first.wait_for()


async def test_a_counter_booking_from_the_keyboard_alone(venue: Venue, new_page: Any) -> None:
    known = {"name": "Teodoro Teclado", "phone": phone()}
    await counter_booking(venue, "Campo 1", 9, known)
    page, errors = await console_page(new_page, venue, "counter", 1360)
    query = page.get_by_label("Cliente: nome, telefone ou CPF")
    await query.focus()
    await page.keyboard.type("teodoro")
    pick = page.get_by_role("button", name="Escolher Teodoro Teclado")
    await pick.wait_for()
    for _ in range(6):  # the search button, then the customer found
        await page.keyboard.press("Tab")
        if await page.evaluate("document.activeElement.getAttribute('aria-label')") == "Escolher Teodoro Teclado":
            break
    await page.keyboard.press("Enter")
    await page.get_by_test_id("customer-chosen").get_by_text("Teodoro Teclado").wait_for()
    # The focus went on to the slot's first field (the chosen customer's button is gone), not back to the page's top.
    assert await page.evaluate("document.activeElement.name") == "resource"
    await page.keyboard.press("ArrowDown")  # Campo 2
    for _ in range(8):  # day (its parts), start, length, then Book
        await page.keyboard.press("Tab")
        if await page.evaluate("document.activeElement.textContent") == "Reservar":
            break
    await page.keyboard.press("Enter")
    message = page.get_by_test_id("counter-message")
    await message.get_by_text("Reserva confirmada").wait_for()
    assert "Campo 2" in await message.inner_text()
    assert await page.get_by_role("button", name="Trocar cliente").count() == 0  # ready for the next customer
    assert not errors, errors


async def operator_token(venue: Venue, pool: asyncpg.Pool) -> str:
    """A token of the unit's least role: an operator (who may not read customer records by node, only bookings)."""
    tenant = await pool.fetchval("SELECT o.tenant_id FROM units u JOIN organizations o ON o.id = u.organization_id "
                                 "WHERE u.id = $1", venue.unit_id)
    _, token = await PgAccess(pool).issue_token(tenant, venue.unit_id, "staff", "operator", [], "browser operator")
    return token


HOLD = """mutation($i: HoldInput!) { hold(input: $i) { __typename
  ... on BookingPayload { booking { id } } ... on Error { code message } } }"""


async def paguei(venue: Venue, who: dict[str, str], field: str, hour: int) -> str:
    """A customer's hold, confirmed with its Pix, then "paguei": an item in the staff queue."""
    hold = await api(venue, HOLD, {"i": {
        "unitId": str(venue.unit_id), "resourceIds": [str(venue.fields[field])],
        "startsAt": tomorrow_local(hour).isoformat(), "endsAt": tomorrow_local(hour + 1).isoformat(), "customer": who,
        "serviceId": str(venue.service_id)}})
    bid: str = hold["hold"]["booking"]["id"]
    await api(venue, 'mutation($b: ID!) { confirm(bookingId: $b, channel: WHATSAPP, contact: "+5511999990001") '
              '{ __typename } }', {"b": bid})
    await api(venue, "mutation($b: ID!) { claimPaid(bookingId: $b) { __typename } }", {"b": bid})
    return bid


async def test_an_operator_sees_the_customers_names_in_the_queue_the_search_and_the_slot_waitlists(
        venue: Venue, new_page: Any, pool: asyncpg.Pool) -> None:
    token = await operator_token(venue, pool)
    paula = {"name": "Paula Operada", "phone": phone(), "cpf": cpf(860_000 + secrets.randbelow(10**5))}
    await paguei(venue, paula, "Campo 2", 20)
    only_cpf = {"name": "Célia Só-CPF", "cpf": cpf(870_000 + secrets.randbelow(10**5))}
    await counter_booking(venue, "Campo 1", 18, only_cpf)
    # Someone waits for Campo 1 at 18:00 (taken): a slot waitlist entry, known by CPF and name.
    waiting = {"name": "Wagner Espera", "cpf": cpf(880_000 + secrets.randbelow(10**5))}
    await join_slot_waitlist(venue, "Campo 1", 18, waiting)

    await paguei(venue, {"name": "Quim Segundo", "phone": phone()}, "Campo 3", 20)
    reads: list[str] = []

    def listen(page: Any) -> None:
        page.on("request", lambda r: reads.append(r.post_data or "") if r.url.endswith("/graphql") else None)

    page, errors = await console_page(new_page, venue, "queue", 1360, token=token, before=listen)
    items = page.locator('li.lists-item[data-type="CUSTOMER_SAYS_PAID"]')
    booking = items.get_by_test_id("queue-booking")
    await booking.get_by_text("Paula Operada").wait_for()
    await booking.get_by_text("Quim Segundo").wait_for()
    assert f"***.{paula['cpf'][3:6]}.{paula['cpf'][6:9]}-**" in await booking.first.inner_text() + \
        await booking.last.inner_text()
    # No request per row: the items' bookings (with their customers) come in one nodes(ids) request.
    per_row = [r for r in reads if "booking(id" in r or "node(id" in r]
    assert not per_row and any("nodes(ids" in r for r in reads), reads

    await page.goto(f"{venue.base}/?unit={venue.unit_id}#/search")
    results = page.get_by_test_id("search-results")
    await results.get_by_text("Paula Operada").wait_for()
    await results.get_by_text("Célia Só-CPF").wait_for()
    assert only_cpf["cpf"] not in await results.inner_text()

    await page.goto(f"{venue.base}/?unit={venue.unit_id}#/waitlists")
    line = page.get_by_test_id("slot-waitlists")
    await line.get_by_text("Wagner Espera").wait_for()
    words = await line.inner_text()
    assert f"***.{waiting['cpf'][3:6]}.{waiting['cpf'][6:9]}-**" in words and waiting["cpf"] not in words, words
    await check_page(page, errors, 1360)


async def test_the_search_holds_one_subscription_whatever_its_rows_and_updates_a_row_live(
        venue: Venue, new_page: Any) -> None:
    regular = {"name": "Sérgio Sessenta", "phone": phone(), "cpf": cpf(890_000 + secrets.randbelow(10**5))}
    ids = [await counter_booking(venue, f"Campo {1 + n % 4}", 8 + n // 4, regular) for n in range(22)]
    subscribes: list[dict[str, Any]] = []

    def listen(page: Any) -> None:
        def on_socket(ws: Any) -> None:
            def sent(payload: Any) -> None:
                message = json.loads(payload) if isinstance(payload, str) else {}
                if message.get("type") == "subscribe":
                    subscribes.append(message)
            ws.on("framesent", sent)
        page.on("websocket", on_socket)

    page, errors = await console_page(new_page, venue, "search", 1360, before=listen)
    form = page.get_by_test_id("search-form")
    await form.get_by_label("Nome").fill("sérgio")
    await form.get_by_role("button", name="Buscar").click()
    await page.get_by_test_id("search-count").get_by_text("20 reserva(s)").wait_for()
    await page.get_by_role("button", name="Mais").click()
    await page.get_by_test_id("search-count").get_by_text("22 reserva(s)").wait_for()
    await page.wait_for_timeout(300)
    assert len(subscribes) == 1, subscribes  # one unit-wide feed, not one per row (22 here)
    assert "slotChanged" in subscribes[0]["payload"]["query"]

    # A shown booking is cancelled elsewhere: its row says so, live, with no new subscription.
    row = page.locator(f'li.lists-item[data-booking="{ids[21]}"]')
    assert await row.get_attribute("data-status") == "CONFIRMED"
    await api(venue, 'mutation($b: ID!) { cancel(bookingId: $b, reason: "teste") { __typename } }', {"b": ids[21]})
    await page.locator(f'li.lists-item[data-booking="{ids[21]}"][data-status="CANCELLED"]').wait_for(timeout=5000)
    assert "Cancelada" in await page.locator(f'li.lists-item[data-booking="{ids[21]}"]').inner_text()
    assert len(subscribes) == 1, subscribes
    await check_page(page, errors, 1360)


@pytest.mark.parametrize("width", WIDTHS)
async def test_a_customer_known_by_cpf_alone_is_found_picked_and_booked_at_the_counter(
        venue: Venue, new_page: Any, width: int) -> None:
    only_cpf = {"name": "Otília Só-CPF", "cpf": cpf(910_000 + secrets.randbelow(10**5))}
    await counter_booking(venue, "Campo 1", 9, only_cpf)
    page, errors = await console_page(new_page, venue, "counter", width)
    c = only_cpf["cpf"]
    await page.get_by_label("Cliente: nome, telefone ou CPF").fill(f"{c[:3]}.{c[3:6]}.{c[6:9]}-{c[9:]}")
    found = page.get_by_test_id("customer-results")
    await found.get_by_text("Otília Só-CPF").wait_for()
    await found.get_by_role("button", name="Escolher Otília Só-CPF").click()
    message = await book_at_the_counter(page, "Campo 2", "21:00")
    booked = await message.get_attribute("data-booking")
    got = await api(venue, "query($b: ID!) { booking(id: $b) { ... on Booking { status customer { name cpfMasked } "
                    "} } }", {"b": booked})
    assert got["booking"] == {"status": "CONFIRMED", "customer": {
        "name": "Otília Só-CPF", "cpfMasked": f"***.{c[3:6]}.{c[6:9]}-**"}}, got
    found_again = await api(venue, "query($u: ID!, $s: String!) { customers(unitId: $u, search: $s) { edges { node "
                            "{ id } } } }", {"u": str(venue.unit_id), "s": c})
    assert len(found_again["customers"]["edges"]) == 1  # the same record, not a new one
    await check_page(page, errors, width)
