"""Relay cursor connections (issue 19): a 1,000-booking `bookings` connection walked forwards and backwards while
bookings are added; who sees what; cursors refused. The other connections: test_connections_lists.py."""

from __future__ import annotations

import asyncio
import base64
import random
from datetime import datetime
from typing import Any
from uuid import UUID, uuid4

from domain.services import CounterCommand, Deps, counter_booking
from schema.ids import decode_id, global_id
from store.access import PgAccess
from tests.api.conftest import Api
from tests.venues import arena, at

SEARCH = """
query($u: ID, $f: BookingFilter, $first: Int, $after: String, $last: Int, $before: String) {
  bookings(unitId: $u, filter: $f, first: $first, after: $after, last: $last, before: $before) {
    edges { cursor node { id startsAt status customerId } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}
"""


async def staff_token(pool: Any, tenant: UUID, unit: UUID | None, role: str) -> str:
    """A staff token of the tenant (bound to `unit` unless None)."""
    return (await PgAccess(pool).issue_token(tenant, unit, "staff", role, [], role))[1]


def uuid_of(answer_id: str) -> UUID:
    return decode_id(answer_id)[1]


async def book_many(deps: Deps, unit: UUID, slots: list[tuple[UUID, int, int]], tasks: int = 6) -> list[UUID]:
    """Counter bookings of (resource, day, hour) through the use case, by a few concurrent tasks."""
    made: list[UUID] = []

    async def worker(part: list[tuple[UUID, int, int]]) -> None:
        for resource, day, hour in part:
            r = await counter_booking(deps, CounterCommand(unit_id=unit, starts_at=at(day, hour),
                                                           ends_at=at(day, hour + 1), resource_ids=(resource,),
                                                           actor="staff", channel="counter"))
            made.append(r.booking.id)

    await asyncio.gather(*(worker(slots[i::tasks]) for i in range(tasks)))
    return made


async def walk(api: Api, variables: dict[str, Any], size: int, backward: bool = False,
               headers: dict[str, str] | None = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every node of the connection in the list's order, walking forwards by `first` or backwards by `last`, and
    each page's pageInfo in the order the pages were read."""
    pages: list[list[dict[str, Any]]] = []
    infos: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        step = {"last": size, "before": cursor} if backward else {"first": size, "after": cursor}
        found = (await api.gql(SEARCH, {**variables, **step}, headers))["bookings"]
        pages.append([e["node"] for e in found["edges"]])
        info = found["pageInfo"]
        infos.append(info)
        assert [e["cursor"] for e in found["edges"]][:1] == ([info["startCursor"]] if found["edges"] else [])
        more = info["hasPreviousPage"] if backward else info["hasNextPage"]
        if not more:
            break
        cursor = info["startCursor"] if backward else info["endCursor"]
    if backward:
        pages.reverse()
    return [n for p in pages for n in p], infos


def in_order(nodes: list[dict[str, Any]]) -> bool:
    keys = [(datetime.fromisoformat(n["startsAt"]), uuid_of(n["id"])) for n in nodes]
    return keys == sorted(keys) and len(set(keys)) == len(keys)


async def test_a_thousand_bookings_walked_both_ways_while_bookings_are_added(api: Api, deps: Deps,
                                                                             pool: Any) -> None:
    v = await arena(pool, fields=5)
    fields = [v.resource_ids[f"Campo {i}"] for i in range(1, 5)]
    slots = [(f, day, hour) for day in range(8, 25) for hour in range(8, 23) for f in fields][:1000]
    await book_many(deps, v.unit_id, slots)
    existing = {r["id"] for r in await pool.fetch("SELECT id FROM bookings WHERE unit_id = $1", v.unit_id)}
    assert len(existing) == 1000

    # While the walks go on, bookings land on the fifth field on every day: behind and ahead of each cursor.
    late = [(v.resource_ids["Campo 5"], day, hour) for day in range(8, 25) for hour in range(8, 23)]
    random.Random(19).shuffle(late)
    walking = asyncio.Event()
    added: list[UUID] = []

    async def add_while_walking() -> None:
        for resource, day, hour in late:
            if walking.is_set():
                return
            added.extend(await book_many(deps, v.unit_id, [(resource, day, hour)], tasks=1))
            await asyncio.sleep(0.01)

    adder = asyncio.create_task(add_while_walking())
    try:
        forwards, f_infos = await walk(api, {"u": str(v.unit_id)}, 97)
        backwards, b_infos = await walk(api, {"u": str(v.unit_id)}, 89, backward=True)
    finally:
        walking.set()
        await adder
    assert added, "no booking was added during the walks"
    for nodes in (forwards, backwards):
        ids = [uuid_of(n["id"]) for n in nodes]
        assert len(ids) == len(set(ids)), "a booking was met twice"
        assert existing <= set(ids), f"{len(existing - set(ids))} bookings that existed at the start were missed"
        assert in_order(nodes)
    # pageInfo at both ends and in between (the far side of a cursor is answered, not left false).
    assert not f_infos[0]["hasPreviousPage"] and f_infos[0]["hasNextPage"]
    assert all(i["hasPreviousPage"] and i["hasNextPage"] for i in f_infos[1:-1])
    assert f_infos[-1]["hasPreviousPage"] and not f_infos[-1]["hasNextPage"]
    assert not b_infos[0]["hasNextPage"] and b_infos[0]["hasPreviousPage"]
    assert all(i["hasPreviousPage"] and i["hasNextPage"] for i in b_infos[1:-1])
    assert b_infos[-1]["hasNextPage"] and not b_infos[-1]["hasPreviousPage"]
    assert len(f_infos) >= 11 and len(b_infos) >= 12

    # Off both ends: an empty page with no cursors.
    end = (await api.gql(SEARCH, {"u": str(v.unit_id), "first": 5, "after": f_infos[-1]["endCursor"]}))["bookings"]
    if not end["edges"]:  # (unless a booking was added after it meanwhile)
        assert end["pageInfo"] == {"hasNextPage": False, "hasPreviousPage": True, "startCursor": None,
                                   "endCursor": None}


async def test_another_tenants_staff_get_the_answer_of_a_missing_unit(api: Api, pool: Any) -> None:
    v, other = await arena(pool), await arena(pool)
    stranger = await staff_token(pool, other.tenant_id, None, "owner")
    operator = await staff_token(pool, v.tenant_id, v.unit_id, "operator")

    async def answer(token: str, unit: str) -> tuple[Any, Any]:
        r = await api.http.post("/graphql", headers={"authorization": f"Bearer {token}"},
                                json={"query": SEARCH, "variables": {"u": unit, "first": 5}})
        body = r.json()
        (error,) = body["errors"]
        return body.get("data"), {k: v for k, v in error["extensions"].items()}

    missing = str(uuid4())
    data_a, ext_a = await answer(stranger, str(v.unit_id))
    data_b, ext_b = await answer(stranger, missing)
    assert data_a == data_b is None
    assert ext_a == ext_b == {"code": "not_found", "field": "unitId"}
    # Global ids too: the same answer for another tenant's unit and a unit that does not exist.
    _, ext_c = await answer(stranger, global_id("Unit", v.unit_id))
    assert ext_c == ext_b
    # The unit's own operator reads it.
    ok = await api.gql(SEARCH, {"u": str(v.unit_id), "first": 5}, {"authorization": f"Bearer {operator}"})
    assert ok["bookings"]["edges"] == []


async def _refusal(api: Api, variables: dict[str, Any]) -> dict[str, Any]:
    r = await api.http.post("/graphql", json={"query": SEARCH, "variables": variables})
    body = r.json()
    assert body.get("data") is None and body["errors"], body
    return body["errors"][0]["extensions"]  # type: ignore[no-any-return]


async def test_malformed_and_foreign_cursors_are_refused_naming_the_argument(api: Api, deps: Deps,
                                                                             pool: Any) -> None:
    v = await arena(pool)
    await book_many(deps, v.unit_id, [(v.resource_ids["Campo 1"], 9, h) for h in (9, 10, 11)], tasks=1)
    u = str(v.unit_id)
    page = (await api.gql(SEARCH, {"u": u, "first": 2}))["bookings"]
    good = page["pageInfo"]["endCursor"]
    queue = await api.gql("query($u: ID!) { queueConnection(unitId: $u) { pageInfo { endCursor } } }", {"u": u})
    assert queue["queueConnection"]["pageInfo"]["endCursor"] is None  # (no queue items: no cursor to borrow)
    foreign = base64.urlsafe_b64encode(b'["queue",0,"2026-12-08T12:00:00+00:00",'
                                       b'"00000000-0000-0000-0000-000000000000"]').decode().rstrip("=")
    bad = ["garbage!!", "", "x" * 500, good[:-3], global_id("Booking", uuid4()), foreign,
           base64.urlsafe_b64encode(b'["bookings","yesterday","nope"]').decode().rstrip("="),
           base64.urlsafe_b64encode(b'["bookings","2026-12-08T12:00:00","00000000-0000-0000-0000-000000000000"]')
           .decode().rstrip("="),  # a naive instant
           base64.urlsafe_b64encode(b"[" * 5000).decode()]
    for argument in ("after", "before"):
        for cursor in bad:
            ext = await _refusal(api, {"u": u, argument: cursor})
            assert ext["field"] == argument and ext["code"] in ("invalid_cursor", "too_long"), (cursor, ext)
    assert (await _refusal(api, {"u": u, "first": 2, "last": 2})) == {"code": "first_with_last", "field": "last"}
    assert (await _refusal(api, {"u": u, "last": 501}))["field"] == "last"
    assert (await _refusal(api, {"u": u, "last": 0})) == {"code": "invalid_page_size", "field": "last"}
    assert (await _refusal(api, {"u": u, "first": 501})) == {"code": "page_too_large", "field": "first"}
    # The good cursor goes on where it left off.
    rest = (await api.gql(SEARCH, {"u": u, "first": 2, "after": good}))["bookings"]
    assert len(rest["edges"]) == 1 and not rest["pageInfo"]["hasNextPage"] and rest["pageInfo"]["hasPreviousPage"]
    # after and before together: the window between them.
    first = page["edges"][0]["cursor"]
    last = rest["edges"][0]["cursor"]
    between = (await api.gql(SEARCH, {"u": u, "after": first, "before": last}))["bookings"]
    assert [e["node"]["id"] for e in between["edges"]] == [page["edges"][1]["node"]["id"]]
