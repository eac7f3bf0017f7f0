"""Keyset pages in the store (store/keyset.py, store/listings.py): ties broken by id, both directions, both sort
orders, and the bookings search's reach for a customer — on real PostgreSQL."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from domain import listings
from domain.customers import CustomerIdentity
from domain.listings import BookingSearch, OwnBookings
from domain.pages import Key, Page, PageRequest
from domain.services import CounterCommand, Deps, counter_booking
from tests.venues import arena, at, cpf


async def _book(deps: Deps, unit: UUID, resource: UUID, day: int, hour: int,
                who: CustomerIdentity | None = None) -> UUID:
    r = await counter_booking(deps, CounterCommand(unit_id=unit, starts_at=at(day, hour), ends_at=at(day, hour + 1),
                                                   resource_ids=(resource,), customer=who, actor="staff"))
    return r.booking.id


async def _walk(deps: Deps, read: Any, size: int, backward: bool = False) -> tuple[list[Any], list[Page[Any]]]:
    """Every item of a list read a page of `size` at a time by `read(PageRequest)`, in the list's order."""
    pages: list[Page[Any]] = []
    cursor: Key | None = None
    while True:
        req = PageRequest(size, backward=backward, before=cursor) if backward else PageRequest(size, after=cursor)
        page = await listings.read(deps, lambda rows, r=req: read(rows, r))
        pages.append(page)
        if not (page.has_previous if backward else page.has_next):
            break
        cursor = page.keys[0] if backward else page.keys[-1]
    ordered = pages[::-1] if backward else pages
    return [i for p in ordered for i in p.items], pages


async def test_equal_starts_are_ordered_by_id_and_walked_both_ways(deps: Deps, pool: Any) -> None:
    v = await arena(pool, fields=4)
    fields = list(v.resource_ids.values())
    for hour in (9, 10, 11):
        for f in fields:  # four bookings share each start: only the id tells them apart
            await _book(deps, v.unit_id, f, 9, hour)
    expected = [r["id"] for r in await pool.fetch(
        "SELECT id FROM bookings WHERE unit_id = $1 ORDER BY lower(during), id", v.unit_id)]
    search = BookingSearch(tenant_id=v.tenant_id, unit_id=v.unit_id)
    for size in (1, 3, 5, 12, 13):
        for backward in (False, True):
            items, pages = await _walk(deps, lambda rows, r: rows.bookings(search, r), size, backward)
            assert [b.id for b in items] == expected, (size, backward)
            assert all(len(p.items) <= size for p in pages)
            first, last = (pages[-1], pages[0]) if backward else (pages[0], pages[-1])
            assert not first.has_previous and not last.has_next
    # A window between two keys, from either end.
    keys = (await listings.read(deps, lambda rows: rows.bookings(search, PageRequest(12)))).keys
    window = PageRequest(3, after=keys[2], before=keys[9])
    assert [b.id for b in (await listings.read(deps, lambda rows: rows.bookings(search, window))).items] == \
        expected[3:6]
    back = PageRequest(3, backward=True, after=keys[2], before=keys[9])
    page = await listings.read(deps, lambda rows: rows.bookings(search, back))
    assert [b.id for b in page.items] == expected[6:9] and page.has_previous and page.has_next


async def test_a_units_audit_trail_newest_first_in_pages(deps: Deps, pool: Any) -> None:
    v = await arena(pool)
    field = v.resource_ids["Campo 1"]
    for hour in range(9, 16):
        await _book(deps, v.unit_id, field, 10, hour)
    expected = [r["booking_id"] for r in await pool.fetch(
        "SELECT booking_id FROM booking_events WHERE unit_id = $1 ORDER BY id DESC", v.unit_id)]
    for backward in (False, True):
        items, _ = await _walk(deps, lambda rows, r: rows.unit_history(v.unit_id, r), 2, backward)
        assert [e.booking_id for e in items] == expected


async def test_a_customers_search_reaches_only_the_records_their_session_proves(deps: Deps, pool: Any) -> None:
    v = await arena(pool)
    c = list(v.resource_ids.values())
    a_phone, b_phone = "+5511987651001", "+5511987651002"
    a = await _book(deps, v.unit_id, c[0], 11, 9, CustomerIdentity(cpf=cpf(192_001), phone=a_phone, name="Ana"))
    # Staff typed Ana's phone on another record (another CPF): her session's proved phone reaches it, as for
    # booking(id).
    a2 = await _book(deps, v.unit_id, c[1], 11, 9, CustomerIdentity(cpf=cpf(192_003), phone=a_phone))
    b = await _book(deps, v.unit_id, c[2], 11, 9, CustomerIdentity(cpf=cpf(192_002), phone=b_phone, name="Bia"))
    ana = await pool.fetchval("SELECT customer_id FROM bookings WHERE id = $1", a)

    async def found(own: OwnBookings | None, **criteria: Any) -> set[UUID]:
        search = BookingSearch(tenant_id=v.tenant_id, unit_id=v.unit_id, own=own, **criteria)
        page = await listings.read(deps, lambda rows: rows.bookings(search, PageRequest(50)))
        return {x.id for x in page.items}

    proved = OwnBookings(customer_id=ana, phone=a_phone)
    assert await found(proved) == {a, a2}
    assert await found(OwnBookings(customer_id=ana)) == {a}  # nothing proved: the session's own record only
    assert await found(proved, phone=b_phone) == set()
    assert await found(proved, cpf=cpf(192_002)) == set()
    assert await found(proved, name="bia") == set()
    assert await found(None, phone=b_phone) == {b}  # staff
    # Another tenant's customers are never looked at, even with the same phone.
    other = await arena(pool)
    await _book(deps, other.unit_id, other.resource_ids["Campo 1"], 11, 9,
                CustomerIdentity(cpf=cpf(192_002), phone=b_phone))
    search = BookingSearch(tenant_id=v.tenant_id, unit_id=None, phone=b_phone)
    page = await listings.read(deps, lambda rows: rows.bookings(search, PageRequest(50)))
    assert {x.id for x in page.items} == {b}
