"""A turn's second stage: the summary with its amount and policy, accepted (RN-ATD-09) into a hold (RN-HLD-01) and its
Pix (RN-HLD-03); the anti-fraud refusals with their texts (RN-HLD-05)."""

from __future__ import annotations

from uuid import UUID

from domain import checkout, services
from domain.bookings import Booking, BookingStatus
from domain.conversation import texts as t
from domain.conversation import words as w
from domain.errors import (
    CooldownActive,
    CustomerBlacklisted,
    DomainError,
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
from providers.whatsapp.base import PAYING, REFUSALS, START, SUMMARY, SWAP, TurnBase, _dt, _iso, log


class Accepting(TurnBase):
    """The summary, the hold made on acceptance, its checkout, and what is said when either is refused."""

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
