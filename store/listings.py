"""Keyset pages of the lists that grow (domain/listings.py names their orders; store/keyset.py reads the pages).

The bookings search finds customers inside the unit's tenant only (`customers.tenant_id`), by the indexes of
migration 0022d: bookings by (unit, start, id), customers' names folded (lower case, accents removed by
`unaccent`) under a trigram index, so "joão" finds "JOAO" and "João Paulo".
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from domain import listings as order
from domain.bookings import Booking, HistoryEntry
from domain.listings import BookingSearch, CustomerSearch
from domain.pages import Page, PageRequest
from domain.payments import Charge
from domain.series import Series
from domain.staff_queue import QueueItem
from store.bookings import BOOKING_COLUMNS, HISTORY_COLUMNS, ConnGetter, booking_from_row, history_entry
from store.keyset import Keyset, fetch_page
from store.payments import CHARGE_COLUMNS, charge_from_row
from store.queue import QUEUE_COLUMNS, queue_item_from_row
from store.series import SERIES_COLUMNS, series_from_row
from store.waitlists import entry_from_row

BOOKINGS = Keyset(order.BOOKINGS, ("lower(b.during)", "b.id"))
QUEUE = Keyset(order.QUEUE, ("CASE priority WHEN 'critical' THEN 0 WHEN 'high' THEN 1 ELSE 2 END", "created_at",
                             "id"))
CHARGES = Keyset(order.CHARGES, ("created_at", "id"))
SLOT_WAITLIST = Keyset(order.SLOT_WAITLIST, ("lower(w.during)", "w.resource_id", "w.position", "w.id"))
WALK_INS = Keyset(order.WALK_INS, ("area", "position", "id"))
BOOKING_HISTORY = Keyset(order.BOOKING_HISTORY, ("id",))
UNIT_HISTORY = Keyset(order.UNIT_HISTORY, ("id",))
CUSTOMERS = Keyset(order.CUSTOMERS, ("coalesce(c.name, '')", "c.id"))
SERIES = Keyset(order.SERIES, ("s.created_at", "s.id"))

_SLOT_LINES = ("(SELECT *, CASE WHEN status = 'waiting' THEN row_number() OVER (PARTITION BY resource_id, during, "
               "status = 'waiting' ORDER BY position) END AS place FROM slot_waitlist "
               "WHERE unit_id = $1 AND status IN ('waiting', 'offered')) w")
"""The unit's live slot-waitlist entries, each with its place in its own line (counted before any page is cut)."""


def _like(text: str) -> str:
    """`text` as a LIKE pattern matching itself only (its wildcards escaped)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def search_conditions(search: BookingSearch) -> tuple[str, list[Any]]:
    """The WHERE of a bookings search on `bookings b` and its parameters."""
    args: list[Any] = []
    where: list[str] = []
    tenant: list[str] = []

    def arg(value: Any) -> str:
        args.append(value)
        return f"${len(args)}"

    def tenant_arg() -> str:
        if not tenant:
            tenant.append(arg(search.tenant_id))
        return tenant[0]

    if search.unit_id is not None:
        where.append(f"b.unit_id = {arg(search.unit_id)}::uuid")
    if search.own is not None:  # a customer: only the records their session proves, as booking(id) decides
        own = search.own
        where.append(f"b.customer_id IN (SELECT id FROM customers WHERE tenant_id = {tenant_arg()}::uuid AND (id = "
                     f"{arg(own.customer_id)}::uuid OR (phone IS NOT NULL AND phone = {arg(own.phone)}::text) OR "
                     f"(email IS NOT NULL AND lower(email) = lower({arg(own.email)}::text))))")
    if search.statuses is not None:
        where.append(f"b.status = ANY({arg([s.value for s in search.statuses])}::text[])")
    if search.ends_after is not None or search.starts_before is not None:
        where.append(f"b.during && tstzrange({arg(search.ends_after)}::timestamptz, "
                     f"{arg(search.starts_before)}::timestamptz)")
    if search.resource_id is not None:
        where.append("EXISTS (SELECT 1 FROM allocations a WHERE a.booking_id = b.id AND a.unit_id = b.unit_id "
                     f"AND a.resource_id = {arg(search.resource_id)}::uuid)")
    who: list[str] = []
    if search.name is not None:
        who.append(f"slothold_fold(c.name) LIKE '%' || slothold_fold({arg(_like(search.name))}::text) || '%'")
    if search.phone is not None:
        who.append(f"c.phone = {arg(search.phone)}::text")
    if search.cpf is not None:
        who.append(f"c.cpf = {arg(search.cpf)}::char(11)")
    if who:
        where.append(f"b.customer_id IN (SELECT c.id FROM customers c WHERE c.tenant_id = {tenant_arg()}::uuid "
                     "AND " + " AND ".join(who) + ")")
    return " AND ".join(where) or "true", args


class PgListings:
    """Listings on the unit of work's connection."""

    def __init__(self, conn: ConnGetter) -> None:
        self._conn = conn

    async def _page(self, keyset: Keyset, columns: str, source: str, where: str, args: list[Any],
                    page: PageRequest) -> Page[Any]:
        return await fetch_page(await self._conn(), keyset, columns, source, where, args, page)

    async def bookings(self, search: BookingSearch, page: PageRequest) -> Page[Booking]:
        where, args = search_conditions(search)
        found = await self._page(BOOKINGS, BOOKING_COLUMNS, "bookings b", where, args, page)
        return found.map(booking_from_row)

    async def queue(self, unit_id: UUID, statuses: list[str], page: PageRequest) -> Page[QueueItem]:
        found = await self._page(QUEUE, QUEUE_COLUMNS, "queue_items", "unit_id = $1 AND status = ANY($2::text[])",
                                 [unit_id, statuses], page)
        return found.map(queue_item_from_row)

    async def charges(self, booking_id: UUID, page: PageRequest) -> Page[Charge]:
        found = await self._page(CHARGES, CHARGE_COLUMNS, "charges", "booking_id = $1", [booking_id], page)
        return found.map(charge_from_row)

    async def slot_waitlist(self, unit_id: UUID, page: PageRequest) -> Page[dict[str, Any]]:
        found = await self._page(SLOT_WAITLIST, "w.*", _SLOT_LINES, "true", [unit_id], page)
        return found.map(entry_from_row)

    async def walk_ins(self, unit_id: UUID, page: PageRequest) -> Page[dict[str, Any]]:
        found = await self._page(WALK_INS, "*", "walkin_queue",
                                 "unit_id = $1 AND status IN ('waiting', 'offered', 'claimed')", [unit_id], page)
        return found.map(entry_from_row)

    async def customers(self, search: CustomerSearch, page: PageRequest) -> Page[dict[str, Any]]:
        """The tenant's customers who booked at the unit and match (by name, or by phone or CPF)."""
        args: list[Any] = [search.tenant_id, search.unit_id]
        if search.name is not None:
            args.append(_like(search.name))
            match = f"slothold_fold(c.name) LIKE '%' || slothold_fold(${len(args)}::text) || '%'"
        else:
            args += [search.phone, search.cpf]
            match = (f"((${len(args) - 1}::text IS NOT NULL AND c.phone = ${len(args) - 1}::text) OR "
                     f"(${len(args)}::text IS NOT NULL AND c.cpf = ${len(args)}::char(11)))")
        where = (f"c.tenant_id = $1::uuid AND {match} AND EXISTS (SELECT 1 FROM bookings b WHERE b.customer_id = c.id "
                 "AND b.unit_id = $2::uuid)")
        return await self._page(CUSTOMERS, "c.id, c.name, c.phone, c.cpf", "customers c", where, args, page)

    async def booking_history(self, booking_id: UUID, page: PageRequest) -> Page[HistoryEntry]:
        found = await self._page(BOOKING_HISTORY, HISTORY_COLUMNS, "booking_events", "booking_id = $1",
                                 [booking_id], page)
        return found.map(history_entry)

    async def unit_history(self, unit_id: UUID, page: PageRequest) -> Page[HistoryEntry]:
        found = await self._page(UNIT_HISTORY, HISTORY_COLUMNS, "booking_events", "unit_id = $1", [unit_id], page)
        return found.map(history_entry)

    async def series(self, unit_id: UUID, statuses: list[str] | None, page: PageRequest) -> Page[Series]:
        """A unit's series (in those stored statuses; None: any), newest first."""
        found = await self._page(SERIES, SERIES_COLUMNS, "series s",
                                 "s.unit_id = $1::uuid AND ($2::text[] IS NULL OR s.status = ANY($2::text[]))",
                                 [unit_id, statuses], page)
        return found.map(series_from_row)
