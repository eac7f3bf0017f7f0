"""What every stage of a WhatsApp turn stands on: the conversation's states and limits, and TurnBase — one message in
one conversation, with the small things every stage uses (saying, showing a menu, the customer's identity, the open
booking)."""

from __future__ import annotations

import logging
from datetime import date, datetime, time, timedelta
from typing import TYPE_CHECKING, Any
from uuid import UUID

from domain import queries, services
from domain.bookings import Booking, BookingStatus
from domain.conversation import texts as t
from domain.conversation.ports import Conversation, Inbound
from domain.customers import CustomerIdentity, Proof
from domain.errors import CooldownActive, CustomerBlacklisted, HoldCeilingReached, SlotOption, SlotTaken
from domain.payments import Charge
from domain.units import Resource, Unit

if TYPE_CHECKING:
    from providers.whatsapp.conversation import Bot

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


def _iso(value: datetime) -> str:
    return value.isoformat()


def _dt(value: Any) -> datetime:
    return datetime.fromisoformat(str(value))


class TurnBase:
    """One message in one conversation, and what every stage uses to answer it: its state and data, what is said,
    the customer's identity, the open booking."""

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

    def again(self) -> None:
        """Unknown input: a short help and the current menu again."""
        self.say(t.NOT_UNDERSTOOD)
        self.repeat_menu()

    def repeat_menu(self) -> None:
        """The menu the customer is answering, once more (none: nothing)."""
        menu = self.data.get("menu")
        if menu:
            self.say(menu)

    if TYPE_CHECKING:  # each stage's steps the other stages take (Turn has them all)
        async def refresh(self) -> None: ...
        async def show_days(self) -> None: ...
        async def show_summary(self, option: SlotOption) -> None: ...
        def hold_command(self, suffix: str) -> services.HoldCommand: ...
        async def refused(self, e: CooldownActive | HoldCeilingReached | CustomerBlacklisted) -> None: ...
        async def checkout(self, booking: Booking) -> None: ...
        def paying(self, booking: Booking, charge: Charge | None) -> None: ...
        async def alternatives(self, e: SlotTaken) -> None: ...
