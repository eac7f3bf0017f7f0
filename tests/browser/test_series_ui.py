"""Series in the web demo (issue 23), in a real browser against a real API and worker:

- a customer asks the embedded widget for "toda semana" (4 times) on a field whose third week is taken: the
  conflict is shown with its alternatives and the choice "only the free dates"; the summary lists each date with its
  price and the total; accepting shows the first period's Pix, the bank pays it and the widget says the series is
  confirmed, live; "Minhas reservas" groups the series and cancels the rest of it (with the refund);
- the staff agenda marks the occurrences as a series, and the panel says "Série 1/3" with the series' dates and months;
- a counter series ("toda semana" on the counter form: confirmed, no payment) and the "Séries" list (#/series).
No console error, axe clean, no horizontal scroll at 390 px; screenshots at 1360 and 390 px.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

from schema.ids import global_id
from tests.browser import test_widget as widget
from tests.browser.conftest import SAO_PAULO, Venue, ahead_local, cell_selector, snap, tomorrow_local
from tests.browser.test_console_bugs import no_horizontal_scroll
from tests.browser.test_widget import _gql, ahead_day, no_sideways_scroll, sign_in

# The widget's fixtures (its venue with a service sold on the fields, its site, its server with the dev helpers).
arena, site, demo_server = widget.arena, widget.site, widget.demo_server

HOLD = "mutation($i: HoldInput!) { hold(input: $i) { __typename ... on Error { code message } } }"


async def staff_console(new_page: Any, arena: Venue, route: str) -> Any:
    page = await new_page()
    await page.goto(f"{arena.base}/?unit={arena.unit_id}#/{route}")
    await page.get_by_label("Token da equipe").fill(arena.owner_token)
    await page.get_by_role("button", name="Entrar", exact=True).click()
    return page


WEEKDAYS_PT = ("segunda-feira", "terça-feira", "quarta-feira", "quinta-feira", "sexta-feira", "sábado", "domingo")


async def test_a_weekly_series_in_the_widget_paid_seen_on_the_agenda_and_the_rest_cancelled(
        arena: Venue, new_page: Any) -> None:
    # Someone else holds Campo 2 at 19:00 two weeks after the first date: the series' third date is taken.
    taken = ahead_local(19) + timedelta(days=14)
    held = await _gql(arena.base, arena.owner_token, HOLD, {"i": {
        "unitId": global_id("Unit", arena.unit_id), "resourceIds": [global_id("Resource", arena.fields["Campo 2"])],
        "startsAt": taken.isoformat(), "endsAt": (taken + timedelta(hours=1)).isoformat(),
        "customer": {"phone": f"+55119{secrets.randbelow(10**8):08d}"}}})
    assert held["hold"]["__typename"] == "BookingPayload", held

    # The widget as the demo page mounts it (#/book, the API's own origin: axe reads its styles there).
    page = await new_page()
    await page.goto(f"{arena.base}/?unit={arena.unit_id}&service={arena.service_gid}#/book")  # type: ignore[attr-defined]
    await page.get_by_test_id("choose").wait_for()
    await page.get_by_label("Dia").fill(ahead_day())
    await page.get_by_label("Campo", exact=True).select_option(label="Campo 2")
    await page.get_by_label("Com que frequência").select_option(label="Toda semana")
    await page.get_by_label("Quantas vezes").fill("4")
    await page.get_by_label("Quantas vezes").dispatch_event("change")
    start = ahead_local(19).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    await page.locator(f'button.slot[data-start="{start}"]').wait_for()
    await snap(page, "series-widget-1-repeat")
    await page.locator(f'button.slot[data-start="{start}"]').click()
    await sign_in(page, arena, f"+55119{secrets.randbelow(10**8):08d}")

    conflicts = page.get_by_test_id("series-conflicts")
    await conflicts.wait_for()
    assert await page.get_by_test_id("conflict").count() == 1
    assert "Mais próximos livres" in await conflicts.inner_text()
    await no_sideways_scroll(page)
    await snap(page, "series-widget-2-conflicts")
    await page.get_by_test_id("free-only").click()

    summary = page.get_by_test_id("series-summary")
    await summary.wait_for()
    assert await page.get_by_test_id("occurrence").count() == 3
    text = (await summary.inner_text()).replace("\u00a0", " ")
    assert "R$ 150,00" in text and "Datas que ficaram de fora" in text, text
    assert (await page.get_by_test_id("series-total").inner_text()).replace("\u00a0", " ") == "R$ 450,00"
    assert await page.get_by_test_id("accept").is_disabled()
    await page.get_by_label("Li e aceito as datas").check()
    await snap(page, "series-widget-3-summary")
    await page.get_by_test_id("accept").click()

    pix = page.get_by_test_id("pix")
    await pix.wait_for()
    assert (await page.get_by_test_id("copia-e-cola").input_value()).startswith("000201")
    assert (await pix.locator("img.qr").get_attribute("src") or "").startswith("data:image/png")
    await snap(page, "series-widget-4-pix")
    txid = await pix.get_attribute("data-txid")
    await page.wait_for_timeout(500)  # the subscription reaches the hub
    paid = await _gql(arena.base, arena.owner_token, "mutation($t: String!) { sandboxPay(txid: $t) { __typename } }",
                      {"t": txid})
    assert paid["sandboxPay"]["__typename"] == "PaymentOutcome", paid
    done = page.get_by_test_id("series-confirmed")
    await done.wait_for(timeout=8000)
    assert "3 reservas" in await done.inner_text()
    await snap(page, "series-widget-5-confirmed")

    # The staff agenda: the occurrences carry the series' mark; the panel says which one and shows the series.
    staff = await staff_console(new_page, arena, "agenda")
    day = ahead_local(12).astimezone(SAO_PAULO).strftime("%Y-%m-%d")
    await staff.locator("td.cell").first.wait_for()
    await staff.get_by_label("Dia", exact=True).fill(day)
    await staff.locator(f'section.agenda-day[data-day="{day}"] td.cell').first.wait_for()
    cell = cell_selector(arena.fields["Campo 2"], ahead_local(19))
    await staff.wait_for_selector(cell + ":not([data-series=''])")
    assert await staff.locator(cell + " .series-mark").count() == 1
    await staff.locator(cell).click()
    assert await staff.get_by_test_id("booking-series").inner_text() == "Série 1/3"
    box = staff.get_by_test_id("series-box")
    await box.get_by_test_id("series-dates").wait_for()
    assert await box.locator("[data-testid=series-dates] li").count() == 3
    assert "pago" in await box.get_by_test_id("series-periods").inner_text()
    await snap(staff, "series-agenda-panel")
    await no_horizontal_scroll(staff)

    # "Minhas reservas": the series together; the customer cancels the rest of it and is told the refund.
    await page.get_by_test_id("tab-mine").click()
    group = page.get_by_test_id("my-series")
    await group.wait_for()
    assert await group.get_by_test_id("my-booking").count() == 3
    assert "Série 1/3" in await group.get_by_test_id("series-index").first.inner_text()
    await snap(page, "series-widget-6-mine")
    # The rest of the series, from the first date on: every date, what was paid for them back.
    await page.get_by_test_id("cancel-series").click()
    ask = (await page.get_by_test_id("cancel-series-confirm").inner_text()).replace("\u00a0", " ")
    assert "Cancelar 3 data(s)" in ask and "Você pagou R$ 450,00" in ask, ask
    await snap(page, "series-widget-7-cancel-rest")
    await page.get_by_test_id("cancel-series-yes").click()
    await page.get_by_text("3 data(s) canceladas.").wait_for()
    assert "Devolução: R$ 450,00" in (await page.get_by_test_id("widget-message").inner_text()).replace("\u00a0", " ")
    await no_sideways_scroll(page)
    # The agenda hears it live: the cell is free again.
    await staff.wait_for_selector(cell + '[data-state="FREE"]', timeout=8000)


async def test_a_counter_series_and_the_series_list(arena: Venue, new_page: Any) -> None:
    page = await staff_console(new_page, arena, "counter")
    await page.get_by_test_id("counter-slot").wait_for()
    await page.locator("[name=newName]").fill("Rui Mensalista")
    await page.locator("[name=newPhone]").fill(f"119{secrets.randbelow(10**8):08d}")
    slot = page.get_by_test_id("counter-slot")
    await slot.locator("[name=resource]").select_option(label="Campo 3")
    await slot.locator("[name=time]").select_option("21:00")
    await slot.get_by_test_id("counter-repeat").select_option(label="toda semana")
    await slot.locator("[name=times]").fill("5")
    await snap(page, "series-counter-form")
    await slot.get_by_role("button", name="Reservar").click()
    message = page.get_by_test_id("counter-message")
    await page.get_by_text("Série confirmada: 5 datas").wait_for()
    made = await message.get_attribute("data-series")
    assert made

    await page.goto(f"{arena.base}/?unit={arena.unit_id}#/series")
    rows = page.locator("[data-testid=series-list] [data-series]")
    await rows.first.wait_for()
    row = page.locator(f'[data-series="{made}"]')
    text = await row.inner_text()
    assert "Rui Mensalista" in text and "toda semana" in text and "5 de 5 datas" in text, text
    assert "Confirmada" in text
    await row.get_by_role("button", name="Abrir").click()
    await row.get_by_test_id("series-dates").wait_for()
    assert await row.locator("[data-testid=series-dates] li").count() == 5
    await no_horizontal_scroll(page)
    await snap(page, "series-list")
    # Staff move every future date to 22:00 (all or nothing), then cancel from the third date: two remain.
    await row.get_by_text("Mudar o horário das próximas datas").click()
    await row.get_by_label("Novo início").fill("22:00")
    await row.get_by_role("button", name="Mudar horário").click()
    await page.get_by_text("5 data(s) remarcadas.").wait_for()
    weekday = WEEKDAYS_PT[tomorrow_local(12).astimezone(SAO_PAULO).weekday()]  # the counter's day: tomorrow
    await page.locator(f'[data-series="{made}"]', has_text=f"{weekday} às 22:00").first.wait_for()
    await row.get_by_test_id("series-cancel").locator("select").select_option(index=2)
    await row.get_by_role("button", name="Cancelar estas datas").click()
    await page.get_by_text("3 data(s) canceladas.").wait_for()
    await page.locator(f'[data-series="{made}"]',
                       has_text="2 de 5 datas").wait_for()
