"""Attendance crons (SPEC §11): no-show suggestions and appointment reminders, every minute.

Both are keyed in the database (ctx["attendance"], domain.ports.AttendanceSweeps), so a run twice, late or on two
workers raises one suggestion per booking and sends each reminder once.
"""

from __future__ import annotations

import logging
from typing import Any

from domain.attendance import close_stale_suggestions
from domain.ports import AttendanceSweeps
from domain.services import Deps

log = logging.getLogger("slothold.jobs")


async def suggest_no_shows(ctx: dict[str, Any]) -> int:
    """Raise a "Possível falta" queue item for each confirmed booking past start + grace with no check-in; close
    the suggestions whose booking moved on (checked in after all, cancelled)."""
    deps: Deps = ctx["deps"]
    sweeps: AttendanceSweeps = ctx["attendance"]
    opened = 0
    while (n := await sweeps.raise_no_show_suggestions(deps.clock.now())) > 0:
        opened += n
    await close_stale_suggestions(deps, await sweeps.stale_suggestions())
    if opened:
        log.info("raised %d no-show suggestions", opened)
    return opened


async def remind_appointments(ctx: dict[str, Any]) -> int:
    """Write the appointment reminders that are due (the relay delivers them as notifications)."""
    deps: Deps = ctx["deps"]
    sweeps: AttendanceSweeps = ctx["attendance"]
    total = 0
    while (n := await sweeps.send_appointment_reminders(deps.clock.now())) > 0:
        total += n
    return total
