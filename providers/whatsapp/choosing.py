"""A turn's first stage: choosing a slot from the bookable ones (RN-ATD-06), day → field (or "tanto faz") → time
→ duration, each a numbered menu."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from uuid import UUID

from domain import queries
from domain.conversation import texts as t
from domain.conversation import words as w
from domain.errors import SlotOption
from providers.whatsapp.base import DAY, DURATION, FIELD, MAX_SLOTS, MENU_DAYS, TIME, TurnBase, _dt, _iso


class Choosing(TurnBase):
    """Days, fields, times and durations offered from bookable slots; the chosen one goes to the summary."""

    async def on_start(self, text: str) -> None:
        self.say(t.WELCOME.format(unit=self.unit.name))
        await self.show_days()

    async def show_days(self) -> None:
        start, _ = self.day_bounds(self.today)
        _, end = self.day_bounds(date.fromordinal(self.today.toordinal() + MENU_DAYS - 1))
        found = await queries.bookable(self.deps, self.unit.id, start, end)
        days = sorted({self.local(o.starts_at).date() for o in found})
        self.data.update(days=[d.isoformat() for d in days])
        if not days:
            self.show(DAY, t.NO_DAYS)
            return
        self.show(DAY, t.menu(t.ASK_DAY, [t.day_label(d, self.today) for d in days], t.DAY_HINT))

    async def on_day(self, text: str) -> None:
        days = self.data.get("days") or []
        n = w.choice(text, len(days))
        d = date.fromisoformat(days[n - 1]) if n else w.parse_day(text, self.today)
        if d is None:
            if w.is_restart(text):
                await self.show_days()
            else:
                self.again()
            return
        await self.choose_day(d)

    async def choose_day(self, d: date) -> None:
        last = self.local(self.now + self.unit.params.max_advance).date()
        if d < self.today or d > last:
            self.say(t.PAST_DAY if d < self.today else t.TOO_FAR.format(days=self.unit.params.max_advance.days))
            await self.show_days()
            return
        start, end = self.day_bounds(d)
        found = await queries.bookable(self.deps, self.unit.id, start, end)
        free = {o.resource_id for o in found}
        fields = [r for r in self.resources if r.id in free]
        if not fields:
            self.say(t.NO_SLOTS_DAY.format(day=t.day_label(d, self.today)))
            await self.show_days()
            return
        self.data.update(day=d.isoformat(), fields=[[str(r.id), r.name] for r in fields])
        self.show(FIELD, t.menu(t.ASK_FIELD.format(day=t.day_label(d, self.today)),
                                [r.name for r in fields] + [t.ANY_FIELD]))

    async def on_field(self, text: str) -> None:
        fields = self.data.get("fields") or []
        n = w.pick(text, [name for _, name in fields] + [t.ANY_FIELD])
        if n is None:
            if w.is_restart(text):
                await self.show_days()
            else:
                self.again()
            return
        self.data["resource"] = fields[n - 1][0] if n <= len(fields) else None
        await self.show_times()

    def chosen_resource(self) -> UUID | None:
        rid = self.data.get("resource")
        return UUID(rid) if rid else None

    async def show_times(self) -> None:
        d = date.fromisoformat(self.data["day"])
        start, end = self.day_bounds(d)
        rid = self.chosen_resource()
        found = await queries.bookable(self.deps, self.unit.id, start, end, rid)
        starts = sorted({o.starts_at for o in found})
        if not starts:
            self.say(t.NO_SLOTS_DAY.format(day=t.day_label(d, self.today)))
            await self.show_days()
            return
        self.data["times"] = [_iso(s) for s in starts]
        where = f" no {self.names[rid]}" if rid else ""
        self.show(TIME, t.menu(t.ASK_TIME.format(day=t.day_label(d, self.today), where=where),
                               [t.clock(self.local(s)) for s in starts]))

    async def on_time(self, text: str) -> None:
        times = self.data.get("times") or []
        n = w.pick(text, [t.clock(self.local(_dt(s))) for s in times])
        if n is None:
            if w.is_restart(text):
                await self.show_days()
            else:
                self.again()
            return
        await self.show_durations(_dt(times[n - 1]))

    async def fits(self, start: datetime, slots: int) -> list[SlotOption]:
        """The resources free for `slots` consecutive slots from `start` (the chosen field, or any)."""
        end = start + timedelta(minutes=self.unit.params.slot_minutes * slots)
        found = await queries.bookable(self.deps, self.unit.id, start, end, self.chosen_resource(), slots=slots)
        order = {r.id: i for i, r in enumerate(self.resources)}
        return sorted((o for o in found if o.starts_at == start), key=lambda o: order.get(o.resource_id, 99))

    async def show_durations(self, start: datetime) -> None:
        durations = [n for n in range(1, MAX_SLOTS + 1) if await self.fits(start, n)]
        if not durations:
            self.say(t.UNAVAILABLE)
            await self.show_times()
            return
        self.data.update(start=_iso(start), durations=durations)
        self.show(DURATION, t.menu(t.ASK_DURATION.format(clock=t.clock(self.local(start))),
                                   [t.hours_label(n, self.unit.params.slot_minutes) for n in durations]))

    async def on_duration(self, text: str) -> None:
        durations = self.data.get("durations") or []
        n = w.pick(text, [t.hours_label(d, self.unit.params.slot_minutes) for d in durations])
        if n is None:
            if w.is_restart(text):
                await self.show_days()
            else:
                self.again()
            return
        start = _dt(self.data["start"])
        options = await self.fits(start, durations[n - 1])
        if not options:
            self.say(t.UNAVAILABLE)
            await self.show_times()
            return
        await self.show_summary(options[0])
