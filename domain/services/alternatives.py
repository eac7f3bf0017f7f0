"""What a refused booking is offered instead: the nearest free options (RN-ATD-07), and the unit as the counter
sees it (no advance limits)."""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import datetime, timedelta

from domain.availability import nearest_alternatives
from domain.errors import SlotOption
from domain.services.deps import Deps
from domain.single_flight import SingleFlight
from domain.units import Resource, Unit


def window_free(unit: Unit) -> Unit:
    """The unit as seen from the counter: no advance limits."""
    return replace(unit, params=replace(unit.params, min_advance=timedelta(0), hold_min=timedelta(0)))


ALTERNATIVE_RESOURCES = 50
ALTERNATIVES_TTL = 1.0
_alternatives_memo: dict[tuple[object, ...], tuple[float, list[SlotOption]]] = {}
_computing: SingleFlight[list[SlotOption]] = SingleFlight()


async def alternatives(
    deps: Deps, unit: Unit, wanted: Resource, starts_at: datetime, ends_at: datetime, quantity: int, now: datetime,
    counter: bool = False,
) -> list[SlotOption]:
    """The 3 nearest free options (RN-ATD-07) among the wanted resource and its nearest siblings.

    Siblings are the resources of the same group (else of the unit) of the same kind, at most
    ALTERNATIVE_RESOURCES of them nearest in display order, so a losing hold costs the same on a
    venue of 4 fields or of 10,000 seats. Suggestions are not promises (a hold on one is checked like
    any other), so the losers of one hot slot share one computation for ALTERNATIVES_TTL seconds.
    """
    key = (unit.id, wanted.id, starts_at, ends_at, quantity, counter)
    hit = _alternatives_memo.get(key)
    if hit and hit[0] > time.monotonic():
        return hit[1]
    # The losers of a hot slot are refused together: the first computes, the others of this process wait for it
    # (else each missed the memo at once and computed the same list: 10 % of a worker over the hot slot).
    found, _ = await _computing.run(key, lambda: _compute(deps, unit, wanted, starts_at, ends_at, quantity, now,
                                                          counter))
    if len(_alternatives_memo) > 10_000:
        _alternatives_memo.clear()
    _alternatives_memo[key] = (time.monotonic() + ALTERNATIVES_TTL, found)
    return found


async def _compute(deps: Deps, unit: Unit, wanted: Resource, starts_at: datetime, ends_at: datetime, quantity: int,
                   now: datetime, counter: bool) -> list[SlotOption]:
    async with deps.uow() as uow:
        resources = await uow.units.resources(unit.id)
        kin = [r for r in resources
               if r.kind is wanted.kind and (wanted.group_id is None or r.group_id == wanted.group_id)]
        at = next((i for i, r in enumerate(kin) if r.id == wanted.id), 0)
        lo = max(0, min(at - ALTERNATIVE_RESOURCES // 2, len(kin) - ALTERNATIVE_RESOURCES))
        kin = kin[lo : lo + ALTERNATIVE_RESOURCES]
        if wanted not in kin:
            kin.append(wanted)
        day = timedelta(days=1)
        occ = await uow.bookings.occupancy(unit.id, [r.id for r in kin], starts_at - day, ends_at + day)
    view = window_free(unit) if counter else unit
    return nearest_alternatives(view, kin, occ, wanted, starts_at, ends_at, now, quantity)
