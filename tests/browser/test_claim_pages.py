"""The claim pages of offer links in a real browser at a phone's width (seed 003): a walk-in party and a
customer offered a place in a class each open the link of their message and claim the offer with one button."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import httpx
import pytest

from domain import notifications
from domain.events import parse_event
from schema.ids import decode_id
from store.access import PgAccess
from store.venues import ResourceSpec, VenueSpec, create_venue, every_day
from tests.browser.a11y import assert_accessible
from tests.browser.conftest import Guard, Venue, shot, tomorrow_local
from tests.integration.cluster import Cluster
from tests.venues import cpf

PHONE_SCREEN = {"width": 375, "height": 740}


@pytest.fixture
async def phone_page(browser: Any, guard: Guard) -> AsyncIterator[Any]:
    context = await browser.new_context(viewport=PHONE_SCREEN, locale="pt-BR", is_mobile=True, has_touch=True)
    await guard.watch(context)  # nothing off the machine, no console error, no uncaught error
    page = guard.page(await context.new_page())
    page.set_default_timeout(10_000)
    yield page
    await context.close()


async def gql(base: str, token: str | None, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=base, timeout=10,
                                 headers={"authorization": f"Bearer {token}"} if token else {}) as client:
        body: dict[str, Any] = (await client.post("/graphql", json={"query": query, "variables": variables})).json()
    assert "errors" not in body, body
    return body["data"]  # type: ignore[no-any-return]


def path_of_link(text: str) -> str:
    """The path of the one link in a message (the page is opened on this test's server)."""
    (link,) = [w for w in text.split() if w.startswith("http")]
    return "/" + link.split("://", 1)[1].split("/", 1)[1]


async def fits_the_screen(page: Any) -> None:
    assert await page.evaluate("document.documentElement.scrollWidth") <= PHONE_SCREEN["width"]


async def test_a_walk_in_confirms_from_its_link_on_a_phone(venue: Venue, phone_page: Any,
                                                           pool: asyncpg.Pool) -> None:
    who = f"+55119{secrets.randbelow(10**8):08d}"
    wid = (await gql(venue.base, venue.owner_token, 'mutation($u: ID!, $p: String!) { addWalkIn(unitId: $u, '
                     'area: "Salão", name: "Bia", phone: $p, partySize: 3) { ... on WalkIn { id } } }',
                     {"u": str(venue.unit_id), "p": who}))["addWalkIn"]["id"]
    await gql(venue.base, venue.owner_token, "mutation($i: ID!) { offerWalkIn(entryId: $i) { __typename } }",
              {"i": wid})
    (sent,) = (await gql(venue.base, venue.owner_token, "query($to: String!) { sandboxMessages(to: $to) { text } }",
                         {"to": who}))["sandboxMessages"]
    await phone_page.goto(venue.base + path_of_link(sent["text"]))
    await phone_page.get_by_text("Bia, sua vez chegou!").wait_for()
    await fits_the_screen(phone_page)
    await phone_page.get_by_role("button", name="Confirmar que estou chegando").click()
    await phone_page.get_by_text("Pronto! Avisamos a equipe: pode vir.").wait_for()
    await phone_page.screenshot(path=shot("claim-walk-in"), full_page=True)
    await assert_accessible(phone_page, "the walk-in's claim page")
    assert await pool.fetchval("SELECT status FROM walkin_queue WHERE id = $1", decode_id(wid)[1]) == "claimed"
    await phone_page.reload()
    await phone_page.get_by_text("Esta oferta já foi confirmada.").wait_for()


async def test_a_capacity_offer_is_claimed_on_a_phone_after_signing_in_with_a_code(
        demo_server: Cluster, phone_page: Any, pool: asyncpg.Pool) -> None:
    v = await create_venue(pool, VenueSpec(
        unit_name=f"Estúdio do navegador {datetime.now(UTC).timestamp()}", hours=every_day(6, 23),
        resources=[ResourceSpec(name="Aula de spinning", kind="pooled", capacity=1)]))
    base = f"http://127.0.0.1:{demo_server.apis[0][1]}"
    access = PgAccess(pool)
    _, owner = await access.issue_token(v.tenant_id, v.unit_id, "staff", "owner", [], "browser owner")
    aula, who = v.resource_ids["Aula de spinning"], f"+55119{secrets.randbelow(10**8):08d}"
    when = {"s": tomorrow_local(18).isoformat(), "e": tomorrow_local(19).isoformat()}
    full = (await gql(base, owner, """mutation($i: HoldInput!) { hold(input: $i) { ... on BookingPayload {
      booking { id } } } }""", {"i": {"unitId": str(v.unit_id), "resourceIds": [str(aula)], "startsAt": when["s"],
                                     "endsAt": when["e"], "customer": {"cpf": cpf(430_001)}}}))["hold"]
    customer = await pool.fetchval("INSERT INTO customers (id, tenant_id, phone, name) VALUES (gen_random_uuid(), "
                                   "$1, $2, 'Caio') RETURNING id", v.tenant_id, who)
    _, session = await access.open_session(v.unit_id, v.tenant_id, customer, datetime.now(UTC), timedelta(hours=1))
    joined = await gql(base, session, """mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!) {
      joinCapacityWaitlist(unitId: $u, resourceId: $r, startsAt: $s, endsAt: $e, partySize: 1) { __typename } }""",
                       {"u": str(v.unit_id), "r": str(aula), **when})
    assert joined["joinCapacityWaitlist"]["__typename"] == "CapacityWaitlistEntry", joined
    await gql(base, owner, "mutation($b: ID!) { cancel(bookingId: $b) { __typename } }", {"b": full["booking"]["id"]})
    row = await pool.fetchrow("SELECT topic, payload FROM outbox WHERE unit_id = $1 AND topic = 'notification' "
                              "AND payload->>'kind' = 'capacity_offer'", v.unit_id)
    (sent,) = [p for p in notifications.plan(notifications.intent(parse_event(row["topic"], row["payload"])),
                                             notifications.Context(phone=who)) if p.channel == "whatsapp"]
    await phone_page.goto(base + path_of_link(sent.body))
    await phone_page.get_by_text("Abriu vaga: Aula de spinning").wait_for()
    await fits_the_screen(phone_page)
    await phone_page.get_by_role("button", name="Ficar com a vaga").click()
    await phone_page.get_by_placeholder("+55 11 9…").fill(who)
    await phone_page.get_by_role("button", name="Receber código").click()
    await phone_page.get_by_text("Enviamos um código para o seu WhatsApp.").wait_for()
    async with httpx.AsyncClient(base_url=base, timeout=10) as client:  # what the customer reads on WhatsApp
        code = (await client.get("/web-demo/dev/login-code", params={"unit": str(v.unit_id), "to": who})).json()
    await phone_page.get_by_placeholder("Código recebido").fill(code["code"])
    await phone_page.get_by_role("button", name="Entrar e ficar com a vaga").click()
    await phone_page.get_by_text("Pronto, a vaga é sua").wait_for()
    await phone_page.screenshot(path=shot("claim-capacity"), full_page=True)
    await assert_accessible(phone_page, "the capacity offer's claim page")
    assert await pool.fetchval("SELECT status FROM capacity_waitlist WHERE customer_id = $1", customer) == "claimed"
