"""Owners change their unit's parameters (SPEC §17): each value checked and named when refused."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol
from uuid import UUID

from domain import venue_log
from domain.errors import ErrorCode, InvalidInput
from domain.notice_matrix import MATRIX_EVENTS
from domain.notifications import LOCALES
from domain.venue_log import ChangeAction, JsonValue, VenueChange, changed_fields

if TYPE_CHECKING:
    from domain.services.deps import Deps


@dataclass(frozen=True)
class Bound:
    """One changeable parameter: its column, the GraphQL field naming it, and its allowed range."""

    column: str
    field: str
    low: int
    high: int
    unit: str


DAY = 86_400
PARAMETERS = {b.field: b for b in (
    Bound("min_advance_minutes", "minAdvanceMinutes", 0, 30 * 24 * 60, "minutes"),
    Bound("max_advance_days", "maxAdvanceDays", 1, 730, "days"),
    Bound("hold_ttl_seconds", "holdTtlSeconds", 60, DAY, "seconds"),
    Bound("hold_ttl_payment_seconds", "holdTtlPaymentSeconds", 60, DAY, "seconds"),
    Bound("hold_min_seconds", "holdMinSeconds", 0, DAY, "seconds"),
    Bound("waitlist_hold_seconds", "waitlistHoldSeconds", 60, DAY, "seconds"),
    Bound("capacity_offer_ttl_seconds", "capacityOfferTtlSeconds", 60, 14 * DAY, "seconds"),
    Bound("charge_margin_seconds", "chargeMarginSeconds", 0, 3600, "seconds"),
    Bound("pix_failures_before_alert", "pixFailuresBeforeAlert", 1, 100, "failures"),
    Bound("open_holds_per_customer", "openHoldsPerCustomer", 1, 100, "holds"),
    Bound("cooldown_expirations", "cooldownExpirations", 1, 100, "expirations"),
    Bound("cooldown_window_days", "cooldownWindowDays", 1, 365, "days"),
    Bound("cooldown_hours", "cooldownHours", 0, 24 * 365, "hours"),
    Bound("hold_ceiling_percent", "holdCeilingPercent", 0, 100, "percent"),
    Bound("verification_wait_seconds", "verificationWaitSeconds", 60, DAY, "seconds"),
    Bound("hold_reminder_seconds", "holdReminderSeconds", 0, DAY, "seconds"),
    Bound("sweep_interval_seconds", "sweepIntervalSeconds", 1, 3600, "seconds"),
    Bound("no_show_grace_minutes", "noShowGraceMinutes", 0, 1440, "minutes"),
    Bound("check_in_opens_minutes", "checkInOpensMinutes", 0, 1440, "minutes"),
    Bound("series_charge_days_ahead", "seriesChargeDaysAhead", 1, 60, "days"),
)}
REMINDER_OFFSETS_MAX = 5
REMINDER_OFFSET_RANGE = (1, 7 * 24 * 60)
"""appointmentReminderMinutes: at most 5 offsets, each 1 minute to 7 days before the start."""
PAYMENT_RULES = ("full", "deposit_percent", "deposit_cents")
FLAGS = {"manualPaymentsEnabled": "manual_payments_enabled", "checkInRequired": "check_in_required"}
"""The on/off flows of a unit (issue 18), by GraphQL field → column."""
_E164 = re.compile(r"^\+[1-9][0-9]{7,14}$")


def checked_changes(values: dict[str, object]) -> dict[str, object]:
    """Column → value for the given GraphQL fields (None: unchanged), or InvalidInput naming the first bad one.
    `ownerAlertWhatsapp: ""` clears the number."""
    out: dict[str, object] = {}
    for name, value in values.items():
        if value is None:
            continue
        if name == "paymentRule":
            if value not in PAYMENT_RULES:
                raise InvalidInput(name, f"paymentRule must be one of {', '.join(PAYMENT_RULES)}",
                                   code=ErrorCode.INVALID_PARAMETER)
            out["payment_rule"] = value
            continue
        if name == "notificationLocale":
            if value not in LOCALES:
                raise InvalidInput(name, f"notificationLocale must be one of {', '.join(LOCALES)}",
                                   code=ErrorCode.INVALID_PARAMETER)
            out["notification_locale"] = value
            continue
        if name in FLAGS:
            if not isinstance(value, bool):
                raise InvalidInput(name, f"{name} is true or false", code=ErrorCode.INVALID_PARAMETER)
            out[FLAGS[name]] = value
            continue
        if name == "notificationMatrix":
            out["notification_matrix"] = _matrix(name, value)
            continue
        if name == "appointmentReminderMinutes":
            out["appointment_reminder_minutes"] = _reminder_offsets(name, value)
            continue
        if name == "ownerAlertWhatsapp":
            text = str(value).strip()
            if text and not _E164.match(text):
                raise InvalidInput(name, "ownerAlertWhatsapp must be an E.164 phone such as +5511999990000, or \"\" "
                                   "to clear it", code=ErrorCode.INVALID_PARAMETER)
            out["owner_alert_whatsapp"] = text or None
            continue
        bound = PARAMETERS[name]
        if not isinstance(value, int) or isinstance(value, bool) or not bound.low <= value <= bound.high:
            raise InvalidInput(name, f"{name} must be between {bound.low} and {bound.high} {bound.unit}",
                               code=ErrorCode.INVALID_PARAMETER)
        out[bound.column] = value
    if not out:
        raise InvalidInput("input", "give at least one parameter to change", code=ErrorCode.NOTHING_TO_CHANGE)
    return out


def _reminder_offsets(name: str, value: object) -> list[int]:
    """Distinct minutes before the start, largest first ([]: no appointment reminders)."""
    low, high = REMINDER_OFFSET_RANGE
    if not isinstance(value, list | tuple) or len(value) > REMINDER_OFFSETS_MAX or any(
            not isinstance(v, int) or isinstance(v, bool) or not low <= v <= high for v in value):
        raise InvalidInput(name, f"{name} takes at most {REMINDER_OFFSETS_MAX} offsets, each between {low} and "
                           f"{high} minutes before the start ([] turns reminders off)",
                           code=ErrorCode.INVALID_PARAMETER)
    if len(set(value)) != len(value):
        raise InvalidInput(name, f"{name} lists an offset twice", code=ErrorCode.INVALID_PARAMETER)
    return sorted(value, reverse=True)


def _matrix(name: str, value: object) -> dict[str, dict[str, bool]]:
    """Rows {event, customer, staff} → the stored departures {event: {customer, staff}}; each event at most once."""
    rows = value if isinstance(value, list | tuple) else None
    if not rows:
        raise InvalidInput(name, f"{name} lists at least one event of {', '.join(MATRIX_EVENTS)}",
                           code=ErrorCode.INVALID_PARAMETER)
    out: dict[str, dict[str, bool]] = {}
    for row in rows:
        event = row.get("event") if isinstance(row, dict) else None
        if event not in MATRIX_EVENTS:
            raise InvalidInput(f"{name}.event", f"the event must be one of {', '.join(MATRIX_EVENTS)}",
                               code=ErrorCode.INVALID_PARAMETER)
        if event in out:
            raise InvalidInput(f"{name}.event", f"{event} is listed twice", code=ErrorCode.INVALID_PARAMETER)
        flags = {k: row.get(k) for k in ("customer", "staff")}
        if not all(isinstance(v, bool) for v in flags.values()):
            raise InvalidInput(name, "customer and staff are true or false", code=ErrorCode.INVALID_PARAMETER)
        out[str(event)] = {k: bool(v) for k, v in flags.items()}
    return out


class UnitSettings(Protocol):
    """A unit's parameter columns in the unit of work (store/unit_settings.py)."""

    async def read(self, unit_id: UUID, columns: list[str]) -> dict[str, object] | None: ...

    async def write(self, unit_id: UUID, changes: dict[str, object]) -> None: ...


_FIELDS = {b.column: b.field for b in PARAMETERS.values()} | {
    "payment_rule": "paymentRule", "notification_locale": "notificationLocale",
    "appointment_reminder_minutes": "appointmentReminderMinutes", "owner_alert_whatsapp": "ownerAlertWhatsapp",
    "notification_matrix": "notificationMatrix"} | {c: f for f, c in FLAGS.items()}
"""Column → the GraphQL field naming it: the log speaks the API's names."""


def _json(value: object) -> JsonValue:
    if isinstance(value, dict):
        return {str(k): _json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json(v) for v in value]
    return value if value is None or isinstance(value, str | int | float | bool) else str(value)


async def change_parameters(deps: Deps, unit_id: UUID, values: dict[str, object], session: str) -> bool:
    """Check and apply the given GraphQL fields' values (None: unchanged), logging what changed with who made it
    (domain/venue_log.py); False when the unit does not exist."""
    changes = checked_changes(values)
    async with deps.uow() as uow:
        current = await uow.unit_settings.read(unit_id, list(changes))
        if current is None:
            return False
        if "notification_matrix" in changes:  # the rows given change those events; the others stay as they were
            stored = current["notification_matrix"]
            changes["notification_matrix"] = {**(stored if isinstance(stored, dict) else {}),
                                              **changes["notification_matrix"]}  # type: ignore[dict-item]
        before, after = changed_fields({_FIELDS[k]: _json(v) for k, v in current.items()},
                                       {_FIELDS[k]: _json(v) for k, v in changes.items()})
        if after:
            await uow.unit_settings.write(unit_id, changes)
            await venue_log.note(uow, unit_id, VenueChange("parameters", str(unit_id), ChangeAction.UPDATED,
                                                           session, before, after), deps.clock.now())
            await uow.commit()
    return True
