"""Units as the API shows them (parameters, opening hours, resources), and what an owner may change of them
(SPEC §17)."""

from __future__ import annotations

from typing import Annotated

import strawberry

from domain import units as du
from domain.access import Principal
from domain.notice_matrix import MatrixEvent
from domain.notifications import Locale
from domain.unit_settings import PARAMETERS
from schema import docs
from schema.enums import described_enum
from schema.errors import InvalidInput, NotFound
from schema.ids import Kind, opt_ref, ref
from schema.nodes import Node
from schema.vocabulary import PaymentRule, Weekday

ResourceKind = du.ResourceKind  # the domain's enum, registered by strawberry.enum (which returns it unchanged)
described_enum(ResourceKind, description="Exclusive: one at a time. Pooled: capacity at a time.", values={
    "EXCLUSIVE": "One booking at a time (a field, a court, a chair, a seat).",
    "POOLED": "Up to `capacity` places at a time (a class, general admission).",
})
described_enum(MatrixEvent, name="NotificationEvent", description="The booking events a unit's notification matrix "
               "turns on or off, for the customer and for the staff (seed 002).", values={
    "CREATED": "A booking was made.",
    "PAID": "A booking's payment was confirmed.",
    "CANCELLED": "A booking was cancelled (by the customer, by staff, or a hold dropped).",
    "COMPLETED": "A booking was completed.",
    "EXPIRED": "A hold or its payment expired.",
})
described_enum(Locale, name="NotificationLocale", description="The language of a unit's notifications.", values={
    "PT_BR": "Brazilian Portuguese (pt-BR), the default.",
    "EN": "English (en).",
})


@strawberry.type(description="Something bookable in a unit.")
class Resource(Node):
    id: strawberry.ID = strawberry.field(description=docs.ID)
    name: str = strawberry.field(description="Its name, unique in the unit (e.g. Campo 1).")
    kind: ResourceKind = strawberry.field(description="EXCLUSIVE (one at a time) or POOLED (capacity at a time).")
    capacity: int = strawberry.field(description="Places at a time: 1 for EXCLUSIVE.")
    group_id: strawberry.ID | None = strawberry.field(description="Its group (a ResourceGroup id); null when none.")

    @classmethod
    def from_domain(cls, r: du.Resource) -> Resource:
        return cls(id=ref(Kind.RESOURCE, r.id), name=r.name, kind=ResourceKind(r.kind.value), capacity=r.capacity,
                   group_id=opt_ref(Kind.RESOURCE_GROUP, r.group_id))


@strawberry.type(description="Opening window: weekday 0 = Monday, minutes after local midnight.")
class OpeningWindow:
    weekday: Weekday = strawberry.field(description="The day of the week.")
    opens_minute: int = strawberry.field(description="Opening time: minutes after local midnight (0 to 1439).")
    closes_minute: int = strawberry.field(description="Closing time: minutes after local midnight (up to 1440, the end "
                                          "of the day), after the opening.")


@strawberry.type(description="Whether the customer and the staff/owner (in-app, and e-mail to the owner's address "
                 "when known) are told of one booking event.")
class NotificationRule:
    event: MatrixEvent = strawberry.field(description="The booking event.")
    customer: bool = strawberry.field(description="Whether the customer is told (in-app, WhatsApp, e-mail).")
    staff: bool = strawberry.field(description="Whether the unit's staff are told (in-app, and e-mail to the owner's "
                                   "address when known).")


@strawberry.input(description="Who is told of one booking event (created, paid, cancelled, completed, expired).")
class NotificationRuleInput:
    event: MatrixEvent = strawberry.field(description="The booking event.")
    customer: bool = strawberry.field(description="Whether the customer is told.")
    staff: bool = strawberry.field(description="Whether the unit's staff are told.")


@strawberry.type(description="The parameters of a unit (SPEC §17), durations in seconds.")
class UnitParameters:
    min_advance_seconds: int = strawberry.field(description="How soon a slot may start after now to be booked by "
                                                "customers (min_advance; default 3600).")
    max_advance_days: int = strawberry.field(description="How far ahead customers may book, in days (default 30).")
    slot_minutes: int = strawberry.field(description="The grid's slot length, in minutes (set when the unit is "
                                         "created).")
    hold_ttl_seconds: int = strawberry.field(description="How long a hold lasts when no payment is due (default "
                                             "600).")
    hold_ttl_with_payment_seconds: int = strawberry.field(description="How long a hold lasts when a Pix is due "
                                                          "(default 900).")
    hold_min_seconds: int = strawberry.field(description="A hold shorter than this is refused (hold_min, RN-HLD-02; "
                                             "default 300).")
    hold_reminder_seconds: int = strawberry.field(description="When, before a hold's deadline, its customer is "
                                                  "reminded (default 300).")
    verification_wait_seconds: int = strawberry.field(description="How long a claimed payment stays VERIFYING "
                                                      "(RN-HLD-06; default 1800).")
    waitlist_hold_seconds: int = strawberry.field(description="How long a slot waitlist offer (a hold) lasts "
                                                  "(default 600).")
    charge_margin_seconds: int = strawberry.field(description="How long before the hold's deadline its Pix charge "
                                                  "expires (default 120).")
    payment_rule: PaymentRule = strawberry.field(description="The unit's default payment rule (FULL by default); a "
                                                 "service's own rule wins.")
    no_show_grace_minutes: int = strawberry.field(description="Minutes after the start with no check-in before a "
                                                  "no-show suggestion.")
    check_in_opens_minutes: int = strawberry.field(
        description="Check-in is accepted from this many minutes before a booking's start until its end.")
    series_charge_days_ahead: int = strawberry.field(
        description="How many days before a later period (month) of a series starts its Pix is charged (default 7).")
    appointment_reminder_minutes: list[int] = strawberry.field(description="Minutes before the start at which "
                                                               "customers of confirmed bookings are reminded.")
    manual_payments_enabled: bool = strawberry.field(description="Whether managers and owners may record payments "
                                                     "taken outside Pix.")
    check_in_required: bool = strawberry.field(description="true: no-shows are a person's decision after a "
                                               "suggestion; false: confirmed bookings complete by themselves.")
    notification_matrix: list[NotificationRule] = strawberry.field(description="Who is told of each booking event, "
                                                                   "every event listed.")

    @classmethod
    def from_domain(cls, p: du.UnitParameters) -> UnitParameters:
        s = int
        return cls(
            min_advance_seconds=s(p.min_advance.total_seconds()), max_advance_days=p.max_advance.days,
            slot_minutes=p.slot_minutes, hold_ttl_seconds=s(p.hold_ttl.total_seconds()),
            hold_ttl_with_payment_seconds=s(p.hold_ttl_with_payment.total_seconds()),
            hold_min_seconds=s(p.hold_min.total_seconds()), hold_reminder_seconds=s(p.hold_reminder.total_seconds()),
            verification_wait_seconds=s(p.verification_wait.total_seconds()),
            waitlist_hold_seconds=s(p.waitlist_hold.total_seconds()),
            charge_margin_seconds=s(p.charge_margin.total_seconds()), payment_rule=PaymentRule(p.payment_rule),
            no_show_grace_minutes=s(p.no_show_grace.total_seconds()) // 60,
            check_in_opens_minutes=s(p.check_in_opens.total_seconds()) // 60,
            series_charge_days_ahead=p.series_charge_days_ahead,
            appointment_reminder_minutes=list(p.appointment_reminders),
            manual_payments_enabled=p.manual_payments_enabled, check_in_required=p.check_in_required,
            notification_matrix=[NotificationRule(event=MatrixEvent(e), customer=c, staff=st)
                                 for e, c, st in p.notification_matrix],
        )


@strawberry.type(description="Where the unit's operational alerts (WhatsApp) and owner notifications (e-mail) go.")
class UnitContacts:
    alert_whatsapp: str | None = strawberry.field(description="E.164, e.g. +5511999990000 (null: none).")
    owner_email: str | None = strawberry.field(description="Where owner notifications are e-mailed (null: none).")


@strawberry.type(description="One venue with its clock, hours, parameters and resources.")
class Unit(Node):
    id: strawberry.ID = strawberry.field(description=docs.ID)
    name: str = strawberry.field(description=docs.NAME)
    timezone: str = strawberry.field(description="Its IANA time zone (e.g. America/Sao_Paulo): it decides \"today\", "
                                     "opening hours and daylight-saving edges.")
    currency: str = strawberry.field(description="The ISO 4217 code of the unit's prices, e.g. BRL.")
    parameters: UnitParameters = strawberry.field(description="Its parameters (SPEC §17).")
    opening_hours: list[OpeningWindow] = strawberry.field(description="Its weekly opening hours (local time).")
    resources: list[Resource] = strawberry.field(description="Its active resources, in the unit's order.")
    domain: strawberry.Private[du.Unit]

    @strawberry.field(description="Staff of the unit and the platform: where alerts and owner notifications go "
                      "(updateUnitContacts). Null for anyone else (customers, integrators, the public).")
    def contacts(self, info: strawberry.Info) -> UnitContacts | None:
        p = getattr(info.context, "principal", None)
        u = self.domain
        if not isinstance(p, Principal) or p.kind not in ("staff", "system") or not p.covers(u.tenant_id, u.id):
            return None
        return UnitContacts(alert_whatsapp=u.params.owner_alert_whatsapp, owner_email=u.params.owner_email)

    @classmethod
    def from_domain(cls, u: du.Unit, resources: list[du.Resource]) -> Unit:
        return cls(
            id=ref(Kind.UNIT, u.id), name=u.name, timezone=u.timezone, currency=u.currency,
            parameters=UnitParameters.from_domain(u.params),
            opening_hours=[OpeningWindow(weekday=Weekday(w.weekday), opens_minute=w.opens, closes_minute=w.closes)
                           for w in u.hours],
            resources=[Resource.from_domain(r) for r in resources], domain=u,
        )


def _bounded(name: str, text: str) -> int | None:
    """An optional parameter of UnitParametersInput, described with its range (domain/unit_settings.py)."""
    b = PARAMETERS[name]
    return strawberry.field(default=None, description=f"{text}: {b.low} to {b.high} {b.unit}.")  # type: ignore[no-any-return]


@strawberry.input(description="The unit parameters to change (SPEC §17); leave out what stays. Each value is "
                  "checked against its range and refused by name. The grid's slot length is not changeable here.")
class UnitParametersInput:
    min_advance_minutes: int | None = _bounded("minAdvanceMinutes", "How soon a slot may start after now for "
                                               "customers to book it (default 60)")
    max_advance_days: int | None = _bounded("maxAdvanceDays", "How far ahead customers may book (default 30)")
    hold_ttl_seconds: int | None = _bounded("holdTtlSeconds", "How long a hold lasts when no payment is due (default "
                                            "600)")
    hold_ttl_payment_seconds: int | None = _bounded("holdTtlPaymentSeconds", "How long a hold lasts when a Pix is "
                                                    "due (default 900)")
    hold_min_seconds: int | None = _bounded("holdMinSeconds", "A hold that would be shorter is refused (RN-HLD-02; "
                                            "default 300)")
    waitlist_hold_seconds: int | None = _bounded("waitlistHoldSeconds", "How long a slot waitlist offer lasts "
                                                 "(default 600)")
    capacity_offer_ttl_seconds: int | None = _bounded("capacityOfferTtlSeconds", "How long a capacity waitlist offer "
                                                      "lasts (default 86400)")
    charge_margin_seconds: int | None = _bounded("chargeMarginSeconds", "How long before the hold's deadline its Pix "
                                                 "charge expires (default 120)")
    pix_failures_before_alert: int | None = _bounded("pixFailuresBeforeAlert", "Consecutive Pix failures that raise "
                                                     "the operational alert (default 3)")
    owner_alert_whatsapp: str | None = strawberry.field(default=None, description="WhatsApp number (E.164) of the "
                                                        "operational alerts; \"\" clears it.")
    open_holds_per_customer: int | None = _bounded("openHoldsPerCustomer", "Open holds one customer may have at once "
                                                   "(default 1)")
    cooldown_expirations: int | None = _bounded("cooldownExpirations", "Expirations within the window that start a "
                                                "cooldown (default 3)")
    cooldown_window_days: int | None = _bounded("cooldownWindowDays", "The window those expirations are counted in "
                                                "(default 7)")
    cooldown_hours: int | None = _bounded("cooldownHours", "How long a cooldown lasts (default 48)")
    hold_ceiling_percent: int | None = _bounded("holdCeilingPercent", "Open holds, as a share of the day's free "
                                                "slots, above which self-service holds are refused (default 30)")
    verification_wait_seconds: int | None = _bounded("verificationWaitSeconds", "How long a claimed payment stays "
                                                     "VERIFYING (default 1800)")
    hold_reminder_seconds: int | None = _bounded("holdReminderSeconds", "When, before a hold's deadline, its "
                                                 "customer is reminded (default 300)")
    sweep_interval_seconds: int | None = _bounded("sweepIntervalSeconds", "How often the expiry and waitlist sweeps "
                                                  "run (default 30)")
    no_show_grace_minutes: int | None = strawberry.field(
        default=None, description="Minutes after the start with no check-in before a no-show suggestion (0-1440).")
    check_in_opens_minutes: int | None = strawberry.field(
        default=None, description="Check-in opens this many minutes before a booking's start, until its end "
                                  "(0-1440; default 120).")
    series_charge_days_ahead: int | None = _bounded("seriesChargeDaysAhead", "How many days before a later period "
                                                    "(month) of a series starts its Pix is charged (default 7)")
    appointment_reminder_minutes: list[int] | None = strawberry.field(
        default=None, description="Minutes before the start at which customers of confirmed bookings are reminded: "
        "at most 5 distinct offsets of 1 to 10080; [] turns reminders off.")
    payment_rule: PaymentRule | None = strawberry.field(default=None, description="The unit's default payment rule "
                                                        "(FULL by default).")
    notification_locale: Locale | None = strawberry.field(
        default=None, description="The language of the unit's notifications: PT_BR (default) or EN.")
    manual_payments_enabled: bool | None = strawberry.field(
        default=None, description="Managers and owners may record payments taken outside Pix (default true).")
    check_in_required: bool | None = strawberry.field(
        default=None, description="true (default): no-shows are a person's decision after a suggestion; false: "
        "confirmed bookings complete by themselves after their end.")
    notification_matrix: list[NotificationRuleInput] | None = strawberry.field(
        default=None, description="Who is told of each listed event; events not listed keep their setting.")

    def changes(self) -> dict[str, object]:
        """The given values by their API names (camelCase), for domain.unit_settings.checked_changes."""
        return {_camel(k): [vars(r) for r in v] if k == "notification_matrix" and v is not None else v
                for k, v in vars(self).items()}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)


UnitResult = Annotated[Unit | NotFound | InvalidInput, strawberry.union(
    "UnitResult", description=(
    "What unit answers: Unit, or the refusal (an Error) that stopped it."))]
UnitSettingsResult = Annotated[Unit | InvalidInput | NotFound, strawberry.union(
    "UnitSettingsResult", description=(
    "What updateUnitParameters and updateUnitContacts answer: Unit, or the refusal (an Error) that stopped it."))]


@strawberry.input(description="The unit's contacts to change; leave one out to keep it, \"\" clears it.")
class UnitContactsInput:
    alert_whatsapp: str | None = strawberry.field(
        default=None, description="WhatsApp number for operational alerts, with its country code (+55 11 99999-0000; "
        "without one it is read as Brazilian); stored in E.164. The same as updateUnitParameters' "
        "ownerAlertWhatsapp.")
    owner_email: str | None = strawberry.field(default=None, description="E-mail of owner notifications.")
