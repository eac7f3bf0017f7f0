"""Seat maps (seed 004): owners draw maps and events; customers and staff lock seats; staff sell, unlock, revert,
block and unblock — many seats at once, all or nothing."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from domain import seatmaps
from domain.access import Action
from domain.bookings import Booking as DomainBooking
from domain.customers import CustomerIdentity
from domain.errors import DomainError
from domain.services import BookingResult
from resolvers.context import Context, Info, parse_id
from resolvers.permissions import authorize_unit, customer_for
from schema.args import EventIdArg, IdempotencyKeyArg, OptionalReasonArg, SeatIdsArg, UnitIdArg
from schema.bookings import Booking, BookingPayload
from schema.ids import Kind
from schema.seatmaps import (
    LockBestSeatsInput,
    LockSeatsInput,
    LockSeatsResult,
    SeatBookingsPayload,
    SeatBookingsResult,
    SeatEvent,
    SeatEventResult,
    SeatMap,
    SeatMapInput,
    SeatMapResult,
    SeatMapView,
    SeatMapViewResult,
    SeatsChanged,
    SeatsChangedResult,
    SellSeatsInput,
)

SeatMapArg = Annotated[SeatMapInput, strawberry.argument(
    description="The seat map: its unit, name, sections, rows and seats.")]
SeatMapIdArg = Annotated[strawberry.ID, strawberry.argument(description="The seat map (its id as the API gave it).")]
EventNameArg = Annotated[str, strawberry.argument(description="The event's name (e.g. the show's).")]
EventStartArg = Annotated[datetime, strawberry.argument(description="When it starts (inclusive), with a UTC offset.")]
EventEndArg = Annotated[datetime, strawberry.argument(description="When it ends (exclusive), after the start.")]
LockArg = Annotated[LockSeatsInput, strawberry.argument(description="The event, seats, customer and hold type.")]
BestArg = Annotated[LockBestSeatsInput, strawberry.argument(
    description="The event, how many seats and where, the customer and hold type.")]
SellArg = Annotated[SellSeatsInput, strawberry.argument(description="The event, seats, customer and hold type.")]


async def _command(ctx: Context, event_id: strawberry.ID, seat_ids: list[strawberry.ID], action: Action, *,
                   hold_type: str | None = None, customer: CustomerIdentity | None = None, channel: str = "api",
                   reason: str = "", idempotency_key: str | None = None) -> seatmaps.SeatCommand:
    eid = parse_id(event_id, "eventId", Kind.SEAT_EVENT)
    seats = tuple(parse_id(s, "seatIds", Kind.RESOURCE) for s in seat_ids)
    await authorize_unit(ctx, await seatmaps.event_unit(ctx.deps, eid), action)
    principal = ctx.principal
    owns = (lambda cid: ctx.access.is_same_person(principal, cid)) if principal.is_customer else None
    return seatmaps.SeatCommand(eid, seats, actor="staff" if principal.is_staff else principal.actor,
                                releaser=principal.releasers(action), placed_by=principal.releaser, owns=owns,
                                hold_type=hold_type, customer=customer, channel=channel, reason=reason,
                                idempotency_key=idempotency_key)


async def _lock_command(ctx: Context, input: LockSeatsInput | LockBestSeatsInput, seat_ids: list[strawberry.ID],
                        idempotency_key: str | None) -> seatmaps.SeatCommand:
    """A lock's command: its customer as the caller may name them (customers lock for themselves)."""
    customer = customer_for(ctx, input.customer.for_caller(ctx.principal) if input.customer else None)
    return await _command(ctx, input.event_id, seat_ids, Action.BOOK, hold_type=input.hold_type, customer=customer,
                          channel=input.channel, idempotency_key=ctx.idempotency_key(idempotency_key))


def _locked(r: BookingResult) -> BookingPayload:
    return BookingPayload(booking=Booking.from_domain(r.booking), replayed=r.replayed)


def _bookings(found: list[DomainBooking]) -> SeatBookingsPayload:
    return SeatBookingsPayload(bookings=[Booking.from_domain(b) for b in found])


@strawberry.type
class SeatMapQuery:
    @strawberry.field(description="An event's seat map with every seat's state now (ACTIVE, LOCKED, SOLD, BLOCKED), "
                      "hold types and display colours. Public; booking ids only for staff and 'read' integrators.")
    async def seat_map(self, info: Info, event_id: EventIdArg) -> SeatMapViewResult:
        ctx = info.context
        eid = parse_id(event_id, "eventId", Kind.SEAT_EVENT)
        unit = await authorize_unit(ctx, await seatmaps.event_unit(ctx.deps, eid), Action.PUBLIC)
        try:
            await authorize_unit(ctx, unit.id, Action.READ)
            staff = not ctx.principal.is_customer
        except DomainError:
            staff = False
        view = await seatmaps.seat_map_view(ctx.deps, eid)
        return SeatMapView.from_domain(view, unit.hold_types, staff)

    @strawberry.field(description="The unit's seat events that are not over, soonest first (at most 500).")
    async def seat_events(self, info: Info, unit_id: UnitIdArg) -> list[SeatEvent]:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.PUBLIC)
        return [SeatEvent.from_domain(e) for e in await seatmaps.events_of(info.context.deps, uid)]


@strawberry.type
class SeatMapMutation:
    @strawberry.mutation(description="Owner: draw a seat map (sections → rows → seat labels). Its seats are exclusive "
                         "resources of the unit, off the slot grid.")
    async def create_seat_map(self, info: Info, input: SeatMapArg) -> SeatMapResult:
        uid = parse_id(input.unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.CONFIGURE)
        return SeatMap.from_domain(await seatmaps.create_seat_map(info.context.deps, uid, input.name,
                                                                  input.specs()))

    @strawberry.mutation(description="Owner: an event (a performance) of a seat map over [startsAt, endsAt).")
    async def create_seat_event(self, info: Info, seat_map_id: SeatMapIdArg, name: EventNameArg,
                                starts_at: EventStartArg, ends_at: EventEndArg) -> SeatEventResult:
        mid = parse_id(seat_map_id, "seatMapId", Kind.SEAT_MAP)
        await authorize_unit(info.context, await seatmaps.seat_map_unit(info.context.deps, mid), Action.CONFIGURE)
        return SeatEvent.from_domain(await seatmaps.create_event(info.context.deps, mid, name, starts_at,
                                                                 ends_at))

    @strawberry.mutation(description="ACTIVE → LOCKED: hold seats for a customer until the hold type's deadline (all "
                         "or nothing; SeatsUnavailable names the seats that were not free). Customers lock for "
                         "themselves.")
    async def lock_seats(self, info: Info, input: LockArg, idempotency_key: IdempotencyKeyArg = None
                         ) -> LockSeatsResult:
        cmd = await _lock_command(info.context, input, input.seat_ids, idempotency_key)
        return _locked(await seatmaps.lock_seats(info.context.deps, cmd))

    @strawberry.mutation(description="ACTIVE → LOCKED on the best free seats (best available): chosen and locked in "
                         "one step (two buyers never get the same seats), side by side in one row unless together is "
                         "false. SeatsUnavailable when not that many are free. Customers lock for themselves.")
    async def lock_best_seats(self, info: Info, input: BestArg, idempotency_key: IdempotencyKeyArg = None
                              ) -> LockSeatsResult:
        cmd = await _lock_command(info.context, input, [], idempotency_key)
        return _locked(await seatmaps.lock_best_seats(info.context.deps, seatmaps.BestSeatsCommand.of(
            cmd, input.count, input.section, input.row, input.together)))

    @strawberry.mutation(description="Staff: → SOLD. Free seats become one sale; locked seats' bookings are confirmed "
                         "(whole bookings). All or nothing.")
    async def sell_seats(self, info: Info, input: SellArg, idempotency_key: IdempotencyKeyArg = None
                         ) -> SeatBookingsResult:
        ctx = info.context
        cmd = await _command(ctx, input.event_id, input.seat_ids, Action.COUNTER, hold_type=input.hold_type,
                             customer=input.customer.to_domain() if input.customer else None,
                             idempotency_key=ctx.idempotency_key(idempotency_key))
        return _bookings(await seatmaps.sell_seats(ctx.deps, cmd))

    @strawberry.mutation(description="LOCKED → ACTIVE: release seats (whole bookings; the hold type's releaseApi "
                         "decides who may). Customers unlock their own.")
    async def unlock_seats(self, info: Info, event_id: EventIdArg, seat_ids: SeatIdsArg
                           ) -> SeatBookingsResult:
        cmd = await _command(info.context, event_id, seat_ids, Action.BOOK)
        return _bookings(await seatmaps.unlock_seats(info.context.deps, cmd))

    @strawberry.mutation(description="Managers: SOLD → ACTIVE, the sale is cancelled (a paid one is refunded by the "
                         "accepted policy). Whole bookings, all or nothing.")
    async def revert_seat_sale(self, info: Info, event_id: EventIdArg, seat_ids: SeatIdsArg,
                               reason: OptionalReasonArg = None) -> SeatBookingsResult:
        cmd = await _command(info.context, event_id, seat_ids, Action.DROP, reason=reason or "")
        return _bookings(await seatmaps.revert_sale(info.context.deps, cmd))

    @strawberry.mutation(description="Staff: ACTIVE → BLOCKED for the event (a broken seat), all or nothing.")
    async def block_seats(self, info: Info, event_id: EventIdArg, seat_ids: SeatIdsArg,
                          reason: OptionalReasonArg = None) -> SeatsChangedResult:
        cmd = await _command(info.context, event_id, seat_ids, Action.COUNTER, reason=reason or "")
        return SeatsChanged(seats=await seatmaps.block_seats(info.context.deps, cmd))

    @strawberry.mutation(description="Staff: BLOCKED → ACTIVE for the event, all or nothing.")
    async def unblock_seats(self, info: Info, event_id: EventIdArg, seat_ids: SeatIdsArg
                            ) -> SeatsChangedResult:
        cmd = await _command(info.context, event_id, seat_ids, Action.COUNTER)
        return SeatsChanged(seats=await seatmaps.unblock_seats(info.context.deps, cmd))
