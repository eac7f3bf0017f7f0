"""Who is told of which booking event, per unit (seed 002's matrix, issue 18): the customer, the staff/owner.

A unit stores only its departures from the default (`units.notification_matrix`, `{}`: seed 002's matrix); the
staff side is the unit's in-app feed and, when the unit has an owner e-mail, an e-mail to it.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum


class MatrixEvent(StrEnum):
    """The booking events a unit's notification matrix turns on or off, per side."""

    CREATED = "created"
    PAID = "paid"
    CANCELLED = "cancelled"
    COMPLETED = "completed"
    EXPIRED = "expired"


MATRIX_EVENTS = tuple(MatrixEvent)
DEFAULT_MATRIX: Mapping[str, tuple[bool, bool]] = {
    "created": (True, False), "paid": (True, True), "cancelled": (True, True), "completed": (True, False),
    "expired": (True, True)}
"""event → (customer told, staff/owner told): seed 002 — the owner hears of paid, cancelled and expired bookings,
the player of created, paid, cancelled, completed and expired ones."""

KIND_EVENT: Mapping[str, str] = {
    "created": "created", "payment_confirmed": "paid", "cancelled": "cancelled",
    "cancelled_by_customer": "cancelled", "dropped": "cancelled", "expired": "expired", "completed": "completed"}
"""The notice kinds (domain/notifications.py) each matrix event governs; other kinds (reminders, reschedules, a
swapped hold's void Pix, a free booking confirmed) follow the fixed rules."""

Matrix = tuple[tuple[str, bool, bool], ...]


def effective(stored: Mapping[str, object] | None) -> Matrix:
    """The whole matrix of a unit: its stored departures over the default, in MATRIX_EVENTS order."""
    out = []
    for event in MATRIX_EVENTS:
        customer, staff = DEFAULT_MATRIX[event]
        given = (stored or {}).get(event)
        if isinstance(given, Mapping):
            customer = bool(given.get("customer", customer))
            staff = bool(given.get("staff", staff))
        out.append((event, customer, staff))
    return tuple(out)


def told(matrix: Matrix, kind: str) -> tuple[bool, bool] | None:
    """(customer told, staff told) for a notice kind the matrix governs; None for the others."""
    event = KIND_EVENT.get(kind)
    if event is None:
        return None
    for name, customer, staff in matrix or effective(None):
        if name == event:
            return customer, staff
    return DEFAULT_MATRIX[event]
