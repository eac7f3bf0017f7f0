"""The customer's view (SPEC §5): the free runs of slots inside the booking window, and the nearest free options
to one that is taken (RN-ATD-07)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta

from domain.availability.grid import grid_rows
from domain.availability.occupancy import Occupancy
from domain.availability.windows import _day
from domain.errors import SlotOption
from domain.units import Resource, Unit


def earliest_bookable_start(unit: Unit, now: datetime) -> datetime:
    """A slot must start at least min_advance + hold_min from now to be offered (RN-ATD-06, RN-HLD-02)."""
    p = unit.params
    return now + p.min_advance + p.hold_min


def bookable_slots(
    unit: Unit, resources: Sequence[Resource], occupancies: Iterable[Occupancy], start: datetime,
    end: datetime, now: datetime, slots: int = 1, quantity: int = 1,
) -> list[SlotOption]:
    """Customer view: free runs of `slots` consecutive slots inside the booking window (SPEC §5)."""
    lo = max(start, earliest_bookable_start(unit, now))
    latest_start = now + unit.params.max_advance
    hi = min(end, latest_start + timedelta(minutes=unit.params.slot_minutes * slots))
    if lo >= hi:
        return []
    free = ord("F")
    out: list[SlotOption] = []
    # Rows start a day early so that grid alignment never depends on `start`.
    rows = grid_rows(unit, resources, occupancies, lo - _day, hi, now)
    for r in resources:
        for row in rows[r.id]:
            codes, available = row.codes, row.available
            for i in range(len(row) - slots + 1):
                first = row.start(i)
                if first < lo or first > latest_start:
                    continue
                if all(codes[k] == free and available[k] >= quantity for k in range(i, i + slots)):
                    out.append(SlotOption(r.id, first, row.start(i + slots)))
    out.sort(key=lambda s: (s.starts_at, str(s.resource_id)))
    return out


def nearest_alternatives(
    unit: Unit, resources: Sequence[Resource], occupancies: Iterable[Occupancy], wanted: Resource,
    starts_at: datetime, ends_at: datetime, now: datetime, quantity: int = 1, limit: int = 3,
) -> list[SlotOption]:
    """The `limit` free options nearest to the wanted one (same resource first on ties), in time order (RN-ATD-07:
    20h on Campo 2 taken → "19h no Campo 2, 20h no Campo 1 e 21h no Campo 2")."""
    step = timedelta(minutes=unit.params.slot_minutes)
    n = max(1, round((ends_at - starts_at) / step))
    same_kind = [r for r in resources if r.kind == wanted.kind]
    options = bookable_slots(
        unit, same_kind, occupancies, starts_at - _day, ends_at + _day, now, slots=n, quantity=quantity
    )
    options = [o for o in options if not (o.resource_id == wanted.id and o.starts_at == starts_at)]
    order = {r.id: i for i, r in enumerate(resources)}

    def distance(o: SlotOption) -> tuple[float, bool, datetime, int]:
        # Moving one slot in time or moving to another resource each cost one step (RN-ATD-07:
        # 20h on Campo 2 taken → 19h and 21h on Campo 2, 20h on Campo 1).
        steps = abs(o.starts_at - starts_at) / step + (0 if o.resource_id == wanted.id else 1)
        return steps, o.resource_id != wanted.id, o.starts_at, order.get(o.resource_id, 0)

    nearest = sorted(options, key=distance)[:limit]
    return sorted(nearest, key=lambda o: (o.starts_at, o.resource_id != wanted.id, order.get(o.resource_id, 0)))
