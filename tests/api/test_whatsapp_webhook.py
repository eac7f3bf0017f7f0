"""The WhatsApp Cloud API webhook on the real app and PostgreSQL, with a fake Cloud API receiving the replies:
the handshake, the signature, duplicate message ids, a restart in the middle, two messages of one phone at once,
and the whole booking conversation (day → field → time → duration → summary → accept → Pix → paid → confirmed)."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from typing import Any

from tests.services.test_payments import paid_arena
from tests.webhook_receiver import Receiver
from tests.whatsapp_cloud import (
    APP_SECRET,
    PHONE_NUMBER_ID,
    VERIFY_TOKEN,
    chat,
    open_booking,
    option,
    payload,
    sign,
    status_of,
    txid_of,
)

ANA = "+5511988880001"
RN_ATD_09 = ("Campo 1, sábado às 19h, 1 hora, R$ 200,00. Pagamento do sinal de 50% (R$ 100,00) agora e R$ 100,00 na "
             "arena. Cancelamento com 24 h ou mais: devolução de 100%; de 6 a 24 h: 50%; com menos de 6 h: sem "
             "devolução.")


async def book_saturday_19h(c: Any, phone: str = ANA, field: str = "Campo 1", hour: str = "19h") -> list[str]:
    """Day → field → time → duration: returns the summary the bot shows."""
    menu = (await c.say(phone, "oi"))[-1]
    menu = (await c.say(phone, option(menu, "sáb 12/12")))[-1]
    menu = (await c.say(phone, option(menu, field)))[-1]
    menu = (await c.say(phone, option(menu, hour)))[-1]
    return await c.say(phone, option(menu, "1 hora"))  # type: ignore[no-any-return]


async def test_the_handshake_answers_the_challenge_only_with_the_verify_token(
        database_url: str, redis_url: str, pool: Any, clock: Any) -> None:
    v = await paid_arena(pool)
    async with chat(database_url, redis_url, clock, v.unit_id) as c:
        ok = await c.http.get("/webhooks/whatsapp", params={"hub.mode": "subscribe", "hub.verify_token": VERIFY_TOKEN,
                                                            "hub.challenge": "1158201444"})
        assert (ok.status_code, ok.text) == (200, "1158201444")
        bad = await c.http.get("/webhooks/whatsapp", params={"hub.mode": "subscribe", "hub.verify_token": "nope",
                                                             "hub.challenge": "1158201444"})
        assert bad.status_code == 403 and "1158201444" not in bad.text


async def test_a_whole_booking_from_the_first_message_to_the_confirmed_reservation(
        database_url: str, redis_url: str, pool: Any, clock: Any) -> None:
    """RN-ATD-06 → RN-ATD-09 → RN-HLD-03 → paid: the seed's summary, word for word, and the Pix of the deposit."""
    v = await paid_arena(pool)
    async with chat(database_url, redis_url, clock, v.unit_id) as c:
        first = await c.say(ANA, "Oi!")
        assert first[0].startswith("Olá! Sou o assistente de reservas de Arena pix")
        assert "Para qual dia você quer reservar?" in first[1] and "1 hoje (seg 07/12)" in first[1]
        fields = (await c.say(ANA, option(first[1], "sáb 12/12")))[-1]
        assert fields.splitlines()[1:] == ["1 Campo 1", "2 Campo 2", "3 Campo 3", "4 Campo 4", "5 Tanto faz"]
        times = (await c.say(ANA, "1"))[-1]
        assert times.splitlines()[1:3] == ["1 8h", "2 9h"]
        durations = (await c.say(ANA, option(times, "19h")))[-1]
        assert durations.splitlines() == ["Por quanto tempo, a partir das 19h?", "1 1 hora", "2 2 horas",
                                          "3 3 horas"]
        summary = (await c.say(ANA, "1"))[-1]
        assert summary.startswith(RN_ATD_09)
        assert summary.endswith("Responda 1 para aceitar e receber o PIX, ou 2 para escolher outro horário.")
        # Nothing is held before the acceptance.
        assert await pool.fetchval("SELECT count(*) FROM bookings WHERE unit_id = $1", v.unit_id) == 0

        pix = await c.say(ANA, "1")
        assert pix[0].startswith("Segurei Campo 1, sábado 12/12 às 19h para você até 09:15. Pague o PIX de R$ 100,00")
        assert "o código vale até 09:13" in pix[0]
        assert pix[1].startswith("000201") and "5406100.00" in pix[1]  # copia e cola of R$ 100,00
        booking = await open_booking(pool, v.unit_id, ANA)
        assert await status_of(pool, booking) == "pending_payment"
        acceptance = await pool.fetchval("SELECT acceptance FROM bookings WHERE id = $1", booking)
        assert (acceptance["channel"], acceptance["contact"]) == ("whatsapp", ANA)

        clock.advance(minutes=3)
        assert await c.state["sandbox_pay"](await txid_of(pool, booking)) == ["confirmed"]
        assert await status_of(pool, booking) == "confirmed"
        after = await c.say(ANA, "oi")
        assert after[0] == "Pagamento recebido: sua reserva de Campo 1, sábado 12/12 às 19h está confirmada."
        # Every reply went to the Cloud API's messages endpoint of the unit's number, with the API token.
        assert {r.path for r in c.cloud.requests} == {f"/v21.0/{PHONE_NUMBER_ID}/messages"}
        assert {r.headers["authorization"] for r in c.cloud.requests} == {"Bearer test-api-token"}


async def test_a_bad_signature_is_refused_and_nothing_is_processed(
        database_url: str, redis_url: str, pool: Any, clock: Any) -> None:
    v = await paid_arena(pool)
    async with chat(database_url, redis_url, clock, v.unit_id) as c:
        body = json.dumps(payload(ANA, "oi", at=clock.now())).encode()
        for signature in (sign(body, "another secret"), "sha256=00", "", sign(body + b" ")):
            r = await c.http.post("/webhooks/whatsapp", content=body,
                                  headers={"x-hub-signature-256": signature} if signature else {})
            assert r.status_code == 401, signature
        assert await pool.fetchval("SELECT count(*) FROM whatsapp_inbox WHERE unit_id = $1", v.unit_id) == 0
        assert c.cloud.requests == []
        assert (await c.post(body, sign(body, APP_SECRET))).status_code == 200
        assert len(c.cloud.requests) == 2


async def test_a_message_delivered_twice_is_answered_once(
        database_url: str, redis_url: str, pool: Any, clock: Any) -> None:
    v = await paid_arena(pool)
    async with chat(database_url, redis_url, clock, v.unit_id) as c:
        menu = (await c.say(ANA, "oi"))[-1]
        retry = payload(ANA, option(menu, "sáb 12/12"), message_id="wamid.SAME", at=clock.now())
        first = await c.post(retry)
        assert first.json() == {"received": 1}
        fields = c.new_for(ANA)
        again = await c.post(retry)
        assert again.status_code == 200 and again.json() == {"received": 0}
        assert c.new_for(ANA) == []  # WhatsApp's retry changed nothing and said nothing
        assert "1 Campo 1" in fields[-1]
        state = await pool.fetchval("SELECT state FROM whatsapp_conversations WHERE unit_id = $1", v.unit_id)
        assert state == "field"


async def test_the_conversation_survives_a_restart_in_the_middle(
        database_url: str, redis_url: str, pool: Any, clock: Any) -> None:
    v = await paid_arena(pool)
    async with Receiver() as cloud:
        async with chat(database_url, redis_url, clock, v.unit_id, cloud=cloud) as c:
            menu = (await c.say(ANA, "oi"))[-1]
            menu = (await c.say(ANA, option(menu, "sáb 12/12")))[-1]
            menu = (await c.say(ANA, option(menu, "Campo 1")))[-1]
        async with chat(database_url, redis_url, clock, v.unit_id, cloud=cloud) as c:  # a new process, same DB
            menu = (await c.say(ANA, option(menu, "19h")))[-1]
            assert menu.startswith("Por quanto tempo, a partir das 19h?")
            summary = (await c.say(ANA, "1"))[-1]
            assert summary.startswith(RN_ATD_09)


async def test_two_messages_of_one_phone_at_once_are_handled_one_after_the_other_in_order(
        database_url: str, redis_url: str, pool: Any, clock: Any) -> None:
    """Two deliveries of one phone in flight together (the later message first): each waits for the conversation's
    row lock, and the messages are handled in the order of their WhatsApp timestamps."""
    v = await paid_arena(pool)
    async with chat(database_url, redis_url, clock, v.unit_id) as c:
        menu = (await c.say(ANA, "oi"))[-1]
        day = option(menu, "sáb 12/12")
        earlier = payload(ANA, day, at=clock.now() + timedelta(seconds=1))
        later = payload(ANA, "2", at=clock.now() + timedelta(seconds=2))  # "Campo 2", once the day is chosen
        async with pool.acquire() as conn, conn.transaction():  # someone is busy with this conversation
            await conn.execute("SELECT 1 FROM whatsapp_conversations WHERE unit_id = $1 AND phone = $2 FOR UPDATE",
                               v.unit_id, ANA)
            posts = asyncio.gather(c.post(later), c.post(earlier))
            for _ in range(100):  # both messages are recorded and wait for the lock
                if await pool.fetchval("SELECT count(*) FROM whatsapp_inbox WHERE unit_id = $1", v.unit_id) == 3:
                    break
                await asyncio.sleep(0.02)
            assert c.new_for(ANA) == []
        r1, r2 = await posts
        assert r1.status_code == r2.status_code == 200
        answers = c.new_for(ANA)
        assert answers[0].startswith("Qual campo em sáb 12/12?")
        assert answers[1].startswith("Horários livres em sáb 12/12 no Campo 2:")
        assert len(answers) == 2
        state = await pool.fetchval("SELECT state FROM whatsapp_conversations WHERE unit_id = $1", v.unit_id)
        assert state == "time"


async def test_a_reply_the_cloud_api_refuses_is_sent_again_with_the_next_one(
        database_url: str, redis_url: str, pool: Any, clock: Any) -> None:
    v = await paid_arena(pool)
    async with chat(database_url, redis_url, clock, v.unit_id) as c:
        c.cloud.fail_next = 1
        r = await c.post(payload(ANA, "oi", at=clock.now()))
        assert r.status_code == 200
        assert len(c.cloud.requests) == 1  # refused (answered 500): the second reply waits behind the first
        assert c.new_for(ANA)[0].startswith("Olá!")
        answers = await c.say(ANA, "1")
        assert answers[0].startswith("Olá!") and answers[1].startswith("Para qual dia")
        assert answers[2].startswith("Qual campo em hoje")
        assert await pool.fetchval("SELECT count(*) FROM whatsapp_replies WHERE unit_id = $1 AND sent_at IS NULL",
                                   v.unit_id) == 0


async def test_status_updates_unknown_numbers_and_malformed_bodies_change_nothing(
        database_url: str, redis_url: str, pool: Any, clock: Any) -> None:
    v = await paid_arena(pool)
    async with chat(database_url, redis_url, clock, v.unit_id) as c:
        statuses = {"object": "whatsapp_business_account", "entry": [{"id": "1", "changes": [{"field": "messages",
                    "value": {"messaging_product": "whatsapp", "metadata": {"phone_number_id": PHONE_NUMBER_ID},
                              "statuses": [{"id": "wamid.X", "status": "delivered", "timestamp": "1",
                                            "recipient_id": "5511988880001"}]}}]}]}
        assert (await c.post(statuses)).json() == {"received": 0}
        other_number = payload(ANA, "oi", at=clock.now(), number_id="999")
        assert (await c.post(other_number)).json() == {"received": 0}
        assert (await c.post(b"{not json")).status_code == 400
        garbage = payload(ANA, "oi", at=clock.now())
        garbage["entry"][0]["changes"][0]["value"]["messages"][0]["from"] = "not a phone"
        assert (await c.post(garbage)).json() == {"received": 0}
        assert await pool.fetchval("SELECT count(*) FROM whatsapp_inbox WHERE unit_id = $1", v.unit_id) == 0
        assert c.cloud.requests == []


async def test_two_customers_accepting_the_same_block_in_the_same_second_one_gets_it_the_other_alternatives(
        database_url: str, redis_url: str, pool: Any, clock: Any) -> None:
    """RN-ATD-07 / RN-HLD-01: only one holds it; the other gets the suggestions and the waitlist."""
    v = await paid_arena(pool)
    bruno = "+5511988880002"
    async with chat(database_url, redis_url, clock, v.unit_id) as c:
        for phone in (ANA, bruno):
            summary = (await book_saturday_19h(c, phone, "Campo 2", "20h"))[-1]
            assert summary.startswith("Campo 2, sábado às 20h, 1 hora, R$ 200,00.")
        r1, r2 = await asyncio.gather(c.post(payload(ANA, "1", at=clock.now())),
                                      c.post(payload(bruno, "1", at=clock.now())))
        assert r1.status_code == r2.status_code == 200
        fresh = c.replies()[c.seen:]
        texts = {to: [t for _, who, t in fresh if who == to] for to in ("5511988880001", "5511988880002")}
        won = [to for to, said in texts.items() if said[0].startswith("Segurei Campo 2, sábado 12/12 às 20h")]
        lost = [to for to, said in texts.items() if said[-1].startswith("Esse horário acabou de ser reservado")]
        assert len(won) == 1 and len(lost) == 1 and won != lost
        assert "4 Entrar na lista de espera das 20h no Campo 2" in texts[lost[0]][-1]
        assert texts[lost[0]][-1].splitlines()[1:4] == [  # seed 001: "19h no Campo 2, 20h no Campo 1 e 21h no
            "1 Campo 2, sábado 12/12 às 19h", "2 Campo 1, sábado 12/12 às 20h",  # Campo 2", in time order
            "3 Campo 2, sábado 12/12 às 21h"]
        assert await pool.fetchval("SELECT count(*) FROM bookings WHERE unit_id = $1 AND status = 'pending_payment'",
                                   v.unit_id) == 1
