"""One message handled in one conversation: a Turn is every stage at once (choosing, accepting, waitlisting, the open
hold); `run` decides which of them answers the message."""

from __future__ import annotations

from domain.bookings import BookingStatus
from domain.conversation import texts as t
from domain.conversation import words as w
from providers.whatsapp.accepting import Accepting
from providers.whatsapp.base import (
    ALTERNATIVES,
    CPF,
    DAY,
    DURATION,
    FIELD,
    IDLE,
    MENUS,
    PAYING,
    START,
    SUMMARY,
    SWAP,
    TIME,
    VERIFYING,
)
from providers.whatsapp.choosing import Choosing
from providers.whatsapp.open_hold import OpenHold
from providers.whatsapp.waitlisting import Waitlisting


class Turn(Choosing, Accepting, Waitlisting, OpenHold):
    """One message handled in one conversation: reads the state, calls use cases, says things."""

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
