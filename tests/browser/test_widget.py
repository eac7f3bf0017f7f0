"""The customer booking widget (web-demo/widget/widget.js) embedded with ONE script tag in a venue's own site on
another origin (another port of 127.0.0.1), in a real browser against a real API and worker (issue 20):

- a customer picks a day, "any field" (only the fields that sell the service, never the class: bug 3), a time,
  signs in by WhatsApp code (read from the sandbox channel), accepts the summary, sees the Pix with its countdown,
  the bank pays (sandboxPay) and the widget shows it confirmed live; then cancels it from "Minhas reservas";
- a slot taken meanwhile: SlotTaken with the alternatives and the waitlist;
- at 390 px and 1360 px; no horizontal scroll, no console error, no request to any origin but the two.
And bug 3 in the demo page's #/book, which is the same widget mounted for the unit (the one customer path).
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import asyncpg
import httpx
import pytest

from domain.services import Deps
from domain.services.deadlines import expire_hold
from domain.waitlist import promote_after_release
from schema.ids import decode_id, global_id
from store.access import PgAccess
from store.uow import PgUnitOfWork
from store.venues import ResourceSpec, VenueSpec, create_venue, every_day
from tests.browser.conftest import SAO_PAULO, Venue, ahead_local, shot
from tests.integration.cluster import Cluster, cluster
from tests.venues import cpf

PHONE, DESKTOP = {"width": 390, "height": 844}, {"width": 1360, "height": 900}


class _Site(BaseHTTPRequestHandler):
    page = b""

    def do_GET(self) -> None:
        body = type(self).page if self.path.split("?")[0] == "/" else b"not found"
        self.send_response(200 if body != b"not found" else 404)
        self.send_header("content-type", "text/html; charset=utf-8")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def site() -> Iterator[tuple[str, type[_Site]]]:
    """The venue's own site: a static page on its own port (its own origin)."""
    handler = type("Site", (_Site,), {})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", handler
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def demo_server(chromium: str, database_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory
                ) -> Iterator[Cluster]:
    with cluster(database_url, redis_url, tmp_path_factory.mktemp("widget-logs"), apis=1, workers=1,
                 SLOTHOLD_WEB_DEMO_DEV="1", SLOTHOLD_LOG_LEVEL="WARNING") as c:
        yield c


async def _gql(base: str, token: str, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=base, timeout=10, headers={"authorization": f"Bearer {token}"}) as http:
        body: dict[str, Any] = (await http.post("/graphql", json={"query": query, "variables": variables})).json()
    assert "errors" not in body, body
    return body["data"]  # type: ignore[no-any-return]


@pytest.fixture
async def arena(demo_server: Cluster, pool: asyncpg.Pool, site: tuple[str, type[_Site]]) -> Venue:
    """A venue whose class sorts first (bug 3), a field-rental service on the fields, the site registered, and the
    site's page embedding the widget with one script tag and a READ-only integrator token."""
    while True:  # bookableSlots orders a start's slots by resource id: make the class sort first, as in bug 3
        created = await create_venue(pool, VenueSpec(
            unit_name="Arena Beira-Mar", hours=every_day(8, 23),
            resources=[ResourceSpec(name="Aula de futevôlei", kind="pooled", capacity=8, group="Aulas")]
            + [ResourceSpec(name=f"Campo {i}", group="Campos") for i in range(1, 4)]))
        raw = {name: str(rid) for name, rid in created.resource_ids.items()}
        if min(raw, key=lambda n: raw[n]) == "Aula de futevôlei":
            break
    _, owner = await PgAccess(pool).issue_token(created.tenant_id, created.unit_id, "staff", "owner", [], "owner")
    base = f"http://127.0.0.1:{demo_server.apis[0][1]}"
    u = global_id("Unit", created.unit_id)
    fields = [global_id("Resource", created.resource_ids[f"Campo {i}"]) for i in range(1, 4)]
    made = await _gql(base, owner, "mutation($u: ID!, $i: ServiceInput!) { createService(unitId: $u, input: $i) { "
                      "__typename ... on Service { id } ... on Error { message } } }",
                      {"u": u, "i": {"name": "Locação de campo", "durations": [1, 2], "resourceIds": fields,
                                     "priceCents": 15000, "paymentRule": "FULL"}})
    service = made["createService"]["id"]
    origin, handler = site
    await _gql(base, owner, "mutation($u: ID!, $o: [String!]!) { setAllowedOrigins(unitId: $u, origins: $o) { "
                            "__typename } }", {"u": u, "o": [origin]})
    issued = await _gql(base, owner, "mutation($u: ID!) { issueStaffToken(input: {unitId: $u, kind: INTEGRATOR, "
                                     'name: "widget", scopes: [READ]}) { ... on IssuedStaffToken { secret } } }',
                        {"u": u})
    token = issued["issueStaffToken"]["secret"]
    handler.page = (f'<!doctype html><html lang="pt-BR"><head><meta charset="utf-8">'
                    f'<meta name="viewport" content="width=device-width, initial-scale=1">'
                    f'<title>Arena Beira-Mar</title>'
                    f'<link rel="icon" href="data:,">'
                    f'<style>body{{font-family:Georgia,serif;margin:0;padding:8px;background:#fafaf0}} '
                    f'button{{background:red}}</style></head><body><h1>Arena Beira-Mar</h1>'
                    f'<script src="{base}/web-demo/widget/widget.js" data-unit="{u}" data-token="{token}"'
                    f' data-service="{service}"></script></body></html>').encode()
    v = Venue(created.unit_id, created.resource_ids, created.unit_id, owner, base)
    v.service_gid = service  # type: ignore[attr-defined]
    return v


def watch(page: Any, allowed: set[str], errors: list[str], strays: list[str]) -> None:
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("request", lambda r: None if any(r.url.startswith(o) for o in allowed) or r.url.startswith("data:")
            else strays.append(r.url))


async def widget_page(new_page: Any, arena: Venue, origin: str, size: dict[str, int],
                      errors: list[str], strays: list[str]) -> Any:
    page = await new_page()
    await page.set_viewport_size(size)
    watch(page, {origin, arena.base, arena.base.replace("http", "ws")}, errors, strays)
    await page.goto(origin + "/")
    await page.get_by_test_id("choose").wait_for()
    return page


async def no_sideways_scroll(page: Any) -> None:
    assert await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), \
        await page.evaluate("document.documentElement.scrollWidth")


async def sign_in(page: Any, arena: Venue, phone: str) -> None:
    await page.get_by_label("Número do WhatsApp").fill(phone)
    await page.get_by_test_id("send-code").click()
    await page.get_by_label("Código de 6 dígitos").wait_for()
    (sent,) = (await _gql(arena.base, arena.owner_token, "query($t: String!) { sandboxMessages(to: $t, limit: 1) "
                          "{ text } }", {"t": phone}))["sandboxMessages"]
    code = next(w for w in sent["text"].replace(".", " ").split() if w.isdigit() and len(w) == 6)
    await page.get_by_label("Código de 6 dígitos").fill(code)
    await page.get_by_test_id("verify-code").click()


def ahead_day() -> str:
    return ahead_local(12).astimezone(SAO_PAULO).strftime("%Y-%m-%d")


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["390", "1360"])
async def test_a_customer_books_in_the_embedded_widget_pays_the_pix_sees_it_confirmed_live_and_cancels(
        arena: Venue, site: tuple[str, Any], new_page: Any, size: dict[str, int]) -> None:
    origin, _ = site
    errors: list[str] = []
    strays: list[str] = []
    page = await widget_page(new_page, arena, origin, size, errors, strays)
    tag = "390" if size is PHONE else "1360"
    # The widget's styles stay in its shadow root and the page's stay out (the site paints buttons red).
    assert (await page.evaluate("getComputedStyle(document.querySelector('h1')).fontFamily")).startswith("Georgia")
    await page.get_by_label("Dia").fill(ahead_day())
    slots = page.locator("button.slot")
    await slots.first.wait_for()
    assert "rgb(255, 0, 0)" != await slots.first.evaluate("b => getComputedStyle(b).backgroundColor")
    # Bug 3: "any field" offers the fields that sell the service, never the class that sorts first.
    names = set(await page.locator("button.slot small").all_inner_texts())
    assert names and names <= {"Campo 1", "Campo 2", "Campo 3"}, names
    assert await page.evaluate("Math.min(...[...document.querySelector('.slothold-widget').shadowRoot"
                               ".querySelectorAll('button, input, select')].map(e => e.getBoundingClientRect().height))"
                               ) >= 44
    await no_sideways_scroll(page)
    unlabelled = await page.evaluate("""() => [...document.querySelector('.slothold-widget').shadowRoot
      .querySelectorAll('input, select, textarea')].filter(e => !e.id || !e.getRootNode().querySelector(
      `label[for="${e.id}"]`)).map(e => e.outerHTML)""")
    assert not unlabelled, unlabelled
    # Keyboard: Tab reaches a free time and Enter picks it (sign-in comes next).
    for _ in range(12):
        await page.keyboard.press("Tab")
        if await page.evaluate("document.querySelector('.slothold-widget').shadowRoot.activeElement"
                               "?.classList.contains('slot')"):
            break
    else:
        raise AssertionError("Tab never reached a free time")
    await page.screenshot(path=shot(f"widget-{tag}-1-times"), full_page=True)

    start = ahead_local(19).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    await page.keyboard.press("Enter")
    await page.get_by_test_id("sign-in").wait_for()
    await page.get_by_role("button", name="Voltar").click()
    await page.locator(f'button.slot[data-start="{start}"]').click()
    phone = f"+55119{secrets.randbelow(10**8):08d}"
    await page.get_by_test_id("sign-in").wait_for()
    await page.screenshot(path=shot(f"widget-{tag}-2-sign-in"), full_page=True)
    await sign_in(page, arena, phone)

    summary = page.get_by_test_id("summary")
    await summary.wait_for()
    text = (await summary.inner_text()).replace("\u00a0", " ")
    assert "R$ 150,00" in text and "Política de cancelamento" in text
    assert await page.get_by_test_id("accept").is_disabled()
    await page.get_by_label("Li e aceito o resumo e a política de cancelamento").check()
    await no_sideways_scroll(page)
    await page.screenshot(path=shot(f"widget-{tag}-3-summary"), full_page=True)
    await page.get_by_test_id("accept").click()

    pix = page.get_by_test_id("pix")
    await pix.wait_for()
    assert (await pix.locator("img.qr").get_attribute("src") or "").startswith("data:image/png")
    assert (await page.get_by_test_id("copia-e-cola").input_value()).startswith("000201")
    first = await page.get_by_test_id("countdown").inner_text()
    await page.wait_for_timeout(1200)
    assert await page.get_by_test_id("countdown").inner_text() != first  # it counts down
    await no_sideways_scroll(page)
    await page.screenshot(path=shot(f"widget-{tag}-4-pix"), full_page=True)

    txid = await pix.get_attribute("data-txid")
    await page.wait_for_timeout(500)  # the subscription reaches the hub
    paid = await _gql(arena.base, arena.owner_token, "mutation($t: String!) { sandboxPay(txid: $t) { __typename } }",
                      {"t": txid})
    assert paid["sandboxPay"]["__typename"] == "PaymentOutcome", paid
    confirmed = page.get_by_test_id("confirmed")
    await confirmed.wait_for(timeout=8000)
    assert "R$ 150,00" in (await confirmed.inner_text()).replace("\u00a0", " ")
    await page.screenshot(path=shot(f"widget-{tag}-5-confirmed"), full_page=True)

    await page.get_by_test_id("tab-mine").click()
    mine = page.get_by_test_id("my-booking")
    await mine.first.wait_for()
    assert await mine.count() == 1
    assert "Confirmada" in await mine.first.inner_text()
    await mine.first.get_by_role("button", name="Cancelar reserva").click()
    ask = page.get_by_test_id("cancel-confirm")
    asked = (await ask.inner_text()).replace("\u00a0", " ")
    assert "Você pagou R$ 150,00. Se cancelar agora, recebe de volta R$ 150,00." in asked, asked
    await no_sideways_scroll(page)
    await page.screenshot(path=shot(f"widget-{tag}-6-cancel"), full_page=True)
    await page.get_by_test_id("cancel-yes").click()
    message = page.get_by_test_id("widget-message")
    await page.get_by_text("Reserva cancelada.").wait_for()
    assert "Devolução: R$ 150,00" in (await message.inner_text()).replace("\u00a0", " ")
    await page.get_by_text("Você ainda não tem reservas.").wait_for()
    await page.screenshot(path=shot(f"widget-{tag}-7-cancelled"), full_page=True)
    assert not errors, errors
    assert not strays, strays


async def test_a_slot_taken_meanwhile_offers_three_alternatives_and_the_waitlist(
        arena: Venue, site: tuple[str, Any], new_page: Any) -> None:
    origin, _ = site
    errors: list[str] = []
    strays: list[str] = []
    page = await widget_page(new_page, arena, origin, PHONE, errors, strays)
    await page.get_by_label("Dia").fill(ahead_day())
    await page.get_by_label("Campo", exact=True).select_option(label="Campo 2")
    start = ahead_local(20).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    slot = page.locator(f'button.slot[data-start="{start}"]')
    await slot.wait_for()
    # Someone else takes Campo 2 at 20:00 while the customer looks.
    field = global_id("Resource", arena.fields["Campo 2"])
    held = await _gql(arena.base, arena.owner_token, "mutation($i: HoldInput!) { hold(input: $i) { __typename } }",
                      {"i": {"unitId": global_id("Unit", arena.unit_id), "resourceIds": [field],
                             "startsAt": ahead_local(20).isoformat(), "endsAt": ahead_local(21).isoformat(),
                             "customer": {"phone": f"+55119{secrets.randbelow(10**8):08d}"}}})
    assert held["hold"]["__typename"] == "BookingPayload", held
    await slot.click()
    await sign_in(page, arena, f"+55119{secrets.randbelow(10**8):08d}")
    await page.get_by_test_id("slot-taken").wait_for()
    assert await page.get_by_test_id("alternative").count() == 3
    await page.get_by_label("CPF").fill(cpf(700_000 + secrets.randbelow(10**5)))
    await page.get_by_role("button", name="Entrar na lista de espera").click()
    await page.get_by_text("Você é o número 1 da fila.").wait_for()
    await no_sideways_scroll(page)
    await page.screenshot(path=shot("widget-390-slot-taken"), full_page=True)
    await page.get_by_test_id("alternative").first.click()
    await page.get_by_test_id("summary").wait_for()

    # "Minhas reservas": the hold is there; move it to 10:00 on Campo 1.
    await page.get_by_test_id("tab-mine").click()
    mine = page.get_by_test_id("my-booking")
    await mine.first.wait_for()
    assert "19:00" in await mine.first.inner_text()
    await mine.first.get_by_role("button", name="Remarcar").click()
    ten = ahead_local(10).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    await page.get_by_label("Campo", exact=True).select_option(label="Campo 1")
    target = page.locator(f'button.slot[data-start="{ten}"]')
    await target.wait_for()
    await page.screenshot(path=shot("widget-390-reschedule"), full_page=True)
    await target.click()
    await page.get_by_text("Reserva remarcada.").wait_for()
    assert "10:00" in await page.get_by_test_id("my-booking").first.inner_text()
    await no_sideways_scroll(page)
    assert not errors, errors
    assert not strays, strays


async def test_bug3_the_demo_pages_booking_is_the_widget_and_any_field_offers_the_fields_not_the_class(
        arena: Venue, new_page: Any) -> None:
    page = await new_page()
    await page.goto(f"{arena.base}/?unit={arena.unit_id}&service={arena.service_gid}#/book")  # type: ignore[attr-defined]
    await page.get_by_test_id("choose").wait_for()  # the widget, on the API's own origin (no CORS needed)
    assert await page.locator("script[src='/web-demo/widget/widget.js'][data-unit]").count() == 1
    await page.get_by_label("Dia").fill(ahead_day())
    await page.locator("button.slot").first.wait_for()
    names = set(await page.locator("button.slot small").all_inner_texts())
    assert names and names <= {"Campo 1", "Campo 2", "Campo 3"}, names


class _AnHourLater:
    def now(self) -> datetime:
        return datetime.now(UTC) + timedelta(hours=1)


async def test_a_pix_not_paid_in_time_shows_expired_and_the_customer_tries_again(
        arena: Venue, site: tuple[str, Any], new_page: Any, pool: asyncpg.Pool) -> None:
    origin, _ = site
    errors: list[str] = []
    strays: list[str] = []
    page = await widget_page(new_page, arena, origin, PHONE, errors, strays)
    await page.get_by_label("Dia").fill(ahead_day())
    start = ahead_local(15).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    await page.locator(f'button.slot[data-start="{start}"]').click()
    await sign_in(page, arena, f"+55119{secrets.randbelow(10**8):08d}")
    await page.get_by_label("Li e aceito o resumo e a política de cancelamento").check()
    await page.get_by_test_id("accept").click()
    pix = page.get_by_test_id("pix")
    await pix.wait_for()
    await page.wait_for_timeout(500)  # the subscription reaches the hub
    booking = await pix.get_attribute("data-booking")
    # The deadline passes (the sweep, an hour from now): the booking expires and the widget hears it live.
    deps = Deps(uow=lambda: PgUnitOfWork(pool), clock=_AnHourLater(), on_release=promote_after_release)
    assert await expire_hold(deps, decode_id(booking)[1])
    await page.get_by_test_id("expired").wait_for(timeout=8000)
    await no_sideways_scroll(page)
    await page.screenshot(path=shot("widget-390-expired"), full_page=True)
    await page.get_by_test_id("try-again").click()
    await page.get_by_test_id("choose").wait_for()
    await page.locator("button.slot").first.wait_for()
    assert not errors, errors
    assert not strays, strays


async def test_data_locale_en_shows_the_widget_in_english_only(
        arena: Venue, site: tuple[str, Any], new_page: Any) -> None:
    origin, handler = site
    handler.page = handler.page.replace(b'data-unit=', b'data-locale="en" data-unit=')
    page = await new_page()
    await page.set_viewport_size(PHONE)
    await page.goto(origin + "/")
    await page.get_by_test_id("choose").wait_for()
    await page.locator("button.slot").first.wait_for()
    text = await page.evaluate("document.querySelector('.slothold-widget').shadowRoot.textContent")
    assert "Book at Arena Beira-Mar" in text and "Any field" in text and "My bookings" in text, text
    assert not any(word in text for word in ("Reserve em", "Qualquer campo", "Minhas reservas", "Horários")), text
    await page.screenshot(path=shot("widget-390-en"), full_page=True)
