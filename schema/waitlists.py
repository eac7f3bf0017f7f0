"""Types of the waitlists and the walk-in queue."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Annotated, Any
from uuid import UUID

import strawberry

from domain import listings
from domain.events import CapacityOffered, SlotOffered, WaitlistClosed, WaitlistFact
from schema.bookings import Booking
from schema.connections import After, Before, Connection, First, Last, connection, page_request
from schema.errors import CooldownActive, CustomerBlacklisted, InvalidInput, InvalidTransition, NotFound


@strawberry.type(description="A place in the line of one resource and slot (RN-ATD-08).")
class SlotWaitlistEntry:
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
        return cls(id=strawberry.ID(str(r["id"])), unit_id=strawberry.ID(str(r["unit_id"])),
                   resource_id=strawberry.ID(str(r["resource_id"])), starts_at=r["starts_at"], ends_at=r["ends_at"],
                   status=r["status"], place=r.get("place") if r["status"] == "waiting" else None,
                   offer_booking_id=strawberry.ID(str(r["offer_booking_id"])) if r.get("offer_booking_id") else None,
                   joined_at=r["joined_at"])


@strawberry.type(description="A party in the line for places of a sold-out class or event.")
class CapacityWaitlistEntry:
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
        return cls(id=strawberry.ID(str(r["id"])), resource_id=strawberry.ID(str(r["resource_id"])),
                   starts_at=r["starts_at"], ends_at=r["ends_at"], party_size=r["party_size"], status=r["status"],
                   place=r.get("place") if r["status"] == "waiting" else None,
                   offer_expires_at=r.get("offer_expires_at"),
                   booking_id=strawberry.ID(str(r["booking_id"])) if r.get("booking_id") else None,
                   offer_token=r.get("token") if r["status"] == "offered" else None)


@strawberry.type(description="A walk-in party (name and phone, no account) waiting in an area.")
class WalkIn:
    id: strawberry.ID
    area: str
    name: str
    phone: str
    party_size: int
    status: str = strawberry.field(description="waiting, offered, claimed, seated or cancelled")
    joined_at: datetime

    @classmethod
    def from_row(cls, r: dict[str, Any]) -> WalkIn:
        return cls(id=strawberry.ID(str(r["id"])), area=r["area"], name=r["name"], phone=r["phone"],
                   party_size=r["party_size"], status=r["status"], joined_at=r["joined_at"])


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
        return cls(seq=seq, kind=str(e.KIND), entry_id=strawberry.ID(str(entry)) if entry else None,
                   booking_id=strawberry.ID(str(booking)) if booking else None)


SlotEntryResult = Annotated[SlotWaitlistEntry | InvalidInput | NotFound | CooldownActive | CustomerBlacklisted,
                            strawberry.union("SlotWaitlistResult")]
CapacityEntryResult = Annotated[CapacityWaitlistEntry | InvalidInput | NotFound | CooldownActive | CustomerBlacklisted,
                                strawberry.union("CapacityWaitlistResult")]
ClaimResult = Annotated[Booking | InvalidInput | NotFound | InvalidTransition, strawberry.union("OfferClaimResult")]
WalkInResult = Annotated[WalkIn | InvalidInput | NotFound, strawberry.union("WalkInResult")]
