"""Units as the API shows them (parameters, opening hours, resources), and what an owner may change of them
(SPEC §17)."""

from __future__ import annotations

from typing import Annotated

import strawberry

from domain import units as du
from domain.access import Principal
from schema.errors import InvalidInput, NotFound
from schema.ids import Kind, opt_ref, ref
from schema.nodes import Node

ResourceKind = du.ResourceKind  # the domain's enum, registered by strawberry.enum (which returns it unchanged)
strawberry.enum(ResourceKind, description="Exclusive: one at a time. Pooled: capacity at a time.")


@strawberry.type(description="Something bookable in a unit.")
class Resource(Node):
    id: strawberry.ID
    name: str
    kind: ResourceKind
    capacity: int
    group_id: strawberry.ID | None

    @classmethod
    def from_domain(cls, r: du.Resource) -> Resource:
        return cls(id=ref(Kind.RESOURCE, r.id), name=r.name, kind=ResourceKind(r.kind.value), capacity=r.capacity,
                   group_id=opt_ref(Kind.RESOURCE_GROUP, r.group_id))


@strawberry.type(description="Opening window: weekday 0 = Monday, minutes after local midnight.")
class OpeningWindow:
    weekday: int
    opens_minute: int
    closes_minute: int


@strawberry.type(description="Whether the customer and the staff/owner (in-app, and e-mail to the owner's address "
                 "when known) are told of one booking event.")
class NotificationRule:
    event: str = strawberry.field(description="created, paid, cancelled, completed or expired.")
    customer: bool
    staff: bool


@strawberry.input(description="Who is told of one booking event (created, paid, cancelled, completed, expired).")
class NotificationRuleInput:
    event: str
    customer: bool
    staff: bool


@strawberry.type(description="The parameters of a unit (SPEC §17), durations in seconds.")
class UnitParameters:
    min_advance_seconds: int
    max_advance_days: int
    slot_minutes: int
    hold_ttl_seconds: int
    hold_ttl_with_payment_seconds: int
    hold_min_seconds: int
    hold_reminder_seconds: int
    verification_wait_seconds: int
    waitlist_hold_seconds: int
    charge_margin_seconds: int
    payment_rule: str
    no_show_grace_minutes: int
    appointment_reminder_minutes: list[int]
    manual_payments_enabled: bool
    check_in_required: bool
    notification_matrix: list[NotificationRule]

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
            charge_margin_seconds=s(p.charge_margin.total_seconds()), payment_rule=p.payment_rule,
            no_show_grace_minutes=s(p.no_show_grace.total_seconds()) // 60,
            appointment_reminder_minutes=list(p.appointment_reminders),
            manual_payments_enabled=p.manual_payments_enabled, check_in_required=p.check_in_required,
            notification_matrix=[NotificationRule(event=e, customer=c, staff=st) for e, c, st in p.notification_matrix],
        )


@strawberry.type(description="Where the unit's operational alerts (WhatsApp) and owner notifications (e-mail) go.")
class UnitContacts:
    alert_whatsapp: str | None = strawberry.field(description="E.164, e.g. +5511999990000 (null: none).")
    owner_email: str | None


@strawberry.type(description="One venue with its clock, hours, parameters and resources.")
class Unit(Node):
    id: strawberry.ID
    name: str
    timezone: str
    currency: str = strawberry.field(description="The ISO 4217 code of the unit's prices, e.g. BRL.")
    parameters: UnitParameters
    opening_hours: list[OpeningWindow]
    resources: list[Resource]
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
            opening_hours=[OpeningWindow(weekday=w.weekday, opens_minute=w.opens, closes_minute=w.closes)
                           for w in u.hours],
            resources=[Resource.from_domain(r) for r in resources], domain=u,
        )


@strawberry.input(description="The unit parameters to change (SPEC §17); leave out what stays. Each value is "
                  "checked against its range and refused by name. The grid's slot length is not changeable here.")
class UnitParametersInput:
    min_advance_minutes: int | None = None
    max_advance_days: int | None = None
    hold_ttl_seconds: int | None = None
    hold_ttl_payment_seconds: int | None = None
    hold_min_seconds: int | None = None
    waitlist_hold_seconds: int | None = None
    capacity_offer_ttl_seconds: int | None = None
    charge_margin_seconds: int | None = None
    pix_failures_before_alert: int | None = None
    owner_alert_whatsapp: str | None = None
    open_holds_per_customer: int | None = None
    cooldown_expirations: int | None = None
    cooldown_window_days: int | None = None
    cooldown_hours: int | None = None
    hold_ceiling_percent: int | None = None
    verification_wait_seconds: int | None = None
    hold_reminder_seconds: int | None = None
    sweep_interval_seconds: int | None = None
    no_show_grace_minutes: int | None = strawberry.field(
        default=None, description="Minutes after the start with no check-in before a no-show suggestion (0-1440).")
    appointment_reminder_minutes: list[int] | None = strawberry.field(
        default=None, description="Minutes before the start at which customers of confirmed bookings are reminded: "
        "at most 5 distinct offsets of 1 to 10080; [] turns reminders off.")
    payment_rule: str | None = None
    notification_locale: str | None = strawberry.field(
        default=None, description="The language of the unit's notifications: pt-BR (default) or en.")
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


UnitResult = Annotated[Unit | NotFound | InvalidInput, strawberry.union("UnitResult")]
UnitSettingsResult = Annotated[Unit | InvalidInput | NotFound, strawberry.union("UnitSettingsResult")]


@strawberry.input(description="The unit's contacts to change; leave one out to keep it, \"\" clears it.")
class UnitContactsInput:
    alert_whatsapp: str | None = strawberry.field(
        default=None, description="WhatsApp number for operational alerts, with its country code (+55 11 99999-0000; "
        "without one it is read as Brazilian); stored in E.164. The same as updateUnitParameters' "
        "ownerAlertWhatsapp.")
    owner_email: str | None = strawberry.field(default=None, description="E-mail of owner notifications.")
