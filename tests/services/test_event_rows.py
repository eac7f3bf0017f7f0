"""Every outbox row real flows write is a typed fact (domain/events.py) that writes back the very same JSON — the
rows built in SQL too (a hold's cancelled charge, no-show suggestions, appointment reminders)."""

from __future__ import annotations

from typing import Any

from domain import checkout, settlement
from domain.events import TOPICS, AppointmentReminderDue, ChargeCancelRequested, QueueItemChanged, parse_event
from domain.notifications import Delivery
from domain.services import ChangeCommand, Deps, cancel
from jobs.attendance import remind_appointments, suggest_no_shows
from store.attendance import PgAttendance
from store.notifications import add_in_app
from tests.services.fake_bank import FakeBank
from tests.services.test_noshow_reminders import counter
from tests.services.test_notifications import deliveries, relay_pass
from tests.services.test_payments import bank, held, paid_arena, pay_deps  # noqa: F401 (fixtures)
from tests.venues import at


async def test_every_row_of_a_paid_hold_a_late_pix_and_the_attendance_sweeps_is_a_fact(
        pay_deps: Deps, pool: Any, bank: FakeBank, clock: Any) -> None:  # noqa: F811
    v = await paid_arena(pool)
    b = await held(pay_deps, v)
    charge = (await checkout.confirm(pay_deps, checkout.ConfirmCommand(b.id))).charge
    assert charge is not None
    await cancel(pay_deps, ChangeCommand(b.id, "customer"))  # the charge goes with it: charge_cancel, in SQL
    await settlement.receive_payment(pay_deps, "fake", bank.pay(charge.txid, clock.now()))  # late: payment.paid
    confirmed = await counter(pay_deps, v.unit_id, v.resource_ids["Campo 2"], 9, 19)
    clock.set(at(8, 19, 0))
    await remind_appointments({"deps": pay_deps, "attendance": PgAttendance(pool)})  # appointment_reminder, in SQL
    clock.set(at(9, 19, 15))
    await suggest_no_shows({"deps": pay_deps, "attendance": PgAttendance(pool)})  # queue_changed, in SQL
    await relay_pass(pool, v.unit_id, clock.now())
    d = (await deliveries(pool, v.unit_id))[0]
    await add_in_app(pool, Delivery(d["id"], v.unit_id, d["kind"], d["audience"], "in_app", d["title"], d["body"],
                                    customer_id=d["customer_id"], booking_id=d["booking_id"]), clock.now())

    rows = await pool.fetch("SELECT topic, payload FROM outbox WHERE unit_id = $1 ORDER BY id", v.unit_id)
    facts = [parse_event(r["topic"], r["payload"]) for r in rows]
    assert all(r["topic"] in TOPICS for r in rows)
    assert [f.to_json() if f else None for f in facts] == [r["payload"] for r in rows]
    kinds = {type(f) for f in facts}
    assert {ChargeCancelRequested, AppointmentReminderDue, QueueItemChanged} <= kinds
    assert {r["topic"] for r in rows} >= {"slot_changed", "charge_cancel", "payment", "notification", "queue_changed",
                                          "notification_added"}
    assert any(isinstance(f, AppointmentReminderDue) and f.booking_id == confirmed.id for f in facts)
