"""Paying a series by period (issue 23): charge the periods that are due, remind, release the unpaid ones. Each
rechecks the period under its lock, so running twice (or on two workers) charges once and releases once."""

from __future__ import annotations

from typing import Any

from domain import series_pay


async def charge_series_periods(ctx: dict[str, Any]) -> int:
    """Charge every series period due (`seriesChargeDaysAhead` before it starts) and tell its customer."""
    return await series_pay.charge_due_periods(ctx["deps"])


async def remind_series_periods(ctx: dict[str, Any]) -> int:
    """Remind, once, the customer of each charged period whose deadline is a day away."""
    return await series_pay.remind_periods(ctx["deps"])


async def release_series_periods(ctx: dict[str, Any]) -> int:
    """Release the occurrences of each period past its deadline unpaid (the rest of the series keeps going)."""
    return await series_pay.release_lapsed_periods(ctx["deps"])
