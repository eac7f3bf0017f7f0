"""Waitlists (SPEC §8, RN-ATD-08): the line of a slot and of a sold-out class, and the walk-in queue.

Every offer is a hold. A slot offer is an ordinary hold of `waitlist_hold` with its Pix charge; a capacity
offer is a hold that sets the party's places aside until the offer expires (24 h) and, once claimed by the
same user, becomes the customer's ordinary hold. So the database's guarantees (exclusion constraint,
capacity counters) also guarantee that no place is ever offered twice.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

from domain import fraud
from domain.availability import check_on_grid, slot_starts
from domain.bookings import Allocation, Booking
from domain.claim_links import OfferKind, claim_link
from domain.customers import CustomerIdentity
from domain.errors import DomainError, ErrorCode, InvalidInput, NotFound, PaymentUnavailable, SlotTaken
from domain.events import (
    CapacityOffered,
    CapacityOfferSent,
    SlotOffered,
    WaitlistClosed,
    WaitlistJoined,
    WalkInAdded,
    WalkInChanged,
    WalkInOfferSent,
)
from domain.layout.blocks import refuse_blocked
from domain.services import Deps, place, require_aware
from domain.units import Resource, ResourceKind, Unit
from domain.waitlist_switch import require_enabled

log = logging.getLogger("slothold.waitlist")
OFFER_HOLD_TYPE = "CART"
CAPACITY_OFFER_HOLD_TYPE = "WAITLIST_OFFER"


@dataclass(frozen=True)
class SlotKey:
    """One resource over one range."""

    unit_id: UUID
    resource_id: UUID
    starts_at: datetime
    ends_at: datetime


async def _unit_and_resource(deps: Deps, unit_id: UUID, resource_id: UUID) -> tuple[Unit, Resource]:
    async with deps.uow() as uow:
        unit = await uow.units.get(unit_id)
        found = await uow.units.resources_by_id(unit_id, [resource_id])
    if resource_id not in found:
        raise NotFound("resource", resource_id, field="resourceId")
    return unit, found[resource_id]


def _check_open(unit: Unit, starts_at: datetime, now: datetime) -> None:
    if now >= starts_at - unit.params.min_advance:
        raise InvalidInput("startsAt", "the waitlist of this slot is closed: it starts in less than the minimum "
                           "advance", code=ErrorCode.WAITLIST_CLOSED)


async def join_slot_waitlist(deps: Deps, unit_id: UUID, resource_id: UUID, starts_at: datetime, ends_at: datetime,
                             customer: CustomerIdentity, service_id: UUID | None = None) -> dict[str, Any]:
    """Join the line of one resource and slot by CPF (RN-ATD-08); returns the entry with its place."""
    now = deps.clock.now()
    require_aware(starts_at, "startsAt")
    require_aware(ends_at, "endsAt")
    starts_at, ends_at = starts_at.astimezone(UTC), ends_at.astimezone(UTC)
    if not customer.cpf:
        raise InvalidInput("customer.cpf", "the waitlist is joined by CPF", code=ErrorCode.CPF_REQUIRED)
    unit, resource = await _unit_and_resource(deps, unit_id, resource_id)
    check_on_grid(unit, resource, starts_at, ends_at)
    _check_open(unit, starts_at, now)
    async with deps.uow() as uow:
        await require_enabled(uow, unit_id, resource_id)
        known = await uow.customers.identify(unit.tenant_id, customer, now)
        if known.blacklisted:
            raise InvalidInput("customer", "this customer cannot join waitlists", code=ErrorCode.CUSTOMER_BLOCKED)
        await fraud.check_standing_of(uow, unit, customer, now)  # cooldown, blacklist by phone (RN-HLD-05)
        await refuse_blocked(uow, unit_id, resource_id, starts_at, ends_at)  # a block frees no place (issue 18)
        entry = await uow.waitlists.join_slot(unit_id, resource_id, starts_at, ends_at, known.id, now)
        if service_id is not None:
            await uow.waitlists.set_service(entry["id"], service_id)
        await uow.events.notify(unit_id, WaitlistJoined(entry["id"], resource_id, starts_at))
        await uow.commit()
    await promote_slot(deps, SlotKey(unit_id, resource_id, starts_at, ends_at))  # a free slot goes at once
    async with deps.uow() as uow:
        return await uow.waitlists.slot_position(entry["id"])


async def promote_slot(deps: Deps, key: SlotKey) -> UUID | None:
    """If the slot is free, offer it to the first in line as a hold (with its Pix); returns the hold's id."""
    now = deps.clock.now()
    unit, resource = await _unit_and_resource(deps, key.unit_id, key.resource_id)
    async with deps.uow() as uow:
        await uow.bookings.lock_resources(unit.id, [resource.id])
        line = await uow.waitlists.slot_line(unit.id, resource.id, key.starts_at, key.ends_at)
        if not line or not await uow.waitlists.enabled(unit.id, resource.id):
            return None  # nobody waits, or the venue turned this waitlist off: no offer
        valid_until = key.starts_at - unit.params.min_advance
        if now >= valid_until:  # RN-ATD-08: the list stops being valid at start − min_advance
            for entry in line:
                await uow.waitlists.set_slot_status(entry["id"], "closed", now)
            await uow.events.notify(unit.id, WaitlistClosed(resource.id, key.starts_at))
            await uow.commit()
            return None
        deadline = min(now + unit.params.waitlist_hold, valid_until)
        if deadline - now < unit.params.hold_min:
            return None  # too little time left to pay (RN-HLD-02): the line waits, and closes at valid_until
        first = line[0]
        allocations = [Allocation(resource.id, key.starts_at, key.ends_at)]
        offer = Booking.held(deps.new_id(), unit.id, allocations, now, "system", deadline,
                             customer_id=first["customer_id"], service_id=first.get("service_id"),
                             hold_type=OFFER_HOLD_TYPE, channel="waitlist")
        try:
            await place(uow, unit.id, allocations, now, offer, {}, savepoint=True)
        except SlotTaken:
            return None  # still taken (or an offer is already out): nothing to promote
        await uow.waitlists.set_slot_status(first["id"], "offered", now, offer.id)
        await uow.events.notify(unit.id, SlotOffered(first["id"], offer.id, first["customer_id"], deadline))
        await uow.commit()
    log.info("offered %s on %s to waitlist entry %s", key.starts_at, resource.name, first["id"])
    if offer.service_id is not None:
        await _charge_offer(deps, offer.id)
    return offer.id


async def _charge_offer(deps: Deps, booking_id: UUID) -> None:
    """The offer comes with its Pix (RN-ATD-08); a bank failure cancels it and the line moves on."""
    from domain import checkout

    try:
        await checkout.confirm(deps, checkout.ConfirmCommand(booking_id, actor="system", channel="waitlist"))
    except PaymentUnavailable:
        log.warning("the Pix of waitlist offer %s could not be created; it passes on", booking_id)
    except DomainError as e:
        log.warning("waitlist offer %s could not be charged: %s", booking_id, e.message)


async def promote_after_release(deps: Deps, booking: Booking) -> None:
    """The hook run after a booking frees its resources: promote every waiting slot it overlaps. Seats of seat maps
    (off the grid) have no waitlists."""
    async with deps.uow() as uow:
        on_grid = await uow.units.resources_by_id(booking.unit_id, [a.resource_id for a in booking.allocations])
    for a in booking.allocations:
        if a.resource_id not in on_grid:
            continue
        async with deps.uow() as uow:
            keys = await uow.waitlists.waiting_slots_overlapping(booking.unit_id, a.resource_id, a.starts_at,
                                                                 a.ends_at)
        for k in keys:
            await promote_slot(deps, SlotKey(booking.unit_id, a.resource_id, k["starts_at"], k["ends_at"]))
        await promote_capacity(deps, booking.unit_id, a.resource_id, a.starts_at, a.ends_at)


async def sweep_waitlists(deps: Deps) -> int:
    """Every sweep interval: offer every free slot someone waits for, expire stale offers (RN-ATD-08)."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        slots = await uow.waitlists.waiting_slots(now)
        lines = await uow.waitlists.capacity_lines(now)
    offered = 0
    for s in slots:
        if await promote_slot(deps, SlotKey(s["unit_id"], s["resource_id"], s["starts_at"], s["ends_at"])):
            offered += 1
    for c in lines:
        offered += await promote_capacity(deps, c["unit_id"], c["resource_id"], c["starts_at"], c["ends_at"])
    return offered


# --- capacity waitlist (sold-out classes and events) -----------------------------------------------------


async def join_capacity_waitlist(deps: Deps, unit_id: UUID, resource_id: UUID, starts_at: datetime,
                                 ends_at: datetime, party_size: int, user_ref: str,
                                 customer: CustomerIdentity | None = None,
                                 service_id: UUID | None = None) -> dict[str, Any]:
    """Join the FIFO line for `party_size` places of a pooled resource."""
    now = deps.clock.now()
    require_aware(starts_at, "startsAt")
    require_aware(ends_at, "endsAt")
    starts_at, ends_at = starts_at.astimezone(UTC), ends_at.astimezone(UTC)
    if not user_ref:
        raise InvalidInput("user", "joining a capacity waitlist needs a signed-in user", code=ErrorCode.USER_REQUIRED)
    unit, resource = await _unit_and_resource(deps, unit_id, resource_id)
    if resource.kind is not ResourceKind.POOLED:
        raise InvalidInput("resourceId", f"{resource.name} is not sold by places; join its slot waitlist",
                           code=ErrorCode.NOT_POOLED)
    if not 1 <= party_size <= resource.capacity:
        raise InvalidInput("partySize", f"a party must be 1 to {resource.capacity}", code=ErrorCode.INVALID_PARTY_SIZE)
    check_on_grid(unit, resource, starts_at, ends_at)
    _check_open(unit, starts_at, now)
    async with deps.uow() as uow:
        await require_enabled(uow, unit_id, resource_id)
        known = await uow.customers.identify(unit.tenant_id, customer, now) if customer else None
        if known is not None and known.blacklisted:
            raise InvalidInput("customer", "this customer cannot join waitlists", code=ErrorCode.CUSTOMER_BLOCKED)
        if customer is not None:
            await fraud.check_standing_of(uow, unit, customer, now)  # cooldown, blacklist by phone (RN-HLD-05)
        await refuse_blocked(uow, unit_id, resource_id, starts_at, ends_at)
        entry = await uow.waitlists.join_capacity(unit_id, resource_id, starts_at, ends_at, user_ref,
                                                  known.id if known else None, service_id, party_size, now)
        await uow.commit()
    await promote_capacity(deps, unit_id, resource_id, starts_at, ends_at)
    async with deps.uow() as uow:
        return await uow.waitlists.capacity_entry(entry["id"])


async def promote_capacity(deps: Deps, unit_id: UUID, resource_id: UUID, starts_at: datetime,
                           ends_at: datetime) -> int:
    """Offer freed places to the line in order; stop at the first party that does not fit (no starving)."""
    now = deps.clock.now()
    unit, resource = await _unit_and_resource(deps, unit_id, resource_id)
    if resource.kind is not ResourceKind.POOLED:
        return 0
    offered = 0
    async with deps.uow() as uow:
        await uow.bookings.lock_resources(unit.id, [resource.id])
        if not await uow.waitlists.enabled(unit.id, resource.id):
            return 0  # the venue turned this waitlist off: no offer
        for entry in await uow.waitlists.capacity_line(unit.id, resource.id, starts_at, ends_at):
            deadline = min(now + unit.params.capacity_offer_ttl, entry["starts_at"] - unit.params.min_advance)
            if deadline <= now:
                await uow.waitlists.set_capacity(entry["id"], "expired")
                continue
            allocations = [Allocation(resource.id, entry["starts_at"], entry["ends_at"], entry["party_size"])]
            offer = Booking.held(deps.new_id(), unit.id, allocations, now, "system", deadline,
                                 customer_id=entry["customer_id"], service_id=entry["service_id"],
                                 hold_type=CAPACITY_OFFER_HOLD_TYPE, channel="waitlist")
            starts = slot_starts(unit, resource, entry["starts_at"], entry["ends_at"])
            try:
                await place(uow, unit.id, allocations, now, offer, {resource.id: starts}, savepoint=True)
            except SlotTaken:
                break  # not enough places for the first party in line: later, smaller ones wait too
            token = secrets.token_hex(32)
            await uow.waitlists.offer_capacity(entry["id"], token, deadline, offer.id)
            await uow.events.notify(unit.id, CapacityOffered(entry["id"], offer.id, token, deadline))
            if entry["customer_id"] is not None:  # the person gets the link that claims it (SPEC §8, §13; seed 003)
                link = claim_link(deps, OfferKind.CAPACITY, token)
                await uow.events.notify(unit.id, CapacityOfferSent(offer.id, entry["customer_id"], deadline, link))
            offered += 1
        await uow.commit()
    return offered



async def claim_capacity_offer(deps: Deps, unit_id: UUID, token: str, user_ref: str) -> Booking:
    """The same user claims the offer: its places become their ordinary hold, pre-filled (SPEC §8)."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        entry = await uow.waitlists.capacity_by_token(unit_id, token)
        if entry is None or entry["status"] != "offered":
            raise NotFound("waitlist offer", "with that token", field="token")
        if entry["user_ref"] != user_ref:
            raise InvalidInput("token", "this offer belongs to another user", code=ErrorCode.OFFER_OF_ANOTHER_USER)
        unit = await uow.units.get(unit_id)
        booking = await uow.bookings.get(entry["booking_id"])
        ttl_deadline = min(now + unit.params.hold_ttl, booking.starts_at - unit.params.min_advance)
        booking.claim_offer(now, user_ref, max(ttl_deadline, now + timedelta(minutes=1)), OFFER_HOLD_TYPE)
        await uow.bookings.save(booking)
        await uow.waitlists.set_capacity(entry["id"], "claimed")
        await uow.commit()
    return booking


async def decline_capacity_offer(deps: Deps, unit_id: UUID, token: str, user_ref: str) -> UUID:
    """The user declines: the places are freed and the next in line is promoted at once."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        entry = await uow.waitlists.capacity_by_token(unit_id, token)
        if entry is None or entry["status"] not in ("offered", "claimed"):
            raise NotFound("waitlist offer", "with that token", field="token")
        if entry["user_ref"] != user_ref:
            raise InvalidInput("token", "this offer belongs to another user", code=ErrorCode.OFFER_OF_ANOTHER_USER)
        booking = await uow.bookings.get(entry["booking_id"])
        booking.cancel(now, user_ref, "waitlist offer declined")
        await uow.bookings.save(booking)
        await uow.waitlists.set_capacity(entry["id"], "cancelled")
        await uow.commit()
    await promote_capacity(deps, unit_id, entry["resource_id"], entry["starts_at"], entry["ends_at"])
    return UUID(str(entry["id"]))


# --- walk-in queue --------------------------------------------------------------------------------------


async def add_walk_in(deps: Deps, unit_id: UUID, area: str, name: str, phone: str, party_size: int = 1
                      ) -> dict[str, Any]:
    """Staff add a walk-in party (name + phone, no account) to an area's queue."""
    from domain.customers import normalize_phone

    if not area.strip() or not name.strip():
        raise InvalidInput("name" if area.strip() else "area", "area and name are required", code=ErrorCode.REQUIRED)
    if party_size < 1:
        raise InvalidInput("partySize", "a party has at least 1 person", code=ErrorCode.INVALID_PARTY_SIZE)
    phone = normalize_phone(phone)
    async with deps.uow() as uow:
        await uow.units.get(unit_id)
        entry = await uow.waitlists.add_walk_in(unit_id, area.strip(), name.strip(), phone, party_size,
                                                deps.clock.now())
        await uow.events.notify(unit_id, WalkInAdded(entry["id"], area))
        await uow.commit()
    return entry


async def offer_walk_in(deps: Deps, entry_id: UUID) -> dict[str, Any]:
    """Staff offer a place to a walk-in party: a message with its claim link, token only (never automatic)."""
    async with deps.uow() as uow:
        entry = await uow.waitlists.walk_in(entry_id)
        if entry["status"] != "waiting":
            raise InvalidInput("entryId", f"the party is {entry['status']}, not waiting", code=ErrorCode.NOT_WAITING)
        token = secrets.token_hex(32)
        entry = await uow.waitlists.set_walk_in(entry_id, "offered", deps.clock.now(), token)
        link = claim_link(deps, OfferKind.WALK_IN, token)
        await uow.events.notify(entry["unit_id"], WalkInOfferSent(
            "whatsapp", entry["phone"], token, f"{entry['name']}, sua vez chegou! Confirme aqui: {link}"))
        await uow.events.notify(entry["unit_id"], WalkInChanged(entry_id, "offered"))
        await uow.commit()
    return entry


async def claim_walk_in(deps: Deps, unit_id: UUID, token: str) -> dict[str, Any]:
    """The party confirms with the token from its message (no account needed)."""
    async with deps.uow() as uow:
        entry = await uow.waitlists.walk_in_by_token(unit_id, token)
        if entry is None or entry["status"] != "offered":
            raise NotFound("walk-in offer", "with that token", field="token")
        entry = await uow.waitlists.set_walk_in(entry["id"], "claimed", deps.clock.now())
        await uow.events.notify(unit_id, WalkInChanged(entry["id"], "claimed"))
        await uow.commit()
    return entry


async def seat_walk_in(deps: Deps, entry_id: UUID) -> dict[str, Any]:
    """Staff seat the party."""
    return await _end_walk_in(deps, entry_id, "seated")


async def cancel_walk_in(deps: Deps, entry_id: UUID) -> dict[str, Any]:
    """Staff take a party off the queue (it left, or gave up)."""
    return await _end_walk_in(deps, entry_id, "cancelled")


async def _end_walk_in(deps: Deps, entry_id: UUID, status: str) -> dict[str, Any]:
    async with deps.uow() as uow:
        entry = await uow.waitlists.walk_in(entry_id)
        if entry["status"] not in ("waiting", "offered", "claimed"):
            raise InvalidInput("entryId", f"the party is {entry['status']}", code=ErrorCode.NOT_WAITING)
        entry = await uow.waitlists.set_walk_in(entry_id, status, deps.clock.now())
        await uow.events.notify(entry["unit_id"], WalkInChanged(entry_id, status))
        await uow.commit()
    return entry


async def slot_entry(deps: Deps, entry_id: UUID) -> dict[str, Any]:
    """A slot-waitlist entry with its place in line."""
    async with deps.uow() as uow:
        return await uow.waitlists.slot_position(entry_id)


async def capacity_entry(deps: Deps, entry_id: UUID) -> dict[str, Any]:
    """A capacity-waitlist entry with its place in line."""
    async with deps.uow() as uow:
        return await uow.waitlists.capacity_entry(entry_id)


async def unit_lists(deps: Deps, unit_id: UUID, limit: int | None = None
                     ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Staff view: the unit's slot waitlists and walk-in queue (the first `limit` of each; None: all)."""
    async with deps.uow() as uow:
        return await uow.waitlists.unit_slot_lists(unit_id, limit), await uow.waitlists.walk_ins(unit_id, limit)
