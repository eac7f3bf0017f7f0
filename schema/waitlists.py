"""Types of the waitlists and the walk-in queue."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Annotated, Any
from uuid import UUID

import strawberry

from domain import listings
from domain.events import (
    CapacityOffered,
    SlotOffered,
    WaitlistChangeKind,
    WaitlistClosed,
    WaitlistFact,
    WaitlistJoined,
    WalkInAdded,
    WalkInChanged,
)
from domain.waitlist_states import CapacityEntryStatus, SlotEntryStatus, WalkInStatus
from schema import docs
from schema.bookings import Booking, BookingCustomer, unit_and_identity
from schema.connections import After, Before, Connection, First, Last, connection, page_request
from schema.enums import described_enum
from schema.errors import CooldownActive, CustomerBlacklisted, InvalidInput, InvalidTransition, NotFound
from schema.ids import Kind, db_id, opt_ref, ref
from schema.nodes import Node

described_enum(SlotEntryStatus, name="SlotWaitlistStatus", description="Where a place in a slot's line is.", values={
    "WAITING": "In line (place says where).",
    "OFFERED": "Offered the slot: a hold with its Pix (offerBookingId) until it expires.",
    "FULFILLED": "The offer was paid: the slot is theirs.",
    "EXPIRED": "The offer lapsed unpaid; the next in line was offered.",
    "CANCELLED": "Left the line.",
    "CLOSED": "The line closed (the slot starts within the minimum advance) before an offer.",
})
described_enum(CapacityEntryStatus, name="CapacityWaitlistStatus", description="Where a party in a capacity line is "
               "([003]): waiting → offered → claimed → fulfilled, or expired, or cancelled.", values={
    "WAITING": "In line (place says where).",
    "OFFERED": "Offered places until offerExpiresAt: claim them with offerToken.",
    "CLAIMED": "Claimed by the same user: a pre-filled booking (bookingId) waits to be completed.",
    "FULFILLED": "The booking was completed.",
    "EXPIRED": "The offer lapsed; the next in line was offered.",
    "CANCELLED": "Declined or left the line.",
})
described_enum(WalkInStatus, description="Where a walk-in party is.", values={
    "WAITING": "In the area's queue.",
    "OFFERED": "Told a place is ready (a message with a claim link).",
    "CLAIMED": "Confirmed with the message's token: on the way.",
    "SEATED": "Seated by staff.",
    "CANCELLED": "Left the queue.",
})
described_enum(WaitlistChangeKind, description="What happened in a unit's waitlists.", values={
    "JOINED": "Someone joined a line (entryId).",
    "OFFERED": "An offer was made (entryId, bookingId: the offer's hold).",
    "CLOSED": "A slot's line closed (no entryId).",
    "WALK_IN_ADDED": "A walk-in party was added (entryId).",
    "WALK_IN_CHANGED": "A walk-in party was offered a place, claimed it, was seated or left the queue (entryId).",
})


@strawberry.type(description="A place in the line of one resource and slot (RN-ATD-08).")
class SlotWaitlistEntry(Node):
    id: strawberry.ID = strawberry.field(description=docs.ID)
    unit_id: strawberry.ID = strawberry.field(description=docs.UNIT_ID)
    resource_id: strawberry.ID = strawberry.field(description=docs.RESOURCE_ID)
    starts_at: datetime = strawberry.field(description="Start of the slot waited for (inclusive).")
    ends_at: datetime = strawberry.field(description="End of the slot waited for (exclusive).")
    status: SlotEntryStatus = strawberry.field(description="Where the place in line is.")
    place: int | None = strawberry.field(description="1 = next to be offered (while waiting).")
    offer_booking_id: strawberry.ID | None = strawberry.field(description="The offer: a hold with its Pix.")
    joined_at: datetime = strawberry.field(description="When it joined (the line is first come, first served).")
    customer_id: strawberry.Private[UUID | None] = None

    @strawberry.field(description="Who is in line, as the front desk needs it: name, phone and the CPF masked. Staff "
                      "and integrators who may read the unit; null for a customer (their own entries included) and "
                      "for anyone else.")
    async def customer(self, info: strawberry.Info) -> BookingCustomer | None:
        from domain.access import Action, Forbidden, authorize

        context = info.context
        if self.customer_id is None or context.principal.is_customer:
            return None
        unit, identity = await unit_and_identity(info, db_id(self.unit_id), self.customer_id)
        try:
            authorize(context.principal, Action.READ, unit.tenant_id, unit.id)
        except Forbidden:
            return None
        return BookingCustomer.of(identity) if identity is not None else None

    @classmethod
    def from_row(cls, r: dict[str, Any]) -> SlotWaitlistEntry:
        return cls(id=ref(Kind.SLOT_WAITLIST_ENTRY, r["id"]), unit_id=ref(Kind.UNIT, r["unit_id"]),
                   resource_id=ref(Kind.RESOURCE, r["resource_id"]), starts_at=r["starts_at"], ends_at=r["ends_at"],
                   status=SlotEntryStatus(r["status"]), place=r.get("place") if r["status"] == "waiting" else None,
                   offer_booking_id=opt_ref(Kind.BOOKING, r.get("offer_booking_id")),
                   joined_at=r["joined_at"], customer_id=r.get("customer_id"))


@strawberry.type(description="A party in the line for places of a sold-out class or event.")
class CapacityWaitlistEntry(Node):
    id: strawberry.ID = strawberry.field(description=docs.ID)
    resource_id: strawberry.ID = strawberry.field(description="The pooled resource (class, event) waited for.")
    starts_at: datetime = strawberry.field(description="Start of the range waited for (inclusive).")
    ends_at: datetime = strawberry.field(description="End of the range waited for (exclusive).")
    party_size: int = strawberry.field(description="Places the party needs.")
    status: CapacityEntryStatus = strawberry.field(description="Where the party is.")
    place: int | None = strawberry.field(description="1 = next to be offered (while waiting); null otherwise.")
    offer_expires_at: datetime | None = strawberry.field(description="While offered: when the offer lapses (24 h by "
                                                         "default); null otherwise.")
    booking_id: strawberry.ID | None = strawberry.field(description="The offer's booking (the places set aside), once "
                                                        "offered.")
    offer_token: str | None = strawberry.field(
        default=None, description="While offered: the token that claims the offer (claimWaitlistOffer; the "
        "customer's message carries it as the link <public base URL>/waitlist/claim/<token>), for the customer who "
        "joined and for staff and integrators acting for them.")

    @classmethod
    def from_row(cls, r: dict[str, Any]) -> CapacityWaitlistEntry:
        return cls(id=ref(Kind.CAPACITY_WAITLIST_ENTRY, r["id"]), resource_id=ref(Kind.RESOURCE, r["resource_id"]),
                   starts_at=r["starts_at"], ends_at=r["ends_at"], party_size=r["party_size"],
                   status=CapacityEntryStatus(r["status"]),
                   place=r.get("place") if r["status"] == "waiting" else None,
                   offer_expires_at=r.get("offer_expires_at"),
                   booking_id=opt_ref(Kind.BOOKING, r.get("booking_id")),
                   offer_token=r.get("token") if r["status"] == "offered" else None)


@strawberry.type(description="A walk-in party (name and phone, no account) waiting in an area.")
class WalkIn(Node):
    id: strawberry.ID = strawberry.field(description=docs.ID)
    area: str = strawberry.field(description="The area it waits in (the venue's own words, e.g. Salão).")
    name: str = strawberry.field(description="The party's name.")
    phone: str = strawberry.field(description="The party's phone (E.164), where the offer goes.")
    party_size: int = strawberry.field(description="How many people.")
    status: WalkInStatus = strawberry.field(description="Where the party is.")
    joined_at: datetime = strawberry.field(description="When it was added.")

    @classmethod
    def from_row(cls, r: dict[str, Any]) -> WalkIn:
        return cls(id=ref(Kind.WALK_IN, r["id"]), area=r["area"], name=r["name"], phone=r["phone"],
                   party_size=r["party_size"], status=WalkInStatus(r["status"]), joined_at=r["joined_at"])


@strawberry.type(description="A unit's waitlists for staff.")
class UnitWaitlists:
    unit_id: strawberry.Private[UUID]
    first: strawberry.Private[int]
    """The bare lists' length (the `first` of `waitlists`)."""

    lists: strawberry.Private[list[tuple[list[dict[str, Any]], list[dict[str, Any]]]]] = dataclasses.field(
        default_factory=list)
    """Both bare lists once read (one read for the two fields)."""

    async def _lists(self, info: strawberry.Info) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        from domain.waitlist import unit_lists

        if not self.lists:
            self.lists.append(await unit_lists(info.context.deps, self.unit_id, self.first))
        return self.lists[0]

    @strawberry.field(description="The live entries of the unit's slot waitlists: the first `first` of them.",
                      deprecation_reason="Use slotsConnection: it pages on with cursors.")
    async def slots(self, info: strawberry.Info) -> list[SlotWaitlistEntry]:
        return [SlotWaitlistEntry.from_row(r) for r in (await self._lists(info))[0]]

    @strawberry.field(description="The unit's live walk-in queue: the first `first` of it.",
                      deprecation_reason="Use walkInsConnection: it pages on with cursors.")
    async def walk_ins(self, info: strawberry.Info) -> list[WalkIn]:
        return [WalkIn.from_row(r) for r in (await self._lists(info))[1]]

    @strawberry.field(description="The live entries of the unit's slot waitlists a page at a time: by slot start, "
                      "resource, place in line, then id.")
    async def slots_connection(self, info: strawberry.Info, first: First = None, after: After = None,
                               last: Last = None, before: Before = None) -> Connection[SlotWaitlistEntry]:
        request = page_request(listings.SLOT_WAITLIST, first, after, last, before)
        page = await listings.read(info.context.deps, lambda rows: rows.slot_waitlist(self.unit_id, request))
        return connection(page.map(SlotWaitlistEntry.from_row), listings.SLOT_WAITLIST)

    @strawberry.field(description="The unit's live walk-in queue (waiting, offered, claimed) a page at a time: by "
                      "area, place in line, then id.")
    async def walk_ins_connection(self, info: strawberry.Info, first: First = None, after: After = None,
                                  last: Last = None, before: Before = None) -> Connection[WalkIn]:
        request = page_request(listings.WALK_INS, first, after, last, before)
        page = await listings.read(info.context.deps, lambda rows: rows.walk_ins(self.unit_id, request))
        return connection(page.map(WalkIn.from_row), listings.WALK_INS)


@strawberry.type(description="A change in a unit's waitlists (joined, offered, closed, a walk-in added or moved on).")
class WaitlistChange:
    seq: int = strawberry.field(description=docs.SEQ)
    kind: WaitlistChangeKind = strawberry.field(description="What happened.")
    entry_id: strawberry.ID | None = strawberry.field(description="The entry or walk-in party it is about; null when "
                                                      "a line closed.")
    booking_id: strawberry.ID | None = strawberry.field(description="An offer's booking (the hold); null otherwise.")

    @classmethod
    def from_event(cls, seq: int, e: WaitlistFact) -> WaitlistChange:
        entry = None if isinstance(e, WaitlistClosed) else e.entry_id
        booking = e.booking_id if isinstance(e, SlotOffered | CapacityOffered) else None
        return cls(seq=seq, kind=WaitlistChangeKind(str(e.KIND)), entry_id=opt_ref(_ENTRY_KINDS[type(e)], entry),
                   booking_id=opt_ref(Kind.BOOKING, booking))


_ENTRY_KINDS: dict[type, Kind] = {
    WaitlistJoined: Kind.SLOT_WAITLIST_ENTRY, SlotOffered: Kind.SLOT_WAITLIST_ENTRY,
    WaitlistClosed: Kind.SLOT_WAITLIST_ENTRY, CapacityOffered: Kind.CAPACITY_WAITLIST_ENTRY, WalkInAdded: Kind.WALK_IN,
    WalkInChanged: Kind.WALK_IN}
"""The type of the entry a waitlist fact names."""


SlotEntryResult = Annotated[SlotWaitlistEntry | InvalidInput | NotFound | CooldownActive | CustomerBlacklisted,
                            strawberry.union(
                                "SlotWaitlistResult", description=(
                                "What slotWaitlistEntry and joinSlotWaitlist answer: SlotWaitlistEntry, or the refusal"
                                " (an Error) that stopped it."))]
CapacityEntryResult = Annotated[CapacityWaitlistEntry | InvalidInput | NotFound | CooldownActive | CustomerBlacklisted,
                                strawberry.union(
                                    "CapacityWaitlistResult", description=(
                                    "What capacityWaitlistEntry, joinCapacityWaitlist and declineWaitlistOffer answer:"
                                    " CapacityWaitlistEntry, or the refusal (an Error) that stopped it."))]
ClaimResult = Annotated[Booking | InvalidInput | NotFound | InvalidTransition, strawberry.union(
    "OfferClaimResult", description=(
    "What claimWaitlistOffer answers: Booking, or the refusal (an Error) that stopped it."))]
WalkInResult = Annotated[WalkIn | InvalidInput | NotFound, strawberry.union(
    "WalkInResult", description=(
    "What addWalkIn, offerWalkIn, claimWalkIn, seatWalkIn and cancelWalkIn answer: WalkIn, or the refusal (an "
    "Error) that stopped it."))]
