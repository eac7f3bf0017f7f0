"""The reception console's shell, agenda and booking panel (issue 20), in a real browser against a real API and
worker: one language per screen (pt-BR by default, English after the header's switch, without a reload and kept
for the next visit); the agenda never paints an older grid answer after quick day changes; cancel shows the refund
it will give before the receptionist confirms it; a Pix the bank has received is confirmed from the panel and the
grid turns booked live."""

from __future__ import annotations

import asyncio
import json
import re
from datetime import timedelta
from typing import Any

import asyncpg

from providers.sandbox import SandboxProvider
from tests.browser.conftest import SAO_PAULO, Venue, cell_selector, shot, snap, tomorrow_local
from tests.browser.test_console_bugs import no_horizontal_scroll
from tests.browser.test_console_day import api
from tests.browser.test_web_demo import phone
from tests.venues import cpf

# Words only the console's Portuguese shows, and only its English: the screens walked below show each of them in
# their language (shell, agenda, legend, the panels of a hold and of a confirmed booking), never the other's.
PT_WORDS = ["Reservar", "Configuração", "Balcão", "Idioma", "Equipe", "sair", "Hoje", "Recurso", "Livre",
            "Tipos de hold", "Hold do bot", "Reserva no balcão", "Nome do cliente", "Cliente", "Situação", "Pago",
            "Reembolsado", "Histórico", "Derrubar este hold", "Registrar um pagamento à mão", "Fazer check-in",
            "Não compareceu", "Cancelar reserva", "Motivo", "Remarcar"]
EN_WORDS = ["Book", "Set-up", "Counter", "Language", "Staff", "sign out", "Today", "Resource", "Free", "Hold types",
            "Bot hold", "Counter booking", "Customer name", "Customer", "Status", "Paid", "Refunded", "History",
            "Drop this hold", "Record a payment by hand", "Check in", "No-show", "Cancel booking", "Reason",
            "Reschedule"]
# The language switch names each language in itself; the rest of the screen is what is checked.
SCREEN_TEXT = """() => [document.querySelector('header nav'), document.querySelector('#who'),
  document.querySelector('.lang span'), document.querySelector('main')].map((e) => e ? e.innerText : '').join('\\n')"""


async def place(venue: Venue, mutation: str, field: str, hour: int, customer: dict[str, str],
                service: bool = False) -> str:
    kind = "CounterBookingInput" if mutation == "counterBooking" else "HoldInput"
    result = (await api(venue, f"""mutation($i: {kind}!) {{ {mutation}(input: $i) {{ __typename
        ... on BookingPayload {{ booking {{ id }} }} ... on Error {{ code message }} }} }}""", {"i": {
        "unitId": str(venue.unit_id), "resourceIds": [str(venue.fields[field])],
        "startsAt": tomorrow_local(hour).isoformat(), "endsAt": tomorrow_local(hour + 1).isoformat(),
        "customer": customer, **({"serviceId": str(venue.service_id)} if service else {})}}))[mutation]
    assert result["__typename"] == "BookingPayload", result
    return str(result["booking"]["id"])


async def pending_pix(venue: Venue, field: str, hour: int, name: str) -> tuple[str, str]:
    """A customer's hold with the service, accepted on the web: pending payment with a Pix charge (id, txid)."""
    booking = await place(venue, "hold", field, hour, {"phone": phone(), "cpf": cpf(hour * 1000 + 77), "name": name},
                          service=True)
    accepted = (await api(venue, "mutation($b: ID!) { confirm(bookingId: $b, channel: WEB) { __typename "
                          "... on Error { code message } } }", {"b": booking}))["confirm"]
    assert accepted["__typename"] == "BookingPayload", accepted
    charges = (await api(venue, "query($b: ID!) { chargesConnection(bookingId: $b, first: 5) { edges { node { txid } } "
                         "} }", {"b": booking}))["chargesConnection"]["edges"]
    return booking, charges[0]["node"]["txid"]


async def signed_in(page: Any, venue: Venue) -> None:
    """Staff signed in (the token kept as the shell keeps it) on tomorrow's agenda, in the language stored."""
    stored = json.dumps({"unitId": str(venue.unit_id), "serviceId": None, "staffToken": venue.owner_token})
    await page.add_init_script(f"localStorage.setItem('slothold.demo', {json.dumps(stored)});")
    await page.goto(venue.url("agenda"))
    await page.locator("td.cell").first.wait_for()
    day = tomorrow_local(12).astimezone(SAO_PAULO).strftime("%Y-%m-%d")
    await page.locator("input[type=date]").fill(day)
    await page.locator(f'section.agenda-day[data-day="{day}"] td.cell').first.wait_for()


def words_of(text: str, words: list[str]) -> list[str]:
    return [w for w in words if re.search(rf"(?<!\w){re.escape(w)}(?!\w)", text)]


async def walk(page: Any, venue: Venue) -> str:
    """The text of every screen part checked: the agenda with its legend, then a hold's panel, then a confirmed
    booking's panel (its cancel form and the manual payment form opened)."""
    await page.locator(".legend-types .chip").first.wait_for()
    texts = [await page.evaluate(SCREEN_TEXT)]
    held = cell_selector(venue.fields["Campo 1"], tomorrow_local(10))
    await page.wait_for_selector(held + '[data-state="HELD"]')  # the grid drawn with its bookings, not before
    await page.locator(held).click()
    await page.get_by_test_id("booking-history").wait_for()
    texts.append(await page.evaluate(SCREEN_TEXT))
    booked = cell_selector(venue.fields["Campo 2"], tomorrow_local(11))
    await page.wait_for_selector(booked + '[data-state="BOOKED"]')
    await page.locator(booked).click()
    await page.get_by_test_id("cancel-form").wait_for()
    await page.locator("[data-testid=booking-actions] details summary").click()
    texts.append(await page.evaluate(SCREEN_TEXT))
    await page.locator(cell_selector(venue.fields["Campo 3"], tomorrow_local(12))).click()
    await page.get_by_test_id("counter-form").wait_for()
    texts.append(await page.evaluate(SCREEN_TEXT))
    return "\n".join(texts)


async def test_the_console_speaks_pt_br_by_default_and_english_after_the_switch(venue: Venue, new_page: Any) -> None:
    await place(venue, "hold", "Campo 1", 10, {"phone": phone(), "name": "Bruna Brito"}, service=True)
    await place(venue, "counterBooking", "Campo 2", 11, {"phone": phone(), "name": "Caio Costa"})
    page = await new_page(locale="en-GB")  # the browser's own language does not decide: the console's default does
    lookups: list[str] = []  # the grid names each hold by its channel: no booking is read to label a cell
    page.on("request", lambda r: lookups.append(r.post_data) if "b0: booking(" in (r.post_data or "") else None)
    await page.goto(venue.url("agenda"))
    signin = page.get_by_test_id("staff-signin")
    await signin.wait_for()
    assert await page.evaluate("document.documentElement.lang") == "pt-BR"
    assert "Entrada da equipe" in await signin.inner_text() and "Staff sign-in" not in await page.inner_text("body")
    await page.get_by_label("Token da equipe").fill(venue.owner_token)
    await page.get_by_role("button", name="Entrar", exact=True).click()
    await page.locator("td.cell").first.wait_for()
    day = tomorrow_local(12).astimezone(SAO_PAULO).strftime("%Y-%m-%d")
    await page.get_by_label("Dia", exact=True).fill(day)
    await page.locator(f'section.agenda-day[data-day="{day}"] td.cell').first.wait_for()
    await page.locator("#who").get_by_text("Equipe").wait_for()

    pt = await walk(page, venue)
    assert words_of(pt, PT_WORDS) == PT_WORDS, f"missing in pt-BR: {set(PT_WORDS) - set(words_of(pt, PT_WORDS))}"
    assert not words_of(pt, EN_WORDS), f"English on the pt-BR screen: {words_of(pt, EN_WORDS)}"
    heading = await page.locator(f'section.agenda-day[data-day="{day}"] h3').inner_text()
    assert " de " in heading, heading  # "qui., 03 de dez."
    # A refusal reads in the screen's language too (the API's code, said in Portuguese).
    await page.get_by_test_id("counter-form").get_by_label("Nome do cliente").fill("Sem Telefone")
    await page.get_by_role("button", name="Reservar no balcão").click()
    await page.get_by_test_id("panel-message").get_by_text("O cliente precisa de um CPF ou de um telefone.").wait_for()
    await page.locator(cell_selector(venue.fields["Campo 1"], tomorrow_local(10))).click()
    paid = (await page.get_by_test_id("amount-total").inner_text()).replace("\xa0", " ")
    assert paid == "R$ 200,00", paid  # money by the locale
    await snap(page, "console-pt")

    # The switch: the nav, the header and the screen change language at once, on the same day, with no reload.
    await page.evaluate("window.notReloaded = true")
    switch = page.get_by_label("Idioma")
    await switch.select_option("en")
    await page.locator("#who").get_by_text("Staff:").wait_for()
    await page.locator(f'section.agenda-day[data-day="{day}"] td.cell').first.wait_for()
    assert await page.evaluate("window.notReloaded") is True
    await page.get_by_test_id("booking-details").get_by_text("Customer").wait_for()  # the panel open before
    assert await page.get_by_test_id("customer-name").inner_text() == "Bruna Brito"
    assert await page.evaluate("document.documentElement.lang") == "en"
    assert await page.get_by_label("Language").input_value() == "en"
    en = await walk(page, venue)
    assert words_of(en, EN_WORDS) == EN_WORDS, f"missing in English: {set(EN_WORDS) - set(words_of(en, EN_WORDS))}"
    assert not words_of(en, PT_WORDS), f"Portuguese on the English screen: {words_of(en, PT_WORDS)}"
    heading = await page.locator(f'section.agenda-day[data-day="{day}"] h3').inner_text()
    assert " de " not in heading, heading
    await page.locator(cell_selector(venue.fields["Campo 1"], tomorrow_local(10))).click()
    assert (await page.get_by_test_id("amount-total").inner_text()) == "R$200.00"
    await no_horizontal_scroll(page)
    await snap(page, "console-en")

    assert await page.locator(cell_selector(venue.fields["Campo 1"], tomorrow_local(10)) + " .label").inner_text() \
        == "Staff hold"
    assert not lookups, lookups
    # Kept for the next visit.
    await page.reload()
    await page.locator("td.cell").first.wait_for()
    assert await page.evaluate("document.documentElement.lang") == "en"
    assert await page.get_by_role("link", name="Staff queue").is_visible()


async def test_quick_day_changes_never_leave_an_older_answer_on_the_grid(venue: Venue, new_page: Any) -> None:
    page = await new_page()
    await signed_in(page, venue)
    first = (tomorrow_local(12) + timedelta(days=1)).astimezone(SAO_PAULO).strftime("%Y-%m-%d")
    second = (tomorrow_local(12) + timedelta(days=2)).astimezone(SAO_PAULO).strftime("%Y-%m-%d")
    delayed: list[str] = []
    answered = asyncio.Event()

    async def slow_first_grid(route: Any) -> None:
        body = route.request.post_data or ""
        if "availabilityGrid" in body and not delayed:
            delayed.append(body)
            await asyncio.sleep(1.5)  # the first day's answer arrives after the second's
            await route.continue_()
            answered.set()
            return
        await route.continue_()

    await page.route("**/graphql", slow_first_grid)
    await page.get_by_label("Dia", exact=True).fill(first)
    await page.get_by_label("Dia", exact=True).fill(second)
    await page.locator(f'section.agenda-day[data-day="{second}"] td.cell').first.wait_for()
    await asyncio.wait_for(answered.wait(), 5)
    await page.wait_for_timeout(500)  # the older answer has been read by now
    assert first in delayed[0]  # the delayed answer was the first day's (its range starts that day)
    section = page.locator("section.agenda-day")
    assert await section.count() == 1 and await section.get_attribute("data-day") == second
    starts = await page.locator("td.cell").evaluate_all("cells => cells.map(c => c.dataset.start)")
    assert starts and all(s.startswith(second) or s.startswith(
        (tomorrow_local(12) + timedelta(days=3)).strftime("%Y-%m-%d")) for s in starts), starts[:3]
    assert "Fechado o dia todo" not in await page.inner_text("main")
    await page.unroute("**/graphql")


async def test_cancel_shows_the_refund_it_will_give_before_it_is_confirmed(venue: Venue, new_page: Any) -> None:
    booking, txid = await pending_pix(venue, "Campo 4", 19, "Rita Reembolso")
    paid = (await api(venue, "mutation($t: String!) { sandboxPay(txid: $t) { __typename } }", {"t": txid}))
    assert paid["sandboxPay"]["__typename"] == "PaymentOutcome", paid
    refund_query = "query($b: ID!) { booking(id: $b) { ... on Booking { status paidCents refundedCents " \
                   "refundIfCancelledNowCents } } }"
    for _ in range(50):
        before = (await api(venue, refund_query, {"b": booking}))["booking"]
        if before["status"] == "CONFIRMED":
            break
        await asyncio.sleep(0.1)
    assert before["status"] == "CONFIRMED" and before["paidCents"] > 0, before
    refund = before["refundIfCancelledNowCents"]
    assert refund > 0, before  # tomorrow is inside a tier that gives money back
    words = f"R$ {refund // 100},{refund % 100:02d}"

    page = await new_page()
    await signed_in(page, venue)
    cell = cell_selector(venue.fields["Campo 4"], tomorrow_local(19))
    await page.locator(cell).click()
    form = page.get_by_test_id("cancel-form")
    await form.wait_for()
    said = (await page.get_by_test_id("refund-words").inner_text()).replace("\xa0", " ")
    assert f"devolve {words}" in said, said
    await form.get_by_label("Motivo").fill("Cliente pediu por telefone")
    await form.get_by_role("button", name="Cancelar reserva").click()
    ask = page.get_by_test_id("cancel-confirm")
    await ask.wait_for()
    assert words in (await page.get_by_test_id("refund-amount").inner_text()).replace("\xa0", " ")
    assert (await api(venue, refund_query, {"b": booking}))["booking"]["status"] == "CONFIRMED"  # nothing done yet
    await page.screenshot(path=shot("console-cancel-refund"), full_page=True)
    await ask.get_by_role("button", name="Confirmar o cancelamento").click()
    await page.get_by_test_id("panel-message").get_by_text("Cancelada: o horário está livre.").wait_for()
    await page.wait_for_selector(cell + '[data-state="FREE"]', timeout=3000)
    for _ in range(100):  # the refund is sent by the worker, just after the cancellation
        after = (await api(venue, refund_query, {"b": booking}))["booking"]
        if after["refundedCents"]:
            break
        await asyncio.sleep(0.1)
    assert after["status"] == "CANCELLED" and after["refundedCents"] == refund, after


async def test_a_pix_the_bank_received_is_confirmed_from_the_panel_and_the_grid_turns_booked(
        venue: Venue, new_page: Any, pool: asyncpg.Pool) -> None:
    booking, txid = await pending_pix(venue, "Campo 3", 20, "Paula Paguei")
    claimed = (await api(venue, "mutation($b: ID!) { claimPaid(bookingId: $b) { __typename "
                         "... on Error { code message } } }", {"b": booking}))["claimPaid"]
    assert claimed["__typename"] == "BookingPayload", claimed  # "paguei": frozen while staff check
    page = await new_page()
    await signed_in(page, venue)
    cell = cell_selector(venue.fields["Campo 3"], tomorrow_local(20))
    await page.wait_for_selector(cell + '[data-state="VERIFYING"]', timeout=3000)
    await page.locator('li.item[data-type="CUSTOMER_SAYS_PAID"]').first.wait_for()  # the queue's "paguei" item

    await page.locator(cell).click()
    await page.get_by_test_id("booking-details").get_by_text("Paula Paguei").wait_for()
    confirm = page.get_by_test_id("booking-actions").get_by_role("button", name="Confirmar pagamento")
    await confirm.wait_for()
    # The bank received the Pix, but its webhook never came: staff asking the bank confirm it. Paid only now, with
    # the button on screen: the worker asks the bank too (its poll of "paguei" charges, every 20 s), and a CI run's
    # poll confirmed the booking first while a loaded browser was still opening the panel (the button went away).
    await SandboxProvider(pool, "webhook-lost").pay(txid)
    await confirm.click()
    await page.get_by_test_id("panel-message").get_by_text("Pagamento confirmado.").wait_for()
    await page.wait_for_selector(cell + '[data-state="BOOKED"]', timeout=3000)  # live, from the event
    await page.get_by_test_id("booking-status").get_by_text("confirmada").wait_for()
    assert "R$ 200,00" in (await page.get_by_test_id("amount-paid").inner_text()).replace("\xa0", " ")
    await page.wait_for_function(  # the venue's one "paguei" item leaves the queue
        "!document.querySelector('li.item[data-type=CUSTOMER_SAYS_PAID]')", timeout=5000)
    status = (await api(venue, "query($b: ID!) { booking(id: $b) { ... on Booking { status } } }",
                        {"b": booking}))["booking"]["status"]
    assert status == "CONFIRMED"
