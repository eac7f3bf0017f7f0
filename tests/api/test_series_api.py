"""Recurring bookings through GraphQL (issue 23): customer A against customer B and another tenant's staff, the
conflicts as typed answers, one acceptance with prices per occurrence, the grid's series field, the unit's list."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

import httpx
import pytest

from domain import service_catalog
from domain.payments import PaymentRule
from domain.services import Deps
from schema.ids import decode_id
from slothold.app import create_app
from slothold.settings import Settings
from store import units as unit_cache
from store.access import PgAccess
from store.uow import PgUnitOfWork
from tests.api.conftest import system_token
from tests.api.test_access import _footprint, _sign_in
from tests.conftest import MutableClock
from tests.venues import arena, at, cpf

HOLD_SERIES = """mutation($i: SeriesInput!) { holdSeries(input: $i) { __typename
  ... on SeriesPayload { series { id status everyWeeks localStart occurrences { id seriesIndex status } }
                         bookings { id seriesId seriesIndex startsAt }
                         skipped { index reason } conflicts { index startsAt alternatives { resourceId startsAt } } }
  ... on SeriesConflicts { code conflicts { index startsAt resourceIds alternatives { resourceId startsAt } } }
  ... on Error { code message } } }"""

CHANGE = "... on SeriesChangePayload { series { id status } bookings { id status } } ... on Error { code message }"


@dataclass
class World:
    client: httpx.AsyncClient
    tokens: dict[str, str]
    unit: UUID
    fields: dict[str, UUID]
    pool: Any
    clock: MutableClock

    async def post(self, caller: str, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        r = await self.client.post("/graphql", json={"query": query, "variables": variables or {}},
                                   headers={"authorization": f"Bearer {self.tokens[caller]}"})
        return r.json()  # type: ignore[no-any-return]

    async def gql(self, caller: str, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        body = await self.post(caller, query, variables)
        assert "errors" not in body, body
        return body["data"]  # type: ignore[no-any-return]


@pytest.fixture
async def world(database_url: str, redis_url: str, clock: MutableClock, pool: Any) -> AsyncIterator[World]:
    app = create_app(Settings(database_url=database_url, redis_url=redis_url, db_pool_max=10), clock=clock)
    async with app.router.lifespan_context(app):
        access: PgAccess = app.state.slothold["access"]
        v, other = await arena(pool), await arena(pool)
        tokens = {"system": await system_token(access)}
        tokens["operator"] = (await access.issue_token(v.tenant_id, v.unit_id, "staff", "operator", [], "op"))[1]
        tokens["manager"] = (await access.issue_token(v.tenant_id, v.unit_id, "staff", "manager", [], "mg"))[1]
        tokens["stranger"] = (await access.issue_token(other.tenant_id, None, "staff", "owner", [], "other"))[1]
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://slothold.test") as client:
            for who in ("a", "b"):
                phone = f"+55119{secrets.randbelow(10**8):08d}"
                tokens[who] = await _sign_in(client, tokens["system"], v.unit_id, phone)
            yield World(client, tokens, v.unit_id, v.resource_ids, pool, clock)


def _series_input(w: World, day: int, n: int, field: str | None = "Campo 1", **kw: Any) -> dict[str, Any]:
    i: dict[str, Any] = {"unitId": str(w.unit), "startsAt": at(day, 20).isoformat(), "endsAt": at(day, 21).isoformat(),
                         "occurrences": n, "customer": {"name": "Regular"}, **kw}
    if field:
        i["resourceIds"] = [str(w.fields[field])]
    return i


async def _counter(w: World, field: str, day: int, hour: int) -> None:
    d = await w.gql("operator", "mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!) { counterBooking(input: "
                                "{unitId: $u, resourceIds: [$r], startsAt: $s, endsAt: $e}) { __typename } }",
                    {"u": str(w.unit), "r": str(w.fields[field]), "s": at(day, hour).isoformat(),
                     "e": at(day, hour + 1).isoformat()})
    assert d["counterBooking"]["__typename"] == "BookingPayload"


async def test_customer_a_series_is_theirs_alone(world: World) -> None:
    w = world
    await _counter(w, "Campo 1", 15, 20)  # the second Tuesday is taken
    got = (await w.gql("a", HOLD_SERIES, {"i": _series_input(w, 8, 4, mode="FREE_ONLY")}))["holdSeries"]
    assert got["__typename"] == "SeriesPayload", got
    series = got["series"]
    assert series["status"] == "HELD" and series["localStart"] == "20:00" and series["everyWeeks"] == 1
    assert [b["seriesIndex"] for b in got["bookings"]] == [0, 2, 3]
    assert {b["seriesId"] for b in got["bookings"]} == {series["id"]}
    assert [c["index"] for c in got["conflicts"]] == [1] and got["conflicts"][0]["alternatives"]
    sid, first = series["id"], got["bookings"][0]["id"]

    before = await _footprint(w.pool)
    for caller in ("b", "stranger"):
        for query, variables in (
            ("query($s: ID!) { series(id: $s) { __typename } }", {"s": sid}),
            ("mutation($s: ID!) { confirmSeries(seriesId: $s) { __typename } }", {"s": sid}),
            ("mutation($s: ID!, $f: DateTime!) { cancelSeriesFrom(seriesId: $s, from: $f) { __typename } }",
             {"s": sid, "f": at(8, 0).isoformat()}),
            ('mutation($s: ID!) { retimeSeries(seriesId: $s, localStart: "18:00") { __typename } }', {"s": sid}),
            ("mutation($b: ID!) { cancel(bookingId: $b) { __typename } }", {"b": first}),
            ("mutation($b: ID!, $s: DateTime!, $e: DateTime!) { reschedule(bookingId: $b, input: {startsAt: $s, "
             "endsAt: $e}) { __typename } }", {"b": first, "s": at(8, 18).isoformat(), "e": at(8, 19).isoformat()}),
        ):
            body = await w.post(caller, query, variables)
            codes = [e["extensions"]["code"] for e in body.get("errors") or []]
            assert codes and codes[0] in ("forbidden", "not_found"), (caller, query, body)
        assert (await w.gql(caller, 'query($i: ID!) { node(id: $i) { id } }', {"i": sid}))["node"] is None
    body = await w.post("stranger", "query($u: ID!) { unitSeries(unitId: $u) { edges { node { id } } } }",
                        {"u": str(w.unit)})
    assert body["errors"][0]["extensions"]["code"] == "not_found"
    body = await w.post("b", "query($u: ID!) { unitSeries(unitId: $u) { edges { node { id } } } }", {"u": str(w.unit)})
    assert body["errors"][0]["extensions"]["code"] == "forbidden"
    assert await _footprint(w.pool) == before  # nothing written by the refused

    mine = (await w.gql("a", "query($s: ID!) { series(id: $s) { ... on Series { id status occurrences { id } "
                             "quote { totalCents occurrences { bookingId } } } } }", {"s": sid}))["series"]
    assert len(mine["occurrences"]) == 3 and len(mine["quote"]["occurrences"]) == 3
    done = (await w.gql("a", "mutation($s: ID!) { confirmSeries(seriesId: $s) { " + CHANGE + " } }",
                        {"s": sid}))["confirmSeries"]
    assert done["series"]["status"] == "CONFIRMED" and {b["status"] for b in done["bookings"]} == {"CONFIRMED"}
    b = (await w.gql("a", "query($b: ID!) { booking(id: $b) { ... on Booking { seriesId seriesIndex series { id "
                          "status } } } }", {"b": first}))["booking"]
    assert b == {"seriesId": sid, "seriesIndex": 0, "series": {"id": sid, "status": "CONFIRMED"}}

    # Staff: the unit's series with their state, and each occurrence on the grid names its series.
    listed = (await w.gql("operator", "query($u: ID!) { unitSeries(unitId: $u, first: 10) { edges { node { id "
                                      "status } } } }", {"u": str(w.unit)}))["unitSeries"]["edges"]
    assert {"id": sid, "status": "CONFIRMED"} in [e["node"] for e in listed]
    grid = (await w.gql("operator", "query($u: ID!, $f: DateTime!, $t: DateTime!) { availabilityGrid(unitId: $u, "
                                    "from: $f, to: $t) { ... on Grid { rows { resource { name } segments { bookingId "
                                    "seriesId } } } } }",
                        {"u": str(w.unit), "f": at(22, 0).isoformat(), "t": at(23, 0).isoformat()}))
    cells = [s for r in grid["availabilityGrid"]["rows"] if r["resource"]["name"] == "Campo 1"
             for s in r["segments"] if s["bookingId"]]
    assert [c["seriesId"] for c in cells] == [sid]

    # A's own changes: every future occurrence to 19:00, then the rest of the series from the 22nd.
    moved = (await w.gql("a", 'mutation($s: ID!) { retimeSeries(seriesId: $s, localStart: "19:00") { ' + CHANGE
                         + " } }", {"s": sid}))["retimeSeries"]
    assert len(moved["bookings"]) == 3
    cut = (await w.gql("a", "mutation($s: ID!, $f: DateTime!) { cancelSeriesFrom(seriesId: $s, from: $f) { "
                       + CHANGE + " } }", {"s": sid, "f": at(22, 0).isoformat()}))["cancelSeriesFrom"]
    assert len(cut["bookings"]) == 2 and cut["series"]["status"] == "CONFIRMED"


async def test_all_or_nothing_answers_each_conflict_and_writes_nothing(world: World) -> None:
    w = world
    await _counter(w, "Campo 2", 16, 20)
    await _counter(w, "Campo 2", 30, 20)
    before = await _footprint(w.pool)
    got = (await w.gql("a", HOLD_SERIES, {"i": _series_input(w, 9, 4, "Campo 2")}))["holdSeries"]
    assert got["__typename"] == "SeriesConflicts" and got["code"] == "series_conflicts"
    assert [c["index"] for c in got["conflicts"]] == [1, 3]
    assert all(c["alternatives"] for c in got["conflicts"])
    assert await _footprint(w.pool) == before

    for extra, code in (({"occurrences": 61}, "too_many_occurrences"), ({"occurrences": None}, "no_occurrences"),
                        ({"everyWeeks": 0}, "invalid_input")):
        got = (await w.gql("a", HOLD_SERIES, {"i": {**_series_input(w, 9, 4, "Campo 3"), **extra}}))["holdSeries"]
        assert (got["__typename"], got["code"]) == ("InvalidInput", code), got


PERIODS = ("query($s: ID!) { series(id: $s) { ... on Series { status occurrences { status } periods { startsOn "
           "status amountCents dueAt deadlineAt paidByHand paidAt charge { amountCents status copiaECola qrCodePng "
           "txid } } } } }")
PAY_PERIOD = ("mutation($s: ID!, $d: Date!) { recordSeriesPeriodPayment(seriesId: $s, startsOn: $d, method: CASH, "
              'reason: "pagou no balcão") { ' + CHANGE + " } }")
SANDBOX_PAY = ("mutation($t: String!) { sandboxPay(txid: $t) { ... on PaymentOutcome { outcome } "
               "... on Error { code } } }")


async def test_one_acceptance_prices_each_occurrence_and_charges_the_first_month(
        world: World, pool: Any, clock: MutableClock) -> None:
    w = world
    deps = Deps(uow=lambda: PgUnitOfWork(pool), clock=clock)
    made = await service_catalog.create_service(deps, w.unit, service_catalog.ServiceDraft(
        "Mensalista", (1,), (w.fields["Campo 3"],), 12000, PaymentRule.FULL), "tests")
    await pool.execute("UPDATE units SET max_advance_days = 60 WHERE id = $1", w.unit)
    unit_cache.invalidate(w.unit)
    # Paid by Pix: three Thursdays of December and one of January, each priced; accepted once.
    got = (await w.gql("a", HOLD_SERIES, {"i": _series_input(w, 17, 4, "Campo 3", serviceId=str(made.id))}))
    sid = got["holdSeries"]["series"]["id"]
    quote = (await w.gql("a", "query($s: ID!) { series(id: $s) { ... on Series { quote { totalCents dueNowCents "
                              "occurrences { totalCents } } } } }", {"s": sid}))["series"]["quote"]
    assert quote == {"totalCents": 48000, "dueNowCents": 48000, "occurrences": [{"totalCents": 12000}] * 4}
    for caller in ("b", "stranger"):  # B sees nothing of A's periods, and cannot accept them
        body = await w.post(caller, PERIODS, {"s": sid})
        assert body.get("errors") and body["errors"][0]["extensions"]["code"] in ("forbidden", "not_found"), body
    done = (await w.gql("a", "mutation($s: ID!) { confirmSeries(seriesId: $s) { " + CHANGE + " } }",
                        {"s": sid}))["confirmSeries"]
    assert done["series"]["status"] == "CONFIRMED", done
    assert {b["status"] for b in done["bookings"]} == {"PENDING_PAYMENT"}
    shown = (await w.gql("a", PERIODS, {"s": sid}))["series"]
    dec, jan = shown["periods"]
    assert (dec["startsOn"], dec["status"], dec["amountCents"]) == ("2026-12-01", "charged", 36000)
    assert dec["charge"]["amountCents"] == 36000 and dec["charge"]["status"] == "PENDING"
    assert dec["charge"]["copiaECola"].startswith("000201") and dec["charge"]["qrCodePng"].startswith("data:image/png")
    assert (jan["startsOn"], jan["status"], jan["charge"]) == ("2027-01-01", "open", None)
    # Only managers and owners record a period by hand; the customer and an operator are refused, B too.
    for caller in ("a", "b", "operator", "stranger"):
        body = await w.post(caller, PAY_PERIOD, {"s": sid, "d": "2027-01-01"})
        assert body.get("errors") and body["errors"][0]["extensions"]["code"] in ("forbidden", "not_found"), body
    # The first month's one Pix confirms its three occurrences; the manager records January by hand.
    paid = (await w.gql("a", SANDBOX_PAY, {"t": dec["charge"]["txid"]}))["sandboxPay"]
    assert paid == {"outcome": "CONFIRMED"}
    hand = (await w.gql("manager", PAY_PERIOD, {"s": sid, "d": "2027-01-01"}))["recordSeriesPeriodPayment"]
    assert [b["status"] for b in hand["bookings"]] == ["CONFIRMED"]
    again = (await w.gql("manager", PAY_PERIOD, {"s": sid, "d": "2027-01-01"}))["recordSeriesPeriodPayment"]
    assert again["code"] == "invalid_transition"
    shown = (await w.gql("a", PERIODS, {"s": sid}))["series"]
    assert [(p["status"], p["paidByHand"]) for p in shown["periods"]] == [("paid", False), ("paid", True)]
    assert {o["status"] for o in shown["occurrences"]} == {"CONFIRMED"}


async def test_an_unaccepted_series_expires_with_its_hold(world: World, pool: Any, clock: MutableClock) -> None:
    w = world
    deps = Deps(uow=lambda: PgUnitOfWork(pool), clock=clock)
    made = await service_catalog.create_service(deps, w.unit, service_catalog.ServiceDraft(
        "Mensalista", (1,), (w.fields["Campo 3"],), 12000, PaymentRule.FULL), "tests")
    got = (await w.gql("a", HOLD_SERIES, {"i": _series_input(w, 10, 3, "Campo 3", serviceId=str(made.id))}))
    sid = got["holdSeries"]["series"]["id"]
    stored = await pool.fetch("SELECT status FROM bookings WHERE series_id = $1", decode_id(sid)[1])
    assert {r["status"] for r in stored} == {"held"}
    # The hold lapses: the series shows EXPIRED, and accepting it now is an InvalidTransition.
    clock.advance(hours=3)
    shown = (await w.gql("a", "query($s: ID!) { series(id: $s) { ... on Series { status } } }", {"s": sid}))
    assert shown["series"]["status"] == "EXPIRED"
    late = (await w.gql("a", "mutation($s: ID!) { confirmSeries(seriesId: $s) { " + CHANGE + " } }",
                        {"s": sid}))["confirmSeries"]
    assert late["code"] == "invalid_transition"
    clock.advance(hours=-3)


async def test_counter_series_every_other_week_until_a_date(world: World) -> None:
    w = world
    got = (await w.gql("operator", "mutation($i: CounterSeriesInput!) { counterSeries(input: $i) { __typename ... on "
                                   "SeriesPayload { series { status everyWeeks } bookings { startsAt status } } "
                                   "... on Error { code message } } }",
                       {"i": {"unitId": str(w.unit), "resourceIds": [str(w.fields["Campo 4"])],
                              "startsAt": at(8, 9).isoformat(), "endsAt": at(8, 10).isoformat(), "everyWeeks": 2,
                              "until": "2027-01-05"}}))["counterSeries"]
    assert got["series"] == {"status": "CONFIRMED", "everyWeeks": 2}
    starts = [b["startsAt"] for b in got["bookings"]]
    assert len(starts) == 3 and {b["status"] for b in got["bookings"]} == {"CONFIRMED"}
    assert [datetime.fromisoformat(s) for s in starts] == [at(8, 9) + timedelta(weeks=2 * k) for k in range(3)]


async def test_a_retried_series_is_held_once(world: World) -> None:
    w = world
    i = _series_input(w, 11, 3, "Campo 4")
    first = (await w.post("a", "mutation($i: SeriesInput!, $k: String) { holdSeries(input: $i, idempotencyKey: $k) "
                               "{ ... on SeriesPayload { series { id } replayed } } }", {"i": i, "k": "season-1"}))
    again = (await w.post("a", "mutation($i: SeriesInput!, $k: String) { holdSeries(input: $i, idempotencyKey: $k) "
                               "{ ... on SeriesPayload { series { id } replayed } } }", {"i": i, "k": "season-1"}))
    assert first["data"]["holdSeries"]["replayed"] is False and again["data"]["holdSeries"]["replayed"] is True
    assert again["data"]["holdSeries"]["series"]["id"] == first["data"]["holdSeries"]["series"]["id"]
    other = (await w.post("a", "mutation($i: SeriesInput!, $k: String) { holdSeries(input: $i, idempotencyKey: $k) "
                               "{ __typename ... on Error { code } } }",
                          {"i": {**i, "occurrences": 2}, "k": "season-1"}))["data"]["holdSeries"]
    assert other == {"__typename": "IdempotencyKeyReused", "code": "idempotency_key_reused"}


async def test_a_free_only_series_races_single_holds_over_http(world: World) -> None:
    w = world
    field = str(w.fields["Campo 2"])
    hold = ("mutation($i: HoldInput!) { hold(input: $i) { __typename ... on BookingPayload { booking { id "
            "startsAt } } } }")

    def single(week: int, n: int) -> Any:
        s = at(8, 18) + timedelta(weeks=week)
        return w.post("operator", hold, {"i": {"unitId": str(w.unit), "resourceIds": [field], "startsAt": s.isoformat(),
                                               "endsAt": (s + timedelta(hours=1)).isoformat(),
                                               "customer": {"cpf": cpf(700_000 + 10 * week + n)}}})

    series = w.post("a", HOLD_SERIES, {"i": {**_series_input(w, 8, 4, "Campo 2", mode="FREE_ONLY"),
                                             "startsAt": at(8, 18).isoformat(), "endsAt": at(8, 19).isoformat()}})
    found = await asyncio.gather(series, *(single(week, n) for week in (1, 3) for n in range(3)))
    got = found[0]["data"]["holdSeries"]
    won = {round((datetime.fromisoformat(r["data"]["hold"]["booking"]["startsAt"]) - at(8, 18))
                 / timedelta(weeks=1)) for r in found[1:] if r["data"]["hold"]["__typename"] == "BookingPayload"}
    assert sum(1 for r in found[1:] if r["data"]["hold"]["__typename"] == "BookingPayload") == len(won)
    assert got["__typename"] == "SeriesPayload", got
    assert {c["index"] for c in got["conflicts"]} == won
    assert {b["seriesIndex"] for b in got["bookings"]} == {0, 1, 2, 3} - won
    taken = await w.pool.fetch("SELECT lower(during) AS s FROM allocations WHERE unit_id = $1 AND resource_id = $2 "
                               "AND occupies", w.unit, w.fields["Campo 2"])
    assert len(taken) == 4 == len({r["s"] for r in taken})  # every week once, never twice


async def test_the_units_series_list_reads_every_series_occurrences_at_once(world: World, monkeypatch) -> None:
    """unitSeries shows each series with its own occurrences, read for the whole page in one statement (it read
    them series by series: a page of 50 was 50 units of work more)."""
    w = world
    one = (await w.gql("a", HOLD_SERIES, {"i": _series_input(w, 8, 3)}))["holdSeries"]
    two = (await w.gql("b", HOLD_SERIES, {"i": _series_input(w, 9, 2, field="Campo 2")}))["holdSeries"]
    assert one["__typename"] == two["__typename"] == "SeriesPayload", (one, two)
    from store.series import PgSeries

    async def one_by_one(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("unitSeries read a series' bookings on their own")

    monkeypatch.setattr(PgSeries, "bookings", one_by_one)
    listed = await w.gql("operator", "query($u: ID!) { unitSeries(unitId: $u, first: 10) { edges { node { id "
                                     "occurrences { id seriesIndex } } } } }", {"u": str(w.unit)})
    edges = listed["unitSeries"]["edges"]
    shown = {e["node"]["id"]: [o["seriesIndex"] for o in e["node"]["occurrences"]] for e in edges}
    assert shown == {one["series"]["id"]: [0, 1, 2], two["series"]["id"]: [0, 1]}, shown
    ids = {e["node"]["id"]: {o["id"] for o in e["node"]["occurrences"]} for e in edges}
    assert ids[one["series"]["id"]] == {o["id"] for o in one["series"]["occurrences"]}
