"""The owner's set-up screen (#/setup) and the seat map (#/seats) in one language per screen (issue 20): pt-BR by
default, English after the header's switch without a reload, keeping what the owner was typing and the seats
selected; weekday names, dates and money by the locale; refusals of known codes said in Portuguese on the pt-BR
screen. Screenshots of both screens in both languages at 1360 and 390 px, each checked by axe."""

from __future__ import annotations

import json
from typing import Any

import asyncpg

from store.access import PgAccess
from tests.browser.conftest import SAO_PAULO, Venue, snap, tomorrow_local
from tests.browser.test_console_bugs import no_horizontal_scroll
from tests.browser.test_console_shell import SCREEN_TEXT, words_of
from tests.browser.test_setup_screen import _tenant_unit, api, text
from tests.browser.test_web_demo import phone, seat_event

# Words only the set-up screen's Portuguese shows, and only its English (nav included): each walk below shows all of
# its language's and none of the other's (the demo venue's group "Campos" is data, so not a word checked).
SETUP_PT = ["Configuração", "Adicionar um campo", "Adicionar campo", "Exclusivo", "Editar", "Desativar",
            "Horário de funcionamento", "Segunda-feira", "Domingo", "Abre", "Fecha", "Salvar horários",
            "Copiar segunda-feira para todos os dias", "Feriados e horários especiais", "Adicionar uma data",
            "Bloqueios", "Bloquear um campo", "Preços", "Preço base", "pago integralmente",
            "Faixa 1", "Dias", "Seg", "Sex", "Preço por horário (R$)", "Salvar faixas de preço"]
SETUP_EN = ["Set-up", "Fields", "Add a field", "Add field", "Exclusive", "Edit", "Deactivate", "Opening hours",
            "Monday", "Sunday", "Opens", "Closes", "Save opening hours", "Copy Monday to every day",
            "Holidays and special hours",
            "Add a date", "Blocks", "Block a field", "Prices", "Base price", "paid in full",
            "Band 1", "Days", "Mon", "Fri", "Price per slot (R$)", "Save price bands"]
SEATS_PT = ["Mapa de assentos", "ao vivo", "Livre", "Travado (em hold)", "Vendido", "Bloqueado", "Tipos de hold",
            "livres", "vendidos", "Selecionados", "Telefone do cliente", "Travar", "Vender (bilheteria)", "Destravar",
            "Bloquear", "Desbloquear", "limpar"]
SEATS_EN = ["Seat map", "live", "Free", "Locked (held)", "Sold", "Blocked", "Hold types", "free", "sold", "Selected",
            "Customer phone", "Lock", "Sell (box office)", "Unlock", "Block", "Unblock", "clear"]


async def owner_on(page: Any, venue: Venue, screen: str) -> None:
    """The owner signed in (the token kept as the shell keeps it), on `screen`, in the language stored (none: pt-BR)."""
    stored = json.dumps({"unitId": str(venue.unit_id), "serviceId": None, "staffToken": venue.owner_token})
    await page.add_init_script(f"localStorage.setItem('slothold.demo', {json.dumps(stored)});")
    await page.goto(screen)


async def said(page: Any, testid: str) -> str:
    """The sentence a form's status line ends on (after "Salvando…" / "Saving…")."""
    await page.wait_for_function(f"""() => {{ const m = document.querySelector('[data-testid="{testid}"]');
        return m && !m.hidden && !m.textContent.endsWith('…'); }}""")
    return text(await page.get_by_test_id(testid).inner_text())


def one_language(shown: str, wanted: list[str], other: list[str], name: str) -> None:
    assert words_of(shown, wanted) == wanted, f"missing in {name}: {set(wanted) - set(words_of(shown, wanted))}"
    assert not words_of(shown, other), f"the other language on the {name} screen: {words_of(shown, other)}"


async def switch_to_english(page: Any) -> None:
    await page.evaluate("window.notReloaded = true")
    await page.get_by_label("Idioma").select_option("en")
    await page.locator("#who").get_by_text("Staff:").wait_for()


async def test_the_set_up_screen_speaks_pt_br_then_english_keeping_what_the_owner_typed(
        venue: Venue, new_page: Any, pool: asyncpg.Pool) -> None:
    page = await new_page(locale="en-GB")  # the browser's language does not decide: the console's default does
    await owner_on(page, venue, venue.url("setup"))
    await page.locator('[data-testid="resource-list"] li[data-name="Campo 4"]').wait_for()
    assert await page.evaluate("document.documentElement.lang") == "pt-BR"
    service = page.locator("li[data-service-id]").first
    assert "R$ 200,00" in text(await service.inner_text())  # money by the locale
    await service.get_by_role("button", name="Editar faixas de preço").click()
    editor = page.get_by_test_id("band-editor")
    await editor.get_by_role("button", name="+ Adicionar uma faixa").click()
    await editor.get_by_label("Faixa 1: Segunda-feira").wait_for()
    one_language(await page.evaluate(SCREEN_TEXT), SETUP_PT, SETUP_EN, "pt-BR")
    await snap(page, "setup-pt")

    # Refusals said in Portuguese: two bands over the same hours, the same block twice, a field with a booking.
    await editor.get_by_role("button", name="+ Adicionar uma faixa").click()
    await editor.get_by_role("button", name="Salvar faixas de preço").click()
    overlap = await said(page, "prices-message")
    assert overlap.endswith(": a faixa 2 se sobrepõe à faixa 1 no mesmo dia da semana."), overlap
    assert overlap.startswith("Não foi possível salvar as faixas de preço de "), overlap
    await editor.get_by_role("button", name="Cancelar").click()
    tomorrow = tomorrow_local(12).astimezone(SAO_PAULO).date().isoformat()
    block = page.get_by_test_id("block-form")
    await block.locator("select[name=resource]").select_option(label="Campo 2")
    await block.locator("input[name=fromDate]").fill(tomorrow)
    await block.locator("input[name=toDate]").fill(tomorrow)
    await block.get_by_role("button", name="Bloquear", exact=True).click()
    done = await said(page, "blocks-message")
    assert done.startswith("Campo 2 está bloqueado ") and " de " in done and "08:00–12:00" in done, done
    await block.get_by_role("button", name="Bloquear", exact=True).click()
    again = await said(page, "blocks-message")
    assert again == "Não foi possível bloquear Campo 2: o campo já está bloqueado em parte desse período.", again
    booked = await api(venue, """mutation($i: CounterBookingInput!) { counterBooking(input: $i) {
        __typename ... on BookingPayload { booking { id } } ... on Error { message } } }""", {"i": {
        "unitId": str(venue.unit_id), "resourceIds": [str(venue.fields["Campo 3"])],
        "startsAt": tomorrow_local(19).isoformat(), "endsAt": tomorrow_local(20).isoformat(),
        "customer": {"name": "Balcão Bia", "phone": phone()}}})
    assert booked["counterBooking"]["__typename"] == "BookingPayload", booked
    campo3 = page.locator('[data-testid="resource-list"] li[data-name="Campo 3"]')
    await campo3.get_by_role("button", name="Desativar").click()
    in_the_way = await said(page, "fields-message")
    assert in_the_way.startswith("Não é possível desativar Campo 3: 1 reserva está no caminho — "), in_the_way
    assert "19:00–20:00 (confirmada, reserva " in in_the_way and "Cancele ou mova essa reserva" in in_the_way

    # Typing, then the switch: the screen speaks English at once, with what was typed and opened still there.
    await page.get_by_test_id("create-field").locator("input[name=name]").fill("Campo 9")
    await page.get_by_test_id("create-field").locator("select[name=kind]").select_option("POOLED")
    await page.get_by_label("Domingo fecha").fill("20:00")
    await block.locator("input[name=reason]").fill("Torneio de verão")
    await campo3.get_by_role("button", name="Editar").click()
    await page.get_by_test_id("edit-field").locator("input[name=name]").fill("Campo 3 (coberto)")
    await service.get_by_role("button", name="Editar faixas de preço").click()
    await editor.get_by_role("button", name="+ Adicionar uma faixa").click()
    await editor.get_by_label("Faixa 1: preço").fill("260,00")
    await editor.get_by_label("Faixa 1: Sábado").check()
    await switch_to_english(page)
    await page.get_by_role("heading", name="Set-up · ").wait_for()
    await editor.get_by_label("Band 1: price").wait_for()
    assert await page.evaluate("window.notReloaded") is True
    assert await page.evaluate("document.documentElement.lang") == "en"
    assert await page.get_by_test_id("create-field").locator("input[name=name]").input_value() == "Campo 9"
    assert await page.get_by_test_id("create-field").locator("input[name=capacity]").is_visible()  # pooled, as chosen
    assert await page.get_by_label("Sunday closes").input_value() == "20:00"
    assert await block.locator("input[name=reason]").input_value() == "Torneio de verão"
    assert await block.locator("input[name=fromDate]").input_value() == tomorrow
    assert await page.get_by_test_id("edit-field").locator("input[name=name]").input_value() == "Campo 3 (coberto)"
    assert await editor.get_by_label("Band 1: price").input_value() == "260,00"
    assert await editor.get_by_label("Band 1: Saturday").is_checked()
    one_language(await page.evaluate(SCREEN_TEXT), SETUP_EN, SETUP_PT, "English")
    assert "R$200.00" in text(await service.inner_text())
    blocked = await page.locator('[data-testid="block-list"] li').first.inner_text()
    assert " de " not in blocked and "08:00–12:00" in blocked, blocked  # the date in English
    await no_horizontal_scroll(page)
    await snap(page, "setup-en")

    # An amount is read whichever mark the owner types: "260,00" typed before the switch is R$ 260 in English too.
    parsed = await page.evaluate("""import('/web-demo/js/setup_util.js').then((m) => ['260,00', '260.00', 'R$ 1.250,50',
        'R$1,250.50', '250', '0,5', '1,250,5', '12,345', 'abc', ''].map(m.parseMoney))""")
    assert parsed == [26000, 26000, 125050, 125050, 25000, 50, None, 1234500, None, None], parsed

    # A refusal in English is the API's own sentence.
    await editor.get_by_role("button", name="Save price bands").click()
    saved = await said(page, "prices-message")
    assert saved.startswith("Price bands of ") and "1 band, price version" in saved, saved
    await page.get_by_test_id("edit-field").get_by_role("button", name="Cancel").click()
    await block.get_by_role("button", name="Block", exact=True).click()
    refused = await said(page, "blocks-message")
    assert refused.startswith("Blocking Campo 2 was refused: Campo 2 is already blocked"), refused

    # A manager is told, in Portuguese by default, that set-up is for owners.
    _, manager = await PgAccess(pool).issue_token(*(await _tenant_unit(pool, venue)), "staff", "manager", [],
                                                  "gerente do teste")
    other = await new_page()
    await other.goto(venue.url("setup"))
    await other.get_by_label("Token da equipe").fill(manager)
    await other.get_by_role("button", name="Entrar", exact=True).click()
    told = await other.get_by_test_id("setup-owners-only").inner_text()
    assert "A configuração é para os donos da unidade" in told and "(gerente)" in told, told


async def test_the_seat_map_speaks_pt_br_then_english_keeping_the_event_and_the_seats_selected(
        venue: Venue, new_page: Any) -> None:
    event, seats = await seat_event(venue)
    page = await new_page()
    await owner_on(page, venue, venue.url("seats").replace("#/seats", f"&event={event}#/seats"))
    await page.locator("button.seat").first.wait_for()
    await page.locator(".legend-types .chip").first.wait_for()
    assert await page.evaluate("document.documentElement.lang") == "pt-BR"
    await page.locator(f'button.seat[data-seat="{seats["4"]}"]').click()
    await page.get_by_label("Telefone do cliente").fill(phone())
    await page.get_by_role("button", name="Travar", exact=True).click()
    await page.get_by_test_id("seat-message").get_by_text("Travados.").wait_for()
    await page.get_by_test_id("seat-counts").get_by_text("travados: 1").wait_for()
    await page.wait_for_function(f"document.querySelector('button.seat[data-seat=\"{seats['4']}\"]')"
                                 ".title.endsWith(' restantes')")  # the hold's countdown, in words
    title = await page.locator(f'button.seat[data-seat="{seats["4"]}"]').get_attribute("title")
    assert title.startswith("4: Travado (em hold) — Hold do bot · ") and title.endswith(" restantes"), title
    # Locking a locked seat: refused, naming the seat and its state in Portuguese.
    for label in ("4", "5"):
        await page.locator(f'button.seat[data-seat="{seats[label]}"]').click()
    await page.get_by_role("button", name="Travar", exact=True).click()
    await page.wait_for_function("document.querySelector('[data-testid=seat-message]').className.includes('error')")
    refused = await page.get_by_test_id("seat-message").inner_text()
    assert refused == "Não foi possível travar: Norte A-4 (travado). Nada foi mudado.", refused
    one_language(await page.evaluate(SCREEN_TEXT), SEATS_PT, SEATS_EN, "pt-BR")
    heading = await page.locator("select[aria-label=Evento] option").first.inner_text()
    assert " de " in heading, heading  # "Final — quinta-feira, 3 de dezembro 20:00"
    await snap(page, "seat-map-pt")

    # The switch: English on the same event, the same seats selected and the phone typed.
    typed = await page.get_by_label("Telefone do cliente").input_value()
    await switch_to_english(page)
    await page.get_by_role("heading", name="Seat map").wait_for()
    await page.get_by_label("Customer phone").wait_for()
    assert await page.evaluate("window.notReloaded") is True
    assert await page.get_by_label("Customer phone").input_value() == typed
    for label in ("4", "5"):
        assert await page.locator(f'button.seat[data-seat="{seats[label]}"]').get_attribute("aria-pressed") == "true"
    await page.get_by_role("button", name="Lock", exact=True).click()
    await page.get_by_test_id("seat-message").get_by_text("4 (locked").wait_for()  # the API's own sentence
    one_language(await page.evaluate(SCREEN_TEXT), SEATS_EN, SEATS_PT, "English")
    await page.wait_for_function(f"document.querySelector('button.seat[data-seat=\"{seats['4']}\"]')"
                                 ".title.endsWith(' left')")  # the hold's countdown, in words
    title = await page.locator(f'button.seat[data-seat="{seats["4"]}"]').get_attribute("title")
    assert title.startswith("4: Locked (held) — Bot hold · ") and title.endswith(" left"), title
    await page.get_by_test_id("seat-counts").get_by_text("1 locked").wait_for()
    await no_horizontal_scroll(page)
    await snap(page, "seat-map-en")
