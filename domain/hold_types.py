"""Hold types: why a thing is held (SPEC §10). Platform defaults; org/tenant layers come later."""

from __future__ import annotations

from dataclasses import dataclass

from domain.errors import InvalidInput


@dataclass(frozen=True)
class HoldType:
    """How a hold of this type behaves and shows on the grid."""

    name: str
    display_name: str
    display_color: str
    payment_required: bool = True
    skip_locked_state: bool = False


PLATFORM_HOLD_TYPES: dict[str, HoldType] = {
    "CART": HoldType("CART", "Hold do bot", "#F59E0B", payment_required=True),
    "RESERVED": HoldType("RESERVED", "Reservado", "#6366F1", payment_required=False),
}

STATE_COLORS = {
    "free": "#22C55E",
    "held": "#F59E0B",
    "verifying": "#F97316",
    "booked": "#3B82F6",
    "blocked": "#6B7280",
    "closed": "#D1D5DB",
}


def display_color(state: str, hold_type: str | None) -> str:
    """The colour a grid cell shows: the hold type's for holds, else the state's."""
    if hold_type and state in ("held", "verifying") and hold_type in PLATFORM_HOLD_TYPES:
        return PLATFORM_HOLD_TYPES[hold_type].display_color
    return STATE_COLORS.get(state, "#D1D5DB")


def resolve(name: str | None) -> HoldType:
    """The hold type for a name (None: CART); unknown names are an input error."""
    key = name or "CART"
    if key not in PLATFORM_HOLD_TYPES:
        raise InvalidInput("holdType", f"unknown hold type {key!r}", code="unknown_hold_type")
    return PLATFORM_HOLD_TYPES[key]
