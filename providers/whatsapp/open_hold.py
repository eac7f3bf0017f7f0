"""What a customer with an open hold can answer: moving it to the slot just chosen (swap, RN-HLD-07), "paguei" or a
receipt image (verifying, RN-HLD-06), "cancelar" (RN-ATD-13); and where the booking stands."""

from __future__ import annotations

from uuid import UUID

from domain import checkout, queries, services
from domain.bookings import BookingStatus
from domain.conversation import texts as t
from domain.conversation import words as w
from domain.errors import InvalidTransition, PaymentUnavailable, SlotTaken
from domain.payments import money
from providers.whatsapp.base import PAYING, REFUSALS, START, VERIFYING, TurnBase


class OpenHold(TurnBase):
    """The swap offer, paying and verifying, the receipt, \"paguei\" and \"cancelar\"."""

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
