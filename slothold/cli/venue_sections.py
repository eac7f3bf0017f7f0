"""The layout and the services of `slothold venue apply` (slothold/cli/venue_apply.py runs them in its one
transaction): each compares what the unit has with the file and calls the use case of each difference — the same
ones GraphQL's mutations call, so their checks (bookings in the way, overlapping bands...) refuse here too."""

from __future__ import annotations

from datetime import datetime, timedelta
from uuid import UUID
from zoneinfo import ZoneInfo

from domain import catalog, service_catalog
from domain.layout import blocks as layout_blocks
from domain.layout import hours as layout_hours
from domain.layout import resources as layout_resources
from domain.layout.hours import WindowSpec, hhmm
from domain.layout.ports import ResourceRow
from domain.payments import PaymentRule
from domain.pricing import PriceBand, Service
from domain.units import OpeningWindow, ResourceKind
from slothold.cli.venue_apply import SESSION, Applying, ApplyRefused
from slothold.cli.venue_file import BandEntry, ResourceEntry, ServiceEntry, Window


def _specs(windows: tuple[Window, ...]) -> list[WindowSpec]:
    return [WindowSpec(hhmm(w.opens), hhmm(w.closes), w.weekday) for w in windows]


def _same_week(have: tuple[OpeningWindow, ...], want: tuple[Window, ...]) -> bool:
    return sorted((w.weekday, w.opens, w.closes) for w in have) == sorted((w.weekday, w.opens, w.closes)
                                                                          for w in want)


async def _rows(a: Applying) -> dict[str, ResourceRow]:
    async with a.deps.uow() as uow:
        return {r.name: r for r in await uow.layout.resource_rows(a.unit_id)}


async def unit_hours(a: Applying) -> None:
    """The unit's weekly hours."""
    if not a.venue.hours:
        return
    async with a.deps.uow() as uow:
        unit = await uow.layout.fresh_unit(a.unit_id)
    if not _same_week(unit.hours, a.venue.hours):
        await layout_hours.set_opening_hours(a.deps, a.unit_id, None, _specs(a.venue.hours), SESSION)


async def resources(a: Applying) -> None:
    """Create, change, reorder and (de)activate resources; their own hours."""
    rows = await _rows(a)
    for i, entry in enumerate(a.venue.resources):
        row = rows.get(entry.name)
        if row is None:
            group = layout_resources.GroupChoice(name=entry.group) if entry.group else None
            made = await layout_resources.create_resource(a.deps, layout_resources.NewResource(
                a.unit_id, entry.name, ResourceKind(entry.kind), SESSION, entry.capacity, group))
            rows[entry.name] = made
            if not entry.active:
                await layout_resources.set_active(a.deps, made.id, False, SESSION)
        else:
            await _change(a, i, entry, row)
        if entry.hours is not None or rows[entry.name].hours:
            have = rows[entry.name].hours
            want = entry.hours or ()
            if not _same_week(have, want):
                await layout_hours.set_opening_hours(a.deps, a.unit_id, rows[entry.name].id, _specs(want), SESSION)
    named = {e.name for e in a.venue.resources}
    for name, row in rows.items():
        if name not in named and row.active:
            await layout_resources.set_active(a.deps, row.id, False, SESSION)
    order = [rows[e.name].id for e in a.venue.resources]
    current = [r.id for r in sorted((await _rows(a)).values(), key=lambda r: r.sort) if r.id in set(order)]
    if current != order:
        await layout_resources.reorder(a.deps, a.unit_id, order, SESSION)


async def _change(a: Applying, i: int, entry: ResourceEntry, row: ResourceRow) -> None:
    if row.kind.value != entry.kind:
        raise ApplyRefused(f"resources[{i}].kind: {entry.name} exists as {row.kind.value}; venue apply does not "
                           f"change a resource's kind (its bookings were made as {row.kind.value})")
    group_changes = entry.group != row.group_name
    capacity = entry.capacity if entry.kind == "pooled" and entry.capacity != row.capacity else None
    if group_changes or capacity is not None:
        await layout_resources.update_resource(a.deps, layout_resources.ResourceChange(
            row.id, SESSION, group=layout_resources.GroupChoice(name=entry.group) if entry.group else None,
            ungroup=group_changes and entry.group is None, capacity=capacity))
    if row.active != entry.active:
        await layout_resources.set_active(a.deps, row.id, entry.active, SESSION)


async def day_exceptions(a: Applying) -> None:
    """Closed days and special hours of the file (others are left as they are)."""
    if not a.venue.exceptions:
        return
    rows = await _rows(a)
    days = [e.day for e in a.venue.exceptions]
    have = {(x.day, x.resource_id): x for x in await layout_hours.exceptions(a.deps, a.unit_id, min(days),
                                                                             max(days))}
    for e in a.venue.exceptions:
        resource = rows[e.resource].id if e.resource else None
        found = have.get((e.day, resource))
        if found is not None and found.windows == e.windows and found.reason == e.reason:
            continue
        specs = [WindowSpec(hhmm(o), hhmm(c)) for o, c in e.windows]
        await layout_hours.put_day(a.deps, a.unit_id, e.day, resource, specs, e.reason, SESSION)


async def grid_blocks(a: Applying) -> None:
    """The file's blocks (others are left as they are)."""
    if not a.venue.blocks:
        return
    rows = await _rows(a)
    tz = ZoneInfo(a.venue.timezone)

    def aware(t: datetime) -> datetime:
        return t.replace(tzinfo=tz)

    first = min(aware(b.starts) for b in a.venue.blocks)
    last = max(aware(b.ends) for b in a.venue.blocks)
    have = {(b.resource_id, b.starts_at, b.ends_at) for b in await layout_blocks.blocks(
        a.deps, a.unit_id, first - timedelta(seconds=1), last + timedelta(seconds=1))}
    for b in a.venue.blocks:
        rid, start, end = rows[b.resource].id, aware(b.starts), aware(b.ends)
        if (rid, start, end) not in have:
            await layout_blocks.block_resource(a.deps, rid, start, end, b.reason, SESSION)


def _rule(value: str, where: str) -> PaymentRule:
    try:
        return PaymentRule(value)
    except ValueError:
        raise ApplyRefused(f"{where}: a payment rule is one of {', '.join(r.value for r in PaymentRule)}") from None


def _band(b: BandEntry, where: str) -> PriceBand:
    return PriceBand(tuple(sorted(b.weekdays)), b.starts, b.ends, b.price_cents, _rule(b.payment_rule, where),
                     b.deposit_percent, b.deposit_cents)


async def services(a: Applying) -> None:
    """Create or change services, their base price and their bands; deactivate those the file leaves out."""
    rows = await _rows(a)
    have = {s.name: s for s in await service_catalog.services(a.deps, a.unit_id, include_inactive=True)}
    for i, entry in enumerate(a.venue.services):
        where = f"services[{i}]"
        on = tuple(rows[name].id for name in entry.resources)
        rule = _rule(entry.payment_rule, f"{where}.payment_rule")
        bands = tuple(_band(b, f"{where}.bands[{j}].payment_rule") for j, b in enumerate(entry.bands))
        found = have.get(entry.name)
        if found is None:
            found = await service_catalog.create_service(a.deps, a.unit_id, service_catalog.ServiceDraft(
                entry.name, entry.durations, on, entry.price_cents, rule, entry.deposit_percent,
                entry.deposit_cents), SESSION)
        else:
            await _change_service(a, entry, found, on, rule)
        if bands != found.table.bands and (bands or found.table.bands):
            await service_catalog.set_price_bands(a.deps, found.id, bands, SESSION)
        if found.active != entry.active:
            await service_catalog.set_active(a.deps, found.id, entry.active, SESSION)
    named = {e.name for e in a.venue.services}
    for name, s in have.items():
        if name not in named and s.active:
            await service_catalog.set_active(a.deps, s.id, False, SESSION)


async def _change_service(a: Applying, entry: ServiceEntry, found: Service, on: tuple[UUID, ...],
                          rule: PaymentRule) -> None:
    durations = tuple(sorted(entry.durations))
    new_durations = durations if found.durations != durations else None
    new_on = on if set(found.resource_ids) != set(on) else None
    if new_durations is not None or new_on is not None:
        await service_catalog.update_service(a.deps, found.id, service_catalog.ServiceChanges(
            durations=new_durations, resource_ids=new_on), SESSION)
    base = found.table.base
    if (base.price_cents, base.rule, base.deposit_percent, base.deposit_cents) != (
            entry.price_cents, rule, entry.deposit_percent, entry.deposit_cents):
        await catalog.publish_price(a.deps, a.unit_id, found.id, entry.price_cents, rule.value,
                                    entry.deposit_percent, entry.deposit_cents, SESSION)
