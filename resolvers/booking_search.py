"""Finding bookings (issue 19): the bookings search for staff, integrators and customers; a unit's audit trail.

Staff and integrators with `read` search their unit's bookings. A signed-in customer searches only their own — the
records their session proves, as `booking(id)` decides — in one unit or in every unit of their tenant: a filter by
someone else's phone or CPF finds nothing, since the criteria only narrow what the caller may see. A unit beyond the
caller's reach (another tenant's, another unit's token) is answered as a missing one.
"""

from __future__ import annotations

from typing import Annotated

import strawberry

from domain import listings
from domain.access import Action
from domain.errors import ErrorCode, InvalidInput
from domain.listings import OwnBookings
from resolvers.context import Info, parse_id
from resolvers.permissions import authorize_unit, signed_in
from schema.booking_search import BookingFilter
from schema.bookings import Booking, BookingHistoryEntry
from schema.connections import After, Before, Connection, First, Last, connection, page_request
from schema.customers import CustomerMatch
from schema.ids import Kind

UnitId = Annotated[strawberry.ID | None, strawberry.argument(description=(
    "The unit whose bookings to search: required for staff and integrators; a customer may leave it out to search "
    "their own in every unit of the organization's tenant."))]
StaffUnitId = Annotated[strawberry.ID, strawberry.argument(description="The unit whose audit trail to read.")]
CounterUnitId = Annotated[strawberry.ID, strawberry.argument(description="The unit whose customers to find.")]
Search = Annotated[str, strawberry.argument(description=(
    "What the receptionist typed: part of a name (at least 2 letters, case and accents aside), or a phone as people "
    "type it, or a CPF with or without its dots and dash."))]
Filter = Annotated[BookingFilter | None, strawberry.argument(description="What to look for (null: every booking).")]


@strawberry.type
class BookingSearchQuery:
    @strawberry.field(description=(
        "Find bookings, a page at a time, by start time then id (the earliest start first): by status, time range, "
        "resource, customer name, phone or CPF. Staff and integrators with read: their unit's bookings. A "
        "signed-in customer: only their own."))
    async def bookings(self, info: Info, unit_id: UnitId = None, filter: Filter = None, first: First = None,
                       after: After = None, last: Last = None, before: Before = None) -> Connection[Booking]:
        context, principal = info.context, info.context.principal
        signed_in(context, Action.READ, "bookings are searched by staff, or by a customer for their own")
        request = page_request(listings.BOOKINGS, first, after, last, before)
        own = tenant = uid = None
        if principal.is_customer and principal.customer_id is not None:
            proved = principal.identity
            own = OwnBookings(principal.customer_id, proved.phone if proved else None, proved.email if proved else None)
            tenant = principal.tenant_id
        if unit_id is not None:
            uid = parse_id(unit_id, "unitId", Kind.UNIT)
            tenant = (await authorize_unit(context, uid, Action.READ, hide=True, own_only=True)).tenant_id
        elif own is None:
            raise InvalidInput("unitId", "name the unit whose bookings you search", code=ErrorCode.UNIT_REQUIRED)
        assert tenant is not None
        f, who = filter or BookingFilter(), (filter.customer if filter else None)
        search = listings.booking_search(
            context.deps, tenant, uid, own, statuses=f.statuses, from_=f.from_, to=f.to,
            resource_id=(parse_id(f.resource_id, "filter.resourceId", Kind.RESOURCE)
                         if f.resource_id is not None else None),
            name=who.name if who else None, phone=who.phone if who else None, cpf=who.cpf if who else None)
        page = await listings.read(context.deps, lambda rows: rows.bookings(search, request))
        return connection(page.map(Booking.from_domain), listings.BOOKINGS)

    @strawberry.field(description=(
        "Staff: the unit's audit trail — every status change of every booking, who made it and how — a page at a "
        "time, newest first (by the audit row's sequence). Rows are append-only and hash-chained per unit "
        "(`slothold audit verify`)."))
    async def audit_entries(self, info: Info, unit_id: StaffUnitId, first: First = None, after: After = None,
                            last: Last = None, before: Before = None) -> Connection[BookingHistoryEntry]:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.READ, hide=True)
        request = page_request(listings.UNIT_HISTORY, first, after, last, before)
        page = await listings.read(info.context.deps, lambda rows: rows.unit_history(uid, request))
        return connection(page.map(BookingHistoryEntry.from_domain), listings.UNIT_HISTORY)

    @strawberry.field(description=(
        "Staff at the counter: find a customer to book for — the tenant's customers who booked at this unit, by part "
        "of the name, the phone or the CPF, a page at a time by name then id. The CPF is answered masked. Not for "
        "customers; another tenant's unit is answered as missing."))
    async def customers(self, info: Info, unit_id: CounterUnitId, search: Search, first: First = None,
                        after: After = None, last: Last = None, before: Before = None) -> Connection[CustomerMatch]:
        context = info.context
        signed_in(context, Action.COUNTER, "customers are found by staff at the counter")
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        tenant = (await authorize_unit(context, uid, Action.COUNTER, hide=True)).tenant_id
        request = page_request(listings.CUSTOMERS, first, after, last, before)
        found = listings.customer_search(context.deps, tenant, uid, search)
        page = await listings.read(context.deps, lambda rows: rows.customers(found, request))
        return connection(page.map(CustomerMatch.from_row), listings.CUSTOMERS)
