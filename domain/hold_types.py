"""Hold types: why a thing is held (SPEC §10, seed 004).

Two layers: the closed lifecycle the engine uses for concurrency (domain/bookings.py; on a seat map ACTIVE,
LOCKED, SOLD, BLOCKED) and an open hold type that says why a thing is held, who may release it, whether it must
be paid and how it shows. The platform defines `CART` (the default) and `RESERVED`; a tenant and an organization
add or override definitions in their `hold_types` configuration (JSON, the seed's field names). A lookup merges
organization → tenant → platform field by field: an organization that only sets `displayColor` of `CART`
inherits the rest.

Deadlines: a hold of a type with `ttlSeconds` lasts that long; without one it lasts the unit's hold TTL (10 min,
15 with a Pix due) when `SYSTEM` may release it, and otherwise until the held range ends (`RESERVED`: only staff
release it). Either way it never outlives what it holds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from domain.errors import ErrorCode, InvalidInput


class SeatState(StrEnum):
    """The closed lifecycle as a seat map shows it (seed 004)."""

    ACTIVE = "ACTIVE"
    LOCKED = "LOCKED"
    SOLD = "SOLD"
    BLOCKED = "BLOCKED"


class Releaser(StrEnum):
    """Who releases a hold: the customer, staff (ADMIN), the platform's own jobs (SYSTEM), an integrator (API)."""

    CUSTOMER = "CUSTOMER"
    ADMIN = "ADMIN"
    SYSTEM = "SYSTEM"
    API = "API"


class Level(StrEnum):
    """Where a definition lives; lookups merge ORGANIZATION over TENANT over PLATFORM."""

    PLATFORM = "PLATFORM"
    TENANT = "TENANT"
    ORGANIZATION = "ORGANIZATION"


FIELDS = ("validStates", "ttlSeconds", "releaseApi", "paymentRequired", "skipLockedState", "displayName",
          "displayColor", "displayIcon")
DISPLAY_FIELDS = frozenset({"displayName", "displayColor", "displayIcon"})
DEFAULT = "CART"
TTL_MAX = 30 * 24 * 3600
MAX_DEFINED = 50
_NAME = re.compile(r"^[A-Z][A-Z0-9_]{1,31}$")
_COLOR = re.compile(r"^#[0-9A-Fa-f]{6}$")

PLATFORM: dict[str, dict[str, Any]] = {
    "CART": {"validStates": ["LOCKED"], "ttlSeconds": None, "releaseApi": ["CUSTOMER", "ADMIN", "SYSTEM"],
             "paymentRequired": True, "skipLockedState": False, "displayName": "Hold do bot",
             "displayColor": "#F59E0B", "displayIcon": None},
    "RESERVED": {"validStates": ["LOCKED"], "ttlSeconds": None, "releaseApi": ["ADMIN"],
                 "paymentRequired": False, "skipLockedState": False, "displayName": "Reservado",
                 "displayColor": "#6366F1", "displayIcon": None},
    # The waitlist's own offers (domain/waitlist.py): visible on the grid, never named by a caller.
    "WAITLIST_OFFER": {"validStates": ["LOCKED"], "ttlSeconds": None,
                       "releaseApi": ["CUSTOMER", "ADMIN", "SYSTEM", "API"], "paymentRequired": True,
                       "skipLockedState": False, "displayName": "Oferta da fila", "displayColor": "#14B8A6",
                       "displayIcon": None},
}
INTERNAL = frozenset({"WAITLIST_OFFER"})
"""Platform types that only the engine places; organizations may restyle them (display fields) and nothing else."""

CUSTOM_DEFAULTS: dict[str, Any] = {
    "validStates": ["LOCKED"], "ttlSeconds": None, "releaseApi": ["ADMIN"], "paymentRequired": True,
    "skipLockedState": False, "displayName": None, "displayColor": "#9CA3AF", "displayIcon": None,
}
"""What a type defined only by a tenant or organization has for the fields it leaves out."""

STATE_COLORS = {
    "free": "#22C55E",
    "held": "#F59E0B",
    "verifying": "#F97316",
    "booked": "#3B82F6",
    "blocked": "#6B7280",
    "closed": "#D1D5DB",
}


@dataclass(frozen=True)
class HoldType:
    """A resolved hold type: every field set, merged across the layers."""

    name: str
    valid_states: frozenset[str]
    ttl_seconds: int | None
    release_api: frozenset[str]
    payment_required: bool
    skip_locked_state: bool
    display_name: str
    display_color: str
    display_icon: str | None = None
    internal: bool = False
    defined_by: tuple[Level, ...] = (Level.PLATFORM,)

    @property
    def target_state(self) -> SeatState:
        """Where a thing placed with this type goes: SOLD at once when the type skips the locked state."""
        return SeatState.SOLD if self.skip_locked_state else SeatState.LOCKED

    @property
    def uses_unit_ttl(self) -> bool:
        """Without a TTL of its own, a type the system may release lasts the unit's hold TTL."""
        return self.ttl_seconds is None and Releaser.SYSTEM in self.release_api

    def may_release(self, releaser: Releaser | frozenset[Releaser] | None) -> bool:
        """Whether this kind of caller may release a hold of this type (None: the platform itself; a set: a caller
        who acts as any of these, e.g. an integrator acting for its customer)."""
        if releaser is None:
            return True
        return bool(self.release_api & ({releaser} if isinstance(releaser, Releaser) else releaser))

    def check_release(self, releaser: Releaser | frozenset[Releaser] | None, field_name: str = "bookingId") -> None:
        """Refuse a release by a caller the type's releaseApi does not list (seed 004)."""
        if not self.may_release(releaser):
            assert releaser is not None
            allowed = ", ".join(sorted(self.release_api))
            who = " or ".join(sorted({releaser} if isinstance(releaser, Releaser) else releaser))
            raise InvalidInput(field_name, f"{self.name} holds are released by {allowed} only; this caller is "
                               f"{who}", code=ErrorCode.RELEASE_NOT_ALLOWED)

    def check_target(self, target: SeatState, field_name: str = "holdType") -> None:
        """Refuse a type that is not valid for the lifecycle state a request moves to (seed 004)."""
        if target.value not in self.valid_states:
            valid = ", ".join(sorted(self.valid_states))
            raise InvalidInput(field_name, f"hold type {self.name} is not valid for {target.value} (valid: {valid})",
                               code=ErrorCode.HOLD_TYPE_STATE_INVALID)

    def check_placement(self, placer: Releaser | None, field_name: str = "holdType") -> None:
        """Who may place a hold of this type. Staff and the platform: any. A hold that needs no payment or skips the
        locked state gives a thing away, so integrators and customers may not place one; customers only place
        types they may release themselves. The engine's own types are never named by a caller."""
        if self.internal:
            raise InvalidInput(field_name, f"{self.name} is placed by the waitlist only",
                               code=ErrorCode.INTERNAL_HOLD_TYPE)
        if placer in (None, Releaser.ADMIN, Releaser.SYSTEM):
            return
        if not self.payment_required or self.skip_locked_state:
            raise InvalidInput(field_name, f"only staff may place {self.name} holds (no payment, or straight to "
                               "sold)", code=ErrorCode.HOLD_TYPE_NOT_ALLOWED)
        if placer is Releaser.CUSTOMER and Releaser.CUSTOMER not in self.release_api:
            raise InvalidInput(field_name, f"customers may not place {self.name} holds (they could not release "
                               "them)", code=ErrorCode.HOLD_TYPE_NOT_ALLOWED)

    def as_definition(self) -> dict[str, Any]:
        """The type in the seed's configuration shape."""
        return {"validStates": sorted(self.valid_states), "ttlSeconds": self.ttl_seconds,
                "releaseApi": sorted(self.release_api), "paymentRequired": self.payment_required,
                "skipLockedState": self.skip_locked_state, "displayName": self.display_name,
                "displayColor": self.display_color, "displayIcon": self.display_icon}


def _build(name: str, merged: Mapping[str, Any], defined_by: tuple[Level, ...]) -> HoldType:
    ttl = merged.get("ttlSeconds")
    return HoldType(
        name=name, valid_states=frozenset(merged["validStates"]), ttl_seconds=ttl or None,
        release_api=frozenset(merged["releaseApi"]), payment_required=bool(merged["paymentRequired"]),
        skip_locked_state=bool(merged["skipLockedState"]), display_name=merged.get("displayName") or name,
        display_color=merged["displayColor"], display_icon=merged.get("displayIcon"), internal=name in INTERNAL,
        defined_by=defined_by,
    )


def merge(name: str, tenant: Mapping[str, Any] | None, organization: Mapping[str, Any] | None) -> HoldType | None:
    """One type resolved organization → tenant → platform, field by field (None: defined nowhere)."""
    layers = [(Level.PLATFORM, PLATFORM.get(name)), (Level.TENANT, tenant), (Level.ORGANIZATION, organization)]
    present = [(level, layer) for level, layer in layers if layer is not None]
    if not present:
        return None
    merged: dict[str, Any] = dict(CUSTOM_DEFAULTS) if name not in PLATFORM else {}
    for _, layer in present:
        merged.update(layer)
    return _build(name, merged, tuple(level for level, _ in present))


@dataclass(frozen=True)
class HoldTypeCatalog:
    """The hold types an organization sees: the platform's, its tenant's and its own, merged."""

    tenant: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    organization: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    _types: dict[str, HoldType] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        for name in self.names():
            ht = merge(name, self.tenant.get(name), self.organization.get(name))
            assert ht is not None
            self._types[name] = ht

    def names(self) -> list[str]:
        """Every type name, platform defaults first."""
        return list(dict.fromkeys([*PLATFORM, *self.tenant, *self.organization]))

    def all(self) -> list[HoldType]:
        """Every resolved type, platform defaults first."""
        return [self._types[n] for n in self.names()]

    def find(self, name: str | None) -> HoldType | None:
        """The type of that name (None for unknown names)."""
        return self._types.get(name) if name else None

    def resolve(self, name: str | None, field_name: str = "holdType") -> HoldType:
        """The type a request names (omitted: CART); unknown names are an input error naming the field."""
        key = name or DEFAULT
        ht = self._types.get(key)
        if ht is None:
            raise InvalidInput(field_name, f"unknown hold type {key!r}; defined here: {', '.join(self.names())}",
                               code=ErrorCode.UNKNOWN_HOLD_TYPE)
        return ht

    def for_release(self, name: str | None) -> HoldType:
        """The type whose release rules apply to a booking held as `name` (a type since removed: CART's)."""
        return self._types.get(name or DEFAULT) or self._types[DEFAULT]

    def display(self, state: str, name: str | None) -> tuple[str | None, str]:
        """(display name, colour) a grid cell or seat shows: the hold type's for holds, else the state's."""
        ht = self._types.get(name) if name else None
        if ht is not None and state in ("held", "verifying", "booked"):
            # Sold things show the type's colour only when the type describes sold things (COMP), not CART.
            color = ht.display_color if state != "booked" or "SOLD" in ht.valid_states else STATE_COLORS["booked"]
            return ht.display_name, color
        return (ht.display_name if ht else None), STATE_COLORS.get(state, "#D1D5DB")


PLATFORM_CATALOG = HoldTypeCatalog()


# --- configuration -------------------------------------------------------------------------------------------

def _bad(field_name: str, message: str, code: ErrorCode) -> InvalidInput:
    return InvalidInput(f"definition.{field_name}", message, code=code)


def _states(value: Any) -> list[str]:
    if not isinstance(value, list | tuple) or not value:
        raise _bad("validStates", "validStates must list at least one of LOCKED, SOLD", ErrorCode.INVALID_VALID_STATES)
    states = [str(v).upper() for v in value]
    wrong = [s for s in states if s not in ("LOCKED", "SOLD")]
    if wrong:
        raise _bad("validStates", f"{wrong[0]} is not a state a hold type can describe (LOCKED or SOLD: ACTIVE is "
                   "free, BLOCKED is a block)", ErrorCode.INVALID_VALID_STATES)
    return sorted(set(states))


def _releasers(value: Any) -> list[str]:
    items = [p.strip() for p in value.split(",")] if isinstance(value, str) else value
    if not isinstance(items, list | tuple) or not [i for i in items if i]:
        raise _bad("releaseApi", "releaseApi must list at least one of CUSTOMER, ADMIN, SYSTEM, API",
                   ErrorCode.INVALID_RELEASE_API)
    names = [str(i).upper() for i in items if i]
    wrong = [n for n in names if n not in Releaser.__members__]
    if wrong:
        raise _bad("releaseApi", f"{wrong[0]} is not a releaser (CUSTOMER, ADMIN, SYSTEM, API)",
                   ErrorCode.INVALID_RELEASE_API)
    return sorted(set(names))


def _field(name: str, value: Any) -> Any:
    if name == "validStates":
        return _states(value)
    if name == "releaseApi":
        return _releasers(value)
    if name == "ttlSeconds":
        if isinstance(value, bool) or not isinstance(value, int) or not (value == 0 or 60 <= value <= TTL_MAX):
            raise _bad("ttlSeconds", f"ttlSeconds must be 0 (no TTL of its own) or 60..{TTL_MAX} seconds",
                       ErrorCode.INVALID_TTL)
        return value
    if name in ("paymentRequired", "skipLockedState"):
        if not isinstance(value, bool):
            raise _bad(name, f"{name} must be true or false", ErrorCode.INVALID_FLAG)
        return value
    if name == "displayName":
        if not isinstance(value, str) or not 1 <= len(value.strip()) <= 60:
            raise _bad(name, "displayName must be 1 to 60 characters", ErrorCode.INVALID_DISPLAY_NAME)
        return value.strip()
    if name == "displayColor":
        if not isinstance(value, str) or not _COLOR.match(value):
            raise _bad(name, "displayColor must be a hex colour like #8B008B", ErrorCode.INVALID_COLOR)
        return value.upper()
    if name == "displayIcon":
        if not isinstance(value, str) or not 1 <= len(value) <= 500 or any(c.isspace() for c in value):
            raise _bad(name, "displayIcon must be an icon name or URL of 1 to 500 characters, without spaces",
                       ErrorCode.INVALID_DISPLAY_ICON)
        return value
    raise _bad(name, f"unknown field {name!r} (known: {', '.join(FIELDS)})", ErrorCode.UNKNOWN_FIELD)


def check_name(name: str) -> str:
    """A hold type's name: upper case letters, digits and _, 2 to 32 characters, starting with a letter."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise InvalidInput("name", "a hold type's name is 2 to 32 characters of A-Z, 0-9 and _, starting with a "
                           "letter (e.g. PARTNER_HOLD)", code=ErrorCode.INVALID_HOLD_TYPE_NAME)
    return name


def patch_layer(layer: Mapping[str, Any] | None, name: str, changes: Mapping[str, Any]) -> dict[str, Any]:
    """A layer's entry for `name` after `changes` (field → value; None removes the field: inherit it again)."""
    check_name(name)
    if not changes:
        raise InvalidInput("definition", "give at least one field to set", code=ErrorCode.EMPTY_DEFINITION)
    if name in INTERNAL:
        locked = sorted(set(changes) - DISPLAY_FIELDS)
        if locked:
            raise InvalidInput(f"definition.{locked[0]}", f"{name} is the waitlist's own type: only its display "
                               "fields may change", code=ErrorCode.INTERNAL_HOLD_TYPE)
    entry = dict(layer or {})
    for key, value in changes.items():
        if value is None:
            if key not in FIELDS:
                raise _bad(key, f"unknown field {key!r} (known: {', '.join(FIELDS)})", ErrorCode.UNKNOWN_FIELD)
            entry.pop(key, None)
        else:
            entry[key] = _field(key, value)
    return entry


def check_usable(ht: HoldType) -> None:
    """A merged type must be placeable somewhere: LOCKED, or SOLD when it skips the locked state."""
    if ht.skip_locked_state and "SOLD" not in ht.valid_states:
        raise _bad("skipLockedState", f"{ht.name} skips the locked state, so SOLD must be among its validStates",
                   ErrorCode.SKIP_LOCKED_NEEDS_SOLD)
    if not ht.skip_locked_state and "LOCKED" not in ht.valid_states:
        raise _bad("validStates", f"{ht.name} does not skip the locked state, so LOCKED must be among its "
                   "validStates", ErrorCode.LOCKED_STATE_REQUIRED)


def check_layers(tenant: Mapping[str, Mapping[str, Any]], organizations: Iterable[Mapping[str, Mapping[str, Any]]],
                 name: str) -> None:
    """Every organization's merged view of `name` (and the tenant's own) must be usable."""
    views = [merge(name, tenant.get(name), None)] + [merge(name, tenant.get(name), o.get(name)) for o in organizations]
    for ht in views:
        if ht is not None:
            check_usable(ht)


Layer = Mapping[str, Mapping[str, Any]]


def definition_edit(name: str, changes: Mapping[str, Any]) -> Any:
    """The edit of a layer's entry that `defineHoldType` makes: the given fields set (None: inherit again)."""
    check_name(name)

    def edit(entry: Mapping[str, Any] | None) -> dict[str, Any] | None:
        return patch_layer(entry, name, changes) or None

    return edit


def removal_edit(name: str, level: Level) -> Any:
    """The edit `removeHoldType` makes: the layer's entry goes (the type then resolves from the layers below)."""
    check_name(name)

    def edit(entry: Mapping[str, Any] | None) -> None:
        if entry is None:
            raise InvalidInput("name", f"{name} has no definition at the {level.value} level to remove",
                               code=ErrorCode.NOT_DEFINED_HERE)
        return None

    return edit


def layers_check(name: str) -> Any:
    """The check a changed layer must pass: every organization's merged view of `name` usable, at most MAX_DEFINED
    types per layer."""

    def check(tenant: Layer, organizations: Mapping[Any, Layer]) -> None:
        if len(tenant) > MAX_DEFINED or any(len(o) > MAX_DEFINED for o in organizations.values()):
            raise InvalidInput("name", f"at most {MAX_DEFINED} hold types per tenant or organization",
                               code=ErrorCode.TOO_MANY_HOLD_TYPES)
        check_layers(tenant, organizations.values(), name)

    return check
