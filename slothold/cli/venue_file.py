"""A venue described in TOML (`slothold venue apply venue.toml`): read and checked into plain values.

The file names things (the unit, resources, services, staff) rather than giving ids, so the same file applied twice
changes nothing the second time. Each problem is reported with its place in the file (`resources[2].capacity`).
`docs/venue.sample.toml` is a complete example.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_RANGE = re.compile(r"^(\d{2}):(\d{2})-(\d{2}):(\d{2})$")
_TIME = re.compile(r"^(\d{2}):(\d{2})$")


class VenueFileError(ValueError):
    """A problem in the file, with where it is."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where = where


@dataclass(frozen=True)
class Window:
    """Open on `weekday` (0 = Monday) from `opens` to `closes`, in minutes after local midnight."""

    weekday: int
    opens: int
    closes: int


@dataclass(frozen=True)
class DayException:
    """A dated exception to the weekly hours: closed (no windows) or special hours; unit-wide or one resource's."""

    day: date
    windows: tuple[tuple[int, int], ...] = ()
    resource: str | None = None
    reason: str = ""


@dataclass(frozen=True)
class ResourceEntry:
    name: str
    kind: str = "exclusive"
    capacity: int = 1
    group: str | None = None
    hours: tuple[Window, ...] | None = None
    """None: the unit's hours."""
    active: bool = True


@dataclass(frozen=True)
class BlockEntry:
    resource: str
    starts: datetime
    """Local time of the unit (naive); the unit's zone applies."""
    ends: datetime
    reason: str


@dataclass(frozen=True)
class BandEntry:
    weekdays: tuple[int, ...]
    starts: int
    ends: int
    price_cents: int
    payment_rule: str = "full"
    deposit_percent: int | None = None
    deposit_cents: int | None = None


@dataclass(frozen=True)
class ServiceEntry:
    name: str
    durations: tuple[int, ...]
    resources: tuple[str, ...]
    price_cents: int
    payment_rule: str = "full"
    deposit_percent: int | None = None
    deposit_cents: int | None = None
    bands: tuple[BandEntry, ...] = ()
    active: bool = True


@dataclass(frozen=True)
class StaffEntry:
    name: str
    role: str | None = "operator"
    kind: str = "staff"
    scopes: tuple[str, ...] = ()


@dataclass(frozen=True)
class VenueFile:
    tenant: str
    organization: str
    unit: str
    timezone: str = "America/Sao_Paulo"
    slot_minutes: int = 60
    currency: str = "BRL"
    parameters: dict[str, Any] = field(default_factory=dict)
    """GraphQL names (holdTtlSeconds...), checked as updateUnitParameters checks them."""
    alert_whatsapp: str | None = None
    owner_email: str | None = None
    hours: tuple[Window, ...] = ()
    exceptions: tuple[DayException, ...] = ()
    resources: tuple[ResourceEntry, ...] = ()
    blocks: tuple[BlockEntry, ...] = ()
    services: tuple[ServiceEntry, ...] = ()
    staff: tuple[StaffEntry, ...] = ()


def read_venue_file(path: Path) -> VenueFile:
    """The file's venue, or VenueFileError naming the first problem."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise VenueFileError(str(path), f"not valid TOML ({e})") from None
    return parse_venue(raw)


def parse_venue(raw: dict[str, Any]) -> VenueFile:
    """Check a decoded TOML document and turn it into a VenueFile."""
    _only(raw, "", {"tenant", "organization", "unit", "parameters", "contacts", "hours", "closed", "special_hours",
                    "resources", "blocks", "services", "staff"})
    unit = _table(raw, "unit", required=True)
    _only(unit, "unit", {"name", "timezone", "slot_minutes", "currency"})
    contacts = _table(raw, "contacts")
    _only(contacts, "contacts", {"alert_whatsapp", "owner_email"})
    resources = tuple(_resource(r, f"resources[{i}]") for i, r in enumerate(_list(raw, "resources")))
    names = [r.name for r in resources]
    _unique(names, "resources", "name")
    services = tuple(_service(s, f"services[{i}]", names) for i, s in enumerate(_list(raw, "services")))
    _unique([s.name for s in services], "services", "name")
    staff = tuple(_staff(s, f"staff[{i}]") for i, s in enumerate(_list(raw, "staff")))
    _unique([s.name for s in staff], "staff", "name")
    exceptions = tuple(
        [_exception(c, f"closed[{i}]", names, closed=True) for i, c in enumerate(_list(raw, "closed"))]
        + [_exception(c, f"special_hours[{i}]", names, closed=False)
           for i, c in enumerate(_list(raw, "special_hours"))])
    return VenueFile(
        tenant=_str(_table(raw, "tenant", required=True), "name", "tenant"),
        organization=_str(_table(raw, "organization", required=True), "name", "organization"),
        unit=_str(unit, "name", "unit"),
        timezone=_str(unit, "timezone", "unit", "America/Sao_Paulo"),
        slot_minutes=_int(unit, "slot_minutes", "unit", 60),
        currency=_str(unit, "currency", "unit", "BRL"),
        parameters=dict(_table(raw, "parameters")),
        alert_whatsapp=_opt_str(contacts, "alert_whatsapp", "contacts"),
        owner_email=_opt_str(contacts, "owner_email", "contacts"),
        hours=_weekly(_table(raw, "hours"), "hours"),
        exceptions=exceptions,
        resources=resources,
        blocks=tuple(_block(b, f"blocks[{i}]", names) for i, b in enumerate(_list(raw, "blocks"))),
        services=services,
        staff=staff,
    )


# --- the entries ------------------------------------------------------------------------------------------------

def _resource(r: dict[str, Any], where: str) -> ResourceEntry:
    _only(r, where, {"name", "kind", "capacity", "group", "hours", "active"})
    kind = _str(r, "kind", where, "exclusive")
    if kind not in ("exclusive", "pooled"):
        raise VenueFileError(f"{where}.kind", "is exclusive or pooled")
    capacity = _int(r, "capacity", where, 1)
    if kind == "exclusive" and capacity != 1:
        raise VenueFileError(f"{where}.capacity", "an exclusive resource has capacity 1 (use kind = \"pooled\")")
    if capacity < 1:
        raise VenueFileError(f"{where}.capacity", "is at least 1")
    hours = _weekly(r["hours"], f"{where}.hours") if "hours" in r else None
    return ResourceEntry(_str(r, "name", where), kind, capacity, _opt_str(r, "group", where), hours,
                         _bool(r, "active", where, True))


def _service(s: dict[str, Any], where: str, resources: list[str]) -> ServiceEntry:
    _only(s, where, {"name", "durations", "resources", "price_cents", "payment_rule", "deposit_percent",
                     "deposit_cents", "bands", "active"})
    durations = tuple(_ints(s, "durations", where, [1]))
    on = tuple(_strs(s, "resources", where))
    for i, name in enumerate(on):
        if name not in resources:
            raise VenueFileError(f"{where}.resources[{i}]", f"no resource named {name!r} in this file")
    bands = tuple(_band(b, f"{where}.bands[{i}]") for i, b in enumerate(_list(s, "bands", where)))
    return ServiceEntry(_str(s, "name", where), durations, on, _int(s, "price_cents", where),
                        _str(s, "payment_rule", where, "full"), _opt_int(s, "deposit_percent", where),
                        _opt_int(s, "deposit_cents", where), bands, _bool(s, "active", where, True))


def _band(b: dict[str, Any], where: str) -> BandEntry:
    _only(b, where, {"weekdays", "from", "to", "price_cents", "payment_rule", "deposit_percent", "deposit_cents"})
    days = tuple(_weekday(d, f"{where}.weekdays[{i}]") for i, d in enumerate(_strs(b, "weekdays", where)))
    return BandEntry(days, _time(_str(b, "from", where), f"{where}.from"), _time(_str(b, "to", where), f"{where}.to"),
                     _int(b, "price_cents", where), _str(b, "payment_rule", where, "full"),
                     _opt_int(b, "deposit_percent", where), _opt_int(b, "deposit_cents", where))


def _staff(s: dict[str, Any], where: str) -> StaffEntry:
    _only(s, where, {"name", "role", "kind", "scopes"})
    kind = _str(s, "kind", where, "staff")
    if kind not in ("staff", "integrator"):
        raise VenueFileError(f"{where}.kind", "is staff or integrator")
    role = _opt_str(s, "role", where) or ("operator" if kind == "staff" else None)
    return StaffEntry(_str(s, "name", where), role, kind, tuple(_strs(s, "scopes", where)))


def _block(b: dict[str, Any], where: str, resources: list[str]) -> BlockEntry:
    _only(b, where, {"resource", "from", "to", "reason"})
    name = _str(b, "resource", where)
    if name not in resources:
        raise VenueFileError(f"{where}.resource", f"no resource named {name!r} in this file")
    starts, ends = _local(b, "from", where), _local(b, "to", where)
    if ends <= starts:
        raise VenueFileError(f"{where}.to", "is after `from`")
    return BlockEntry(name, starts, ends, _str(b, "reason", where, ""))


def _exception(c: dict[str, Any], where: str, resources: list[str], closed: bool) -> DayException:
    _only(c, where, {"date", "resource", "reason"} | (set() if closed else {"hours"}))
    raw = c.get("date")
    if not isinstance(raw, date) or isinstance(raw, datetime):
        raise VenueFileError(f"{where}.date", "is a date such as 2026-12-25 (no quotes)")
    resource = _opt_str(c, "resource", where)
    if resource is not None and resource not in resources:
        raise VenueFileError(f"{where}.resource", f"no resource named {resource!r} in this file")
    windows: tuple[tuple[int, int], ...] = ()
    if not closed:
        windows = tuple(_span(h, f"{where}.hours[{i}]") for i, h in enumerate(_strs(c, "hours", where)))
        if not windows:
            raise VenueFileError(f"{where}.hours", "lists the day's opening hours (use [[closed]] for a closed day)")
    return DayException(raw, windows, resource, _str(c, "reason", where, ""))


def _weekly(table: object, where: str) -> tuple[Window, ...]:
    if not isinstance(table, dict):
        raise VenueFileError(where, "is a table of weekdays (monday = [\"08:00-23:00\"])")
    _only(table, where, set(WEEKDAYS))
    out = []
    for day in table:
        for i, span in enumerate(_strs(table, day, where)):
            opens, closes = _span(span, f"{where}.{day}[{i}]")
            out.append(Window(WEEKDAYS.index(day), opens, closes))
    return tuple(sorted(out, key=lambda w: (w.weekday, w.opens)))


# --- values -----------------------------------------------------------------------------------------------------

def _span(text: str, where: str) -> tuple[int, int]:
    m = _RANGE.match(text)
    if not m:
        raise VenueFileError(where, f"{text!r} is not a range such as \"08:00-23:00\"")
    opens, closes = int(m[1]) * 60 + int(m[2]), int(m[3]) * 60 + int(m[4])
    if int(m[2]) > 59 or int(m[4]) > 59 or closes > 24 * 60 or opens >= closes:
        raise VenueFileError(where, f"{text!r}: the opening is before the closing, both within the day")
    return opens, closes


def _time(text: str, where: str) -> int:
    m = _TIME.match(text)
    if not m or int(m[2]) > 59 or int(m[1]) * 60 + int(m[2]) > 24 * 60:
        raise VenueFileError(where, f"{text!r} is not a time such as \"18:00\"")
    return int(m[1]) * 60 + int(m[2])


def _weekday(text: str, where: str) -> int:
    if text not in WEEKDAYS:
        raise VenueFileError(where, f"{text!r} is not one of {', '.join(WEEKDAYS)}")
    return WEEKDAYS.index(text)


def _local(t: dict[str, Any], key: str, where: str) -> datetime:
    v = t.get(key)
    if not isinstance(v, datetime) or v.tzinfo is not None:
        raise VenueFileError(f"{where}.{key}", "is a local date and time such as 2026-12-10T08:00:00 (no quotes, "
                             "no offset: the unit's time zone applies)")
    return v


def _only(t: dict[str, Any], where: str, allowed: set[str]) -> None:
    for key in t:
        if key not in allowed:
            place = f"{where}.{key}" if where else key
            raise VenueFileError(place, f"unknown key (known here: {', '.join(sorted(allowed))})")


def _unique(values: list[str], where: str, key: str) -> None:
    seen: set[str] = set()
    for i, v in enumerate(values):
        if v in seen:
            raise VenueFileError(f"{where}[{i}].{key}", f"{v!r} is given twice")
        seen.add(v)


def _table(t: dict[str, Any], key: str, required: bool = False) -> dict[str, Any]:
    v = t.get(key)
    if v is None and not required:
        return {}
    if not isinstance(v, dict):
        raise VenueFileError(key, "is a table ([" + key + "])")
    return v


def _list(t: dict[str, Any], key: str, where: str = "") -> list[dict[str, Any]]:
    v = t.get(key, [])
    place = f"{where}.{key}" if where else key
    if not isinstance(v, list) or not all(isinstance(x, dict) for x in v):
        raise VenueFileError(place, f"is a list of tables ([[{key}]])")
    return v


def _str(t: dict[str, Any], key: str, where: str, default: str | None = None) -> str:
    v = t.get(key, default)
    if not isinstance(v, str) or not v.strip():
        raise VenueFileError(f"{where}.{key}", "is a non-empty string")
    return v.strip()


def _opt_str(t: dict[str, Any], key: str, where: str) -> str | None:
    return None if t.get(key) is None else _str(t, key, where)


def _strs(t: dict[str, Any], key: str, where: str) -> list[str]:
    v = t.get(key, [])
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise VenueFileError(f"{where}.{key}", "is a list of strings")
    return [x.strip() for x in v]


def _int(t: dict[str, Any], key: str, where: str, default: int | None = None) -> int:
    v = t.get(key, default)
    if not isinstance(v, int) or isinstance(v, bool):
        raise VenueFileError(f"{where}.{key}", "is a whole number")
    return v


def _opt_int(t: dict[str, Any], key: str, where: str) -> int | None:
    return None if t.get(key) is None else _int(t, key, where)


def _ints(t: dict[str, Any], key: str, where: str, default: list[int]) -> list[int]:
    v = t.get(key, default)
    if not isinstance(v, list) or not v or not all(isinstance(x, int) and not isinstance(x, bool) and x > 0
                                                   for x in v):
        raise VenueFileError(f"{where}.{key}", "is a non-empty list of positive whole numbers")
    return v


def _bool(t: dict[str, Any], key: str, where: str, default: bool) -> bool:
    v = t.get(key, default)
    if not isinstance(v, bool):
        raise VenueFileError(f"{where}.{key}", "is true or false")
    return v
