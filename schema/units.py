"""What an owner may change of a unit: its parameters (SPEC §17)."""

from __future__ import annotations

from typing import Annotated

import strawberry

from schema.errors import InvalidInput, NotFound
from schema.types import Unit


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

    def changes(self) -> dict[str, object]:
        """The given values by their API names (camelCase), for domain.unit_settings.checked_changes."""
        return {_camel(k): v for k, v in vars(self).items()}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)


UnitSettingsResult = Annotated[Unit | InvalidInput | NotFound, strawberry.union("UnitSettingsResult")]
