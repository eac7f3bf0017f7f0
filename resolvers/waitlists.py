"""Waitlists: join, place in line, offers and claims, the walk-in queue, live lists (RN-ATD-08)."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Annotated
from uuid import UUID

import strawberry

from domain import waitlist
from domain.access import Action, Forbidden
from domain.errors import ErrorCode
from domain.errors import InvalidInput as DomainInvalidInput
from domain.events import WaitlistFact, WaitlistJoined
from resolvers.context import Context, Info, parse_id
from resolvers.feed import unit_events
from resolvers.permissions import authorize_row, authorize_unit, customer_for
from schema.args import ClaimTokenArg, EndsAtArg, EntryIdArg, IdArg, SinceArg, StartsAtArg, UnitIdArg, UserArg
from schema.bookings import Booking
from schema.customers import CustomerInput
from schema.ids import Kind
from schema.pages import page_description, page_size
from schema.waitlists import (
    CapacityEntryResult,
    CapacityWaitlistEntry,
    ClaimResult,
    SlotEntryResult,
    SlotWaitlistEntry,
    UnitWaitlists,
    WaitlistChange,
    WalkIn,
    WalkInResult,
)

WaitResourceArg = Annotated[strawberry.ID, strawberry.argument(description="The resource of the taken slot (its id).")]
WaitCustomerArg = Annotated[CustomerInput, strawberry.argument(
    description="The customer, with their CPF (the line is by CPF).")]
WaitServiceArg = Annotated[strawberry.ID | None, strawberry.argument(
    description="The service the offer's hold is for (its price); omitted: none.")]
PooledResourceArg = Annotated[strawberry.ID, strawberry.argument(description="The sold-out pooled resource (its id).")]
PartySizeArg = Annotated[int, strawberry.argument(description="Places the party needs (1 to the resource's capacity).")]
PartyCustomerArg = Annotated[CustomerInput | None, strawberry.argument(
    description="Who the party is (CPF and/or phone); a signed-in customer may leave it out.")]
AreaArg = Annotated[str, strawberry.argument(description="The area it waits in (the venue's own words, e.g. Salão).")]
PartyNameArg = Annotated[str, strawberry.argument(description="The party's name.")]
PartyPhoneArg = Annotated[str, strawberry.argument(
    description="The party's phone (E.164, or a Brazilian number): the offer goes there.")]
WalkInSizeArg = Annotated[int, strawberry.argument(description="How many people (default 1).")]
WalkInTokenArg = Annotated[str, strawberry.argument(
    description="The token of the party's message (64 hexadecimal characters).")]


def _user(info: Info, given: str | None) -> str:
    """Who joins or claims a capacity waitlist: a signed-in customer is themselves (their customer id); staff and
    integrators name the user of their own system."""
    principal = info.context.principal
    if principal.is_customer:
        mine = f"customer:{principal.customer_id}"
        if given is not None and given != mine:
            raise Forbidden("a customer joins and claims waitlists only as themselves; leave `user` out")
        return mine
    if not given:
        raise DomainInvalidInput("user", "staff and integrators name the user (their system's id for the customer)",
                                 code=ErrorCode.USER_REQUIRED)
    return given


async def read_slot_entry(context: Context, eid: UUID) -> SlotWaitlistEntry:
    """A slot-waitlist entry as slotWaitlistEntry(id) shows it (staff of its unit, its customer), for `node` too."""
    await authorize_row(context, "slot_waitlist", eid, Action.READ, "id")
    return SlotWaitlistEntry.from_row(await waitlist.slot_entry(context.deps, eid))


async def read_capacity_entry(context: Context, eid: UUID) -> CapacityWaitlistEntry:
    """A capacity-waitlist entry as capacityWaitlistEntry(id) shows it, for `node` too."""
    await authorize_row(context, "capacity_waitlist", eid, Action.READ, "id")
    return CapacityWaitlistEntry.from_row(await waitlist.capacity_entry(context.deps, eid))


@strawberry.type
class WaitlistMutation:
    @strawberry.mutation(description="Join the line of a taken slot by CPF; when it frees, the first in line is "
                         "offered it as a hold with its Pix (RN-ATD-08).")
    async def join_slot_waitlist(
        self, info: Info, unit_id: UnitIdArg, resource_id: WaitResourceArg, starts_at: StartsAtArg, ends_at: EndsAtArg,
        customer: WaitCustomerArg, service_id: WaitServiceArg = None,
    ) -> SlotEntryResult:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.BOOK)
        row = await waitlist.join_slot_waitlist(
            info.context.deps, uid, parse_id(resource_id, "resourceId", Kind.RESOURCE), starts_at,
            ends_at, customer_for(info.context, customer.for_caller(info.context.principal)),
            parse_id(service_id, "serviceId", Kind.SERVICE) if service_id else None)
        return SlotWaitlistEntry.from_row(row)

    @strawberry.mutation(description="Join the FIFO line for places of a sold-out pooled resource (party size).")
    async def join_capacity_waitlist(
        self, info: Info, unit_id: UnitIdArg, resource_id: PooledResourceArg, starts_at: StartsAtArg,
        ends_at: EndsAtArg, party_size: PartySizeArg, user: UserArg = None, customer: PartyCustomerArg = None,
    ) -> CapacityEntryResult:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.BOOK)
        row = await waitlist.join_capacity_waitlist(
            info.context.deps, uid, parse_id(resource_id, "resourceId", Kind.RESOURCE), starts_at,
            ends_at, party_size, _user(info, user),
            customer_for(info.context, customer.for_caller(info.context.principal) if customer else None))
        return CapacityWaitlistEntry.from_row(row)

    @strawberry.mutation(description="Claim a capacity offer by its token (the same user who joined).")
    async def claim_waitlist_offer(self, info: Info, unit_id: UnitIdArg, token: ClaimTokenArg, user: UserArg = None
                                   ) -> ClaimResult:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.BOOK)
        b = await waitlist.claim_capacity_offer(info.context.deps, uid, token, _user(info, user))
        return Booking.from_domain(b)

    @strawberry.mutation(description="Decline a capacity offer; the next in line is offered at once.")
    async def decline_waitlist_offer(self, info: Info, unit_id: UnitIdArg, token: ClaimTokenArg, user: UserArg = None
                                     ) -> CapacityEntryResult:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.BOOK)
        entry_id = await waitlist.decline_capacity_offer(info.context.deps, uid, token, _user(info, user))
        return CapacityWaitlistEntry.from_row(await waitlist.capacity_entry(info.context.deps, entry_id))

    @strawberry.mutation(description="Staff: add a walk-in party (name + phone) to an area's queue.")
    async def add_walk_in(self, info: Info, unit_id: UnitIdArg, area: AreaArg, name: PartyNameArg, phone: PartyPhoneArg,
                          party_size: WalkInSizeArg = 1) -> WalkInResult:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.COUNTER)
        row = await waitlist.add_walk_in(info.context.deps, uid, area, name, phone, party_size)
        return WalkIn.from_row(row)

    @strawberry.mutation(description="Staff: offer a place to a walk-in party (a message with a claim token).")
    async def offer_walk_in(self, info: Info, entry_id: EntryIdArg) -> WalkInResult:
        eid = parse_id(entry_id, "entryId", Kind.WALK_IN)
        await authorize_row(info.context, "walk_in", eid, Action.COUNTER, "entryId")
        return WalkIn.from_row(await waitlist.offer_walk_in(info.context.deps, eid))

    @strawberry.mutation(description="A walk-in party confirms with the token of its message (no account).")
    async def claim_walk_in(self, info: Info, unit_id: UnitIdArg, token: WalkInTokenArg) -> WalkInResult:
        row = await waitlist.claim_walk_in(info.context.deps, parse_id(unit_id, "unitId", Kind.UNIT), token)
        return WalkIn.from_row(row)

    @strawberry.mutation(description="Staff: seat a walk-in party.")
    async def seat_walk_in(self, info: Info, entry_id: EntryIdArg) -> WalkInResult:
        eid = parse_id(entry_id, "entryId", Kind.WALK_IN)
        await authorize_row(info.context, "walk_in", eid, Action.COUNTER, "entryId")
        return WalkIn.from_row(await waitlist.seat_walk_in(info.context.deps, eid))

    @strawberry.mutation(description="Staff: take a walk-in party off the queue (it left); not once seated.")
    async def cancel_walk_in(self, info: Info, entry_id: EntryIdArg) -> WalkInResult:
        eid = parse_id(entry_id, "entryId", Kind.WALK_IN)
        await authorize_row(info.context, "walk_in", eid, Action.COUNTER, "entryId")
        return WalkIn.from_row(await waitlist.cancel_walk_in(info.context.deps, eid))


@strawberry.type
class WaitlistQuery:
    @strawberry.field(description="A slot-waitlist entry with its place in line.")
    async def slot_waitlist_entry(self, info: Info, id: IdArg) -> SlotEntryResult:
        return await read_slot_entry(info.context, parse_id(id, "id", Kind.SLOT_WAITLIST_ENTRY))

    @strawberry.field(description="A capacity-waitlist entry with its place in line.")
    async def capacity_waitlist_entry(self, info: Info, id: IdArg) -> CapacityEntryResult:
        return await read_capacity_entry(info.context, parse_id(id, "id", Kind.CAPACITY_WAITLIST_ENTRY))

    @strawberry.field(description="Staff: the unit's slot waitlists and walk-in queue (slotsConnection and "
                      "walkInsConnection page through them).")
    async def waitlists(
        self, info: Info, unit_id: UnitIdArg,
        first: Annotated[int, strawberry.argument(description=page_description(200) + " Of each bare list (slots, "
                                                 "walkIns); the connections take their own.")] = 200,
    ) -> UnitWaitlists:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.READ)
        return UnitWaitlists(unit_id=uid, first=page_size(first))


@strawberry.type
class WaitlistSubscription:
    @strawberry.subscription(description="Live changes of a unit's waitlists (joined, offered, closed...).")
    async def waitlist_changed(self, info: Info, unit_id: UnitIdArg, since: SinceArg = None
                               ) -> AsyncGenerator[WaitlistChange, None]:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.READ)
        async for event in unit_events(info.context.deps, info.context.hub, uid, since):
            if event.topic == WaitlistJoined.TOPIC and isinstance(fact := event.fact, WaitlistFact):
                yield WaitlistChange.from_event(event.seq, fact)
