"""Calendar feeds (issue 23) on real PostgreSQL: made through GraphQL, fetched at their URL, parsed back with the
`icalendar` library; what each feed shows (a customer's own bookings, a unit's or a resource's agenda), what
disappears from it (cancelled, dropped, lapsed, out of the window), ETag/304, revocation, bad secrets, and who may
make, list and revoke which feed — customer against customer, another tenant, operator against manager."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any
from uuid import UUID

import httpx
import pytest
from icalendar import Calendar

from domain.calendar_feeds import MAX_CUSTOMER_FEEDS, SECRET_PREFIX
from schema.ids import decode_id, global_id
from slothold.app import create_app
from slothold.settings import Settings
from store.access import PgAccess
from tests.api.conftest import system_token
from tests.api.test_access import _service, _sign_in
from tests.api.test_nodes import Nodes
from tests.conftest import MutableClock
from tests.venues import arena, at, cpf

PUBLIC = "https://reservas.example"
CREATE = """mutation($u: ID!, $r: ID, $n: String) { createCalendarFeed(unitId: $u, resourceId: $r, name: $n) {
  __typename ... on CreatedCalendarFeed { url webcalUrl feed { id scope unitId resourceId customerId name revokedAt } }
  ... on Error { code message } ... on InvalidInput { field } } }"""
REVOKE = """mutation($f: ID!) { revokeCalendarFeed(feedId: $f) { __typename
  ... on CalendarFeedRevoked { feed { id revokedAt } } ... on Error { code message } } }"""
LIST = """query($u: ID!, $all: Boolean!) { calendarFeeds(unitId: $u, includeRevoked: $all, first: 50) {
  edges { node { id scope name revokedAt } } pageInfo { hasNextPage } } }"""
HOLD = """mutation($i: HoldInput!) { hold(input: $i) { __typename ... on BookingPayload { booking { id status } }
  ... on Error { code message } } }"""
COUNTER = """mutation($i: CounterBookingInput!) { counterBooking(input: $i) { __typename
  ... on BookingPayload { booking { id status } } ... on Error { code message } } }"""


@dataclass
class Feeds(Nodes):
    """Callers by name (Nodes.post and gql), the unit and its bookings."""

    unit: str = ""
    other_unit: str = ""
    fields: dict[str, str] = field(default_factory=dict)
    unit_name: str = ""
    bookings: dict[str, str] = field(default_factory=dict)
    """Name → the booking's global id, as the API answered it."""

    async def create(self, caller: str, resource: str | None = None, name: str | None = None,
                     unit: str | None = None) -> dict[str, Any]:
        made = (await self.gql(caller, CREATE, {"u": unit or self.unit, "r": resource, "n": name}))
        return made["createCalendarFeed"]  # type: ignore[no-any-return]

    async def fetch(self, url: str, etag: str | None = None) -> httpx.Response:
        assert url.startswith(PUBLIC + "/calendar/") and url.endswith(".ics"), url
        return await self.client.get(url.removeprefix(PUBLIC), headers={"if-none-match": etag} if etag else {})

    async def events(self, url: str) -> dict[str, Any]:
        """The feed's events by UID, parsed back with icalendar."""
        r = await self.fetch(url)
        assert r.status_code == 200, r.text
        cal = Calendar.from_ical(r.content)
        return {str(e["UID"]): e for e in cal.walk("VEVENT")}


def uid(booking_gid: str) -> str:
    return f"{decode_id(booking_gid)[1]}@slothold"


@pytest.fixture
async def feeds(database_url: str, redis_url: str, clock: MutableClock, pool: Any) -> AsyncIterator[Feeds]:
    app = create_app(Settings(database_url=database_url, redis_url=redis_url, db_pool_max=10,
                              public_base_url=PUBLIC), clock=clock)
    async with app.router.lifespan_context(app):
        access: PgAccess = app.state.slothold["access"]
        v, other = await arena(pool), await arena(pool)
        tokens: dict[str, str | None] = {"anonymous": None, "system": await system_token(access)}
        for role in ("operator", "manager", "owner"):
            tokens[role] = (await access.issue_token(v.tenant_id, v.unit_id, "staff", role, [], role))[1]
        tokens["read"] = (await access.issue_token(v.tenant_id, None, "client", None, ["read"], "read"))[1]
        tokens["stranger"] = (await access.issue_token(other.tenant_id, None, "staff", "owner", [], "other"))[1]
        service = await _service(pool, clock, v.unit_id, v.resource_ids["Campo 1"])
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://slothold.test") as client:
            phones = {}
            for who in ("customer_a", "customer_b"):
                phones[who] = f"+55119{secrets.randbelow(10**8):08d}"
                tokens[who] = await _sign_in(client, tokens["system"], v.unit_id, phones[who])  # type: ignore[arg-type]
            w = Feeds(client, tokens, unit=global_id("Unit", v.unit_id), other_unit=global_id("Unit", other.unit_id),
                      fields={name: global_id("Resource", rid) for name, rid in v.resource_ids.items()})
            w.unit_name = await pool.fetchval("SELECT name FROM units WHERE id = $1", v.unit_id)

            def slot(day: int, hour: int) -> dict[str, str]:
                return {"unitId": w.unit, "startsAt": at(day, hour).isoformat(),
                        "endsAt": at(day, hour + 1).isoformat()}

            async def book(name: str, caller: str, query: str, i: dict[str, Any]) -> None:
                answer = next(iter((await w.gql(caller, query, {"i": i})).values()))
                assert answer["__typename"] == "BookingPayload", answer
                w.bookings[name] = answer["booking"]["id"]

            # Customer A: a hold with a service on Campo 1, and a counter booking made for A's phone on Campo 2.
            await book("a_held", "customer_a", HOLD, {**slot(8, 10), "resourceIds": [w.fields["Campo 1"]],
                                                      "serviceId": str(service), "customer": {"name": "Ana"}})
            await book("a_confirmed", "system", COUNTER, {**slot(9, 18), "resourceIds": [w.fields["Campo 2"]],
                                                          "customer": {"phone": phones["customer_a"]}})
            await book("b_held", "customer_b", HOLD, {**slot(8, 12), "resourceIds": [w.fields["Campo 3"]],
                                                      "customer": {"name": "Bia"}})
            await book("carlos", "system", COUNTER, {**slot(10, 20), "resourceIds": [w.fields["Campo 1"]],
                                                     "customer": {"cpf": cpf(700_001), "name": "Carlos Souza"}})
            yield w


def _lines(body: bytes) -> list[bytes]:
    assert body.endswith(b"\r\n") and b"\n" not in body.replace(b"\r\n", b""), "every line ends with CRLF"
    return body.split(b"\r\n")[:-1]


async def test_a_customer_feed_shows_their_own_bookings_as_calendar_events(feeds: Feeds, clock: MutableClock
                                                                          ) -> None:
    made = await feeds.create("customer_a", name="Meu celular")
    assert made["__typename"] == "CreatedCalendarFeed", made
    url, feed = made["url"], made["feed"]
    assert url.startswith(f"{PUBLIC}/calendar/{SECRET_PREFIX}") and made["webcalUrl"] == "webcal://" + url[8:]
    assert len(url.removeprefix(f"{PUBLIC}/calendar/{SECRET_PREFIX}").removesuffix(".ics")) == 43  # 256 bits
    assert feed["scope"] == "CUSTOMER" and feed["name"] == "Meu celular" and feed["resourceId"] is None
    assert feed["unitId"] == feeds.unit and feed["customerId"] and feed["revokedAt"] is None

    r = await feeds.fetch(url)
    assert r.status_code == 200 and r.headers["content-type"] == "text/calendar; charset=utf-8"
    assert r.headers["etag"] and "no-cache" in r.headers["cache-control"]
    lines = _lines(r.content)
    assert all(len(line) <= 75 for line in lines), "lines are folded at 75 octets (RFC 5545 §3.1)"
    for line in lines:
        line.decode("utf-8")  # folding never splits a multi-octet character ("ç", "ã", "·")
    assert any(line.startswith(b" ") for line in lines), "a long DESCRIPTION is folded onto continuation lines"
    cal = Calendar.from_ical(r.content)
    assert str(cal["VERSION"]) == "2.0" and str(cal["PRODID"]).startswith("-//Slothold//")
    assert str(cal["X-WR-CALNAME"]) == f"Minhas reservas · {feeds.unit_name}"
    events = {str(e["UID"]): e for e in cal.walk("VEVENT")}
    # Only A's: the hold A made and the counter booking staff made for A's phone; never B's or Carlos's.
    assert set(events) == {uid(feeds.bookings["a_held"]), uid(feeds.bookings["a_confirmed"])}

    held = events[uid(feeds.bookings["a_held"])]
    assert str(held["STATUS"]) == "TENTATIVE"
    assert held.decoded("DTSTART") == at(8, 10) and held.decoded("DTEND") == at(8, 11)
    assert held.decoded("DTSTART").tzinfo is not None and held.decoded("DTSTART").utcoffset().total_seconds() == 0
    assert str(held["SUMMARY"]) == "Matriz · Campo 1 (a confirmar)"
    assert str(held["LOCATION"]) == f"Campo 1 · {feeds.unit_name}"
    link = f"{PUBLIC}/v1/bookings/{feeds.bookings['a_held']}"
    assert str(held["URL"]) == link and link in str(held["DESCRIPTION"])
    assert "Situação: Pré-reserva" in str(held["DESCRIPTION"]) and "Cliente" not in str(held["DESCRIPTION"])
    assert int(held["SEQUENCE"]) >= 1 and held.decoded("LAST-MODIFIED") <= clock.now()

    confirmed = events[uid(feeds.bookings["a_confirmed"])]
    assert str(confirmed["STATUS"]) == "CONFIRMED" and str(confirmed["SUMMARY"]) == "Campo 2"
    assert confirmed.decoded("DTSTART") == at(9, 18) and confirmed.decoded("DTEND") == at(9, 19)
    # The link is the booking's REST address, which its customer reads with their session.
    r = await feeds.client.get(str(confirmed["URL"]).removeprefix(PUBLIC),
                               headers={"authorization": f"Bearer {feeds.tokens['customer_a']}"})
    assert r.status_code == 200 and r.json()["id"] == feeds.bookings["a_confirmed"], r.text


async def test_staff_feeds_show_the_unit_or_one_resource_with_customer_names(feeds: Feeds) -> None:
    unit = await feeds.create("manager", name="Recepção")
    assert unit["__typename"] == "CreatedCalendarFeed" and unit["feed"]["scope"] == "UNIT", unit
    events = await feeds.events(unit["url"])
    assert set(events) == {uid(b) for b in feeds.bookings.values()}
    carlos = events[uid(feeds.bookings["carlos"])]
    assert str(carlos["SUMMARY"]) == "Campo 1 — Carlos Souza" and str(carlos["STATUS"]) == "CONFIRMED"
    assert "Cliente: Carlos Souza" in str(carlos["DESCRIPTION"])
    assert str(events[uid(feeds.bookings["a_held"])]["SUMMARY"]) == "Matriz · Campo 1 — Ana (a confirmar)"

    one = await feeds.create("owner", resource=feeds.fields["Campo 1"])
    assert one["feed"]["scope"] == "RESOURCE" and one["feed"]["resourceId"] == feeds.fields["Campo 1"], one
    cal = Calendar.from_ical((await feeds.fetch(one["url"])).content)
    assert str(cal["X-WR-CALNAME"]) == f"Agenda · Campo 1 · {feeds.unit_name}"
    assert {str(e["UID"]) for e in cal.walk("VEVENT")} == {uid(feeds.bookings["a_held"]),
                                                           uid(feeds.bookings["carlos"])}
    # A resource of another unit is not found; a customer's feed takes no resource.
    other_resource = global_id("Resource", UUID(int=5))
    refused = await feeds.create("manager", resource=other_resource)
    assert refused["__typename"] == "NotFound" and refused["code"] == "not_found", refused
    refused = await feeds.create("customer_a", resource=feeds.fields["Campo 1"])
    assert refused["__typename"] == "InvalidInput" and refused["field"] == "resourceId", refused
    refused = await feeds.create("manager", name="x" * 81)
    assert refused["__typename"] == "InvalidInput" and refused["code"] == "invalid_name", refused
    # Made and revoked staff feeds are in the venue log, without their secret.
    await feeds.gql("manager", REVOKE, {"f": one["feed"]["id"]})
    log = await feeds.gql("owner", "query($u: ID!) { venueChanges(unitId: $u) { entity action entityId before "
                                   "after } }", {"u": feeds.unit})
    mine = [c for c in log["venueChanges"] if c["entity"] == "CALENDAR_FEED"]
    assert {(c["action"], c["entityId"]) for c in mine} == {
        ("CREATED", unit["feed"]["id"]), ("CREATED", one["feed"]["id"]), ("REMOVED", one["feed"]["id"])}
    assert SECRET_PREFIX not in str(mine)


async def test_cancelled_dropped_and_lapsed_bookings_disappear_and_an_unchanged_feed_is_304(
        feeds: Feeds, clock: MutableClock) -> None:
    staff = (await feeds.create("manager"))["url"]
    mine = (await feeds.create("customer_a"))["url"]
    first = await feeds.fetch(staff)
    etag = first.headers["etag"]
    again = await feeds.fetch(staff, etag)
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag
    assert (await feeds.fetch(staff, f'W/{etag}, "other"')).status_code == 304
    assert (await feeds.fetch(staff, '"something-else"')).status_code == 200
    head = await feeds.client.head(staff.removeprefix(PUBLIC))
    assert head.status_code == 200 and head.headers["etag"] == etag and head.content == b""

    # Staff cancel Carlos's booking: it is gone from the staff feed, whose ETag changes.
    cancel = await feeds.gql("manager", 'mutation($b: ID!) { cancel(bookingId: $b, reason: "chuva") { __typename } }',
                             {"b": feeds.bookings["carlos"]})
    assert cancel["cancel"]["__typename"] == "BookingPayload", cancel
    changed = await feeds.fetch(staff, etag)
    assert changed.status_code == 200 and changed.headers["etag"] != etag
    events = {str(e["UID"]) for e in Calendar.from_ical(changed.content).walk("VEVENT")}
    assert uid(feeds.bookings["carlos"]) not in events and len(events) == 3

    # A manager drops A's hold: gone from A's feed and the unit's.
    drop = await feeds.gql("manager", 'mutation($b: ID!) { drop(bookingId: $b, reason: "teste") { __typename } }',
                           {"b": feeds.bookings["a_held"]})
    assert drop["drop"]["__typename"] == "BookingPayload", drop
    assert set(await feeds.events(mine)) == {uid(feeds.bookings["a_confirmed"])}

    # B's hold lapses: it leaves the feed at its deadline, before any sweeper marks it expired.
    clock.advance(hours=2)
    assert set(await feeds.events(staff)) == {uid(feeds.bookings["a_confirmed"])}
    # The window: from 30 days back. Two months on, the December bookings are out of it.
    clock.advance(days=45)
    assert await feeds.events(staff) == {} and await feeds.events(mine) == {}


async def test_a_revoked_unknown_or_malformed_secret_is_a_bare_404(feeds: Feeds,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "slothold.http")
    made = await feeds.create("customer_a")
    url, feed_id = made["url"], made["feed"]["id"]
    assert (await feeds.fetch(url)).status_code == 200
    revoked = await feeds.gql("customer_a", REVOKE, {"f": feed_id})
    assert revoked["revokeCalendarFeed"]["__typename"] == "CalendarFeedRevoked"
    assert revoked["revokeCalendarFeed"]["feed"]["revokedAt"] is not None
    again = await feeds.gql("customer_a", REVOKE, {"f": feed_id})  # revoking again changes nothing
    assert again["revokeCalendarFeed"]["feed"]["revokedAt"] == revoked["revokeCalendarFeed"]["feed"]["revokedAt"]
    gone = await feeds.fetch(url)
    unknown = await feeds.fetch(f"{PUBLIC}/calendar/{SECRET_PREFIX}{'A' * 43}.ics")
    for bad in (gone, unknown):
        assert bad.status_code == 404 and bad.content == b"" and "calendar" not in bad.headers.get("content-type", "")
    for path in (f"/calendar/{SECRET_PREFIX}short.ics", "/calendar/%27%20OR%201=1.ics",
                 f"/calendar/{url.rsplit('/', 1)[1].removesuffix('.ics').upper()}.ics", "/calendar/.ics"):
        r = await feeds.client.get(path)
        assert r.status_code == 404 and r.content in (b"", b"Not Found"), (path, r.content)
    # A revoked feed is listed only when asked for, and a missing one is not_found.
    listed = (await feeds.gql("customer_a", LIST, {"u": feeds.unit, "all": False}))["calendarFeeds"]["edges"]
    assert listed == []
    listed = (await feeds.gql("customer_a", LIST, {"u": feeds.unit, "all": True}))["calendarFeeds"]["edges"]
    assert [e["node"]["id"] for e in listed] == [feed_id]
    missing = await feeds.gql("manager", REVOKE, {"f": global_id("CalendarFeed", UUID(int=9))})
    assert missing["revokeCalendarFeed"]["__typename"] == "NotFound"
    wrong = await feeds.gql("manager", REVOKE, {"f": feeds.unit})
    assert wrong["revokeCalendarFeed"] == {"__typename": "InvalidInput", "code": "invalid_id",
                                           "message": wrong["revokeCalendarFeed"]["message"]}
    # The request log names the feeds' route, never a secret.
    logged = [str(getattr(r, "path", "")) for r in caplog.records if r.name == "slothold.http"]
    assert "/calendar/{secret}.ics" in logged and not [p for p in logged if SECRET_PREFIX in p]


def _code(body: dict[str, Any]) -> str | None:
    errors = body.get("errors") or []
    return errors[0]["extensions"]["code"] if errors else None


async def test_who_may_make_list_and_revoke_which_feed(feeds: Feeds) -> None:
    a = await feeds.create("customer_a")
    b = await feeds.create("customer_b")
    staff = await feeds.create("manager")
    # Operators and read-only integrators make no feed (a feed carries customers' names out of the API); another
    # tenant's owner neither; anonymous callers must sign in.
    for caller, code in (("operator", "forbidden"), ("read", "forbidden"), ("stranger", "forbidden"),
                         ("anonymous", "unauthenticated")):
        body = await feeds.post(caller, CREATE, {"u": feeds.unit})
        assert _code(body) == code and not (body.get("data") or {}).get("createCalendarFeed"), (caller, body)
    # Customer A's session is not a customer of the other tenant's unit.
    assert _code(await feeds.post("customer_a", CREATE, {"u": feeds.other_unit})) == "forbidden"

    # Each customer lists only their own; staff list the staff feeds, never customers'.
    def ids(body: dict[str, Any]) -> list[str]:
        return [e["node"]["id"] for e in body["calendarFeeds"]["edges"]]

    assert ids(await feeds.gql("customer_a", LIST, {"u": feeds.unit, "all": True})) == [a["feed"]["id"]]
    assert ids(await feeds.gql("customer_b", LIST, {"u": feeds.unit, "all": True})) == [b["feed"]["id"]]
    assert ids(await feeds.gql("manager", LIST, {"u": feeds.unit, "all": True})) == [staff["feed"]["id"]]
    assert ids(await feeds.gql("owner", LIST, {"u": feeds.unit, "all": True})) == [staff["feed"]["id"]]
    assert _code(await feeds.post("operator", LIST, {"u": feeds.unit, "all": True})) == "forbidden"
    assert _code(await feeds.post("stranger", LIST, {"u": feeds.unit, "all": True})) == "not_found"
    assert _code(await feeds.post("anonymous", LIST, {"u": feeds.unit, "all": True})) == "unauthenticated"

    # Nobody revokes a feed that is not theirs to revoke: the feed keeps working.
    for caller, feed in (("customer_b", a), ("customer_a", staff), ("manager", a), ("operator", staff),
                         ("stranger", staff), ("read", staff), ("anonymous", a)):
        body = await feeds.post(caller, REVOKE, {"f": feed["feed"]["id"]})
        assert _code(body) in ("forbidden", "unauthenticated") and not (body.get("data") or {}).get(
            "revokeCalendarFeed"), (caller, body)
        assert (await feeds.fetch(feed["url"])).status_code == 200, caller
    # node(id): the same rules; a refusal is the same null as a missing feed.
    node = "query($i: ID!) { node(id: $i) { id ... on CalendarFeed { scope } } }"
    assert (await feeds.gql("customer_a", node, {"i": a["feed"]["id"]}))["node"]["scope"] == "CUSTOMER"
    for caller, feed in (("customer_b", a), ("manager", a), ("operator", staff), ("stranger", staff),
                         ("customer_a", staff)):
        assert (await feeds.gql(caller, node, {"i": feed["feed"]["id"]}))["node"] is None, caller
    assert (await feeds.gql("system", node, {"i": a["feed"]["id"]}))["node"]["scope"] == "CUSTOMER"  # the platform
    # Whose it is may: customer B their own, the owner a manager's staff feed.
    assert (await feeds.gql("customer_b", REVOKE, {"f": b["feed"]["id"]}))["revokeCalendarFeed"]["feed"]["revokedAt"]
    assert (await feeds.gql("owner", REVOKE, {"f": staff["feed"]["id"]}))["revokeCalendarFeed"]["feed"]["revokedAt"]
    assert (await feeds.fetch(b["url"])).status_code == 404 and (await feeds.fetch(staff["url"])).status_code == 404
    assert (await feeds.fetch(a["url"])).status_code == 200



async def test_a_staff_feed_ends_with_the_token_that_made_it(feeds: Feeds, clock: MutableClock) -> None:
    issue = ("mutation($u: ID!, $e: DateTime) { issueStaffToken(input: {unitId: $u, kind: STAFF, role: MANAGER, "
             'name: "gerente", expiresAt: $e}) { ... on IssuedStaffToken { secret token { id } } } }')
    urls, ids = {}, {}
    for who, expires in (("leaving", None), ("temporary", (clock.now() + timedelta(hours=1)).isoformat())):
        issued = (await feeds.gql("owner", issue, {"u": feeds.unit, "e": expires}))["issueStaffToken"]
        feeds.tokens[who] = issued["secret"]
        ids[who] = issued["token"]["id"]
        made = await feeds.create(who, name=who)
        assert made["feed"]["revokedAt"] is None and (await feeds.fetch(made["url"])).status_code == 200
        urls[who] = made["url"]
    listed = await feeds.gql("owner", LIST.replace("revokedAt", "revokedAt active createdBy"),
                             {"u": feeds.unit, "all": False})
    assert {e["node"]["name"]: e["node"]["createdBy"] for e in listed["calendarFeeds"]["edges"]} == {
        "leaving": f"staff:{decode_id(ids['leaving'])[1]}", "temporary": f"staff:{decode_id(ids['temporary'])[1]}"}
    # The owner revokes the leaving manager's token: that manager's feed stops at once, the other goes on.
    await feeds.gql("owner", "mutation($t: ID!) { revokeStaffToken(tokenId: $t) { __typename } }",
                    {"t": ids["leaving"]})
    assert (await feeds.fetch(urls["leaving"])).status_code == 404
    assert (await feeds.fetch(urls["temporary"])).status_code == 200
    # The temporary token expires: its feed with it.
    clock.advance(hours=2)
    assert (await feeds.fetch(urls["temporary"])).status_code == 404
    listed = await feeds.gql("owner", LIST.replace("revokedAt", "revokedAt active"), {"u": feeds.unit, "all": False})
    assert listed["calendarFeeds"]["edges"] == []
    listed = await feeds.gql("owner", LIST.replace("revokedAt", "revokedAt active"), {"u": feeds.unit, "all": True})
    assert {(e["node"]["name"], e["node"]["active"], e["node"]["revokedAt"]) for e in
            listed["calendarFeeds"]["edges"]} == {("leaving", False, None), ("temporary", False, None)}


async def test_concurrent_creations_never_pass_a_customers_limit(feeds: Feeds) -> None:
    for _ in range(MAX_CUSTOMER_FEEDS - 2):
        assert (await feeds.create("customer_a"))["__typename"] == "CreatedCalendarFeed"
    answers = await asyncio.gather(*(feeds.gql("customer_a", CREATE, {"u": feeds.unit}) for _ in range(6)))
    kinds = sorted(a["createCalendarFeed"]["__typename"] for a in answers)
    assert kinds == ["CreatedCalendarFeed"] * 2 + ["InvalidInput"] * 4, answers
    refused = next(a["createCalendarFeed"] for a in answers if a["createCalendarFeed"]["__typename"] != "Created"
                   "CalendarFeed")
    assert refused["code"] == "too_many_calendar_feeds" and refused["field"] == "unitId", refused
    listed = (await feeds.gql("customer_a", LIST, {"u": feeds.unit, "all": False}))["calendarFeeds"]["edges"]
    assert len(listed) == MAX_CUSTOMER_FEEDS
    # Customer B's allowance is B's own; revoking one of A's makes room for another.
    assert (await feeds.create("customer_b"))["__typename"] == "CreatedCalendarFeed"
    await feeds.gql("customer_a", REVOKE, {"f": listed[0]["node"]["id"]})
    assert (await feeds.create("customer_a"))["__typename"] == "CreatedCalendarFeed"
