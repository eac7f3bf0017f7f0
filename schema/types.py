"""Strawberry object types built from domain objects."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated
from uuid import UUID

import strawberry
from strawberry.scalars import JSON

from domain import availability as av
from domain import bookings as db
from domain import units as du
from domain.hold_types import PLATFORM_CATALOG, HoldTypeCatalog
from schema.errors import InvalidInput, NotFound
from schema.pages import page_size
from schema.payments import Acceptance, Charge, Refund

# The domain's enums are the schema's: strawberry.enum registers each (and returns it unchanged).
BookingStatus = db.BookingStatus
SlotState = av.SlotState
ResourceKind = du.ResourceKind
strawberry.enum(BookingStatus, description="Where a booking is in its lifecycle (SPEC §3).")
strawberry.enum(SlotState, description="What the staff grid shows for a slot (SPEC §5).")
strawberry.enum(ResourceKind, description="Exclusive: one at a time. Pooled: capacity at a time.")


@strawberry.type(description="One resource occupied by a booking over a range.")
class Allocation:
    resource_id: strawberry.ID
    starts_at: datetime
    ends_at: datetime
    quantity: int


@strawberry.type(description="One row of a booking's audit trail (SPEC §15): a status change, who made it and how.")
class BookingHistoryEntry:
    at: datetime
    old_status: BookingStatus | None = strawberry.field(description="Null for the row that created the booking.")
    new_status: BookingStatus
    hold_type: str | None
    actor: str = strawberry.field(description="Who: customer, staff:<role>, system, an integrator...")
    channel: str
    reason: str | None
    allocations: list[Allocation] = strawberry.field(
        description="The resources and ranges the booking held when the row was written.")
    session: str | None = strawberry.field(default=None, description="The credential it came through: staff:<token "
                                           "id>, client:<token id>, customer:<session id>, system:<token id>; null "
                                           "for the platform's own jobs (expiry, sweeps).")

    @classmethod
    def from_domain(cls, e: db.HistoryEntry) -> BookingHistoryEntry:
        return cls(
            at=e.at, old_status=BookingStatus(e.old_status.value) if e.old_status else None,
            new_status=BookingStatus(e.new_status.value), hold_type=e.hold_type, actor=e.actor,
            channel=e.channel, reason=e.reason, session=e.session,
            allocations=[Allocation(resource_id=strawberry.ID(str(a.resource_id)), starts_at=a.starts_at,
                                    ends_at=a.ends_at, quantity=a.quantity) for a in e.allocations])


@strawberry.type(description="One customer's claim on one or more resources over a time range.")
class Booking:
    id: strawberry.ID
    unit_id: strawberry.ID
    status: BookingStatus
    hold_type: str | None
    channel: str
    starts_at: datetime
    ends_at: datetime
    hold_expires_at: datetime | None = strawberry.field(description="Deadline of a hold; null once settled.")
    created_at: datetime
    customer_id: strawberry.ID | None
    allocations: list[Allocation]
    due_now_cents: int = strawberry.field(description="What is paid by Pix now (the rest at the venue).")
    paid_cents: int
    acceptance: Acceptance | None = strawberry.field(description="What the customer accepted, as accepted.")
    swapped_from: strawberry.ID | None
    swapped_to: strawberry.ID | None
    rescheduled_from: strawberry.ID | None = strawberry.field(
        description="The booking this one replaced (reschedule, SPEC §11).")
    rescheduled_to: strawberry.ID | None = strawberry.field(
        description="The booking that replaced this one (reschedule); this one is then cancelled.")

    @strawberry.field(description="Money back after a paid booking was cancelled (one per payment), oldest first.")
    async def refunds(self, info: strawberry.Info) -> list[Refund]:
        from domain.refunds import refunds_of

        return [Refund.from_domain(r) for r in await refunds_of(info.context.deps, UUID(str(self.id)))]

    @strawberry.field(description="What refunds have sent back so far (succeeded ones); paidCents stays what was paid.")
    async def refunded_cents(self, info: strawberry.Info) -> int:
        from domain.refunds import RefundStatus, refunds_of

        found = await refunds_of(info.context.deps, UUID(str(self.id)))
        return sum(r.amount_cents for r in found if r.status is RefundStatus.SUCCEEDED)

    @strawberry.field(description="While the booking is held: the summary accepting it now would record — price "
                      "and policy versions, payment rule, total, due now by Pix, at the venue, the policy's words "
                      "(RN-ATD-09: what the customer reads before accepting). Null otherwise.")
    async def quote(self, info: strawberry.Info) -> Acceptance | None:
        from domain.checkout import quote

        terms = await quote(info.context.deps, UUID(str(self.id)))
        return Acceptance.from_json(terms.as_json()) if terms is not None else None

    @strawberry.field(description="The booking's audit trail, oldest first: its first `first` rows (1 to 500). "
                      "Rows are append-only and hash-chained per unit (`slothold audit verify`).")
    async def history(self, info: strawberry.Info, first: int = 100) -> list[BookingHistoryEntry]:
        from domain.services import HISTORY_MAX, booking_history

        found = await booking_history(info.context.deps, UUID(str(self.id)), page_size(first, HISTORY_MAX))
        return [BookingHistoryEntry.from_domain(e) for e in found]

    @classmethod
    def from_domain(cls, b: db.Booking) -> Booking:
        return cls(
            id=strawberry.ID(str(b.id)), unit_id=strawberry.ID(str(b.unit_id)), status=BookingStatus(b.status.value),
            hold_type=b.hold_type, channel=b.channel, starts_at=b.starts_at, ends_at=b.ends_at,
            hold_expires_at=b.hold_expires_at, created_at=b.created_at,
            customer_id=strawberry.ID(str(b.customer_id)) if b.customer_id else None,
            allocations=[Allocation(resource_id=strawberry.ID(str(a.resource_id)), starts_at=a.starts_at,
                                    ends_at=a.ends_at, quantity=a.quantity) for a in b.allocations],
            due_now_cents=b.due_now_cents, paid_cents=b.paid_cents,
            acceptance=Acceptance.from_json(b.acceptance) if b.acceptance else None,
            swapped_from=strawberry.ID(str(b.swapped_from)) if b.swapped_from else None,
            swapped_to=strawberry.ID(str(b.swapped_to)) if b.swapped_to else None,
            rescheduled_from=strawberry.ID(str(b.rescheduled_from)) if b.rescheduled_from else None,
            rescheduled_to=strawberry.ID(str(b.rescheduled_to)) if b.rescheduled_to else None,
        )


@strawberry.type(description="A booking as a mutation returns it.")
class BookingPayload:
    booking: Booking
    replayed: bool = strawberry.field(
        description="True when an earlier request with the same idempotency key produced this result."
    )
    charge: Charge | None = strawberry.field(default=None, description="The Pix charge to pay, when one is due.")


@strawberry.type(description="Something bookable in a unit.")
class Resource:
    id: strawberry.ID
    name: str
    kind: ResourceKind
    capacity: int
    group_id: strawberry.ID | None

    @classmethod
    def from_domain(cls, r: du.Resource) -> Resource:
        return cls(id=strawberry.ID(str(r.id)), name=r.name, kind=ResourceKind(r.kind.value), capacity=r.capacity,
                   group_id=strawberry.ID(str(r.group_id)) if r.group_id else None)


@strawberry.type(description="Opening window: weekday 0 = Monday, minutes after local midnight.")
class OpeningWindow:
    weekday: int
    opens_minute: int
    closes_minute: int


@strawberry.type(description="The parameters of a unit (SPEC §17), durations in seconds.")
class UnitParameters:
    min_advance_seconds: int
    max_advance_days: int
    slot_minutes: int
    hold_ttl_seconds: int
    hold_ttl_with_payment_seconds: int
    hold_min_seconds: int
    hold_reminder_seconds: int
    verification_wait_seconds: int
    waitlist_hold_seconds: int
    charge_margin_seconds: int
    payment_rule: str
    no_show_grace_minutes: int
    appointment_reminder_minutes: list[int]

    @classmethod
    def from_domain(cls, p: du.UnitParameters) -> UnitParameters:
        s = int
        return cls(
            min_advance_seconds=s(p.min_advance.total_seconds()), max_advance_days=p.max_advance.days,
            slot_minutes=p.slot_minutes, hold_ttl_seconds=s(p.hold_ttl.total_seconds()),
            hold_ttl_with_payment_seconds=s(p.hold_ttl_with_payment.total_seconds()),
            hold_min_seconds=s(p.hold_min.total_seconds()), hold_reminder_seconds=s(p.hold_reminder.total_seconds()),
            verification_wait_seconds=s(p.verification_wait.total_seconds()),
            waitlist_hold_seconds=s(p.waitlist_hold.total_seconds()),
            charge_margin_seconds=s(p.charge_margin.total_seconds()), payment_rule=p.payment_rule,
            no_show_grace_minutes=s(p.no_show_grace.total_seconds()) // 60,
            appointment_reminder_minutes=list(p.appointment_reminders),
        )


@strawberry.type(description="One venue with its clock, hours, parameters and resources.")
class Unit:
    id: strawberry.ID
    name: str
    timezone: str
    parameters: UnitParameters
    opening_hours: list[OpeningWindow]
    resources: list[Resource]

    @classmethod
    def from_domain(cls, u: du.Unit, resources: list[du.Resource]) -> Unit:
        return cls(
            id=strawberry.ID(str(u.id)), name=u.name, timezone=u.timezone,
            parameters=UnitParameters.from_domain(u.params),
            opening_hours=[OpeningWindow(weekday=w.weekday, opens_minute=w.opens, closes_minute=w.closes)
                           for w in u.hours],
            resources=[Resource.from_domain(r) for r in resources],
        )


@strawberry.type(description="A run of consecutive slots of one resource in the same state.")
class GridSegment:
    starts_at: datetime
    ends_at: datetime
    state: SlotState
    slots: int = strawberry.field(description="How many grid slots the run covers.")
    available: int = strawberry.field(description="Places left (pooled resources); 0 or 1 for exclusive.")
    booking_id: strawberry.ID | None
    status: BookingStatus | None
    hold_type: str | None
    hold_type_name: str | None = strawberry.field(description="Display name of the hold type, e.g. Hold do bot.")
    hold_expires_at: datetime | None
    display_color: str

    @classmethod
    def from_domain(cls, s: av.Segment, catalog: HoldTypeCatalog = PLATFORM_CATALOG) -> GridSegment:
        o = s.occupancy
        hold_type = o.hold_type if o else None
        name, color = catalog.display(s.state.value, hold_type)
        return cls(
            starts_at=s.starts_at, ends_at=s.ends_at, state=SlotState(s.state.value), slots=s.slots,
            available=s.available,
            booking_id=strawberry.ID(str(o.booking_id)) if o and o.booking_id else None,
            status=BookingStatus(o.status.value) if o and o.status else None,
            hold_type=hold_type, hold_type_name=name,
            hold_expires_at=o.hold_expires_at if o else None,
            display_color=color,
        )


@strawberry.type(description="One opening window of a resource in compact form, for month views: one letter "
                  "per grid slot — F free, H held, V verifying, B booked, X blocked.")
class GridWindow:
    starts_at: datetime
    ends_at: datetime
    states: str


@strawberry.type(description="One resource's row of the grid.")
class GridRow:
    resource: Resource
    rows: strawberry.Private[list[av.WindowRow]]
    hold_types: strawberry.Private[HoldTypeCatalog] = PLATFORM_CATALOG

    @strawberry.field(description="Runs of consecutive slots in the same state, with the booking and hold type.")
    def segments(self) -> list[GridSegment]:
        return [GridSegment.from_domain(s, self.hold_types) for s in av.segments(self.rows)]

    @strawberry.field(description="The same slots as one string per opening window.")
    def windows(self) -> list[GridWindow]:
        return [GridWindow(starts_at=r.first, ends_at=r.start(len(r)), states=r.codes.decode()) for r in self.rows]

    @strawberry.field(description="Compact form for long ranges (month views): the start of each opening "
                      "window's first slot; pairs with windowStates.")
    def window_starts(self) -> list[datetime]:
        return [r.first for r in self.rows]

    @strawberry.field(description="Compact form for long ranges: per opening window, one letter per slot (F free, "
                      "H held, V verifying, B booked, X blocked); slot i of window w starts at windowStarts[w] + "
                      "i × slotMinutes.")
    def window_states(self) -> list[str]:
        return [r.codes.decode() for r in self.rows]


@strawberry.type(description="The staff grid of a unit over a range (SPEC §5).")
class Grid:
    unit_id: strawberry.ID
    starts_at: datetime
    ends_at: datetime
    slot_minutes: int
    rows: list[GridRow]

    @strawberry.field(description="The whole grid as one JSON value, for month views: {slotMinutes, rows: "
                      "[{resourceId, name, windows: [[firstSlotStart, states], ...]}]} where states has one letter "
                      "per slot (F free, H held, V verifying, B booked, X blocked). One value instead of thousands "
                      "of fields: a 50-resource month is cheap this way.")
    def compact(self) -> JSON:
        iso: dict[datetime, str] = {}  # resources sharing hours share their windows' starts: format each once
        rows = []
        for row in self.rows:
            windows = []
            for w in row.rows:
                first = iso.get(w.first)
                if first is None:
                    first = iso[w.first] = w.first.isoformat()
                windows.append([first, w.codes.decode()])
            rows.append({"resourceId": str(row.resource.id), "name": row.resource.name, "windows": windows})
        return JSON({"slotMinutes": self.slot_minutes, "rows": rows})


@strawberry.type(description="A slot a customer may hold now.")
class BookableSlot:
    resource_id: strawberry.ID
    starts_at: datetime
    ends_at: datetime


@strawberry.type(description="Free slots a customer may hold (SPEC §5).")
class BookableSlots:
    unit_id: strawberry.ID
    slots: list[BookableSlot]


UnitResult = Annotated[Unit | NotFound | InvalidInput, strawberry.union("UnitResult")]
GridResult = Annotated[Grid | NotFound | InvalidInput, strawberry.union("GridResult")]
BookableSlotsResult = Annotated[BookableSlots | NotFound | InvalidInput, strawberry.union("BookableSlotsResult")]
