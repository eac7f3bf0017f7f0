"""Types of the waitlists and the walk-in queue."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import strawberry

from domain.events import CapacityOffered, SlotOffered, WaitlistClosed, WaitlistFact, WaitlistJoined, WalkInAdded
from schema.bookings import Booking
from schema.errors import CooldownActive, CustomerBlacklisted, InvalidInput, InvalidTransition, NotFound
from schema.ids import Kind, opt_ref, ref
from schema.nodes import Node


@strawberry.type(description="A place in the line of one resource and slot (RN-ATD-08).")
class SlotWaitlistEntry(Node):
    id: strawberry.ID
    unit_id: strawberry.ID
    resource_id: strawberry.ID
    starts_at: datetime
    ends_at: datetime
    status: str = strawberry.field(description="waiting, offered, fulfilled, expired, cancelled or closed")
    place: int | None = strawberry.field(description="1 = next to be offered (while waiting).")
    offer_booking_id: strawberry.ID | None = strawberry.field(description="The offer: a hold with its Pix.")
    joined_at: datetime

    @classmethod
    def from_row(cls, r: dict[str, Any]) -> SlotWaitlistEntry:
        return cls(id=ref(Kind.SLOT_WAITLIST_ENTRY, r["id"]), unit_id=ref(Kind.UNIT, r["unit_id"]),
                   resource_id=ref(Kind.RESOURCE, r["resource_id"]), starts_at=r["starts_at"], ends_at=r["ends_at"],
                   status=r["status"], place=r.get("place") if r["status"] == "waiting" else None,
                   offer_booking_id=opt_ref(Kind.BOOKING, r.get("offer_booking_id")),
                   joined_at=r["joined_at"])


@strawberry.type(description="A party in the line for places of a sold-out class or event.")
class CapacityWaitlistEntry(Node):
    id: strawberry.ID
    resource_id: strawberry.ID
    starts_at: datetime
    ends_at: datetime
    party_size: int
    status: str = strawberry.field(description="waiting, offered, claimed, fulfilled, expired or cancelled")
    place: int | None
    offer_expires_at: datetime | None
    booking_id: strawberry.ID | None
    offer_token: str | None = strawberry.field(
        default=None, description="While offered: the token that claims the offer (claimWaitlistOffer; the "
        "customer's message carries it as the link <public base URL>/waitlist/claim/<token>), for the customer who "
        "joined and for staff and integrators acting for them.")

    @classmethod
    def from_row(cls, r: dict[str, Any]) -> CapacityWaitlistEntry:
        return cls(id=ref(Kind.CAPACITY_WAITLIST_ENTRY, r["id"]), resource_id=ref(Kind.RESOURCE, r["resource_id"]),
                   starts_at=r["starts_at"], ends_at=r["ends_at"], party_size=r["party_size"], status=r["status"],
                   place=r.get("place") if r["status"] == "waiting" else None,
                   offer_expires_at=r.get("offer_expires_at"),
                   booking_id=opt_ref(Kind.BOOKING, r.get("booking_id")),
                   offer_token=r.get("token") if r["status"] == "offered" else None)


@strawberry.type(description="A walk-in party (name and phone, no account) waiting in an area.")
class WalkIn(Node):
    id: strawberry.ID
    area: str
    name: str
    phone: str
    party_size: int
    status: str = strawberry.field(description="waiting, offered, claimed, seated or cancelled")
    joined_at: datetime

    @classmethod
    def from_row(cls, r: dict[str, Any]) -> WalkIn:
        return cls(id=ref(Kind.WALK_IN, r["id"]), area=r["area"], name=r["name"], phone=r["phone"],
                   party_size=r["party_size"], status=r["status"], joined_at=r["joined_at"])


@strawberry.type(description="A unit's waitlists for staff.")
class UnitWaitlists:
    slots: list[SlotWaitlistEntry]
    walk_ins: list[WalkIn]


@strawberry.type(description="A change in a unit's waitlists (joined, offered, closed, walk-in added).")
class WaitlistChange:
    seq: int
    kind: str
    entry_id: strawberry.ID | None
    booking_id: strawberry.ID | None

    @classmethod
    def from_event(cls, seq: int, e: WaitlistFact) -> WaitlistChange:
        entry = None if isinstance(e, WaitlistClosed) else e.entry_id
        booking = e.booking_id if isinstance(e, SlotOffered | CapacityOffered) else None
        return cls(seq=seq, kind=str(e.KIND), entry_id=opt_ref(_ENTRY_KINDS[type(e)], entry),
                   booking_id=opt_ref(Kind.BOOKING, booking))


_ENTRY_KINDS: dict[type, Kind] = {
    WaitlistJoined: Kind.SLOT_WAITLIST_ENTRY, SlotOffered: Kind.SLOT_WAITLIST_ENTRY,
    WaitlistClosed: Kind.SLOT_WAITLIST_ENTRY, CapacityOffered: Kind.CAPACITY_WAITLIST_ENTRY, WalkInAdded: Kind.WALK_IN}
"""The type of the entry a waitlist fact names."""


SlotEntryResult = Annotated[SlotWaitlistEntry | InvalidInput | NotFound | CooldownActive | CustomerBlacklisted,
                            strawberry.union("SlotWaitlistResult")]
CapacityEntryResult = Annotated[CapacityWaitlistEntry | InvalidInput | NotFound | CooldownActive | CustomerBlacklisted,
                                strawberry.union("CapacityWaitlistResult")]
ClaimResult = Annotated[Booking | InvalidInput | NotFound | InvalidTransition, strawberry.union("OfferClaimResult")]
WalkInResult = Annotated[WalkIn | InvalidInput | NotFound, strawberry.union("WalkInResult")]
