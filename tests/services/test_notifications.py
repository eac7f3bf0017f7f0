"""Notifications (SPEC §13): the matrix from outbox rows, delivery through channels, retries with backoff, no
duplicates when a delivery job runs twice — on the real database, with a controlled clock."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

import pytest
from arq import create_pool as create_arq_pool
from arq.connections import RedisSettings
from arq.constants import default_queue_name

from domain.events import BookingChanged, SlotSpan
from domain.notifications import BACKOFF, MAX_ATTEMPTS, Context, Delivery, intent, plan
from domain.services import ChangeCommand, Deps, HoldCommand, cancel, drop, expire_hold, hold, remind_hold
from jobs.notify import deliver_notification, schedule_notifications, sweep_notifications
from providers.channels import InAppChannel, LogChannel, SmtpSettings
from store.in_app import PgInApp
from store.notifications import PgDeliveries, for_customer, for_staff, mark_read
from store.outbox import OutboxEvent
from store.relay import PgOutboxFeed
from tests.venues import arena, at, customer


class FakeArq:
    def __init__(self) -> None:
        self.jobs: list[tuple[str, str, str, datetime | None]] = []

    async def enqueue_job(self, function: str, arg: str, _job_id: str, _defer_until: datetime | None = None) -> None:
        self.jobs.append((function, arg, _job_id, _defer_until))


class Recorder:
    """A channel that records what it sent; fails its first `failures` sends; may be slow."""

    def __init__(self, failures: int = 0, delay: float = 0.0) -> None:
        self.failures, self.delay = failures, delay
        self.sent: list[Delivery] = []
        self.tries = 0

    async def send(self, delivery: Delivery, now: datetime) -> None:
        self.tries += 1
        await asyncio.sleep(self.delay)
        if self.tries <= self.failures:
            raise ConnectionError(f"provider down (try {self.tries})")
        self.sent.append(delivery)


def channels(**overrides: Any) -> dict[str, Any]:
    return {"in_app": overrides.get("in_app", Recorder()), "email": overrides.get("email", Recorder()),
            "whatsapp": overrides.get("whatsapp", Recorder())}


async def relay_pass(pool: Any, unit_id: UUID, now: datetime, arq: Any = None) -> FakeArq:
    """What the relay does for notifications, for every outbox row of the unit (planning twice plans nothing)."""
    arq = arq or FakeArq()
    async with pool.acquire() as conn:
        rows = await conn.fetch("SELECT id, unit_id, topic, payload FROM outbox WHERE unit_id = $1 ORDER BY id",
                                unit_id)
        events = [OutboxEvent(r["id"], r["unit_id"], 0, r["topic"], r["payload"]) for r in rows]
        await schedule_notifications(PgOutboxFeed(conn), arq, events, now)
    return arq


async def deliveries(pool: Any, unit_id: UUID) -> list[dict[str, Any]]:
    rows = await pool.fetch("SELECT * FROM notification_deliveries WHERE unit_id = $1 ORDER BY created_at, key",
                            unit_id)
    return [dict(r) for r in rows]


def ctx_for(deps: Deps, pool: Any, chans: dict[str, Any], redis: Any = None) -> dict[str, Any]:
    return {"deps": deps, "deliveries": PgDeliveries(pool), "channels": chans, "redis": redis}


async def _hold(deps: Deps, unit_id: UUID, resource: UUID, hour: int, n: int = 1) -> Any:
    return (await hold(deps, HoldCommand(unit_id, at(8, hour), at(8, hour + 1), (resource,),
                                         customer=customer(n)))).booking


async def test_the_matrix_from_booking_events(deps: Deps, pool: Any, clock: Any) -> None:
    v = await arena(pool)
    f1, f2, f3 = (v.resource_ids[f"Campo {i}"] for i in (1, 2, 3))
    a = await _hold(deps, v.unit_id, f1, 19, 1)
    b = await _hold(deps, v.unit_id, f2, 19, 2)
    c = await _hold(deps, v.unit_id, f3, 19, 3)
    await pool.execute("UPDATE customers SET email = 'cliente3@example.com' WHERE id = $1", c.customer_id)
    await cancel(deps, ChangeCommand(a.id, actor="customer"))
    await drop(deps, ChangeCommand(b.id, actor="staff", reason="cliente pediu no balcão"))
    clock.set(c.remind_at)
    assert await remind_hold(deps, c.id)
    clock.set(c.hold_expires_at)
    assert await expire_hold(deps, c.id)
    arq = await relay_pass(pool, v.unit_id, clock.now())
    rows = await deliveries(pool, v.unit_id)
    assert len(arq.jobs) == len(rows) and all(j[0] == "deliver_notification" for j in arq.jobs)
    got = {(r["booking_id"], r["kind"], r["audience"], r["channel"]) for r in rows}
    for x in (a, b, c):  # created: the customer only, in-app and WhatsApp (the phone is known)
        assert (x.id, "created", "customer", "in_app") in got and (x.id, "created", "customer", "whatsapp") in got
        assert (x.id, "created", "staff", "in_app") not in got
    assert (c.id, "created", "customer", "email") in got  # e-mail when known
    assert (a.id, "created", "customer", "email") not in got
    assert {(k, au, ch) for bid, k, au, ch in got if bid == a.id and k != "created"} == {
        ("cancelled_by_customer", "customer", "in_app"), ("cancelled_by_customer", "customer", "whatsapp"),
        ("cancelled_by_customer", "staff", "in_app")}
    assert {(k, au) for bid, k, au, ch in got if bid == b.id and k != "created"} == {
        ("dropped", "customer"), ("dropped", "staff")}
    assert {(k, au) for bid, k, au, ch in got if bid == c.id and k not in ("created",)} == {
        ("hold_reminder", "customer"), ("expired", "customer"), ("expired", "staff")}
    text = {(r["booking_id"], r["kind"], r["audience"], r["channel"]): r for r in rows}
    assert text[(a.id, "cancelled_by_customer", "customer", "whatsapp")]["body"] == (
        "Pronto, cancelei: o horário foi liberado e aquele PIX foi cancelado. Não pague o código que enviei.")
    assert text[(b.id, "dropped", "customer", "whatsapp")]["title"] == "Horário liberado pela equipe"
    assert text[(c.id, "hold_reminder", "customer", "whatsapp")]["title"] == "Pagamento perto de expirar"
    assert text[(c.id, "expired", "customer", "email")]["body"].endswith("Se quiser, é só pedir de novo.")
    assert "07/12" not in text[(c.id, "expired", "customer", "email")]["body"]
    assert "08/12 19:00" in text[(c.id, "expired", "customer", "email")]["body"]  # local time of the booking
    # The relay publishes at least once: planning the same rows again plans nothing.
    again = await relay_pass(pool, v.unit_id, clock.now())
    assert again.jobs == [] and len(await deliveries(pool, v.unit_id)) == len(rows)


GAME = (SlotSpan(UUID(int=9), datetime.fromisoformat("2026-12-08T22:00:00+00:00"),
                 datetime.fromisoformat("2026-12-08T23:00:00+00:00")),)


def changed(old: str | None, new: str, allocations: tuple[SlotSpan, ...] = ()) -> BookingChanged:
    """A booking's change as the outbox holds it (only what the notices read varies)."""
    return BookingChanged(UUID(int=1), UUID(int=8), old, new, "booked", None, None, None, None, None,
                          datetime.fromisoformat("2026-12-07T12:00:00+00:00"), allocations)


async def test_english_and_payment_confirmed_and_completed() -> None:
    it = intent(changed("pending_payment", "confirmed", GAME))
    assert it is not None and it.kind == "payment_confirmed"
    planned = plan(it, Context(locale="en", customer_id=UUID(int=2), phone="+5511900000001"))
    assert {(p.audience, p.channel) for p in planned} == {("customer", "in_app"), ("customer", "whatsapp"),
                                                          ("staff", "in_app")}
    assert planned[0].title == "Payment confirmed" and "08/12 19:00" in planned[0].body
    done = intent(changed("checked_in", "completed"))
    assert done is not None
    assert [p.audience for p in plan(done, Context(customer_id=UUID(int=2)))] == ["customer"]
    moved = intent(changed("held", "held"))
    assert moved is None


async def test_retries_back_off_then_send_once(deps: Deps, pool: Any, clock: Any) -> None:
    v = await arena(pool)
    await _hold(deps, v.unit_id, v.resource_ids["Campo 1"], 19, 11)
    await relay_pass(pool, v.unit_id, clock.now())
    row = next(r for r in await deliveries(pool, v.unit_id) if r["channel"] == "whatsapp")
    flaky = Recorder(failures=2)
    redis = FakeArq()
    ctx = ctx_for(deps, pool, channels(whatsapp=flaky), redis)
    t0 = clock.now()
    assert await deliver_notification(ctx, str(row["id"])) == "retry"
    r = (await deliveries(pool, v.unit_id))
    r1 = next(x for x in r if x["id"] == row["id"])
    assert (r1["status"], r1["attempts"], r1["next_attempt_at"]) == ("pending", 1, t0 + BACKOFF[0])
    assert "provider down" in r1["last_error"]
    assert redis.jobs == [("deliver_notification", str(row["id"]), f"notify:{row['id']}:2", t0 + BACKOFF[0])]
    assert await deliver_notification(ctx, str(row["id"])) == "skipped"  # not due yet: nothing happens
    clock.set(t0 + BACKOFF[0])
    assert await deliver_notification(ctx, str(row["id"])) == "retry"
    r2 = await pool.fetchrow("SELECT * FROM notification_deliveries WHERE id = $1", row["id"])
    assert (r2["attempts"], r2["next_attempt_at"]) == (2, t0 + BACKOFF[0] + BACKOFF[1])
    clock.set(r2["next_attempt_at"])
    assert await deliver_notification(ctx, str(row["id"])) == "sent"
    assert await deliver_notification(ctx, str(row["id"])) == "skipped"
    r3 = await pool.fetchrow("SELECT * FROM notification_deliveries WHERE id = $1", row["id"])
    assert (r3["status"], r3["attempts"], r3["sent_at"], r3["last_error"]) == ("sent", 3, clock.now(), None)
    assert len(flaky.sent) == 1 and flaky.sent[0].address == customer(11).phone


async def test_a_delivery_fails_for_good_after_its_attempts(deps: Deps, pool: Any, clock: Any) -> None:
    v = await arena(pool)
    await _hold(deps, v.unit_id, v.resource_ids["Campo 1"], 19, 12)
    await relay_pass(pool, v.unit_id, clock.now())
    row = next(r for r in await deliveries(pool, v.unit_id) if r["channel"] == "whatsapp")
    dead = Recorder(failures=100)
    ctx = ctx_for(deps, pool, channels(whatsapp=dead))
    waits = []
    for _ in range(MAX_ATTEMPTS):
        before = clock.now()
        status = await deliver_notification(ctx, str(row["id"]))
        r = await pool.fetchrow("SELECT * FROM notification_deliveries WHERE id = $1", row["id"])
        if status == "retry":
            waits.append(r["next_attempt_at"] - before)
            clock.set(r["next_attempt_at"])
    assert waits == list(BACKOFF)  # 30 s, 2 min, 10 min, 1 h
    assert (status, r["status"], r["attempts"]) == ("failed", "failed", MAX_ATTEMPTS)
    clock.advance(days=1)
    await sweep_notifications(ctx)  # (the database is shared: the sweep may send other tests' rows)
    assert [d for d in dead.sent if d.id == row["id"]] == []
    r = await pool.fetchrow("SELECT * FROM notification_deliveries WHERE id = $1", row["id"])
    assert (r["status"], r["attempts"]) == ("failed", MAX_ATTEMPTS)


async def test_a_job_run_twice_at_once_sends_once(deps: Deps, pool: Any, clock: Any) -> None:
    v = await arena(pool)
    await _hold(deps, v.unit_id, v.resource_ids["Campo 1"], 19, 13)
    await relay_pass(pool, v.unit_id, clock.now())
    rows = await deliveries(pool, v.unit_id)
    slow = {name: Recorder(delay=0.2) for name in ("in_app", "email", "whatsapp")}
    ctx = ctx_for(deps, pool, slow)
    for r in rows:  # two workers, the same job, at the same moment
        outcomes = await asyncio.gather(deliver_notification(ctx, str(r["id"])), deliver_notification(
            ctx_for(deps, pool, slow), str(r["id"])))
        assert sorted(outcomes) == ["sent", "skipped"], outcomes
    await asyncio.gather(sweep_notifications(ctx), sweep_notifications(ctx))  # finds nothing of this unit to do
    mine = [d.id for c in slow.values() for d in c.sent if d.unit_id == v.unit_id]
    assert len(mine) == len(set(mine)) == len(rows)
    assert {r["status"] for r in await deliveries(pool, v.unit_id)} == {"sent"}


async def test_a_worker_that_died_while_sending_is_taken_over_by_the_sweep(
        deps: Deps, pool: Any, clock: Any) -> None:
    v = await arena(pool)
    await _hold(deps, v.unit_id, v.resource_ids["Campo 1"], 19, 14)
    await relay_pass(pool, v.unit_id, clock.now())
    # A worker claimed every row and died; Redis lost every job.
    await pool.execute("UPDATE notification_deliveries SET status = 'sending', attempts = 1, claimed_until = $2 "
                       "WHERE unit_id = $1", v.unit_id, clock.now() + timedelta(minutes=2))
    rec = channels()
    ctx = ctx_for(deps, pool, rec)
    await sweep_notifications(ctx)
    assert {r["status"] for r in await deliveries(pool, v.unit_id)} == {"sending"}  # the lease holds
    clock.advance(minutes=2, seconds=1)
    await sweep_notifications(ctx)
    assert {r["status"] for r in await deliveries(pool, v.unit_id)} == {"sent"}


async def test_in_app_rows_are_stored_once_and_announced(deps: Deps, pool: Any, clock: Any) -> None:
    v = await arena(pool)
    b = await _hold(deps, v.unit_id, v.resource_ids["Campo 1"], 19, 15)
    await cancel(deps, ChangeCommand(b.id, actor="customer"))
    await relay_pass(pool, v.unit_id, clock.now())
    ctx = ctx_for(deps, pool, {"in_app": InAppChannel(PgInApp(pool)), "email": LogChannel("email"),
                               "whatsapp": LogChannel("whatsapp")})
    await sweep_notifications(ctx)
    assert {r["status"] for r in await deliveries(pool, v.unit_id)} == {"sent"}
    mine = await for_customer(pool, b.customer_id, 10, False)
    assert sorted(n["kind"] for n in mine) == ["cancelled_by_customer", "created"]
    staff = await for_staff(pool, v.unit_id, 10, False)
    assert [n["kind"] for n in staff] == ["cancelled_by_customer"]
    added = await pool.fetch("SELECT payload FROM outbox WHERE unit_id = $1 AND topic = 'notification_added'",
                             v.unit_id)
    assert len(added) == 3
    # An in-app channel asked twice for the same delivery (a send that was not recorded) stores it once.
    d = await pool.fetchrow("SELECT * FROM notification_deliveries WHERE unit_id = $1 AND channel = 'in_app' "
                            "AND audience = 'staff'", v.unit_id)
    await InAppChannel(PgInApp(pool)).send(Delivery(id=d["id"], unit_id=v.unit_id, kind=d["kind"], audience="staff",
                                           channel="in_app", title=d["title"], body=d["body"]), clock.now())
    assert len(await for_staff(pool, v.unit_id, 10, False)) == 1
    # Reading: a customer marks only their own; unread_only filters.
    assert await mark_read(pool, [staff[0]["id"]], clock.now(), customer_id=b.customer_id) == []
    assert await mark_read(pool, [n["id"] for n in mine], clock.now(), customer_id=b.customer_id) != []
    assert await for_customer(pool, b.customer_id, 10, True) == []
    assert len(await for_staff(pool, v.unit_id, 10, True)) == 1


async def test_login_codes_and_alerts_go_to_their_address_and_bad_rows_do_not_stop_the_relay(
        pool: Any, clock: Any) -> None:
    v = await arena(pool, owner_alert_whatsapp="+5511988887777")
    now = clock.now()
    bad = [
        OutboxEvent(1_000_000_001, v.unit_id, 1, "notification", ["not", "an", "object"]),  # type: ignore[arg-type]
        OutboxEvent(1_000_000_002, v.unit_id, 2, "notification", {"text": "no kind"}),
        OutboxEvent(1_000_000_003, v.unit_id, 3, "slot_changed", {"booking_id": "not-a-uuid", "status": "held"}),
        OutboxEvent(1_000_000_004, v.unit_id, 4, "notification", {"kind": "login_code", "channel": "pigeon",
                                                                  "to": "x", "text": "t"}),
        OutboxEvent(1_000_000_005, v.unit_id, 5, "notification", {"kind": "login_code", "channel": "email"}),
    ]
    good = [
        OutboxEvent(1_000_000_006, v.unit_id, 6, "notification", {
            "kind": "login_code", "channel": "email", "to": "ana@example.com", "text": "Seu código: 123456"}),
        OutboxEvent(1_000_000_007, v.unit_id, 7, "notification", {
            "kind": "owner_alert", "channel": "whatsapp", "to": "+5511988887777", "text": "Teto de holds atingido"}),
        OutboxEvent(1_000_000_008, v.unit_id, 8, "queue_changed", {"kind": "opened"}),
    ]
    arq = FakeArq()
    async with pool.acquire() as conn:
        assert await schedule_notifications(PgOutboxFeed(conn), arq, bad + good, now) == 3
    rows = await deliveries(pool, v.unit_id)
    assert {(r["kind"], r["audience"], r["channel"], r["address"]) for r in rows} == {
        ("login_code", "address", "email", "ana@example.com"),
        ("owner_alert", "address", "whatsapp", "+5511988887777"), ("owner_alert", "staff", "in_app", None)}
    code = next(r for r in rows if r["kind"] == "login_code")
    assert code["body"] == "Seu código: 123456"
    assert not await pool.fetchval("SELECT count(*) FROM notifications WHERE unit_id = $1", v.unit_id)


async def test_the_relay_enqueues_on_redis(pool: Any, redis_url: str, clock: Any) -> None:
    v = await arena(pool)
    arq = await create_arq_pool(RedisSettings.from_dsn(redis_url))
    try:
        ev = OutboxEvent(1_000_000_101, v.unit_id, 1, "notification", {
            "kind": "login_code", "channel": "whatsapp", "to": "+5511900001111", "text": "Seu código: 1"})
        async with pool.acquire() as conn:
            assert await schedule_notifications(PgOutboxFeed(conn), arq, [ev], clock.now()) == 1
        (row,) = await deliveries(pool, v.unit_id)
        assert await arq.zscore(default_queue_name, f"notify:{row['id']}:1") is not None
    finally:
        await arq.aclose(close_connection_pool=True)


def test_smtp_settings_from_the_environment() -> None:
    assert SmtpSettings.from_env({}) is None
    s = SmtpSettings.from_env({"SLOTHOLD_SMTP_HOST": "mail", "SLOTHOLD_SMTP_PORT": "2525",
                               "SLOTHOLD_SMTP_USER": "u", "SLOTHOLD_SMTP_PASSWORD": "p",
                               "SLOTHOLD_SMTP_FROM": "Arena <a@b.c>"})
    assert s == SmtpSettings("mail", 2525, "u", "p", "Arena <a@b.c>")


@pytest.mark.parametrize("locale", ["pt-BR", "en"])
def test_every_kind_has_words_in_every_locale(locale: str) -> None:
    from domain.notifications import TEMPLATES

    assert set(TEMPLATES[locale]) == set(TEMPLATES["pt-BR"])


def test_reschedules_and_swaps_are_told_once() -> None:
    who = UUID(int=2)
    old = intent(changed("confirmed", "cancelled", GAME))
    new = intent(changed(None, "confirmed", GAME))
    assert old is not None and new is not None
    assert plan(old, Context(customer_id=who, actor="customer", reason="rescheduled")) == []
    told = plan(new, Context(customer_id=who, actor="customer", reason=f"rescheduled from {UUID(int=3)}"))
    assert [(p.kind, p.audience, p.body) for p in told] == [
        ("rescheduled", "customer", "Sua reserva foi remarcada para 08/12 19:00."),
        ("rescheduled", "staff", "Uma reserva foi remarcada para 08/12 19:00.")]
    swapped = plan(old, Context(customer_id=who, actor="customer", reason="swapped"))
    assert [(p.kind, p.audience) for p in swapped] == [("swapped", "customer")]
    paid = plan(old, Context(customer_id=who, actor="customer"))  # a confirmed booking: no Pix to void
    assert {(p.kind, p.audience) for p in paid} == {("cancelled", "customer"), ("cancelled", "staff")}


async def test_finished_deliveries_are_forgotten_after_30_days(deps: Deps, pool: Any, clock: Any) -> None:
    from jobs.notify import prune_notification_deliveries

    v = await arena(pool)
    await _hold(deps, v.unit_id, v.resource_ids["Campo 1"], 19, 16)
    await relay_pass(pool, v.unit_id, clock.now())
    ctx = ctx_for(deps, pool, {"in_app": InAppChannel(PgInApp(pool)), "email": Recorder(),
                               "whatsapp": Recorder(failures=99)})
    for r in await deliveries(pool, v.unit_id):
        await deliver_notification(ctx, str(r["id"]))
    await pool.execute("UPDATE notification_deliveries SET status = 'failed' WHERE unit_id = $1 AND "
                       "channel = 'whatsapp'", v.unit_id)
    clock.advance(days=29)
    await prune_notification_deliveries(ctx)
    assert len(await deliveries(pool, v.unit_id)) == 2
    clock.advance(days=2)
    await prune_notification_deliveries(ctx)
    assert await deliveries(pool, v.unit_id) == []
    assert len(await pool.fetch("SELECT 1 FROM notifications WHERE unit_id = $1", v.unit_id)) == 1  # in-app stays


def test_a_whatsapp_booking_is_not_told_on_whatsapp_what_the_bot_already_said() -> None:
    from uuid import uuid4

    from domain.notifications import Context, Intent, plan
    from slothold.settings import Settings
    from slothold.worker import cron_jobs

    customer = uuid4()
    base = Context(customer_id=customer, phone="+5511999990001", actor="customer")
    for kind in ("created",):
        it = Intent(kind=kind, booking_id=uuid4(), customer_id=customer, status="held")
        api = {(p.audience, p.channel) for p in plan(it, base)}
        bot = {(p.audience, p.channel) for p in plan(it, Context(**{**base.__dict__, "channel": "whatsapp"}))}
        assert ("customer", "whatsapp") in api and ("customer", "whatsapp") not in bot
        assert ("customer", "in_app") in bot
    names = {c.name for c in cron_jobs(Settings())}
    assert {"cron:announce_whatsapp_offers", "cron:prune_whatsapp"} <= names
