"""The notification matrix per unit (issue 18, seed 002): a unit turns one event off for the owner and one on, and
one off for its customers; the relay plans accordingly, and staff notices of the matrix reach the owner's e-mail."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

from domain import unit_settings
from domain.events import BookingChanged, SlotSpan
from domain.notice_matrix import effective
from domain.notifications import Context, intent, plan
from domain.services import ChangeCommand, Deps, HoldCommand, cancel, hold
from tests.services.test_notifications import deliveries, relay_pass
from tests.venues import arena, at, customer


async def _hold(deps: Deps, unit_id: UUID, resource: UUID, hour: int, n: int) -> Any:
    return (await hold(deps, HoldCommand(unit_id, at(8, hour), at(8, hour + 1), (resource,),
                                         customer=customer(n)))).booking


async def test_a_unit_changes_who_hears_of_an_event_both_ways(deps: Deps, pool: Any, clock: Any) -> None:
    default, changed = await arena(pool), await arena(pool)
    assert await unit_settings.change_parameters(deps, changed.unit_id, {"notificationMatrix": [
        {"event": "cancelled", "customer": False, "staff": False},  # owner (and customer) off
        {"event": "created", "customer": True, "staff": True},  # owner on
    ]}, "tests")
    booked = {}
    for v in (default, changed):
        b = await _hold(deps, v.unit_id, v.resource_ids["Campo 1"], 19, 91)
        await cancel(deps, ChangeCommand(b.id, actor="staff", reason="o dono cancelou"))
        booked[v.unit_id] = b.id
    got = {}
    for v in (default, changed):
        await relay_pass(pool, v.unit_id, clock.now())
        got[v.unit_id] = {(r["kind"], r["audience"]) for r in await deliveries(pool, v.unit_id)}
    assert got[default.unit_id] == {("created", "customer"), ("cancelled", "customer"), ("cancelled", "staff")}
    assert got[changed.unit_id] == {("created", "customer"), ("created", "staff")}


GAME = (SlotSpan(UUID(int=9), datetime.fromisoformat("2026-12-08T22:00:00+00:00"),
                 datetime.fromisoformat("2026-12-08T23:00:00+00:00")),)


def _changed(old: str | None, new: str) -> BookingChanged:
    return BookingChanged(UUID(int=1), UUID(int=8), old, new, "booked", None, None, None, None, None,
                          datetime.fromisoformat("2026-12-07T12:00:00+00:00"), GAME)


def test_the_owner_hears_in_app_and_by_e_mail_of_paid_cancelled_expired_by_default() -> None:
    ctx = Context(customer_id=UUID(int=2), owner_email="dono@arena.example")
    for old, new in (("pending_payment", "confirmed"), ("confirmed", "cancelled"), ("pending_payment", "expired")):
        it = intent(_changed(old, new))
        assert it is not None
        staff = {(p.channel, p.address) for p in plan(it, ctx) if p.audience == "staff"}
        assert staff == {("in_app", None), ("email", "dono@arena.example")}, (old, new)
    for old, new in ((None, "held"), ("checked_in", "completed")):
        it = intent(_changed(old, new))
        assert it is not None
        assert [p for p in plan(it, ctx) if p.audience == "staff"] == []
        assert {p.channel for p in plan(it, ctx) if p.audience == "customer"} == {"in_app"}
    # Turned around: the owner hears of completions (and by e-mail), the player no longer does.
    turned = Context(customer_id=UUID(int=2), owner_email="dono@arena.example",
                     matrix=effective({"completed": {"customer": False, "staff": True}}))
    it = intent(_changed("checked_in", "completed"))
    assert it is not None
    assert {(p.audience, p.channel) for p in plan(it, turned)} == {("staff", "in_app"), ("staff", "email")}
    # Without an owner e-mail, staff notices stay in-app; notices outside the matrix are as before.
    it = intent(_changed("held", "confirmed"))
    assert it is not None
    assert {(p.audience, p.channel) for p in plan(it, turned)} == {("customer", "in_app"), ("staff", "in_app")}


async def test_the_owner_e_mail_is_read_from_the_unit_when_it_has_one(deps: Deps, pool: Any, clock: Any) -> None:
    """The unit's owner e-mail (updateUnitContacts, migration 0019a) receives the owner's notices; the planning runs
    in a transaction rolled back at the end, so the relay of other tests never sees these rows."""
    from jobs.notify import schedule_notifications
    from store.outbox import OutboxEvent
    from store.relay import PgOutboxFeed
    from tests.services.test_notifications import FakeArq

    v = await arena(pool)
    b = await _hold(deps, v.unit_id, v.resource_ids["Campo 1"], 19, 92)
    await cancel(deps, ChangeCommand(b.id, actor="staff", reason="chuva"))
    async with pool.acquire() as conn:
        tx = conn.transaction()
        await tx.start()
        try:
            await conn.execute("UPDATE units SET owner_email = 'dono@arena.example' WHERE id = $1", v.unit_id)
            rows = await conn.fetch("SELECT id, unit_id, topic, payload FROM outbox WHERE unit_id = $1 ORDER BY id",
                                    v.unit_id)
            events = [OutboxEvent(r["id"], r["unit_id"], 0, r["topic"], r["payload"]) for r in rows]
            await schedule_notifications(PgOutboxFeed(conn), FakeArq(), events, clock.now())
            planned = await conn.fetch("SELECT kind, audience, channel, address FROM notification_deliveries "
                                       "WHERE booking_id = $1", b.id)
        finally:
            await tx.rollback()
    staff = {(r["kind"], r["channel"], r["address"]) for r in planned if r["audience"] == "staff"}
    assert staff == {("cancelled", "in_app", None), ("cancelled", "email", "dono@arena.example")}
