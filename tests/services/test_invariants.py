"""The invariant checker (store/invariants.py): quiet on a healthy unit, loud on each planted violation."""

from __future__ import annotations

from typing import Any
from uuid import uuid4

from domain import checkout
from domain.services import ChangeCommand, Deps, HoldCommand, cancel, hold
from store.invariants import check, replay, summary
from tests.venues import arena, at, customer


def test_replay_accepts_legal_histories_and_names_the_first_wrong_step() -> None:
    assert replay("confirmed", [None, "held"], ["held", "confirmed"], ["", ""]) is None
    assert replay("confirmed", [None, "held", "expired"], ["held", "expired", "confirmed"],
                  ["", "deadline passed", "late payment, slot still free"]) is None
    assert replay("held", [None, "held"], ["held", "held"], ["", "waitlist offer claimed"]) is None
    assert replay("confirmed", [None, "held"], ["held", "held"], ["", "x"]) == "illegal move held → held"
    assert replay("expired", [None, "held"], ["held", "confirmed"], ["", ""]) == \
        "history ends confirmed but the booking is expired"
    assert replay("confirmed", [None, "held", "held"], ["held", "expired", "confirmed"], ["", "", ""]) == \
        "event says held → confirmed but the booking was expired"
    assert replay("held", [None], [None], [""]) == "no audit events"
    assert replay("expired", ["held"], ["expired"], [""]) == "born held → expired"


async def test_a_healthy_unit_has_no_violations_and_planted_ones_are_found(deps: Deps, pool: Any) -> None:
    v = await arena(pool, pooled={"Aula": 2})
    kept = (await hold(deps, HoldCommand(v.unit_id, at(8, 19), at(8, 20), (v.resource_ids["Campo 1"],),
                                         customer=customer(1)))).booking
    gone = (await hold(deps, HoldCommand(v.unit_id, at(8, 20), at(8, 21), (v.resource_ids["Campo 1"],),
                                         customer=customer(2)))).booking
    await cancel(deps, ChangeCommand(gone.id))
    await checkout.confirm(deps, checkout.ConfirmCommand(kept.id))
    for n in (3, 5):  # two bookings starting together, filling the class: not over capacity
        await hold(deps, HoldCommand(v.unit_id, at(8, 10), at(8, 11), (v.resource_ids["Aula"],), quantity=1,
                                     customer=customer(n)))
    assert await check(pool, v.unit_id) == []

    lapsed = (await hold(deps, HoldCommand(v.unit_id, at(8, 21), at(8, 22), (v.resource_ids["Campo 2"],),
                                           customer=customer(4)))).booking
    await pool.execute("UPDATE bookings SET hold_expires_at = now() - interval '1 hour' WHERE id = $1", lapsed.id)
    await pool.execute("INSERT INTO booking_events (unit_id, booking_id, old_status, new_status, actor, channel, at) "
                       "VALUES ($1, $2, 'cancelled', 'held', 'x', 'api', now())", v.unit_id, gone.id)
    await pool.execute("INSERT INTO allocations (unit_id, booking_id, resource_id, during, quantity, pooled, "
                       "occupies) SELECT unit_id, booking_id, resource_id, during, 1, true, true FROM allocations "
                       "WHERE resource_id = $1", v.resource_ids["Aula"])
    bank_id = uuid4().hex
    await pool.execute("INSERT INTO received_pix (provider, provider_payment_id) VALUES ('sandbox', $1)", bank_id)
    await pool.execute("INSERT INTO payments (id, unit_id, booking_id, provider, provider_payment_id, txid, "
                       "amount_cents, paid_at, outcome) VALUES ($1, $2, $3, 'sandbox', $4, 'x', 100, now(), "
                       "'confirmed')", uuid4(), v.unit_id, lapsed.id, bank_id)
    found = await check(pool, v.unit_id)
    assert summary(found) == {"lapsed_hold": 1, "audit_replay": 1, "pooled_capacity": 1, "payment": 1}, found
    assert any(str(gone.id) in x.detail and "held" in x.detail for x in found if x.check == "audit_replay")


async def test_the_cli_reports_violations(deps: Deps, pool: Any, database_url: str,
                                          capsys: Any) -> None:
    import asyncio

    from slothold.cli import main

    v = await arena(pool)
    b = (await hold(deps, HoldCommand(v.unit_id, at(8, 19), at(8, 20), (v.resource_ids["Campo 1"],),
                                      customer=customer(1)))).booking
    loop = asyncio.get_running_loop()

    def cli() -> int:
        return main(["audit", "--database-url", database_url, "check", "--unit", str(v.unit_id)])

    assert await loop.run_in_executor(None, cli) == 0
    assert "OK:" in capsys.readouterr().out
    await pool.execute("UPDATE bookings SET hold_expires_at = now() - interval '1 hour' WHERE id = $1", b.id)
    assert await loop.run_in_executor(None, cli) == 1
    assert f"VIOLATION lapsed_hold: booking {b.id}" in capsys.readouterr().out
