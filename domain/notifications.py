"""Notifications (SPEC §13, seed 002): which events notify whom, through which channels, with which words.

The outbox is the source: `notification` rows the use cases write (hold reminders, appointment reminders, owner
alerts, login codes, walk-in offers) and `slot_changed` rows of bookings (created, confirmed, cancelled, dropped,
expired, completed), from which the intent is derived here. The relay plans one delivery per recipient and channel
(`plan`); the delivery job claims it and sends it through its channel (`deliver`), retrying with backoff.

The matrix (seed 002; "owner" is the unit's staff, in-app):

| event | customer | staff |
| --- | --- | --- |
| created | yes | no |
| hold reminder | yes | no |
| payment confirmed / confirmed | yes | yes |
| cancelled (by the customer, by staff, dropped by staff) | yes | yes |
| expired | yes | yes |
| completed | yes | no |
| appointment reminder (confirmed bookings, at the unit's offsets before the start) | yes | no |
| rescheduled (one notice, the new time; the old booking's cancellation says nothing) | yes | yes |
| a swapped hold's old half (its Pix is void) | yes | no |
| owner alerts | — | in-app + the `owner_alert_whatsapp` number |

Per unit, `notificationMatrix` turns the customer or the staff side of created, paid, cancelled, completed and
expired on or off (domain/notice_matrix.py); staff notices of those events also go by e-mail to the unit's owner
e-mail when it has one.

A customer hears in-app, by WhatsApp when a phone is known and by e-mail when one is known.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, Protocol
from uuid import UUID
from zoneinfo import ZoneInfo

from domain.events import (
    AppointmentReminderDue,
    BookingChanged,
    CapacityOfferSent,
    Fact,
    HoldReminderDue,
    LoginCodeSent,
    OwnerAlerted,
    WalkInOfferSent,
)
from domain.notice_matrix import Matrix, told

log = logging.getLogger("slothold.notifications")



class Locale(StrEnum):
    """The languages notifications are written in (a unit's `notification_locale`)."""

    PT_BR = "pt-BR"
    EN = "en"


class NotificationChannel(StrEnum):
    """How a notice reaches its recipient."""

    IN_APP = "in_app"
    EMAIL = "email"
    WHATSAPP = "whatsapp"


class Audience(StrEnum):
    """Whom an in-app notification is for."""

    CUSTOMER = "customer"
    STAFF = "staff"


class NotificationKind(StrEnum):
    """What a notice is about: the booking notices of the matrix, reminders, offers, alerts, sign-in codes."""

    CREATED = "created"
    HOLD_REMINDER = "hold_reminder"
    PAYMENT_CONFIRMED = "payment_confirmed"
    CONFIRMED = "confirmed"
    CANCELLED_BY_CUSTOMER = "cancelled_by_customer"
    DROPPED = "dropped"
    CANCELLED = "cancelled"
    EXPIRED = "expired"
    COMPLETED = "completed"
    APPOINTMENT_REMINDER = "appointment_reminder"
    RESCHEDULED = "rescheduled"
    SWAPPED = "swapped"
    CAPACITY_OFFER = "capacity_offer"
    OWNER_ALERT = "owner_alert"
    LOGIN_CODE = "login_code"
    WALK_IN_OFFER = "walk_in_offer"


LOCALES = tuple(Locale)
DEFAULT_LOCALE = Locale.PT_BR.value
CHANNELS = tuple(NotificationChannel)
BACKOFF = (timedelta(seconds=30), timedelta(minutes=2), timedelta(minutes=10), timedelta(hours=1))
"""The waits after the 1st, 2nd, 3rd and 4th failed attempt; the 5th failure is final."""
MAX_ATTEMPTS = len(BACKOFF) + 1
LEASE = timedelta(minutes=2)
"""How long a claimed delivery stays claimed; a worker that died while sending is taken over after it."""

# (title, body) per locale, kind and audience. {when}: the booking's start, {until}: the hold's deadline.
TEMPLATES: dict[str, dict[tuple[str, str], tuple[str, str]]] = {
    "pt-BR": {
        ("created", "customer"): ("Reserva criada", "Recebemos sua reserva de {when}."),
        ("hold_reminder", "customer"): (
            "Pagamento perto de expirar", "Pagamento perto de expirar: pague o PIX até {until} para garantir {when}."),
        ("payment_confirmed", "customer"): ("Pagamento confirmado", "Pagamento recebido: sua reserva de {when} está "
                                            "confirmada."),
        ("payment_confirmed", "staff"): ("Pagamento confirmado", "A reserva de {when} foi paga e está confirmada."),
        ("confirmed", "customer"): ("Reserva confirmada", "Sua reserva de {when} está confirmada."),
        ("confirmed", "staff"): ("Reserva confirmada", "A reserva de {when} está confirmada."),
        ("cancelled_by_customer", "customer"): (
            "Reserva cancelada",
            "Pronto, cancelei: o horário foi liberado e aquele PIX foi cancelado. Não pague o código que enviei."),
        ("cancelled_by_customer", "staff"): ("Reserva cancelada pelo cliente",
                                             "O cliente cancelou a reserva de {when}; o horário foi liberado."),
        ("dropped", "customer"): ("Horário liberado pela equipe",
                                  "Horário liberado pela equipe: a reserva de {when} foi cancelada e aquele PIX foi "
                                  "cancelado. Não pague o código que enviei."),
        ("dropped", "staff"): ("Horário liberado pela equipe", "A equipe derrubou o hold de {when}."),
        ("cancelled", "customer"): ("Reserva cancelada", "A reserva de {when} foi cancelada e o horário foi liberado."),
        ("cancelled", "staff"): ("Reserva cancelada", "A reserva de {when} foi cancelada; o horário foi liberado."),
        ("expired", "customer"): ("Reserva expirada",
                                  "O prazo para pagar a reserva de {when} venceu e o horário foi liberado. "
                                  "Se quiser, é só pedir de novo."),
        ("expired", "staff"): ("Horário liberado", "A reserva de {when} expirou sem pagamento; o horário voltou à "
                                                   "venda."),
        ("completed", "customer"): ("Partida concluída", "Obrigado! A reserva de {when} foi concluída."),
        ("completed", "staff"): ("Reserva concluída", "A reserva de {when} foi concluída."),
        ("created", "staff"): ("Nova reserva", "Uma reserva de {when} foi criada."),
        ("appointment_reminder", "customer"): ("Lembrete da reserva", "Lembrete: sua reserva é em {when}. "
                                               "Até lá!"),
        ("rescheduled", "customer"): ("Reserva remarcada", "Sua reserva foi remarcada para {when}."),
        ("capacity_offer", "customer"): ("Abriu vaga na lista de espera", "Abriu vaga para {when}. Para ficar com "
                                         "ela, confirme até {until}: {text}"),
        ("rescheduled", "staff"): ("Reserva remarcada", "Uma reserva foi remarcada para {when}."),
        ("swapped", "customer"): ("Horário trocado", "Troquei: o horário de {when} foi liberado e aquele PIX foi "
                                                     "cancelado. Não pague o código antigo."),
        ("owner_alert", "staff"): ("Alerta operacional", "{text}"),
        ("message", "customer"): ("Mensagem", "{text}"),
    },
    "en": {
        ("created", "customer"): ("Booking created", "We received your booking for {when}."),
        ("hold_reminder", "customer"): (
            "Payment about to expire", "Payment about to expire: pay the Pix by {until} to keep {when}."),
        ("payment_confirmed", "customer"): ("Payment confirmed", "Payment received: your booking for {when} is "
                                            "confirmed."),
        ("payment_confirmed", "staff"): ("Payment confirmed", "The booking for {when} was paid and is confirmed."),
        ("confirmed", "customer"): ("Booking confirmed", "Your booking for {when} is confirmed."),
        ("confirmed", "staff"): ("Booking confirmed", "The booking for {when} is confirmed."),
        ("cancelled_by_customer", "customer"): (
            "Booking cancelled",
            "Done, I cancelled it: the slot was released and that Pix was cancelled. Do not pay the code I sent."),
        ("cancelled_by_customer", "staff"): ("Cancelled by the customer",
                                             "The customer cancelled the booking for {when}; the slot was released."),
        ("dropped", "customer"): ("Slot released by the staff",
                                  "Slot released by the staff: the booking for {when} was cancelled and that Pix "
                                  "was cancelled. Do not pay the code I sent."),
        ("dropped", "staff"): ("Slot released by the staff", "The staff dropped the hold for {when}."),
        ("cancelled", "customer"): ("Booking cancelled", "The booking for {when} was cancelled and the slot "
                                                         "released."),
        ("cancelled", "staff"): ("Booking cancelled", "The booking for {when} was cancelled; the slot was released."),
        ("expired", "customer"): ("Booking expired", "The time to pay for {when} ran out and the slot was released. "
                                                     "If you like, just ask again."),
        ("expired", "staff"): ("Slot released", "The booking for {when} expired unpaid; the slot is for sale again."),
        ("completed", "customer"): ("Game completed", "Thank you! The booking for {when} is completed."),
        ("completed", "staff"): ("Booking completed", "The booking for {when} is completed."),
        ("created", "staff"): ("New booking", "A booking for {when} was created."),
        ("appointment_reminder", "customer"): ("Booking reminder", "Reminder: your booking is on {when}. "
                                               "See you there!"),
        ("rescheduled", "customer"): ("Booking rescheduled", "Your booking was moved to {when}."),
        ("capacity_offer", "customer"): ("A place opened up", "A place opened for {when}. To take it, claim it "
                                         "by {until}: {text}"),
        ("rescheduled", "staff"): ("Booking rescheduled", "A booking was moved to {when}."),
        ("swapped", "customer"): ("Slot swapped", "Swapped: the slot of {when} was released and that Pix was "
                                                  "cancelled. Do not pay the old code."),
        ("owner_alert", "staff"): ("Operational alert", "{text}"),
        ("message", "customer"): ("Message", "{text}"),
    },
}
STAFF_TOO = frozenset({"payment_confirmed", "confirmed", "cancelled_by_customer", "dropped", "cancelled", "expired",
                       "rescheduled"})
"""Booking notices the unit's staff get as well (seed 002)."""
ADDRESSED = frozenset({"login_code", "walk_in_offer"})
"""Notices to an address only (`to` via `channel`), with the text the use case wrote; never stored in-app."""


@dataclass(frozen=True)
class Intent:
    """What happened, to whom it may matter, as read from one outbox row."""

    kind: str
    booking_id: UUID | None = None
    customer_id: UUID | None = None
    status: str | None = None
    old_status: str | None = None
    starts_at: datetime | None = None
    until: datetime | None = None
    text: str | None = None
    to: str | None = None
    channel: str | None = None


@dataclass(frozen=True)
class Context:
    """What the relay looks up for an intent: the unit, the customer's contacts, how the change was made."""

    timezone: str = "America/Sao_Paulo"
    locale: str = DEFAULT_LOCALE
    owner_alert_whatsapp: str | None = None
    customer_id: UUID | None = None
    phone: str | None = None
    email: str | None = None
    actor: str | None = None
    reason: str | None = None
    starts_at: datetime | None = None
    channel: str | None = None
    """The booking's channel: the WhatsApp conversation itself says what BOT_SAYS lists (domain/conversation)."""
    matrix: Matrix = ()
    """The unit's notification matrix (domain/notice_matrix.py; (): seed 002's)."""
    owner_email: str | None = None
    """The unit's owner e-mail: staff notices of the matrix go there too."""
    echo: bool = False
    """The booking is an occurrence of a series that changed with others at once (a series held, accepted,
    cancelled from a date, expired): the notice of its first occurrence tells it, so nobody gets one per week."""


BOT_SAYS = frozenset({"created", "cancelled_by_customer"})
"""Notices a WhatsApp booking's customer already reads in the conversation: not sent to them on WhatsApp again."""


@dataclass(frozen=True)
class Planned:
    """One delivery to plan: a recipient on a channel, with its words."""

    suffix: str
    kind: str
    audience: str  # customer | staff | address
    channel: str
    title: str
    body: str
    locale: str
    customer_id: UUID | None = None
    address: str | None = None


@dataclass
class Delivery:
    """A delivery row as the job sees it."""

    id: UUID
    unit_id: UUID
    kind: str
    audience: str
    channel: str
    title: str
    body: str
    locale: str = DEFAULT_LOCALE
    customer_id: UUID | None = None
    booking_id: UUID | None = None
    address: str | None = None
    attempts: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


class Channel(Protocol):
    """A way to reach someone; raises when the message did not go out (the delivery is retried)."""

    async def send(self, delivery: Delivery, now: datetime) -> None: ...


class DeliveryStore(Protocol):
    """The record of deliveries (store/notifications.py)."""

    async def claim(self, delivery_id: UUID, now: datetime, lease: timedelta) -> Delivery | None: ...

    async def sent(self, delivery_id: UUID, now: datetime) -> None: ...

    async def failed(self, delivery_id: UUID, error: str, next_attempt_at: datetime | None) -> None: ...


def intent(event: Fact | None) -> Intent | None:
    """The notice an outbox event asks for, or None. Raises ValueError on a notice to an unknown channel, or an
    addressed one (ADDRESSED) without its address."""
    if isinstance(event, BookingChanged):
        return _booking_intent(event)
    match event:
        case HoldReminderDue() | CapacityOfferSent():
            it = Intent(kind=str(event.KIND), booking_id=event.booking_id, customer_id=event.customer_id,
                        until=event.hold_expires_at, text=event.text)
        case AppointmentReminderDue():
            it = Intent(kind=str(event.KIND), booking_id=event.booking_id, customer_id=event.customer_id)
        case OwnerAlerted() | WalkInOfferSent() | LoginCodeSent():
            it = Intent(kind=str(event.KIND), text=event.text, to=event.to, channel=event.channel)
        case _:
            return None
    if it.channel is not None and it.channel not in CHANNELS:
        raise ValueError(f"unknown channel {it.channel!r}")
    if it.kind in ADDRESSED and not (it.to and it.channel):
        raise ValueError(f"a {it.kind} notification needs `to` and `channel`")
    return it


def _booking_intent(event: BookingChanged) -> Intent | None:
    old, new = event.old_status, event.status
    starts = min((a.starts_at for a in event.allocations), default=None)
    base: dict[str, Any] = {"booking_id": event.booking_id, "status": new, "old_status": old, "starts_at": starts,
                            "until": event.hold_expires_at}
    if old is None:
        return Intent(kind="created", **base)
    if old == new:
        return None  # a deadline moved, a hold was swapped in place: no news for anyone
    if new == "confirmed" and old in ("pending_payment", "verifying", "expired", "cancelled"):
        return Intent(kind="payment_confirmed", **base)
    if new == "confirmed" and old == "held":
        return Intent(kind="confirmed", **base)
    if new in ("cancelled", "expired"):
        return Intent(kind=new, **base)  # refined with the audit event's actor and reason (`refine`)
    if new == "completed":
        return Intent(kind="completed", **base)
    return None


def refine(kind: str, actor: str | None, reason: str | None, old_status: str | None = None) -> str | None:
    """Cancellations and expirations by who made them: the customer, staff dropping a hold, or otherwise; a
    reschedule is one notice (the new booking's, with its time), a swapped hold's old half says its Pix is void.
    None: nobody is told."""
    if kind == "created" and reason and reason.startswith("rescheduled from"):
        return "rescheduled"
    if kind == "cancelled" and reason == "rescheduled":
        return None  # the new booking's notice tells it
    if kind == "cancelled" and reason == "swapped":
        return "swapped"
    if kind in ("cancelled", "expired") and reason and reason.startswith("dropped by staff"):
        return "dropped"
    if kind == "cancelled" and actor == "customer" and old_status in ("held", "pending_payment", None):
        return "cancelled_by_customer"  # "… aquele PIX foi cancelado. Não pague o código que enviei."
    return kind


def render(locale: str, kind: str, audience: str, values: dict[str, str]) -> tuple[str, str]:
    """Title and body in the locale (pt-BR when unknown); missing values render empty."""
    templates = TEMPLATES.get(locale) or TEMPLATES[DEFAULT_LOCALE]
    title, body = templates[(kind, audience)]
    safe = defaultdict(str, values)
    return title.format_map(safe), " ".join(body.format_map(safe).split())


def _local(when: datetime | None, tz: str) -> str:
    return when.astimezone(ZoneInfo(tz)).strftime("%d/%m %H:%M") if when else ""


def plan(it: Intent, ctx: Context) -> list[Planned]:
    """Every delivery of an intent: recipients per the matrix, channels per the contacts known."""
    locale = ctx.locale if ctx.locale in LOCALES else DEFAULT_LOCALE
    if it.kind in ADDRESSED:
        assert it.to and it.channel
        return [Planned("address", it.kind, "address", it.channel, it.kind, it.text or "", locale, address=it.to)]
    if it.kind == "owner_alert":
        title, body = render(locale, "owner_alert", "staff", {"text": it.text or ""})
        out = [Planned("staff:in_app", it.kind, "staff", "in_app", title, body, locale)]
        to = it.to or ctx.owner_alert_whatsapp
        if to:
            out.append(Planned("address", it.kind, "address", it.channel or "whatsapp", title, it.text or body,
                               locale, address=to))
        return out
    refined = refine(it.kind, ctx.actor, ctx.reason, it.old_status)
    if refined is None or ctx.echo:
        return []
    kind = refined
    values = {"when": _local(it.starts_at or ctx.starts_at, ctx.timezone), "until": _local(it.until, ctx.timezone),
              "text": it.text or ""}
    out = []
    customer = it.customer_id or ctx.customer_id
    template_kind = kind if (kind, "customer") in TEMPLATES[DEFAULT_LOCALE] else "message"
    governed = told(ctx.matrix, kind)
    if governed is not None and not governed[0]:
        customer = None  # the unit turned this event off for its customers
    if customer is not None and (template_kind != "message" or it.text):
        title, body = render(locale, template_kind, "customer", values)
        out.append(Planned("customer:in_app", kind, "customer", "in_app", title, body, locale, customer_id=customer))
        if ctx.phone and not (ctx.channel == "whatsapp" and kind in BOT_SAYS):
            out.append(Planned("customer:whatsapp", kind, "customer", "whatsapp", title, body, locale,
                               customer_id=customer, address=ctx.phone))
        if ctx.email:
            out.append(Planned("customer:email", kind, "customer", "email", title, body, locale,
                               customer_id=customer, address=ctx.email))
    elif it.to and it.channel and it.text and governed is None:  # a message to an address the use case named
        out.append(Planned("address", kind, "address", it.channel, kind, it.text, locale, address=it.to))
    if (governed[1] if governed is not None else kind in STAFF_TOO):
        title, body = render(locale, kind, "staff", values)
        out.append(Planned("staff:in_app", kind, "staff", "in_app", title, body, locale))
        if governed is not None and ctx.owner_email:
            out.append(Planned("staff:email", kind, "staff", "email", title, body, locale, address=ctx.owner_email))
    return out


def next_attempt(attempts: int, now: datetime) -> datetime | None:
    """When to try again after `attempts` failed attempts; None when they are used up."""
    return now + BACKOFF[attempts - 1] if attempts < MAX_ATTEMPTS else None


async def deliver(store: DeliveryStore, channels: dict[str, Channel], delivery_id: UUID,
                  now: datetime) -> tuple[str, datetime | None]:
    """Claim the delivery, send it, record the outcome: ("sent"|"retry"|"failed"|"skipped", next attempt time).

    Claiming first (a conditional update) makes a second run — the same job twice, or on two workers at once —
    find the delivery taken and send nothing.
    """
    d = await store.claim(delivery_id, now, LEASE)
    if d is None:
        return "skipped", None
    channel = channels.get(d.channel)
    try:
        if channel is None:
            raise LookupError(f"no {d.channel} channel configured")
        await channel.send(d, now)
    except Exception as e:  # any failure of a channel is retried, never lost
        when = next_attempt(d.attempts, now)
        error = f"{type(e).__name__}: {e}"[:500]
        await store.failed(d.id, error, when)
        if when is None:
            log.error("notification %s (%s via %s) failed for good after %d attempts: %s", d.id, d.kind, d.channel,
                      d.attempts, error)
            return "failed", None
        log.warning("notification %s (%s via %s) failed (attempt %d), retrying at %s: %s", d.id, d.kind, d.channel,
                    d.attempts, when.isoformat(), error)
        return "retry", when
    await store.sent(d.id, now)
    return "sent", None
