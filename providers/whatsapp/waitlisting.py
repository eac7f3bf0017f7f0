"""A taken slot: the nearest alternatives and the slot's waitlist (RN-ATD-07), joined with a CPF; an offer made to
the waitlisted customer, shown with its Pix (RN-ATD-08)."""

from __future__ import annotations

from uuid import UUID

from domain import queries, waitlist
from domain.bookings import BookingStatus
from domain.conversation import texts as t
from domain.conversation import words as w
from domain.customers import normalize_cpf
from domain.errors import CustomerBlacklisted, ErrorCode, InvalidInput, SlotOption, SlotTaken
from domain.payments import money
from providers.whatsapp.base import ALTERNATIVES, CPF, PAYING, REFUSALS, START, VERIFYING, TurnBase, _dt, _iso


class Waitlisting(TurnBase):
    """Alternatives to a taken slot, the waitlist, and the offers that come out of it."""

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
