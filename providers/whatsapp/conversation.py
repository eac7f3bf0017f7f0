"""The WhatsApp booking conversation (seed 001) as a use case over the same use cases as the GraphQL API.

Menus are numbered (no buttons). The path: day → field (or "tanto faz") → time → duration, from bookable slots
(RN-ATD-06); the summary with amount, full or deposit, and policy, accepted with 1/sim/s/aceito/confirmo/ok/pode
(RN-ATD-09); then the hold and its Pix (`services.hold` + `checkout.confirm`). "paguei" or a receipt image →
verifying (RN-HLD-06); "cancelar" (RN-ATD-13); an open hold → swap offer (RN-HLD-07); a slot taken → the 3
alternatives and the waitlist (RN-ATD-07); a waitlist offer is shown with its Pix (RN-ATD-08); anti-fraud refusals
with their pt-BR texts (RN-HLD-05). Every rule lives in those use cases; this module only talks.

Messages of one phone are handled one at a time inside a transaction that holds the conversation's row lock, in
the order of their WhatsApp timestamps; the replies are written in that transaction and sent after it commits.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any
from uuid import UUID

from domain import checkout, queries, services, waitlist
from domain.bookings import Booking, BookingStatus
from domain.conversation import texts as t
from domain.conversation import words as w
from domain.conversation.ports import Conversation, ConversationStore, Inbound, Sender
from domain.customers import CustomerIdentity, Proof, normalize_cpf
from domain.errors import (
    CooldownActive,
    CustomerBlacklisted,
    DomainError,
    ErrorCode,
    HoldCeilingReached,
    HoldLimitReached,
    InvalidInput,
    InvalidTransition,
    PaymentUnavailable,
    SlotOption,
    SlotTaken,
)
from domain.payments import Charge, money, summary_pt
from domain.pricing import price_of
from domain.services import Deps
from domain.units import Resource, Unit

log = logging.getLogger("slothold.whatsapp")

START, DAY, FIELD, TIME, DURATION, SUMMARY = "start", "day", "field", "time", "duration", "summary"
ALTERNATIVES, CPF, SWAP, PAYING, VERIFYING = "alternatives", "cpf", "swap", "paying", "verifying"
MENU_DAYS = 7
IDLE = timedelta(hours=2)
"""A menu left unanswered this long is stale: the next message starts over (times and prices may have moved)."""
MENUS = (DAY, FIELD, TIME, DURATION, SUMMARY, ALTERNATIVES, CPF)
MAX_SLOTS = 3
"""Durations offered: 1 to MAX_SLOTS consecutive slots of the same field."""
OPEN = (BookingStatus.HELD, BookingStatus.PENDING_PAYMENT, BookingStatus.VERIFYING)
REFUSALS = (CooldownActive, HoldCeilingReached, CustomerBlacklisted)


@dataclass(frozen=True)
class Bot:
    """What the conversation runs on: the engine's use cases, its own store and the WhatsApp sender."""

    deps: Deps
    store: ConversationStore
    sender: Sender
    gate: asyncio.Semaphore | None = field(default=None, compare=False)
    """Bounds the conversations handled at once in this process: each holds a connection (its row lock) while the
    use cases it calls take others, so without a bound a burst could take the whole pool and wait for itself."""


async def receive(bot: Bot, message: Inbound) -> bool:
    """Record a received message once, handle every pending message of its conversation in order, send the
    replies. Returns False when the message id had been received before (a WhatsApp retry: nothing new)."""
    fresh = await bot.store.record(message, bot.deps.clock.now())
    await handle_pending(bot, message.unit_id, message.phone)
    await flush(bot, message.unit_id, message.phone)
    return fresh


async def handle_pending(bot: Bot, unit_id: UUID, phone: str) -> int:
    """Handle the conversation's unhandled messages, oldest first, under its row lock; returns how many."""
    unit, resources = await queries.unit_with_resources(bot.deps, unit_id)
    async with AsyncExitStack() as stack:
        if bot.gate is not None:
            await stack.enter_async_context(bot.gate)
        s = await stack.enter_async_context(bot.store.session(unit_id, phone, bot.deps.clock.now()))
        pending = await s.pending()
        for m in pending:
            turn = Turn(bot, unit, resources, s.conversation, m)
            try:
                await turn.run()
            except DomainError as e:  # a refusal nobody expected here: keep talking, never go silent
                log.warning("whatsapp %s: %s (%s) in state %s", m.message_id, e.code, e.message,
                            s.conversation.state)
                turn.say(t.BUSY if e.code == ErrorCode.BUSY else t.NOT_UNDERSTOOD)
            except Exception:  # a bug or an outage must not wedge the conversation on this message forever
                log.exception("whatsapp %s: failed in state %s", m.message_id, s.conversation.state)
                turn.out = [t.BUSY]
            now = bot.deps.clock.now()
            for text in turn.out:
                await s.reply(text, m.message_id, now)
            await s.handled(m.message_id, now)
            s.conversation.updated_at = now
        await s.save(bot.deps.clock.now())
        await s.commit()
    return len(pending)


async def flush(bot: Bot, unit_id: UUID, phone: str) -> int:
    """Send the conversation's unsent replies in order (under its lock, so two flushes never send one twice);
    stops at the first failure, which the next flush retries. Returns how many went out."""
    sent = 0
    async with bot.store.session(unit_id, phone, bot.deps.clock.now()) as s:
        for reply_id, text in await s.unsent():
            try:
                await bot.sender.send_text(phone, text, unit_id)
            except Exception as e:  # the provider failed: keep the reply for the next flush
                log.warning("whatsapp reply %s to %s not sent: %s", reply_id, phone, e)
                await s.failed(reply_id, f"{type(e).__name__}: {e}"[:500])
                break
            await s.sent(reply_id, bot.deps.clock.now())
            sent += 1
        await s.commit()
    return sent


async def announce_offers(bot: Bot, limit: int = 100) -> int:
    """Tell each customer whose slot-waitlist offer is out (a hold with its Pix, RN-ATD-08) about it in their
    conversation, once; the conversation then takes "paguei" or "cancelar" for it. Returns how many were told."""
    now = bot.deps.clock.now()
    told = 0
    for unit_id, phone, booking_id in await bot.store.unannounced_offers(now, limit):
        unit, resources = await queries.unit_with_resources(bot.deps, unit_id)
        async with bot.store.session(unit_id, phone, now) as s:
            turn = Turn(bot, unit, resources, s.conversation,
                        Inbound(unit_id, f"offer:{booking_id}", phone, now, "system"))
            if await turn.offer():
                told += 1
                for text in turn.out:
                    await s.reply(text, None, now)
                await s.save(now)
            await s.commit()
        await flush(bot, unit_id, phone)
    return told


def _iso(value: datetime) -> str:
    return value.isoformat()


def _dt(value: Any) -> datetime:
    return datetime.fromisoformat(str(value))


class Turn:
    """One message handled in one conversation: reads the state, calls use cases, says things."""

    def __init__(self, bot: Bot, unit: Unit, resources: list[Resource], conv: Conversation, msg: Inbound) -> None:
        self.bot, self.deps, self.unit, self.conv, self.msg = bot, bot.deps, unit, conv, msg
        self.resources = [r for r in resources if r.capacity >= 1]
        self.names = {r.id: r.name for r in resources}
        self.now = bot.deps.clock.now()
        self.today = self.now.astimezone(unit.tz).date()
        self.out: list[str] = []

    # --- small things -------------------------------------------------------------------------------------

    @property
    def data(self) -> dict[str, Any]:
        return self.conv.data

    def say(self, text: str) -> None:
        self.out.append(text)

    def local(self, value: datetime) -> datetime:
        return value.astimezone(self.unit.tz)

    def show(self, state: str, text: str) -> None:
        """Say a menu and remember it: unknown input gets it again."""
        self.conv.state = state
        self.data["menu"] = text
        self.say(text)

    def what(self, b: Booking) -> str:
        name = " + ".join(self.names.get(a.resource_id, "?") for a in b.allocations)
        return t.slot_label(name, self.local(b.starts_at), self.today)

    def identity(self) -> CustomerIdentity:
        # The message came from this phone (the webhook is signed): the bot acts as that phone's record only.
        return CustomerIdentity(cpf=self.data.get("cpf"), phone=self.conv.phone, proof=Proof(phone=self.conv.phone))

    def key(self, suffix: str) -> str:
        return f"whatsapp:{self.msg.message_id}:{suffix}"[:255]

    def day_bounds(self, d: date) -> tuple[datetime, datetime]:
        start = datetime.combine(d, time(0), self.unit.tz)
        return start, datetime.combine(date.fromordinal(d.toordinal() + 1), time(0), self.unit.tz)

    async def booking(self) -> Booking | None:
        bid = self.data.get("booking")
        return await queries.booking(self.deps, UUID(bid)) if bid else None

    def forget_booking(self) -> None:
        self.data.pop("booking", None)
        if self.conv.state in (PAYING, VERIFYING, SWAP):
            self.conv.state = START
            self.data.pop("menu", None)

    # --- the turn ------------------------------------------------------------------------------------------

    async def run(self) -> None:
        await self.refresh()
        idle = self.conv.updated_at is not None and self.now - self.conv.updated_at > IDLE
        if idle and self.conv.state in MENUS:
            self.conv.state = START
            self.data.pop("menu", None)
        text = self.msg.text or ""
        if self.msg.kind in ("image", "document"):
            await self.receipt()
            return
        if w.is_cancel(text):
            await self.cancel()
            return
        if self.data.get("booking") and w.is_paid(text):
            await self.paid()
            return
        if self.conv.state not in (PAYING, VERIFYING, SWAP) and await self.offer():
            return
        handler = {
            START: self.on_start, DAY: self.on_day, FIELD: self.on_field, TIME: self.on_time,
            DURATION: self.on_duration, SUMMARY: self.on_summary, ALTERNATIVES: self.on_alternatives,
            CPF: self.on_cpf, SWAP: self.on_swap, PAYING: self.on_paying, VERIFYING: self.on_verifying,
        }.get(self.conv.state, self.on_start)
        await handler(text)

    def again(self) -> None:
        """Unknown input: a short help and the current menu again."""
        self.say(t.NOT_UNDERSTOOD)
        self.repeat_menu()

    def repeat_menu(self) -> None:
        """The menu the customer is answering, once more (none: nothing)."""
        menu = self.data.get("menu")
        if menu:
            self.say(menu)

    async def refresh(self) -> None:
        """Tell what happened to the open booking since the last message (paid, expired, dropped)."""
        b = await self.booking()
        if b is None:
            return
        if b.status in (BookingStatus.CONFIRMED, BookingStatus.CHECKED_IN, BookingStatus.COMPLETED):
            self.say(t.CONFIRMED.format(what=self.what(b)))
        elif b.status is BookingStatus.EXPIRED or b.is_lapsed(self.now):
            self.say(t.EXPIRED.format(what=self.what(b)))
        elif b.status is BookingStatus.CANCELLED:
            self.say(t.DROPPED.format(what=self.what(b)) if b.swapped_to is None else t.ENDED.format(what=self.what(b)))
        else:
            if b.status is BookingStatus.VERIFYING and self.conv.state == PAYING:
                self.conv.state = VERIFYING
            return
        self.forget_booking()

    # --- choosing a slot (RN-ATD-06) -------------------------------------------------------------------------

    async def on_start(self, text: str) -> None:
        self.say(t.WELCOME.format(unit=self.unit.name))
        await self.show_days()

    async def show_days(self) -> None:
        start, _ = self.day_bounds(self.today)
        _, end = self.day_bounds(date.fromordinal(self.today.toordinal() + MENU_DAYS - 1))
        found = await queries.bookable(self.deps, self.unit.id, start, end)
        days = sorted({self.local(o.starts_at).date() for o in found})
        self.data.update(days=[d.isoformat() for d in days])
        if not days:
            self.show(DAY, t.NO_DAYS)
            return
        self.show(DAY, t.menu(t.ASK_DAY, [t.day_label(d, self.today) for d in days], t.DAY_HINT))

    async def on_day(self, text: str) -> None:
        days = self.data.get("days") or []
        n = w.choice(text, len(days))
        d = date.fromisoformat(days[n - 1]) if n else w.parse_day(text, self.today)
        if d is None:
            if w.is_restart(text):
                await self.show_days()
            else:
                self.again()
            return
        await self.choose_day(d)

    async def choose_day(self, d: date) -> None:
        last = self.local(self.now + self.unit.params.max_advance).date()
        if d < self.today or d > last:
            self.say(t.PAST_DAY if d < self.today else t.TOO_FAR.format(days=self.unit.params.max_advance.days))
            await self.show_days()
            return
        start, end = self.day_bounds(d)
        found = await queries.bookable(self.deps, self.unit.id, start, end)
        free = {o.resource_id for o in found}
        fields = [r for r in self.resources if r.id in free]
        if not fields:
            self.say(t.NO_SLOTS_DAY.format(day=t.day_label(d, self.today)))
            await self.show_days()
            return
        self.data.update(day=d.isoformat(), fields=[[str(r.id), r.name] for r in fields])
        self.show(FIELD, t.menu(t.ASK_FIELD.format(day=t.day_label(d, self.today)),
                                [r.name for r in fields] + [t.ANY_FIELD]))

    async def on_field(self, text: str) -> None:
        fields = self.data.get("fields") or []
        n = w.pick(text, [name for _, name in fields] + [t.ANY_FIELD])
        if n is None:
            if w.is_restart(text):
                await self.show_days()
            else:
                self.again()
            return
        self.data["resource"] = fields[n - 1][0] if n <= len(fields) else None
        await self.show_times()

    def chosen_resource(self) -> UUID | None:
        rid = self.data.get("resource")
        return UUID(rid) if rid else None

    async def show_times(self) -> None:
        d = date.fromisoformat(self.data["day"])
        start, end = self.day_bounds(d)
        rid = self.chosen_resource()
        found = await queries.bookable(self.deps, self.unit.id, start, end, rid)
        starts = sorted({o.starts_at for o in found})
        if not starts:
            self.say(t.NO_SLOTS_DAY.format(day=t.day_label(d, self.today)))
            await self.show_days()
            return
        self.data["times"] = [_iso(s) for s in starts]
        where = f" no {self.names[rid]}" if rid else ""
        self.show(TIME, t.menu(t.ASK_TIME.format(day=t.day_label(d, self.today), where=where),
                               [t.clock(self.local(s)) for s in starts]))

    async def on_time(self, text: str) -> None:
        times = self.data.get("times") or []
        n = w.pick(text, [t.clock(self.local(_dt(s))) for s in times])
        if n is None:
            if w.is_restart(text):
                await self.show_days()
            else:
                self.again()
            return
        await self.show_durations(_dt(times[n - 1]))

    async def fits(self, start: datetime, slots: int) -> list[SlotOption]:
        """The resources free for `slots` consecutive slots from `start` (the chosen field, or any)."""
        end = start + timedelta(minutes=self.unit.params.slot_minutes * slots)
        found = await queries.bookable(self.deps, self.unit.id, start, end, self.chosen_resource(), slots=slots)
        order = {r.id: i for i, r in enumerate(self.resources)}
        return sorted((o for o in found if o.starts_at == start), key=lambda o: order.get(o.resource_id, 99))

    async def show_durations(self, start: datetime) -> None:
        durations = [n for n in range(1, MAX_SLOTS + 1) if await self.fits(start, n)]
        if not durations:
            self.say(t.UNAVAILABLE)
            await self.show_times()
            return
        self.data.update(start=_iso(start), durations=durations)
        self.show(DURATION, t.menu(t.ASK_DURATION.format(clock=t.clock(self.local(start))),
                                   [t.hours_label(n, self.unit.params.slot_minutes) for n in durations]))

    async def on_duration(self, text: str) -> None:
        durations = self.data.get("durations") or []
        n = w.pick(text, [t.hours_label(d, self.unit.params.slot_minutes) for d in durations])
        if n is None:
            if w.is_restart(text):
                await self.show_days()
            else:
                self.again()
            return
        start = _dt(self.data["start"])
        options = await self.fits(start, durations[n - 1])
        if not options:
            self.say(t.UNAVAILABLE)
            await self.show_times()
            return
        await self.show_summary(options[0])

    # --- summary and acceptance (RN-ATD-09) -----------------------------------------------------------------

    async def show_summary(self, option: SlotOption) -> None:
        minutes = round((option.ends_at - option.starts_at).total_seconds() / 60)
        service = await self.bot.store.service_for(self.unit.id, minutes)
        name = self.names.get(option.resource_id, "?")
        local = self.local(option.starts_at)
        async with self.deps.uow() as uow:  # read only: the same price and policy `checkout.confirm` will record
            policy = await uow.payments.current_policy(self.unit.id)
            priced = await price_of(uow, self.unit, service, option.starts_at, option.ends_at, 1) if service else None
        due_now, total = (priced.due_now_cents, priced.total_cents) if priced else (0, 0)
        if total:
            text = summary_pt(name, local, minutes / 60, total, due_now, policy.summary_pt())
            hint = t.ACCEPT_HINT
        else:
            head = f"{name}, {t.WEEKDAYS[local.weekday()]} às {t.clock(local)}, {t.hours_label(1, minutes)}."
            text, hint = t.FREE_SUMMARY.format(head=head, policy=policy.summary_pt()), t.ACCEPT_HINT_FREE
        self.data["pick"] = {"resource": str(option.resource_id), "start": _iso(option.starts_at),
                             "end": _iso(option.ends_at), "service": str(service) if service else None}
        self.show(SUMMARY, f"{text}\n\n{hint}")

    async def on_summary(self, text: str) -> None:
        if w.is_accept(text):
            await self.accept()
        elif w.is_decline(text) or w.is_restart(text):
            await self.show_days()
        else:
            self.again()

    def hold_command(self, suffix: str) -> services.HoldCommand:
        pick = self.data["pick"]
        return services.HoldCommand(
            unit_id=self.unit.id, starts_at=_dt(pick["start"]), ends_at=_dt(pick["end"]),
            resource_ids=(UUID(pick["resource"]),), customer=self.identity(),
            service_id=UUID(pick["service"]) if pick.get("service") else None, channel="whatsapp",
            idempotency_key=self.key(suffix))

    async def accept(self) -> None:
        """RN-HLD-01: the hold is made on acceptance; then its Pix (RN-HLD-03)."""
        try:
            result = await services.hold(self.deps, self.hold_command("hold"))
        except HoldLimitReached as e:  # RN-HLD-05/07: one open hold; offer to move it here
            if e.booking_id is None:  # the open hold is not on this phone's record: it counts, but is not ours
                self.say(t.OPEN_HOLD_ELSEWHERE)
                self.conv.state = START
                self.data.pop("menu", None)
                return
            self.data["swap_from"] = str(e.booking_id)
            self.show(SWAP, f"{e.message_pt}\n{t.SWAP_ASK}")
            return
        except SlotTaken as e:
            await self.alternatives(e)
            return
        except REFUSALS as e:
            await self.refused(e)
            return
        except InvalidInput:
            self.say(t.UNAVAILABLE)
            await self.show_days()
            return
        await self.checkout(result.booking)

    async def refused(self, e: CooldownActive | HoldCeilingReached | CustomerBlacklisted) -> None:
        """RN-HLD-05's answers; after the ceiling the customer may answer 1 again in a few minutes."""
        self.say(e.message_pt)
        if not isinstance(e, HoldCeilingReached):
            self.conv.state = START
            self.data.pop("menu", None)

    async def checkout(self, booking: Booking) -> None:
        try:
            result = await checkout.confirm(self.deps, checkout.ConfirmCommand(
                booking.id, channel="whatsapp", contact=self.conv.phone, idempotency_key=self.key("confirm")))
        except PaymentUnavailable as e:  # the hold was cancelled at once (RN-HLD-03): the summary stands
            self.say(e.message)
            self.say(self.data.get("menu") or t.ACCEPT_HINT)
            self.conv.state = SUMMARY
            return
        except (InvalidTransition, InvalidInput):
            await self.release(booking)
            self.say(t.UNAVAILABLE)
            await self.show_days()
            return
        self.paying(result.booking, result.charge)

    async def release(self, booking: Booking) -> None:
        """Give up a hold that cannot be paid (so it does not block the customer's next one)."""
        try:
            await services.cancel(self.deps, services.ChangeCommand(booking.id, actor="system", channel="whatsapp",
                                                                    reason="could not be charged"))
        except DomainError as e:
            log.info("hold %s not released: %s", booking.id, e.message)

    def paying(self, booking: Booking, charge: Charge | None) -> None:
        if charge is None or booking.status is BookingStatus.CONFIRMED:
            self.say(t.CONFIRMED_FREE.format(what=self.what(booking)))
            self.conv.state = START
            self.data.pop("menu", None)
            return
        self.data["booking"] = str(booking.id)
        self.conv.state = PAYING
        self.data.pop("menu", None)
        assert booking.hold_expires_at is not None
        self.say(t.HELD_PIX.format(what=self.what(booking), until=t.hhmm(self.local(booking.hold_expires_at)),
                                   amount=money(charge.amount_cents),
                                   charge_until=t.hhmm(self.local(charge.expires_at))))
        self.say(charge.brcode or "")

    # --- taken: alternatives and the waitlist (RN-ATD-07, RN-ATD-08) ----------------------------------------

    async def alternatives(self, e: SlotTaken) -> None:
        pick = self.data["pick"]
        alts = e.alternatives[:3]
        self.data["alternatives"] = [[str(a.resource_id), _iso(a.starts_at), _iso(a.ends_at)] for a in alts]
        self.data["waitlist"] = [pick["resource"], pick["start"], pick["end"], pick.get("service")]
        wanted = self.local(_dt(pick["start"]))
        options = [t.slot_label(self.names.get(a.resource_id, "?"), self.local(a.starts_at), self.today)
                   for a in alts]
        options.append(t.WAITLIST_OPTION.format(clock=t.clock(wanted),
                                                field=self.names.get(UUID(pick["resource"]), "?")))
        self.show(ALTERNATIVES, t.menu(t.TAKEN if alts else t.TAKEN_NONE, options))

    async def on_alternatives(self, text: str) -> None:
        alts = self.data.get("alternatives") or []
        n = w.choice(text, len(alts) + 1)
        if n is None:
            if w.is_restart(text):
                await self.show_days()
            else:
                self.again()
            return
        if n <= len(alts):
            rid, start, end = alts[n - 1]
            await self.show_summary(SlotOption(UUID(rid), _dt(start), _dt(end)))
            return
        if self.data.get("cpf"):
            await self.join_waitlist()
        else:
            self.show(CPF, t.ASK_CPF)

    async def on_cpf(self, text: str) -> None:
        try:
            self.data["cpf"] = normalize_cpf(w.only_digits(text))
        except InvalidInput:
            self.say(t.BAD_CPF)
            return
        await self.join_waitlist()

    async def join_waitlist(self) -> None:
        rid, start, end, service = self.data["waitlist"]
        try:
            entry = await waitlist.join_slot_waitlist(self.deps, self.unit.id, UUID(rid), _dt(start), _dt(end),
                                                      self.identity(), UUID(service) if service else None)
        except REFUSALS as e:
            await self.refused(e)
            return
        except InvalidInput as e:
            if e.code == ErrorCode.CUSTOMER_BLOCKED:
                await self.refused(CustomerBlacklisted())
                return
            self.say(t.WAITLIST_CLOSED if e.code == ErrorCode.WAITLIST_CLOSED else t.UNAVAILABLE)
            await self.show_days()
            return
        local = self.local(_dt(start))
        self.say(t.WAITLIST_JOINED.format(clock=t.clock(local), day=t.day_label(local.date(), self.today),
                                          field=self.names.get(UUID(rid), "?"), position=entry.get("place") or 1))
        self.conv.state = START
        self.data.pop("menu", None)
        await self.offer()  # a slot already free is offered at once

    async def offer(self) -> bool:
        """A waitlist offer made for this customer is shown with its Pix (RN-ATD-08); True when one was."""
        bid = await self.bot.store.open_offer(self.unit.id, self.conv.phone, self.now)
        if bid is None or str(bid) == self.data.get("booking"):
            return False
        b = await queries.booking(self.deps, bid)
        charges = await queries.charges_of(self.deps, bid, 1)
        charge = charges[0] if charges else None
        self.data["booking"] = str(b.id)
        self.data.pop("menu", None)
        if charge is None or b.hold_expires_at is None:
            self.conv.state = PAYING
            self.say(t.OFFER_FREE.format(what=self.what(b)))
            return True
        self.conv.state = VERIFYING if b.status is BookingStatus.VERIFYING else PAYING
        self.say(t.OFFER.format(what=self.what(b), until=t.hhmm(self.local(b.hold_expires_at)),
                                amount=money(charge.amount_cents)))
        self.say(charge.brcode or "")
        return True

    # --- swap (RN-HLD-07) ------------------------------------------------------------------------------------

    async def on_swap(self, text: str) -> None:
        if w.is_decline(text):
            self.say(t.SWAP_KEPT)
            self.data.pop("swap_from", None)
            await self.status()
            return
        if not w.is_accept(text):
            self.again()
            return
        old = UUID(self.data.pop("swap_from"))
        try:
            result = await checkout.swap(self.deps, checkout.SwapCommand(old, self.hold_command("swap"),
                                                                        contact=self.conv.phone))
        except SlotTaken as e:
            await self.alternatives(e)
            return
        except REFUSALS as e:
            await self.refused(e)
            return
        except PaymentUnavailable as e:
            self.say(e.message)
            await self.show_days()
            return
        except InvalidTransition as e:
            if e.current_state == BookingStatus.VERIFYING.value:
                self.say(t.VERIFYING_NO_SWAP)
                self.data["booking"] = str(old)
                self.conv.state = VERIFYING
                return
            self.say(t.UNAVAILABLE)
            await self.show_days()
            return
        if result.charge is None and result.booking.status is BookingStatus.HELD:
            await self.checkout(result.booking)  # the old hold had not been accepted yet: charge the new one now
        else:
            self.paying(result.booking, result.charge)

    # --- paying, "paguei", "cancelar" (RN-HLD-06, RN-ATD-13) ------------------------------------------------

    async def status(self) -> None:
        """Where the open booking stands, and what the customer can answer."""
        b = await self.booking()
        if b is None:
            await self.show_days()
            return
        assert b.hold_expires_at is not None
        until = t.hhmm(self.local(b.hold_expires_at))
        if b.status is BookingStatus.VERIFYING:
            self.conv.state = VERIFYING
            self.say(t.VERIFYING_HELP.format(what=self.what(b), until=until))
            return
        charges = await queries.charges_of(self.deps, b.id, 1)
        self.conv.state = PAYING
        self.data.pop("menu", None)
        self.say(t.PAYING_HELP.format(what=self.what(b), until=until,
                                      amount=money(charges[0].amount_cents) if charges else money(0)))

    async def on_paying(self, text: str) -> None:
        if w.is_restart(text):
            await self.show_days()  # a new slot: accepting it offers the swap
        elif w.is_accept(text):
            b = await self.booking()
            charges = await queries.charges_of(self.deps, b.id, 1) if b else []
            await self.status()
            if charges and charges[0].brcode:
                self.say(charges[0].brcode)
        else:
            self.say(t.NOT_UNDERSTOOD)
            await self.status()

    async def on_verifying(self, text: str) -> None:
        if w.is_restart(text):
            await self.show_days()
        else:
            await self.status()

    async def receipt(self) -> None:
        """A receipt image is "paguei" (RN-HLD-06); it never confirms anything by itself."""
        if self.data.get("booking"):
            await self.paid()
            return
        self.say(t.IMAGE_NOTHING_DUE)
        self.repeat_menu()

    async def paid(self) -> None:
        b = await self.booking()
        assert b is not None
        if b.status is BookingStatus.VERIFYING:
            await self.status()
            return
        try:
            b = await checkout.claim_paid(self.deps, b.id)
        except InvalidTransition:
            await self.status()
            return
        assert b.hold_expires_at is not None
        self.conv.state = VERIFYING
        self.data.pop("menu", None)
        self.say(t.VERIFYING.format(until=t.hhmm(self.local(b.hold_expires_at))))

    async def cancel(self) -> None:
        b = await self.booking()
        if b is None:
            self.say(t.NOTHING_TO_CANCEL)
            self.conv.state = START
            self.conv.data = {k: v for k, v in self.data.items() if k == "cpf"}
            return
        if b.status is BookingStatus.VERIFYING:
            assert b.hold_expires_at is not None
            self.say(t.VERIFYING_NO_CANCEL.format(until=t.hhmm(self.local(b.hold_expires_at))))
            self.conv.state = VERIFYING
            return
        try:
            await services.cancel(self.deps, services.ChangeCommand(b.id, actor="customer", channel="whatsapp",
                                                                    reason="cancelar pelo WhatsApp"))
        except InvalidTransition:
            await self.refresh()
            return
        self.say(t.CANCELLED)
        self.data.pop("booking", None)
        self.conv.state = START
        self.data.pop("menu", None)
