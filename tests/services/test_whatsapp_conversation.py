"""The WhatsApp conversation of seed 001, replayed from Cloud API webhook payloads against the real app and
PostgreSQL (replies land on a fake Cloud API): every seed "Exemplo" that concerns the bot, and its other branches."""

from __future__ import annotations

import asyncio
from typing import Any
from uuid import UUID

from domain import fraud, settlement
from domain.customers import CustomerIdentity
from domain.services import Deps, HoldCommand, expire_hold, hold, remind_hold
from jobs.notify import deliver_notification
from providers.channels import make_channels
from providers.whatsapp.tasks import announce_whatsapp_offers, prune_whatsapp
from store.in_app import PgInApp
from store.notifications import PgDeliveries
from store.venues import ResourceSpec, VenueSpec, create_venue, every_day
from store.whatsapp import PgConversations
from tests.services.test_notifications import deliveries, relay_pass
from tests.services.test_payments import paid_arena
from tests.venues import at, cpf, customer
from tests.whatsapp_cloud import PHONE_NUMBER_ID, chat, open_booking, option, options, status_of

ANA, BRUNO = "+5511988880001", "+5511988880002"


async def full_price_arena(pool: Any, **params: Any) -> Any:
    """Four fields at R$ 200,00 an hour, paid in full (RN-HLD-07's example)."""
    return await create_venue(pool, VenueSpec(
        unit_name=f"Arena integral {asyncio.get_running_loop().time()}", hours=every_day(8, 23),
        resources=[ResourceSpec(name=f"Campo {i}", group="Campos") for i in range(1, 5)],
        services=[{"name": "Campo 1h", "duration_minutes": 60, "price_cents": 20000, "payment_rule": "full"}],
        params=params))


async def choose(c: Any, phone: str, day: str, field: str, hour: str, duration: str = "1 hora") -> str:
    """oi → day → field → time → duration; returns the summary."""
    menu = (await c.say(phone, "oi"))[-1]
    menu = (await c.say(phone, option(menu, day)))[-1]
    menu = (await c.say(phone, option(menu, field)))[-1]
    menu = (await c.say(phone, option(menu, hour)))[-1]
    return (await c.say(phone, option(menu, duration)))[-1]  # type: ignore[no-any-return]


def deps_of(c: Any) -> Deps:
    return c.state["deps"]  # type: ignore[no-any-return]


async def test_rn_atd_06_only_free_slots_at_least_an_hour_ahead_and_at_most_30_days(
        database_url: str, redis_url: str, pool: Any, clock: Any) -> None:
    """Exemplo: at 17h20 today's Campo 1 starts at 19h (not 18h), the 20h block held by another customer is not
    shown, and a date 40 days ahead offers nothing. RN-HLD-02: at 17h56 the 19h block is not offered any more."""
    v = await paid_arena(pool)
    clock.set(at(7, 17, 20))
    async with chat(database_url, redis_url, clock, v.unit_id) as c:
        await hold(deps_of(c), HoldCommand(v.unit_id, at(7, 20), at(7, 21), (v.resource_ids["Campo 1"],),
                                           customer=customer(7)))
        menu = (await c.say(ANA, "oi"))[-1]
        menu = (await c.say(ANA, option(menu, "hoje (seg 07/12)")))[-1]
        times = (await c.say(ANA, option(menu, "Campo 1")))[-1]
        assert times.splitlines()[0] == "Horários livres em hoje (seg 07/12) no Campo 1:"
        assert options(times) == ["19h", "21h", "22h"]
        menu = (await c.say(ANA, "menu"))[-1]
        far = await c.say(ANA, "16/01")  # 40 days ahead
        assert far[0] == "Só consigo reservar com até 30 dias de antecedência. Escolha outro dia."
        assert far[1].startswith("Para qual dia você quer reservar?")
        clock.set(at(7, 17, 56))
        menu = (await c.say(ANA, "hoje"))[-1]
        times = (await c.say(ANA, option(menu, "Campo 2")))[-1]
        assert options(times)[0] == "20h"


async def test_unknown_input_gets_a_short_help_and_the_same_menu_again(
        database_url: str, redis_url: str, pool: Any, clock: Any) -> None:
    v = await paid_arena(pool)
    async with chat(database_url, redis_url, clock, v.unit_id) as c:
        menu = (await c.say(ANA, "oi"))[-1]
        fields = (await c.say(ANA, option(menu, "sáb 12/12")))[-1]
        answer = await c.say(ANA, "quero o campo bom")
        assert answer == ["Não entendi. Responda com o número de uma opção (ou \"cancelar\" para recomeçar).",
                          fields]
        assert await c.say(ANA, "9") == answer  # not an option either
        image = await c.say(ANA, None, kind="image")
        assert image == ["Recebi a imagem, mas você não tem nenhum PIX pendente comigo.", fields]


async def test_tanto_faz_and_two_consecutive_hours_of_the_same_field(
        database_url: str, redis_url: str, pool: Any, clock: Any) -> None:
    """RN-ATD-06: "tanto faz" lists the times free on any field; a booking may take consecutive slots of one field."""
    v = await paid_arena(pool)
    async with chat(database_url, redis_url, clock, v.unit_id) as c:
        deps = deps_of(c)
        for field in ("Campo 1", "Campo 2", "Campo 3"):
            await hold(deps, HoldCommand(v.unit_id, at(12, 19), at(12, 20), (v.resource_ids[field],),
                                         customer=customer(30 + int(field[-1]))))
        summary = await choose(c, ANA, "sáb 12/12", "Tanto faz", "19h", "2 horas")
        # R$ 200 a slot (an hour): two hours cost R$ 400 (domain/pricing.py; before issue 18 the length was ignored).
        assert summary.startswith("Campo 4, sábado às 19h, 2 horas, R$ 400,00. Pagamento do sinal de 50% (R$ 200,00)")
        pix = await c.say(ANA, "ok")
        assert pix[0].startswith("Segurei Campo 4, sábado 12/12 às 19h")
        booking = await open_booking(pool, v.unit_id, ANA)
        during = await pool.fetchval("SELECT during FROM bookings WHERE id = $1", booking)
        assert (during.lower, during.upper) == (at(12, 19), at(12, 21))


async def test_a_menu_left_unanswered_for_hours_starts_over(
        database_url: str, redis_url: str, pool: Any, clock: Any) -> None:
    v = await paid_arena(pool)
    async with chat(database_url, redis_url, clock, v.unit_id) as c:
        menu = (await c.say(ANA, "oi"))[-1]
        await c.say(ANA, option(menu, "sáb 12/12"))
        clock.advance(minutes=90)
        assert (await c.say(ANA, "1"))[-1].startswith("Horários livres em sáb 12/12 no Campo 1:")  # still current
        clock.advance(hours=3)
        again = await c.say(ANA, "1")
        assert again[0].startswith("Olá!") and again[1].startswith("Para qual dia você quer reservar?")


async def test_rn_atd_07_a_slot_taken_meanwhile_gets_three_alternatives_and_the_waitlist(
        database_url: str, redis_url: str, pool: Any, clock: Any) -> None:
    """Exemplo: the customer picks 20h on Campo 2 but another customer just held it: three options and a fourth,
    the waitlist of 20h on Campo 2 (joined by CPF, RN-ATD-08)."""
    v = await paid_arena(pool)
    async with chat(database_url, redis_url, clock, v.unit_id) as c:
        summary = await choose(c, ANA, "sáb 12/12", "Campo 2", "20h")
        assert summary.startswith("Campo 2, sábado às 20h, 1 hora, R$ 200,00.")
        await hold(deps_of(c), HoldCommand(v.unit_id, at(12, 20), at(12, 21), (v.resource_ids["Campo 2"],),
                                           customer=customer(9)))
        taken = (await c.say(ANA, "1"))[-1]
        assert taken.splitlines()[0] == ("Esse horário acabou de ser reservado por outra pessoa. Os horários livres "
                                         "mais próximos:")
        labels = options(taken)
        assert len(labels) == 4
        assert labels[3] == "Entrar na lista de espera das 20h no Campo 2"
        # The seed's three: 19h on Campo 2, 20h on Campo 1 and 21h on Campo 2.
        assert sorted(labels[:3]) == ["Campo 1, sábado 12/12 às 20h", "Campo 2, sábado 12/12 às 19h",
                                      "Campo 2, sábado 12/12 às 21h"]
        assert await c.say(ANA, "4") == ["Para entrar na lista de espera, me diga o seu CPF (só os números)."]
        assert await c.say(ANA, "123") == ["Esse CPF não parece válido. Digite os 11 números do CPF, ou "
                                           "\"cancelar\"."]
        joined = await c.say(ANA, cpf(424242))
        assert joined == ["Pronto, você está na lista de espera das 20h de sáb 12/12 no Campo 2 (posição 1). Se o "
                          "horário liberar, eu mando aqui a oferta com o PIX."]
        # An alternative is a slot like any other: choosing one shows its summary.
        summary = await choose(c, ANA, "sáb 12/12", "Campo 2", "19h")
        await hold(deps_of(c), HoldCommand(v.unit_id, at(12, 19), at(12, 20), (v.resource_ids["Campo 2"],),
                                           customer=customer(10)))
        taken = (await c.say(ANA, "1"))[-1]
        first = options(taken)[0]
        again = (await c.say(ANA, "1"))[-1]
        assert again.startswith(first.replace(" 12/12", "") + ", 1 hora, R$ 200,00.")


async def test_rn_atd_08_the_waitlist_offer_arrives_with_its_pix_and_passes_to_the_next_after_10_minutes(
        database_url: str, redis_url: str, pool: Any, clock: Any) -> None:
    """Exemplo: Ana and Bruno, in that order, wait for 21h on Campo 1. Another customer's hold expires: Ana gets the
    offer with the Pix and 10 minutes; she does not pay, and the offer passes to Bruno."""
    v = await paid_arena(pool)
    async with chat(database_url, redis_url, clock, v.unit_id) as c:
        deps = deps_of(c)
        for phone in (ANA, BRUNO):  # both are looking at the summary of 21h on Campo 1...
            summary = await choose(c, phone, "sáb 12/12", "Campo 1", "21h")
            assert summary.startswith("Campo 1, sábado às 21h, 1 hora, R$ 200,00.")
        other = (await hold(deps, HoldCommand(v.unit_id, at(12, 21), at(12, 22), (v.resource_ids["Campo 1"],),
                                              customer=customer(11), service_id=v.service_ids["Campo 1h"]))).booking
        for phone, n, place in ((ANA, 1, 1), (BRUNO, 2, 2)):  # ...when another customer holds it
            taken = (await c.say(phone, "1"))[-1]
            await c.say(phone, option(taken, "lista de espera das 21h no Campo 1"))
            joined = await c.say(phone, cpf(500 + n))
            assert f"(posição {place})" in joined[0]
        clock.set(other.hold_expires_at)
        clock.advance(seconds=1)
        assert await expire_hold(deps, other.id)  # 15h02 in the seed: the line moves
        env = {"SLOTHOLD_WHATSAPP_API_URL": f"http://127.0.0.1:{c.cloud.port}/v21.0",
               "SLOTHOLD_WHATSAPP_NUMBERS": f"{PHONE_NUMBER_ID}={v.unit_id}"}
        ctx = {"deps": deps, "conversations": PgConversations(pool), "channels": make_channels(env, PgInApp(pool))}
        # The worker's sweep (it tells every unit's customers: other tests' offers may be told here too).
        assert await announce_whatsapp_offers(ctx) >= 1  # the offer reaches Ana by itself
        offer = c.new_for(ANA)
        assert offer[0].startswith("Boa notícia: liberou o horário da sua lista de espera! Campo 1, sábado 12/12 às "
                                   "21h. Ele está segurado para você até ")
        assert "Pague o PIX de R$ 100,00" in offer[0] and offer[1].startswith("000201")
        assert c.new_for(BRUNO) == []  # Bruno still waits
        assert await announce_whatsapp_offers(ctx) == 0  # once
        ana_offer = await open_booking(pool, v.unit_id, ANA)
        assert await status_of(pool, ana_offer) == "pending_payment"
        clock.advance(minutes=10, seconds=1)
        assert await expire_hold(deps, ana_offer)
        assert await announce_whatsapp_offers(ctx) >= 1
        offer = c.new_for(BRUNO)
        assert offer[0].startswith("Boa notícia: liberou o horário da sua lista de espera! Campo 1, sábado 12/12")
        told = await c.say(ANA, "oi")
        assert told[0] == ("O prazo para pagar a reserva de Campo 1, sábado 12/12 às 21h venceu e o horário foi "
                           "liberado. Se quiser, é só pedir de novo.")
        # Bruno accepts in the conversation: he says he paid.
        verifying = await c.say(BRUNO, "paguei")
        assert verifying[0].startswith("Certo! Vou conferir o pagamento.")


async def test_rn_hld_07_asking_for_another_slot_with_a_hold_open_offers_the_swap(
        database_url: str, redis_url: str, pool: Any, clock: Any) -> None:
    """Exemplo: at 14h00 the customer holds 19h on Campo 1; at 14h05 asks for 20h on Campo 2, answers 1 to swap,
    and gets a new Pix of R$ 200,00 with the hold until 14h20; 19h is free at once."""
    v = await full_price_arena(pool)
    clock.set(at(12, 14, 0))
    async with chat(database_url, redis_url, clock, v.unit_id) as c:
        await choose(c, ANA, "hoje", "Campo 1", "19h")
        pix = await c.say(ANA, "1")
        assert pix[0].startswith("Segurei Campo 1, hoje às 19h para você até 14:15. Pague o PIX de R$ 200,00")
        old = await open_booking(pool, v.unit_id, ANA)
        clock.set(at(12, 14, 5))
        menu = (await c.say(ANA, "outro horário"))[-1]
        assert menu.startswith("Para qual dia você quer reservar?")
        menu = (await c.say(ANA, option(menu, "hoje")))[-1]
        menu = (await c.say(ANA, option(menu, "Campo 2")))[-1]
        menu = (await c.say(ANA, option(menu, "20h")))[-1]
        await c.say(ANA, "1")
        ask = await c.say(ANA, "sim")
        assert ask == ["Você já tem um horário reservado aguardando pagamento. Quer trocar para este horário?\n"
                       "Responda 1 para trocar (o PIX antigo é cancelado e o horário antigo liberado) ou 2 para "
                       "manter o atual."]
        pix = await c.say(ANA, "1")
        assert pix[0].startswith("Segurei Campo 2, hoje às 20h para você até 14:20. Pague o PIX de R$ 200,00")
        new = await open_booking(pool, v.unit_id, ANA)
        assert new != old
        assert await status_of(pool, old) == "cancelled" and await status_of(pool, new) == "pending_payment"
        assert await pool.fetchval("SELECT status FROM charges WHERE booking_id = $1", old) == "cancelled"


async def test_rn_atd_13_cancelar_frees_the_slot_at_once_and_counts_as_an_expiration(
        database_url: str, redis_url: str, pool: Any, clock: Any) -> None:
    """Exemplo: at 18h02 the customer gets the Pix of 21h and at 18h04 types "cancelar"."""
    v = await paid_arena(pool)
    clock.set(at(12, 18, 2))
    async with chat(database_url, redis_url, clock, v.unit_id) as c:
        await choose(c, ANA, "hoje", "Campo 1", "21h")
        await c.say(ANA, "1")
        booking = await open_booking(pool, v.unit_id, ANA)
        clock.set(at(12, 18, 4))
        assert await c.say(ANA, "Cancelar") == [
            "Pronto, cancelei: o horário foi liberado e aquele PIX foi cancelado. Não pague o código que enviei."]
        assert await status_of(pool, booking) == "cancelled"
        assert await pool.fetchval("SELECT actor FROM booking_events WHERE booking_id = $1 AND new_status = "
                                   "'cancelled'", booking) == "customer"
        menu = (await c.say(ANA, "oi"))[-1]
        menu = (await c.say(ANA, option(menu, "hoje")))[-1]
        times = (await c.say(ANA, option(menu, "Campo 1")))[-1]
        assert "21h" in options(times)  # free again
        assert await c.say(ANA, "cancelar") == ["Tudo bem, não há nenhuma reserva pendente. Quando quiser, é só "
                                                "pedir de novo."]


async def test_rn_hld_06_a_receipt_freezes_the_slot_for_verification_and_never_confirms_it(
        database_url: str, redis_url: str, pool: Any, clock: Any) -> None:
    """Exemplo: the customer sends the photo of a receipt: Em verificação for 30 minutes, a critical queue item;
    "cancelar" is refused then; staff deny the claim and the slot is free again."""
    v = await paid_arena(pool)
    async with chat(database_url, redis_url, clock, v.unit_id) as c:
        await choose(c, ANA, "sáb 12/12", "Campo 1", "19h")
        await c.say(ANA, "1")
        booking = await open_booking(pool, v.unit_id, ANA)
        frozen = await c.say(ANA, "comprovante", kind="image")
        assert frozen == ["Certo! Vou conferir o pagamento. O horário fica congelado até 09:30 enquanto a equipe "
                          "confere; assim que o PIX aparecer no banco, a reserva é confirmada. Comprovante não "
                          "confirma a reserva."]
        assert await status_of(pool, booking) == "verifying"
        assert await pool.fetchval("SELECT type FROM queue_items WHERE booking_id = $1", booking) == \
            "customer_says_paid"
        refused = await c.say(ANA, "cancelar")
        assert refused[0].startswith("Como você já disse que pagou, o pagamento está em verificação e não dá para "
                                     "cancelar agora.")
        assert await status_of(pool, booking) == "verifying"
        assert (await c.say(ANA, "paguei"))[0].startswith("Estamos conferindo o seu pagamento")
        # No swap while verifying (RN-HLD-07).
        menu = (await c.say(ANA, "menu"))[-1]
        menu = (await c.say(ANA, option(menu, "sáb 12/12")))[-1]
        menu = (await c.say(ANA, option(menu, "Campo 3")))[-1]
        menu = (await c.say(ANA, option(menu, "21h")))[-1]
        await c.say(ANA, "1")
        assert (await c.say(ANA, "1"))[0].startswith("Você já tem um horário reservado aguardando pagamento.")
        assert await c.say(ANA, "1") == ["Seu pagamento está em verificação, então não dá para trocar de horário "
                                         "agora."]
        assert await status_of(pool, booking) == "verifying"
        await settlement.deny_claim(deps_of(c), booking, "staff", "comprovante de outro dia")
        told = await c.say(ANA, "oi")
        assert told[0].startswith("O prazo para pagar a reserva de Campo 1, sábado 12/12 às 19h venceu")


async def test_rn_hld_05_cooldown_and_the_ceiling_refuse_with_their_messages(
        database_url: str, redis_url: str, pool: Any, clock: Any) -> None:
    """Exemplo: three holds left to expire → the bot says only the counter can book for now; a unit at its hold
    ceiling asks to try again in a few minutes (and the queue gets the alert)."""
    v = await paid_arena(pool)
    async with chat(database_url, redis_url, clock, v.unit_id) as c:
        deps = deps_of(c)
        for hour in (10, 11, 12):
            b = (await hold(deps, HoldCommand(v.unit_id, at(9, hour), at(9, hour + 1), (v.resource_ids["Campo 3"],),
                                              customer=CustomerIdentity(phone=ANA), channel="whatsapp"))).booking
            assert b.hold_expires_at is not None
            clock.set(b.hold_expires_at)
            clock.advance(seconds=1)
            assert await expire_hold(deps, b.id)
        await choose(c, ANA, "sáb 12/12", "Campo 1", "19h")
        refused = await c.say(ANA, "1")
        assert refused[0].startswith("Por causa de reservas recentes não pagas, no momento só é possível reservar "
                                     "pelo balcão (até ")
        assert await pool.fetchval("SELECT count(*) FROM bookings b JOIN customers cu ON cu.id = b.customer_id "
                                   "WHERE b.unit_id = $1 AND b.status = 'held'", v.unit_id) == 0

    tight = await paid_arena(pool, hold_ceiling_percent=1)
    async with chat(database_url, redis_url, clock, tight.unit_id) as c:
        await hold(deps_of(c), HoldCommand(tight.unit_id, at(12, 10), at(12, 11), (tight.resource_ids["Campo 4"],),
                                           customer=customer(21)))
        await choose(c, BRUNO, "sáb 12/12", "Campo 1", "19h")
        refused = await c.say(BRUNO, "1")
        assert refused == ["Estamos com muitas reservas em andamento agora. Tente novamente em alguns minutos."]
        assert await pool.fetchval("SELECT count(*) FROM queue_items WHERE unit_id = $1 AND type = 'hold_ceiling'",
                                   tight.unit_id) == 1

    blocked = await paid_arena(pool)
    async with chat(database_url, redis_url, clock, blocked.unit_id) as c:
        await fraud.set_blacklisted(deps_of(c), blocked.unit_id, CustomerIdentity(phone=BRUNO), True, "fraude")
        for typed in ("oi", "sábado", "campo 1", "19", "1 hora"):  # options typed out instead of their numbers
            answer = await c.say(BRUNO, typed)
        assert answer[-1].startswith("Campo 1, sábado às 19h, 1 hora, R$ 200,00.")
        assert await c.say(BRUNO, "1") == ["Não é possível reservar por este canal."]


async def test_rn_hld_03_a_bank_failure_cancels_the_hold_and_asks_to_try_again(
        database_url: str, redis_url: str, pool: Any, clock: Any) -> None:
    v = await paid_arena(pool)
    async with chat(database_url, redis_url, clock, v.unit_id) as c:
        summary = await choose(c, ANA, "sáb 12/12", "Campo 1", "19h")
        c.state["provider"].failing = True
        failed = await c.say(ANA, "1")
        assert failed == ["Não consegui gerar o PIX agora. Tente de novo em instantes.", summary]
        assert await pool.fetchval("SELECT status FROM bookings WHERE unit_id = $1", v.unit_id) == "cancelled"
        c.state["provider"].failing = False
        pix = await c.say(ANA, "1")
        assert pix[0].startswith("Segurei Campo 1, sábado 12/12 às 19h")


async def test_rn_hld_08_the_reminder_and_the_expiry_reach_whatsapp_through_the_cloud_api(
        database_url: str, redis_url: str, pool: Any, clock: Any) -> None:
    """Exemplo: hold 16h00–16h15; at 16h10 "Pagamento perto de expirar"; at 16h15 the expiry message ending in
    "Se quiser, é só pedir de novo." — the notification pipeline, through the same Cloud API adapter."""
    v = await paid_arena(pool)
    clock.set(at(12, 16, 0))
    async with chat(database_url, redis_url, clock, v.unit_id) as c:
        await choose(c, ANA, "hoje", "Campo 1", "21h")
        await c.say(ANA, "1")
        booking: UUID = await open_booking(pool, v.unit_id, ANA)
        env = {"SLOTHOLD_WHATSAPP_API_URL": f"http://127.0.0.1:{c.cloud.port}/v21.0",
               "SLOTHOLD_WHATSAPP_NUMBERS": f"{PHONE_NUMBER_ID}={v.unit_id}"}
        ctx = {"deps": deps_of(c), "conversations": PgConversations(pool), "deliveries": PgDeliveries(pool),
               "channels": make_channels(env, PgInApp(pool)), "redis": None}
        clock.set(at(12, 16, 10))
        assert await remind_hold(deps_of(c), booking)
        clock.set(at(12, 16, 15))
        clock.advance(seconds=1)
        assert await expire_hold(deps_of(c), booking)
        await relay_pass(pool, v.unit_id, clock.now())
        for d in await deliveries(pool, v.unit_id):
            if d["channel"] == "whatsapp":
                await deliver_notification(ctx, str(d["id"]))
        texts = c.new_for(ANA)
        assert any(t.startswith("Pagamento perto de expirar: pague o PIX até 12/12 16:15") for t in texts), texts
        assert any(t.startswith("O prazo para pagar a reserva de 12/12 21:00 venceu") and
                   t.endswith("Se quiser, é só pedir de novo.") for t in texts), texts
        # The conversation knows too, at the customer's next message.
        told = await c.say(ANA, "oi")
        assert told[0].endswith("Se quiser, é só pedir de novo.")
        # A month later the messages and replies are forgotten; the conversation stays.
        kept = await pool.fetchval("SELECT count(*) FROM whatsapp_inbox WHERE unit_id = $1", v.unit_id)
        assert kept > 0
        clock.advance(days=31)
        assert await prune_whatsapp(ctx) >= kept
        assert await pool.fetchval("SELECT count(*) FROM whatsapp_inbox WHERE unit_id = $1", v.unit_id) == 0
        assert await pool.fetchval("SELECT count(*) FROM whatsapp_replies WHERE unit_id = $1", v.unit_id) == 0
        assert await pool.fetchval("SELECT count(*) FROM whatsapp_conversations WHERE unit_id = $1", v.unit_id) == 1
