"""The demo venue's week: bookings around today in every state, a staff queue, a waitlist entry and a walk-in.

Made once, when the unit has no booking yet, through the same use cases the API calls. Bookings in the past are
made with the clock set back to when they would have happened (held days before, paid, checked in, completed…),
so their history reads as a real one. The people are invented: Brazilian names, São Paulo mobile numbers and CPFs
valid in form only.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from typing import Any
from uuid import UUID
from zoneinfo import ZoneInfo

from domain.customers import CustomerIdentity

PEOPLE = [
    ("Rafael Oliveira", "+5511987412365", 101_234_567),
    ("Lucas Ferreira", "+5511976543218", 102_345_678),
    ("Camila Rodrigues", "+5511965432187", 103_456_789),
    ("Bruno Almeida", "+5511954321876", 104_567_890),
    ("Juliana Costa", "+5511943218765", 105_678_901),
    ("Marcos Souza", "+5511932187654", 106_789_012),
    ("Fernanda Lima", "+5511921876543", 107_890_123),
    ("Gustavo Ribeiro", "+5511998765123", 108_901_234),
    ("Patrícia Gomes", "+5511987651234", 109_012_345),
    ("Thiago Martins", "+5511976512345", 110_123_456),
    ("Aline Carvalho", "+5511965123456", 111_234_567),
    ("Diego Barbosa", "+5511951234567", 112_345_678),
    ("Renata Pereira", "+5511940123456", 113_456_789),
    ("Felipe Araújo", "+5511939012345", 114_567_890),
]
WALK_IN = ("Sérgio Nunes", "+5511928901234")


def cpf(base: int) -> str:
    """A CPF valid in form (its two check digits right) from nine digits; it belongs to nobody known."""
    digits = [int(c) for c in f"{base % 10**9:09d}"]
    for size in (9, 10):
        total = sum(d * w for d, w in zip(digits, range(size + 1, 1, -1), strict=True))
        digits.append(0 if total % 11 < 2 else 11 - total % 11)
    return "".join(map(str, digits))


def person(i: int) -> CustomerIdentity:
    name, phone, base = PEOPLE[i % len(PEOPLE)]
    return CustomerIdentity(cpf=cpf(base), phone=phone, name=name)


class DemoClock:
    """A clock the seeding sets back and forth (the real time unless set)."""

    def __init__(self) -> None:
        self.at: datetime | None = None

    def now(self) -> datetime:
        return self.at or datetime.now(UTC)


@dataclass
class Week:
    """What the seeding needs: the deps on its clock, the unit, its resources and services by name."""

    deps: Any
    clock: DemoClock
    unit_id: UUID
    tz: ZoneInfo
    fields: dict[str, UUID]
    services: dict[str, UUID]

    def local(self, days: int, hour: int, minute: int = 0) -> datetime:
        """Today + `days` at hour:minute in the venue's time, as UTC."""
        day = datetime.now(self.tz).date() + timedelta(days=days)
        return datetime.combine(day, time(hour, minute), self.tz).astimezone(UTC)

    def set(self, when: datetime | None) -> None:
        self.clock.at = when


async def seed_week(pool: Any, unit_id: UUID) -> int:
    """Add the demo week to `unit_id` unless it has bookings; the number of bookings made."""
    if await pool.fetchval("SELECT 1 FROM bookings WHERE unit_id = $1 LIMIT 1", unit_id):
        return 0
    from slothold.wiring import build_deps

    clock = DemoClock()
    deps = build_deps(pool, clock, env=os.environ, waitlists=False, sandbox_on_clock=True)
    tz = ZoneInfo(await pool.fetchval("SELECT timezone FROM units WHERE id = $1", unit_id))
    fields = {r["name"]: r["id"] for r in await pool.fetch(
        "SELECT id, name FROM resources WHERE unit_id = $1 AND active", unit_id)}
    services = {r["name"]: r["id"] for r in await pool.fetch(
        "SELECT id, name FROM services WHERE unit_id = $1 AND active", unit_id)}
    w = Week(deps, clock, unit_id, tz, fields, services)
    try:
        return await _bookings(w)
    finally:
        w.set(None)


async def _hold(w: Week, who: int, field: str, start: datetime, hours: int = 1, at: datetime | None = None,
                channel: str = "web") -> UUID:
    from domain.services import HoldCommand, hold

    w.set(at)
    service = "Aula de futevôlei" if field == "Aula de futevôlei" else "Locação de campo"
    result = await hold(w.deps, HoldCommand(
        unit_id=w.unit_id, starts_at=start, ends_at=start + timedelta(hours=hours), resource_ids=(w.fields[field],),
        customer=person(who), service_id=w.services.get(service), channel=channel))
    return result.booking.id


async def _accept(w: Week, booking: UUID, channel: str = "web") -> Any:
    """The customer accepts the summary: pending payment with its Pix charge (None when nothing is due)."""
    from domain.checkout import ConfirmCommand, confirm

    return (await confirm(w.deps, ConfirmCommand(booking_id=booking, channel=channel))).charge


async def _pay(w: Week, charge: Any, at: datetime) -> None:
    """The customer's Pix reaches the account at `at` (the sandbox bank, as its webhook would say)."""
    from domain.payments import ReceivedPix
    from domain.settlement import receive_payment

    w.set(at)
    provider = w.deps.provider
    paid_at = at.replace(microsecond=0)
    payment_id = f"E{charge.txid[:20]}{paid_at:%Y%m%d%H%M}"
    if provider is not None and hasattr(provider, "pay"):
        _, body = await provider.pay(charge.txid, at=paid_at)  # the sandbox bank records it as paid too
        payment_id = json.loads(body)["pix"][0]["endToEndId"]  # what a refund asks the bank for
    await receive_payment(w.deps, "sandbox", ReceivedPix(
        provider_payment_id=payment_id, txid=charge.txid, amount_cents=charge.amount_cents, paid_at=paid_at))


async def _paid(w: Week, who: int, field: str, start: datetime, booked_days_before: int = 2,
                channel: str = "web") -> UUID:
    """A booking held, accepted and paid by Pix `booked_days_before` the start (at 10:00 that day)."""
    at = min(start - timedelta(days=booked_days_before), datetime.now(UTC) - timedelta(minutes=30))
    booking = await _hold(w, who, field, start, at=at, channel=channel)
    charge = await _accept(w, booking, channel)
    if charge is not None:
        await _pay(w, charge, at + timedelta(minutes=3))
    return booking


async def _change(w: Week, what: str, booking: UUID, at: datetime, reason: str | None = None) -> None:
    from domain.services import ChangeCommand, cancel, check_in, complete

    w.set(at)
    step = {"check_in": check_in, "complete": complete, "cancel": cancel}[what]
    await step(w.deps, ChangeCommand(booking_id=booking, actor="staff" if what != "cancel" else "customer",
                                     reason=reason))


async def _bookings(w: Week) -> int:
    from domain.attendance import mark_no_show
    from domain.checkout import claim_paid
    from domain.services import CounterCommand, counter_booking, expire_hold
    from domain.waitlist import add_walk_in, join_slot_waitlist

    made = 0
    now = datetime.now(UTC)

    # The last days: completed, a no-show, a cancellation, an expired hold.
    for who, field, days, hour in ((0, "Campo 1", -3, 19), (5, "Campo 3", -2, 20), (10, "Campo 2", -1, 19),
                                   (11, "Campo 1", -1, 21)):
        start = w.local(days, hour)
        b = await _paid(w, who, field, start, booked_days_before=2, channel="whatsapp" if who % 2 else "web")
        await _change(w, "check_in", b, start - timedelta(minutes=12))
        await _change(w, "complete", b, start + timedelta(minutes=62))
        made += 1
    start = w.local(-2, 21)
    b = await _paid(w, 1, "Campo 2", start)
    w.set(start + timedelta(minutes=40))
    await mark_no_show(w.deps, b)
    start = w.local(-1, 20)
    b = await _paid(w, 2, "Campo 3", start, booked_days_before=3)
    await _change(w, "cancel", b, start - timedelta(days=2), reason="Time desfalcado, vamos remarcar")
    start = w.local(-1, 18)
    held_at = start - timedelta(days=1)
    b = await _hold(w, 3, "Campo 4", start, at=held_at)
    await _accept(w, b)  # the Pix was never paid
    w.set(held_at + timedelta(hours=1))
    await expire_hold(w.deps, b)
    made += 3

    # Today: someone on the field now (or last night's late game, before opening time), games tonight.
    local_now = datetime.now(w.tz)
    start = w.local(0, local_now.hour) if 8 <= local_now.hour < 23 else w.local(-1, 22)
    b = await _paid(w, 4, "Campo 4", start, booked_days_before=1)
    await _change(w, "check_in", b, min(start + timedelta(minutes=5), now - timedelta(minutes=1)))
    made += 1
    for who, field, hour in ((6, "Campo 1", 21), (7, "Campo 3", 22)):
        if w.local(0, hour) > now + timedelta(hours=1):
            await _paid(w, who, field, w.local(0, hour), booked_days_before=1)
            made += 1

    # Tomorrow: a hold on the way, a Pix waiting to be paid, a "paguei" being checked, the class filling up.
    await _hold(w, 8, "Campo 1", w.local(1, 12))
    b = await _hold(w, 9, "Campo 4", w.local(1, 17), channel="whatsapp")
    await _accept(w, b, "whatsapp")
    b = await _hold(w, 12, "Campo 2", w.local(1, 14))
    await _accept(w, b)
    await claim_paid(w.deps, b)
    for who in (10, 11, 13):
        await _paid(w, who, "Aula de futevôlei", w.local(1, 18), booked_days_before=1)
    made += 6

    # The rest of the week: paid bookings, a deposit on a weeknight, one at the counter; a line for a taken slot.
    for who, field, days, hour in ((5, "Campo 1", 2, 19), (0, "Campo 2", 2, 20), (1, "Campo 3", 3, 19),
                                   (2, "Campo 1", 4, 10), (3, "Campo 2", 5, 9), (4, "Campo 4", 6, 20)):
        await _paid(w, who, field, w.local(days, hour), booked_days_before=1)
        made += 1
    w.set(None)
    await counter_booking(w.deps, CounterCommand(
        unit_id=w.unit_id, starts_at=w.local(3, 21), ends_at=w.local(3, 22), resource_ids=(w.fields["Campo 4"],),
        customer=person(13), service_id=w.services.get("Locação de campo"), channel="counter", actor="staff"))
    made += 1
    await join_slot_waitlist(w.deps, w.unit_id, w.fields["Campo 1"], w.local(2, 19), w.local(2, 20), person(6))
    await add_walk_in(w.deps, w.unit_id, "Campos", WALK_IN[0], WALK_IN[1], party_size=10)
    return made
